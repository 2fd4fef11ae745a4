export { createSyncRouter, SYNC_PULL_PATH } from "./express/sync-router.js";
