export {
  createFunctionRouter,
  type FunctionCaller,
  type FunctionRouterOptions,
} from "./express/function-router.js";
