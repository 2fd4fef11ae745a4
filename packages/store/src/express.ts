export {
  createEntityRouter,
  type EntityRouterOptions,
  registerEntityRoutes,
} from "./express/entity-router.js";
export { jsonBody } from "./express/json-body.js";
export { IDEMPOTENCY_HEADER, REPLAYED_HEADER, sendAnswer } from "./express/send-answer.js";
export { type StoreModule, type StoreModuleOptions, storeModule } from "./express/store-module.js";
export { MAX_BATCH_OPERATIONS } from "./rest-input.js";
