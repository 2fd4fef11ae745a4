export {
  createFunctionRouter,
  type FunctionCaller,
  type FunctionRouterOptions,
  registerFunctionRoutes,
} from "./express/function-router.js";
export {
  type FunctionsModule,
  type FunctionsModuleOptions,
  functionsModule,
} from "./express/functions-module.js";
