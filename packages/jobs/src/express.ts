export { createJobsRouter, JOBS_ADMIN_PATH } from "./express/jobs-router.js";
