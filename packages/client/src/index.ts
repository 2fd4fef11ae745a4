export type { ApiKeysClient, CreateApiKeyOptions } from "./api-keys.js";
export {
  type AuthClient,
  isSecondFactorRequired,
  type TotpClient,
  type VerifySecondFactorOptions,
} from "./auth.js";
export {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  type BackoffOptions,
  backoffDelay,
  type Timers,
} from "./backoff.js";
export type { BillingClient, CheckoutOptions } from "./billing.js";
export {
  type ClientOptions,
  createClient,
  type FnCallOptions,
  type SvcClient,
} from "./create-client.js";
export type {
  Deleted,
  EntityCollection,
  EntityWriteOptions,
  InsertInput,
  ListOptions,
  OrderBy,
  Page,
} from "./entities.js";
export {
  errorFromResponse,
  INVALID_RESPONSE,
  NETWORK_ERROR,
  SvcError,
  type SvcErrorOptions,
} from "./errors.js";
export {
  createHydrationCache,
  type HydrationCache,
  type HydrationState,
  liveKey,
  queryKey,
  serializeState,
} from "./hydration.js";
export { generateId, isValidId } from "./ids.js";
export type { LiveOptions } from "./live.js";
export type { WebSocketConstructor, WebSocketLike } from "./live-socket.js";
export type { LiveStatus, LiveStatusListener, LiveTransportName } from "./live-status.js";
export {
  buildOAuthLoginURL,
  type OAuthLoginOptions,
  type OAuthRedirectOutcome,
  parseOAuthRedirect,
} from "./oauth.js";
export type { OptimisticChange, OptimisticUpdate, OptimisticWriter } from "./optimistic.js";
export type { QueuedWrite } from "./queue-entries.js";
export type {
  Room,
  RoomMessage,
  RoomOptions,
  RoomSendOptions,
  RoomState,
  RoomStatus,
} from "./rooms.js";
export type { RoomMember } from "./rooms-frames.js";
export { type SSEEvent, SSEParser } from "./sse-parser.js";
export { createMemoryStorage, type TokenStorage } from "./storage.js";
export type {
  LiveQuery,
  LiveQueryListener,
  RowsListener,
  SubscribeOptions,
  Subscription,
} from "./subscribe.js";
export type { PulledChange, PullOptions, PullResult, SyncClient } from "./sync.js";
export type { AuthChange, AuthChangeListener, AuthChangeReason } from "./token-state.js";
export type { CallOptions, FetchFunction } from "./transport.js";
export type {
  AccountDeleted,
  AnyApi,
  ApiKeyRecord,
  ApiShape,
  BillingSubscription,
  CheckoutSession,
  CodeSent,
  Entitlements,
  EntityName,
  EntityRow,
  FunctionArgs,
  FunctionName,
  FunctionResult,
  FunctionShape,
  GivenOr,
  GuestSession,
  LinkSent,
  Me,
  MintedJWT,
  NewApiKey,
  OAuthProviderInfo,
  PasswordChanged,
  Register,
  RegisteredApi,
  SecondFactorRequired,
  SecondFactorSignIn,
  SessionInfo,
  SignIn,
  SignInResult,
  TotpEnabled,
  TotpEnrollment,
  TotpStatus,
} from "./types.js";
export {
  QUEUE_CLEARED,
  type QueueEntityOptions,
  type QueueEvent,
  type QueueFnOptions,
  type QueueOptions,
  type QueueState,
  type WriteQueue,
} from "./write-queue.js";
export {
  IDEMPOTENCY_KEY_IN_PROGRESS,
  type WriteCallOptions,
  type WriteOptions,
} from "./write-sender.js";
