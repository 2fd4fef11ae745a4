export {
  createEntityRouter,
  type EntityRouterOptions,
  MAX_BATCH_OPERATIONS,
  registerEntityRoutes,
} from "./express/entity-router.js";
export { jsonBody } from "./express/json-body.js";
export { IDEMPOTENCY_HEADER, REPLAYED_HEADER, sendAnswer } from "./express/send-answer.js";
export { type StoreModule, type StoreModuleOptions, storeModule } from "./express/store-module.js";
