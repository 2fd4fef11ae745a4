export { type SyncModule, type SyncModuleOptions, syncModule } from "./express/sync-module.js";
export { createSyncRouter, SYNC_PULL_PATH } from "./express/sync-router.js";
