import { adminAuth, type Row, type Store, StoreError } from "@svc/store";
import { AuthError } from "./errors.js";
import type { UserEntityInfo } from "./user-entity.js";

/**
 * auth-core's access to the application's `User` rows. Every write goes
 * through the store with the admin caller, so it is validated like any
 * other write and raises change events (a live query on `User` sees a
 * sign-up). Reads look past the entity's policies.
 */
export interface UserDirectory {
  /** Throws `USER_ENTITY_MISSING` (501) when the app has no `User`; else what boot learned. */
  require(): UserEntityInfo;
  /** Whether the app declares a `User` entity. */
  exists(): boolean;
  findByField(field: "email" | "phone", value: string): Promise<Row | null>;
  get(id: string): Promise<Row | null>;
  /**
   * The user with this email (or phone), created when absent. With
   * `verifiedAt` a new row gets `emailVerified` (when the entity declares
   * it); an existing row is returned as it is: a sign-in that proved the
   * address verifies it with `proveAddress` (flows/address-proof.ts), which
   * also decides what happens to credentials made before the proof.
   */
  findOrCreate(
    field: "email" | "phone",
    value: string,
    options?: { verifiedAt?: string },
  ): Promise<Row>;
  /** Sets `emailVerified`; `PERSIST_FAILED` when the entity lacks the field. */
  stampEmailVerified(id: string, verifiedAt: string): Promise<void>;
}

/** Builds the directory over a store; `info` is `checkUserEntity(manifest)`. */
export function createUserDirectory(store: Store, info: UserEntityInfo | undefined): UserDirectory {
  const require = (): UserEntityInfo => {
    if (info === undefined) throw new AuthError("USER_ENTITY_MISSING");
    return info;
  };
  const findByField = async (field: "email" | "phone", value: string): Promise<Row | null> => {
    require();
    const page = await store.systemReader().query("User", { where: { [field]: value }, limit: 1 });
    return page.rows[0] ?? null;
  };
  const stamp = async (id: string, verifiedAt: string): Promise<void> => {
    if (!require().hasEmailVerified) throw new AuthError("PERSIST_FAILED");
    await store.transaction(adminAuth, (tx) =>
      tx.update("User", id, { emailVerified: verifiedAt }),
    );
  };
  return {
    require,
    exists: () => info !== undefined,
    findByField,
    get: async (id) => {
      require();
      return store.systemReader().get("User", id);
    },
    async findOrCreate(field, value, options = {}) {
      const { hasEmailVerified } = require();
      const existing = await findByField(field, value);
      const verifiedAt = hasEmailVerified ? options.verifiedAt : undefined;
      if (existing !== null) return existing;
      try {
        return await store.transaction(adminAuth, (tx) =>
          tx.insert("User", {
            [field]: value,
            ...(verifiedAt !== undefined && { emailVerified: verifiedAt }),
          }),
        );
      } catch (error) {
        // A concurrent sign-in created the same user first: use that row.
        if (error instanceof StoreError && error.code === "UNIQUE_VIOLATION") {
          const winner = await findByField(field, value);
          if (winner !== null) return winner;
        }
        throw error;
      }
    },
    stampEmailVerified: stamp,
  };
}
