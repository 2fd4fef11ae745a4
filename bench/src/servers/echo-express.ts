// Baseline D: express 5 with the settings apps/server uses, parsing the JSON
// body (express.json, as svc's function route does) and echoing it. The bench
// sends it `{"pong":true}`, so its answer is byte for byte case 2's.
import express from "express";
import { portFromEnv } from "./port.js";

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/ready", (_req, res) => {
  res.json({ ready: true });
});
app.post("/", express.json({ type: () => true }), (req, res) => {
  res.json(req.body);
});
app.listen(portFromEnv(), "127.0.0.1");
