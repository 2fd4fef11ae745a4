// A fan-out server child: the baseline. A bare `ws` WebSocketServer that
// answers each subscribe frame with an empty snapshot and, per write, sends
// the change frame svc would send (same fields, same JSON size) to every
// socket subscribed to the entity: one JSON.stringify, then a send loop.
import { createServer } from "node:http";
import { generateId } from "@svc/schema";
import { type WebSocket, WebSocketServer } from "ws";
import type { FanoutEntity } from "./protocol.js";
import { serveFanout } from "./server-loop.js";

const http = createServer();
const wss = new WebSocketServer({ server: http, path: "/ws", perMessageDeflate: false });
const subscriptions = new Map<WebSocket, { id: string; entity: string }>();
let cursor = 0;

wss.on("connection", (socket) => {
  socket.on("error", () => undefined);
  socket.on("message", (data) => {
    const frame = JSON.parse(String(data)) as { type?: string; id?: string; entity?: string };
    if (frame.type !== "subscribe" || frame.id === undefined || frame.entity === undefined) return;
    subscriptions.set(socket, { id: frame.id, entity: frame.entity });
    socket.send(
      JSON.stringify({ type: "snapshot", id: frame.id, rows: [], cursor: String(cursor) }),
    );
  });
  socket.on("close", () => subscriptions.delete(socket));
});

const sendChange = (entity: FanoutEntity, data: Record<string, string | number>): void => {
  const id = generateId();
  cursor += 1;
  let text: string | undefined;
  for (const [socket, subscription] of subscriptions) {
    if (subscription.entity !== entity) continue;
    text ??= JSON.stringify({
      type: "change",
      id: subscription.id,
      op: "insert",
      row: { id, ...data },
      rowId: id,
      cursor: String(cursor),
    });
    socket.send(text);
  }
};

await serveFanout({
  http,
  connections: () => subscriptions.size,
  write: async (entity, data) => sendChange(entity, data),
});
