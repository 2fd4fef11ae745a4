import { ConfigError, type EntityDef, findEntity, type Manifest } from "@svc/schema";

/** What auth-core learned at boot about the application's `User` entity. */
export interface UserEntityInfo {
  /** True when `User` declares `emailVerified` (verification can be stored). */
  readonly hasEmailVerified: boolean;
  /** True when `User` declares a string `phone` field (phone sign-in can find users). */
  readonly hasPhone: boolean;
  /** True when `email` is optional, so a phone sign-in can create a User without one. */
  readonly emailOptional: boolean;
  /**
   * The optional string fields an OAuth sign-up fills from the provider's
   * profile, when `User` declares them: `name`, and `avatarUrl` (or `image`).
   */
  readonly profileFields: { readonly name?: string; readonly avatarUrl?: string };
}

function isUniqueEmail(entity: EntityDef): boolean {
  const email = entity.fields.find((field) => field.name === "email");
  if (email === undefined || email.type !== "string") return false;
  return (
    email.unique ||
    (entity.indexes ?? []).some(
      (index) => index.unique && index.fields.length === 1 && index.fields[0] === "email",
    )
  );
}

/**
 * Checks, at boot, that the application's `User` entity has what auth
 * needs: a unique string `email` (the sign-in key), and no other required
 * field that sign-in could not fill (every other field optional or with a
 * default). Throws a `ConfigError` naming the field otherwise. Returns
 * undefined when the manifest declares no `User`: then only guest sessions
 * and the admin token work, and the other flows answer `USER_ENTITY_MISSING`.
 */
export function checkUserEntity(manifest: Manifest): UserEntityInfo | undefined {
  const user = findEntity(manifest, "User");
  if (user === undefined) return undefined;
  if (!isUniqueEmail(user)) {
    throw new ConfigError(
      "User.email",
      "the User entity must declare `email` as a unique string field; sign-in looks users up by it",
    );
  }
  for (const field of user.fields) {
    if (field.name === "email" || field.optional) continue;
    if (field.type === "datetime" && field.defaultNow) continue;
    throw new ConfigError(
      `User.${field.name}`,
      "is required, but sign-in creates User rows with only email (and emailVerified); make it optional or give it a default",
    );
  }
  const emailVerified = user.fields.find((field) => field.name === "emailVerified");
  if (
    emailVerified !== undefined &&
    emailVerified.type !== "string" &&
    emailVerified.type !== "datetime"
  ) {
    throw new ConfigError("User.emailVerified", "must be a string or datetime field");
  }
  const phone = user.fields.find((field) => field.name === "phone");
  const stringField = (name: string): string | undefined =>
    user.fields.some((field) => field.name === name && field.type === "string") ? name : undefined;
  const nameField = stringField("name");
  const avatarField = stringField("avatarUrl") ?? stringField("image");
  return {
    profileFields: {
      ...(nameField !== undefined && { name: nameField }),
      ...(avatarField !== undefined && { avatarUrl: avatarField }),
    },
    emailOptional: user.fields.some((field) => field.name === "email" && field.optional),
    hasEmailVerified: emailVerified !== undefined,
    hasPhone: phone !== undefined && phone.type === "string",
  };
}

/** `2026-11-25T10:00:00Z`: the spec's timestamp shape for `emailVerified`. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
