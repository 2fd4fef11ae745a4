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
