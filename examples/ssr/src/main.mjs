import { createPageServer } from "./page-server.mjs";

// PORT (default 3000) serves the page; SVC_URL (default the dev server) is svc.
const port = Number(process.env.PORT ?? 3000);
const svcURL = process.env.SVC_URL ?? "http://localhost:4321";
createPageServer({ svcURL }).listen(port, () => {
  console.log(`ssr example: http://localhost:${port} (svc at ${svcURL})`);
});
