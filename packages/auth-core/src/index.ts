export type { ApiKeyRecord, NewApiKey } from "./api-keys.js";
export {
  type AuditEvent,
  type AuditKind,
  auditKinds,
  type OperatorAuditEvent,
  type OperatorAuditKind,
  operatorAuditKinds,
} from "./audit.js";
export type { Auth, MeResponse, SessionInfo } from "./auth.js";
export type { AuthDatabase } from "./auth-database.js";
export type {
  SecondFactorGate,
  SecondFactorRequired,
  SignIn,
  SignInResult,
} from "./auth-runtime.js";
export {
  adminTokenResolver,
  apiKeyResolver,
  type BearerResolver,
  bearerResolvers,
  invalidBearerError,
  sessionResolver,
} from "./bearer-resolvers.js";
export type { AuthCacheStats, CacheStats } from "./cache-stats.js";
export { CODE_TTL_MS, type CodePurpose, MAX_ATTEMPTS, SEND_COOLDOWN_MS } from "./code-store.js";
export { type AuthConfig, parseAuthConfig } from "./config.js";
export { type AuthOptions, createAuth, DEFAULT_SESSION_LIFETIME_SECS } from "./create-auth.js";
export type { Env as ConfigEnv } from "./delivery/env-values.js";
// What the parse*Config functions read, and the options every HTTP transport shares.
export type { DeliveryOptions } from "./delivery/post-json.js";
export {
  AuthError,
  type AuthErrorCode,
  type AuthErrorOptions,
  authErrorCodes,
  rateLimited,
} from "./errors.js";
export { type AccountDeleted, AccountDeletionRefused } from "./flows/account-deletion.js";
export {
  type ExternalIdentity,
  SYNTHESIZED_EMAIL_DOMAIN,
  synthesizedEmail,
} from "./flows/external-identity.js";
export type { CodeSent } from "./flows/magic-code.js";
export type { LinkTargets } from "./flows/magic-link.js";
export type { PasswordChanged } from "./flows/password-change.js";
export { resolveRedirect } from "./flows/redirect-target.js";
export type { UserExport } from "./flows/user-export.js";
export {
  createHS256Key,
  isJWTShaped,
  type JWTClaims,
  signJWT,
  verifyJWT,
} from "./jwt/hs256.js";
export { type JWTConfig, parseJWTConfig } from "./jwt/jwt-config.js";
export {
  JWTError,
  type JWTErrorCode,
  jwtErrorCodes,
} from "./jwt/jwt-errors.js";
export { createJWTService, type JWTService, type MintedJWT } from "./jwt/jwt-service.js";
export {
  createUpstreamJWTVerifier,
  parseUpstreamJWTConfig,
  type UpstreamJWTConfig,
  type UpstreamJWTVerifier,
  upstreamResolver,
} from "./jwt/upstream-jwt.js";
export { isReservedEmail, normalizeEmail, normalizePhone } from "./normalize.js";
export {
  type CaptchaProvider,
  type CaptchaVerifier,
  createCaptchaVerifier,
  createDevInbox,
  createPostmarkTransport,
  createResendTransport,
  createSendGridTransport,
  createSmsWebhookTransport,
  createWebhookTransport,
  type DevInbox,
  type DevMessage,
  type EmailMessage,
  type EmailSettings,
  type EmailTransport,
  magicCodeEmail,
  magicLinkEmail,
  parseCaptchaConfig,
  parseEmailConfig,
  parseSmsConfig,
  passwordResetEmail,
  type SmsMessage,
  type SmsTransport,
  verificationEmail,
} from "./outbound.js";
export {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  verifyPassword,
} from "./password-hash.js";
export { requireRealSession } from "./real-session.js";
export {
  type CallerChangeReason,
  DEFAULT_REVOCATION_POLL_MS,
  DEFAULT_SIGNALLED_REVOCATION_POLL_MS,
  type Revocation,
  type RevocationReason,
  type RevocationSignal,
} from "./revocations.js";
export type { ClientInfo, SessionRecord } from "./session-store.js";
export {
  type ApiKeysTable,
  type AuditTable,
  type AuthTables,
  accountTableNames,
  authMigrations,
  type CodesTable,
  type LinkedAccountsTable,
  type PasswordsTable,
  type RateLimitsTable,
  type SessionsTable,
  sessionTableNames,
  type TrustedDeviceTable,
} from "./tables.js";
export { checkUserEntity, type UserEntityInfo } from "./user-entity.js";
