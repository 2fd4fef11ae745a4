import type { Transport } from "./transport.js";
import type { ApiKeyRecord, NewApiKey } from "./types.js";

/** Options of `apiKeys.create`. */
export interface CreateApiKeyOptions {
  /** A human label. */
  readonly name: string;
  /** Opaque, comma-separated, application-defined; never enforced by the server. */
  readonly scopes?: string;
  /** Unix seconds; default no expiry. */
  readonly expiresAt?: number | null;
}

/** API keys of the signed-in user; every call needs a real session (not a key, not a JWT). */
export interface ApiKeysClient {
  /** `POST /api/auth/api-keys`: the full `pk.` key is in `key`, shown this once. */
  create(options: CreateApiKeyOptions): Promise<NewApiKey>;
  /** `GET /api/auth/api-keys`: never the full keys. */
  list(): Promise<ApiKeyRecord[]>;
  /** `DELETE /api/auth/api-keys/<id>`: 404 `NOT_FOUND` unless the caller owns it. */
  revoke(id: string): Promise<{ revoked: true }>;
}

/** Builds `client.apiKeys`. */
export function createApiKeysClient(transport: Transport): ApiKeysClient {
  return {
    async create(options) {
      const body = {
        name: options.name,
        ...(options.scopes !== undefined && { scopes: options.scopes }),
        ...(options.expiresAt !== undefined && { expires_at: options.expiresAt }),
      };
      return (
        await transport.request<NewApiKey>({ method: "POST", path: "/api/auth/api-keys", body })
      ).data;
    },
    async list() {
      return (
        await transport.request<ApiKeyRecord[]>({ method: "GET", path: "/api/auth/api-keys" })
      ).data;
    },
    async revoke(id) {
      const path = `/api/auth/api-keys/${encodeURIComponent(id)}`;
      return (await transport.request<{ revoked: true }>({ method: "DELETE", path })).data;
    },
  };
}
