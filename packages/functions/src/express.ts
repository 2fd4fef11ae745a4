export {
  createFunctionRouter,
  type FunctionCaller,
  type FunctionRouterOptions,
} from "./express/function-router.js";
export {
  type FunctionsModule,
  type FunctionsModuleOptions,
  functionsModule,
} from "./express/functions-module.js";
