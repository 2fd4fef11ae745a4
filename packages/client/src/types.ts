/** One server function as an `Api` declares it: what it takes and what it answers. */
export interface FunctionShape {
  readonly args: unknown;
  readonly result: unknown;
}

/**
 * The shape a generated `Api` type has (what `svc codegen` writes, and
 * `ApiOf<typeof app, functions>` from @svc/functions infers): each
 * function's `args` and `result`, each entity's row fields (without `id`,
 * which every row has).
 *
 * @example
 * type Api = {
 *   functions: { createTodo: { args: { title: string }; result: { id: string } } };
 *   entities: { Todo: { title: string; done: boolean } };
 * };
 * const client = createClient<Api>({ url: "http://localhost:4321" });
 */
export interface ApiShape {
  readonly functions: Readonly<Record<string, FunctionShape>>;
  readonly entities: Readonly<Record<string, object>>;
}

/** The default `Api`: any function name and entity, JSON in and out. */
export interface AnyApi {
  readonly functions: Record<string, { args: Record<string, unknown>; result: unknown }>;
  readonly entities: Record<string, Record<string, unknown>>;
}

/**
 * Where an app registers its `Api` for the React hooks, once, by
 * declaration merging; `useQuery("Todo", …)`, `useLiveQuery` and
 * `useMutation` are then checked against it (names, `where` fields,
 * arguments, results).
 *
 * @example
 * import type { Api } from "./svc-api.js"; // written by `svc codegen`
 * declare module "@svc/client" {
 *   interface Register {
 *     api: Api;
 *   }
 * }
 */
// biome-ignore lint/suspicious/noEmptyInterface: the target of the app's declaration merging.
export interface Register {}

/** The registered `Api` (see `Register`), or `AnyApi` when none is. */
export type RegisteredApi = Register extends { readonly api: infer TApi extends ApiShape }
  ? TApi
  : AnyApi;

/**
 * `never` unless `T` was given: the hand-typed hook forms take their name
 * through it, so a call that fails the typed form cannot fall back on them
 * (an unset type parameter is inferred as `never` or `unknown`).
 */
export type GivenOr<T, TName> = [T] extends [never] ? never : unknown extends T ? never : TName;

/** A function's names in `TApi`. */
export type FunctionName<TApi extends ApiShape> = keyof TApi["functions"] & string;

/** The arguments of `fn(name, ...)`: optional when the function takes none or all are optional. */
export type FunctionArgs<
  TApi extends ApiShape,
  TName extends FunctionName<TApi>,
> = TApi["functions"][TName]["args"] extends infer TArgs
  ? // biome-ignore lint/complexity/noBannedTypes: `{}` is "an object with no required key" here.
    {} extends TArgs
    ? [args?: TArgs]
    : [args: TArgs]
  : never;

/** What `fn(name, ...)` resolves to. */
export type FunctionResult<
  TApi extends ApiShape,
  TName extends FunctionName<TApi>,
> = TApi["functions"][TName]["result"];

/** An entity's names in `TApi`. */
export type EntityName<TApi extends ApiShape> = keyof TApi["entities"] & string;

/** A stored row: the id plus the entity's fields. */
export type EntityRow<TFields> = { readonly id: string } & TFields;

/** The session a sign-in answers (the token is also stored by the client). */
export interface SignIn {
  readonly token: string;
  readonly user_id: string;
  /** Unix seconds. */
  readonly expires_at: number;
}

/**
 * What a first-factor sign-in answers when the user has TOTP on and the
 * device is not trusted: finish with `auth.verifySecondFactor(challenge, code)`.
 */
export interface SecondFactorRequired {
  readonly second_factor_required: true;
  /** Opaque, single use, valid for 10 minutes. */
  readonly challenge: string;
  readonly methods: readonly ("totp" | "backup_code")[];
}

/** A sign-in's answer: a session, or the second-factor challenge. */
export type SignInResult = SignIn | SecondFactorRequired;

/** A finished second-factor sign-in, plus the trusted-device token when one was asked for. */
export type SecondFactorSignIn = SignIn & {
  readonly trusted_device?: { readonly token: string; readonly expires_at: number };
};

/** `POST /api/auth/guest`. */
export interface GuestSession {
  readonly token: string;
  readonly user_id: string;
}

/** What the code-sending calls answer; `dev_code` only in dev mode for a same-machine caller. */
export interface CodeSent {
  readonly sent: true;
  readonly email: string;
  readonly dev_code?: string;
}

/** `POST /api/auth/magic-link/send`; `dev_link` only in dev mode for a same-machine caller. */
export interface LinkSent {
  readonly sent: true;
  readonly email: string;
  readonly dev_link?: string;
}

/** `GET /api/auth/me`. */
export interface Me {
  readonly user_id: string;
  readonly via: string | null;
  readonly is_guest: boolean;
  readonly session_id: string | null;
  /** The `User` row; null for guests and users without one. */
  readonly user: Readonly<Record<string, unknown>> | null;
}

/** One of the caller's sessions (`GET /api/auth/sessions`). */
export interface SessionInfo {
  readonly id: string;
  readonly current: boolean;
  readonly guest: boolean;
  readonly created_at: number;
  readonly expires_at: number;
  readonly user_agent: string | null;
  readonly ip: string | null;
}

/** An API key as listed; never the full key. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: string | null;
  readonly expires_at: number | null;
  readonly last_used_at: number | null;
  readonly created_at: number;
}

/** A new API key: the record plus the full `pk.` key, shown this once. */
export type NewApiKey = ApiKeyRecord & { readonly key: string };

/** `POST /api/auth/jwt`. */
export interface MintedJWT {
  readonly token: string;
  /** Unix seconds. */
  readonly expires_at: number;
}

/** `POST /api/auth/password/change`. */
export interface PasswordChanged {
  readonly changed: true;
  /** How many other sessions of the user were revoked. */
  readonly revoked_sessions: number;
}

/** `DELETE /api/auth/account`. */
export interface AccountDeleted {
  readonly deleted: true;
  readonly revoked_sessions: number;
  readonly revoked_api_keys: number;
  readonly unlinked_accounts: number;
}

/** An enabled OAuth provider (`GET /api/auth/providers`). */
export interface OAuthProviderInfo {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly login_path: string;
}

/** `GET /api/auth/totp`. */
export interface TotpStatus {
  readonly enabled: boolean;
  readonly backup_codes_left: number;
}

/** `POST /api/auth/totp/enroll`: the secret for manual entry and the `otpauth://` URI for a QR code. */
export interface TotpEnrollment {
  readonly secret: string;
  readonly uri: string;
}

/** `POST /api/auth/totp/confirm`: the backup codes, shown this once. */
export interface TotpEnabled {
  readonly enabled: true;
  readonly backup_codes: readonly string[];
}

/** `POST /api/billing/checkout`: send the browser to `url`. */
export interface CheckoutSession {
  readonly url: string;
  readonly id: string;
}

/** One subscription of the caller. */
export interface BillingSubscription {
  readonly id: string;
  readonly status: string;
  readonly priceIds: readonly string[];
  /** Unix seconds, or null when unknown. */
  readonly currentPeriodEnd: number | null;
}

/** `GET /api/billing/entitlements`. */
export interface Entitlements {
  readonly active: boolean;
  readonly subscriptions: readonly BillingSubscription[];
}
