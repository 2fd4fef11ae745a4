/**
 * The error `action` throws, when it is a `type`: tests then assert on its
 * fields. Anything else thrown propagates, and throwing nothing fails the test.
 */
export function thrownBy<E extends Error>(
  type: abstract new (...args: never[]) => E,
  action: () => unknown,
): E {
  try {
    action();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The rejection of `promise`; a promise that resolves fails the test. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
}

/**
 * The rejection of `promise` when it is a `type` with this `code` and
 * `status` (a package's coded error); anything else fails the test.
 */
export async function codedRejectionOf<E extends Error & { code: string; status?: number }>(
  type: abstract new (...args: never[]) => E,
  promise: Promise<unknown>,
  expected: { code: E["code"]; status: number | undefined },
): Promise<E> {
  const error = await rejectionOf(promise);
  if (!(error instanceof type)) {
    throw new Error(`expected a ${type.name}, got ${String(error)}`, { cause: error });
  }
  const { code, status } = error;
  if (code !== expected.code || status !== expected.status) {
    throw new Error(
      `expected ${type.name} ${expected.code} (${expected.status}), got ${code} (${status}): ${error.message}`,
      { cause: error },
    );
  }
  return error;
}
