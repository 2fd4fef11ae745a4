export { SvcProvider, type SvcProviderProps, useSvcClient } from "./provider.js";
export { type AuthState, type UseAuthResult, useAuth } from "./use-auth.js";
export { type LiveQueryState, useLiveQuery } from "./use-live-query.js";
export { type MutationOptions, type MutationState, useMutation } from "./use-mutation.js";
export { type UsePresenceResult, usePresence } from "./use-presence.js";
export { type QueryState, useQuery } from "./use-query.js";
export { type UseRoomOptions, type UseRoomResult, useRoom } from "./use-room.js";
export { useWriteQueue } from "./use-write-queue.js";
