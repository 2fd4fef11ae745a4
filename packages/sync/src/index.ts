// The shard frames are defined in @svc/schema/live-frames (shared with the client).
export {
  MAX_SHARD_DATA_BYTES,
  MAX_SHARD_DATA_DEPTH,
  MAX_SHARD_FRAME_BYTES,
  type ShardErrorFrame,
  type ShardJoinFrame,
  type ShardLeaveFrame,
  type ShardMemberView,
  type ShardMessageFrame,
  type ShardPongFrame,
  type ShardPresenceFrame,
  type ShardServerFrame,
  type ShardWelcomeFrame,
} from "@svc/schema/live-frames";
export {
  type ChangeLog,
  type ChangeLogObserver,
  type ChangeLogOptions,
  createChangeLog,
  DEFAULT_MAX_AGE_MS,
  DEFAULT_MAX_ENTRIES,
  type FeedDelivery,
  type FeedStatus,
  type LogBounds,
  type LogEntry,
  type LoggedChange,
  type ResetEntry,
  type RetentionOptions,
} from "./change-log.js";
export {
  createSync,
  DEFAULT_MAX_CONCURRENT_LOADS,
  DEFAULT_MAX_CONNECTION_LOADS,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_SNAPSHOT_BYTES,
  type PullResult,
  type Sync,
  type SyncLimits,
  type SyncListener,
  type SyncOptions,
} from "./create-sync.js";
export {
  DEFAULT_PULL_LIMIT,
  formatCursor,
  MAX_PULL_LIMIT,
  type PullQuery,
  parsePullQuery,
  pullQuerySchema,
} from "./cursor.js";
export { SyncError, type SyncErrorCode, syncErrorCodes } from "./errors.js";
export {
  createExistsCache,
  DEFAULT_EXISTS_CACHE_ENTRIES,
  type ExistsCache,
} from "./exists-cache.js";
export {
  type AdmitRefusal,
  addressGroup,
  createLiveCallers,
  DEFAULT_MAX_CONNECTIONS_PER_IP,
  DEFAULT_MAX_CONNECTIONS_PER_USER,
  DEFAULT_RECHECK_INTERVAL_MS,
  type LiveCallers,
  type LiveCallersOptions,
  type LiveConnectionHandle,
  type LiveConnectionInfo,
  type LiveRequest,
  type LiveSubscriptionInfo,
  type LiveTransport,
  sameCaller,
} from "./live-callers.js";
export { type LiveQuery, type LiveQueryContext, openLiveQuery } from "./live-query.js";
export {
  createLoadScheduler,
  type LoadLimiter,
  type LoadScheduler,
  type LoadSchedulerOptions,
} from "./load-scheduler.js";
export {
  ChangeFeedError,
  type ChangeFeedErrorCode,
  changeFeedErrorCodes,
  type ListenOptions,
  type RetryOptions,
  reconnectDelay,
} from "./pg-feed.js";
export { startPruning } from "./prune-timer.js";
export {
  createReadTracker,
  type LiveQueryRunner,
  type ReadSet,
  type ReadTracker,
  readDependencies,
  watchedEntities,
} from "./read-tracking.js";
export {
  type FrameSink,
  MAX_SUBSCRIPTIONS,
  openSession,
  type Session,
  whereMatcher,
} from "./session.js";
export {
  DEFAULT_SHARD_CHECK_MS,
  DEFAULT_SHARD_MAX_PENDING_BYTES,
  type RelayHandlers,
  type ShardCluster,
  ShardClusterError,
  type ShardClusterErrorCode,
  type ShardClusterOptions,
  type ShardClusterStats,
  shardClusterErrorCodes,
} from "./shards/cluster-api.js";
export {
  type ShardClientFrame,
  type ShardErrorCode,
  shardClientFrameSchema,
  shardErrorCodes,
} from "./shards/frames.js";
export {
  attachShards,
  DEFAULT_SHARD_KEEPALIVE_MS,
  DEFAULT_SHARD_MAX_QUEUE,
  DEFAULT_SHARD_TICK_MS,
  SHARD_PROTOCOL,
  type ShardHub,
  type ShardOptions,
} from "./shards/hub.js";
export { createShardCluster } from "./shards/relay-pg.js";
export {
  DEFAULT_MAX_RELAY_BATCH_BYTES,
  type RelayMessage,
  relayMessageSchema,
} from "./shards/relay-wire.js";
export type { ShardTimers } from "./shards/room.js";
export {
  createEventStreams,
  DEFAULT_EVENTS_KEEPALIVE_MS,
  DEFAULT_EVENTS_MAX_QUEUE,
  EVENTS_RETRY_MS,
  type EventStreamOptions,
  type EventStreams,
} from "./sse.js";
export { DEFAULT_EVENTS_SUBSCRIPTION_ID, parseEventsQuery } from "./sse-query.js";
export {
  CHANGES_TABLE,
  type ChangesTable,
  type SyncTables,
  syncMigrations,
} from "./tables.js";
export {
  type ChangeViewer,
  cachedExistsResolver,
  type PulledChange,
  type ReadPolicies,
  viewChange,
  visibleChange,
} from "./visibility.js";
export {
  type ChangeFrame,
  type ClientFrame,
  clientFrameSchema,
  type ErrorFrame,
  type LiveQueryFrame,
  MAX_CLIENT_FRAME_BYTES,
  OPERATOR_CLOSE,
  type PongFrame,
  type ResultFrame,
  type ServerFrame,
  type SnapshotFrame,
  type SubscribeFrame,
  WS_CLOSE_CODES,
} from "./ws-frames.js";
export {
  attachWebSocket,
  DEFAULT_WS_KEEPALIVE_MS,
  DEFAULT_WS_MAX_QUEUE,
  type WebSocketHub,
  type WebSocketOptions,
  WS_PROTOCOL,
} from "./ws-hub.js";
