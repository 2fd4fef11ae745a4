import { mkdirSync } from "node:fs";
import { createComposedApp } from "./app.ts";

const databaseURL = process.env.DATABASE_URL;
const dataDir = process.env.DATA_DIR ?? ".data";
if (databaseURL === undefined && dataDir !== ":memory:") mkdirSync(dataDir, { recursive: true });
const secret = process.env.APP_SECRET;
const adminToken = process.env.ADMIN_TOKEN;
if (secret === undefined || secret.length < 32 || adminToken === undefined) {
  console.error("Set APP_SECRET (at least 32 characters) and ADMIN_TOKEN.");
  process.exit(1);
}

const { app, close } = await createComposedApp({ databaseURL, dataDir, secret, adminToken });
const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : address;
  console.log(`listening on http://127.0.0.1:${port}`);
});
process.once("SIGTERM", () => server.close(() => void close()));
process.once("SIGINT", () => server.close(() => void close()));
