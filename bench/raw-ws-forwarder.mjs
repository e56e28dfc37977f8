// A raw WebSocket forwarder, run as a process of its own by bench (s): the baseline for "one
// more process on the delta's way". It listens on a free port (printed on stdout), and for
// each client opens a WebSocket to TARGET (with the token) and passes every text frame both
// ways untouched: no parsing, no merge. It exits on SIGTERM.
//   node bench/raw-ws-forwarder.mjs TARGET_WS_URL TOKEN
import { WebSocket, WebSocketServer } from "ws";

const [target, token] = process.argv.slice(2);
const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
server.on("listening", () => process.stdout.write(`${server.address().port}\n`));
server.on("connection", (client) => {
  const upstream = new WebSocket(target, { headers: { authorization: `Bearer ${token}` } });
  const early = [];
  upstream.on("open", () => {
    for (const text of early.splice(0)) upstream.send(text);
  });
  upstream.on("message", (data) => client.send(data.toString("utf8")));
  client.on("message", (data) => {
    const text = data.toString("utf8");
    if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
    else early.push(text);
  });
  const close = () => {
    client.terminate();
    upstream.terminate();
  };
  upstream.on("close", close);
  upstream.on("error", close);
  client.on("close", close);
  client.on("error", close);
});
process.on("SIGTERM", () => process.exit(0));
