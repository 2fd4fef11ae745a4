export {
  type JobsModule,
  type JobsModuleOptions,
  type JobsWorkerSettings,
  jobsModule,
} from "./express/jobs-module.js";
export { createJobsRouter, JOBS_ADMIN_PATH } from "./express/jobs-router.js";
