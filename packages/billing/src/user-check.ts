import { ConfigError, findEntity, type Manifest } from "@svc/schema";

/** The `User` field that holds the processor's customer id (the spec's `User.paymentCustomerId`). */
export const CUSTOMER_FIELD = "paymentCustomerId";

/**
 * Checks, at boot, that the application's `User` entity can hold the
 * processor's customer id: an optional string field `paymentCustomerId`
 * (written on a user's first checkout). Throws a `ConfigError` naming
 * `User.paymentCustomerId` otherwise. Call it when billing is configured
 * (`SVC_PAYMENT_API_KEY` set); `createBilling` does so itself then.
 *
 * @example
 * if (config.apiKey !== undefined) checkBillingUser(store.manifest);
 */
export function checkBillingUser(manifest: Manifest): void {
  const user = findEntity(manifest, "User");
  if (user === undefined) {
    throw new ConfigError(
      `User.${CUSTOMER_FIELD}`,
      "billing needs a User entity with an optional string field paymentCustomerId",
    );
  }
  const field = user.fields.find((candidate) => candidate.name === CUSTOMER_FIELD);
  if (field === undefined || field.type !== "string" || !field.optional) {
    throw new ConfigError(
      `User.${CUSTOMER_FIELD}`,
      "must be declared on User as an optional string field; billing stores the processor's customer id there",
    );
  }
}
