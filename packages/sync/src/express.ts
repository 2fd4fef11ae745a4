export { type SyncModule, type SyncModuleOptions, syncModule } from "./express/sync-module.js";
export { createSyncRouter, registerSyncRoutes, SYNC_PULL_PATH } from "./express/sync-router.js";
