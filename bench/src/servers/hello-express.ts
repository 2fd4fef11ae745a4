// Baseline B: express 5 with the settings apps/server uses, no body parser.
import express from "express";
import { portFromEnv } from "./port.js";

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.all("/", (_req, res) => {
  res.json({ hello: "world" });
});
app.listen(portFromEnv(), "127.0.0.1");
