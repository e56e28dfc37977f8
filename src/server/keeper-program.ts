/**
 * The source of the server keeper: a tiny node program, run with `node -e`, that stops a
 * managed server whose bridge is gone. A bridge killed with SIGKILL runs no code of its own, so
 * the server has to learn it from outside: the keeper holds links to the bridges that own the
 * server (its stdin, a pipe from the bridge that started it, and connections to its Unix
 * socket from successors that took the server up). When the last link closes, the server is
 * an orphan; unless a successor links up within the bound, its process group gets SIGTERM,
 * then SIGKILL. The keeper exits as soon as the group is gone, so it never outlives the server.
 *
 * It also holds the server's password, so that no file has to: the bridge that starts it writes
 * one JSON line `{"password": …}` on its stdin, and the keeper answers every connection to its
 * socket with that line (the successor needs it to take the server up). The socket lives in a
 * directory only the owner can enter; the keeper removes both when it exits.
 *
 * Given the server's isolated temp root, the keeper removes it too when it exits with no
 * bridge linked (it stopped an orphan, or the group died with its last bridge, as on a second
 * Ctrl-C): the bridge that would have removed it at close is gone, and it held the server's
 * sessions and the native libraries OpenCode unpacks (6 MB). A kept root is never removed.
 *
 * Plain CommonJS in a string (not a file beside this one): it must run as it is from the
 * sources (tsx), from the compiled package, and without any loader.
 *
 *   node -e KEEPER_PROGRAM <server pgid> <bound ms> <socket path> [<temp root>]
 */
export const KEEPER_PROGRAM = String.raw`
"use strict";
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const pgid = Number(process.argv[1]);
const boundMs = Number(process.argv[2]);
const socketPath = process.argv[3];
const tempRoot = process.argv[4] || undefined;
// Without a title, ps shows this whole program text as the keeper's command line.
process.title = "ocb-keeper " + pgid;
const GRACE_MS = 3000;
const KILL_WAIT_MS = 2000;
const POLL_MS = 250;
const LINK_GRACE_MS = 2000;

// A member whose parent is gone stays a zombie in some containers; only running ones count.
function groupAlive() {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return error.code !== "ESRCH";
  }
  if (process.platform !== "linux") return true;
  let entries;
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync("/proc/" + entry + "/stat", "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

// Only a temp root this bridge made (the prefix of isolated-dirs.ts), never a kept one.
function removeTempRoot() {
  if (tempRoot === undefined || !path.basename(tempRoot).startsWith("ocb-opencode-")) return;
  if (fs.existsSync(path.join(tempRoot, "KEPT-BY-OPENCODE-BRIDGE"))) return;
  try {
    fs.rmSync(tempRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch {}
}

function finish() {
  if (links === 0) removeTempRoot();
  try {
    fs.unlinkSync(socketPath);
  } catch {}
  // Its directory was made for it (startKeeper): never remove one that was not.
  const dir = path.dirname(socketPath);
  if (path.basename(dir).startsWith("ocb-keeper-")) {
    try {
      fs.rmdirSync(dir);
    } catch {}
  }
  process.exit(0);
}

function signal(name) {
  try {
    process.kill(-pgid, name);
  } catch {}
}

let stopping = false;
async function stopServer() {
  if (stopping) return;
  stopping = true;
  const until = (ms) => {
    const end = Date.now() + ms;
    return new Promise((resolve) => {
      const check = () => {
        if (!groupAlive() || Date.now() >= end) resolve();
        else setTimeout(check, 50);
      };
      check();
    });
  };
  signal("SIGTERM");
  await until(GRACE_MS);
  if (groupAlive()) {
    signal("SIGKILL");
    await until(KILL_WAIT_MS);
  }
  finish();
}

// The first line on stdin: what a successor is told. A bridge gone before writing it leaves
// "{}" (no password known): a successor then cannot take the server up, but is not kept waiting.
let secretLine;
const waitingForSecret = [];
function settleSecret(line) {
  if (secretLine !== undefined) return;
  secretLine = line + "\n";
  for (const socket of waitingForSecret.splice(0)) tell(socket);
}
function readSecret(stream) {
  let pending = "";
  const onData = (chunk) => {
    pending += chunk.toString("utf8");
    const end = pending.indexOf("\n");
    if (end === -1 && pending.length < 65536) return;
    stream.off("data", onData);
    settleSecret(end === -1 ? "{}" : pending.slice(0, end));
  };
  stream.on("data", onData);
  stream.once("end", () => settleSecret("{}"));
  stream.once("error", () => settleSecret("{}"));
}
function tell(socket) {
  if (secretLine === undefined) waitingForSecret.push(socket);
  else socket.write(secretLine, () => {});
}

let links = 0;
let orphanTimer;
function link(stream) {
  links++;
  clearTimeout(orphanTimer);
  let closed = false;
  const unlink = () => {
    if (closed) return;
    closed = true;
    links--;
    if (links === 0) orphanTimer = setTimeout(stopServer, boundMs);
  };
  stream.on("error", unlink);
  stream.on("end", unlink);
  stream.on("close", unlink);
  stream.resume();
}

process.on("SIGTERM", finish);
process.on("SIGINT", () => {});
process.on("SIGHUP", () => {});
try {
  fs.unlinkSync(socketPath);
} catch {}
const server = net.createServer((socket) => {
  socket.on("error", () => {});
  link(socket);
  tell(socket);
});
server.on("error", () => {}); // no socket: successors cannot link up, the bound still holds
server.listen(socketPath);
readSecret(process.stdin);
link(process.stdin);
// The group gone while a bridge is still linked: that bridge may be on its way out (its exit
// hook stops the group just before it goes, and on a loaded machine the group's end is seen
// before the pipe's), or alive (its server crashed, and it starts another in the same root).
// A short wait for the link tells them apart, for the temp root's sake.
let groupGone = false;
setInterval(() => {
  if (groupGone || groupAlive()) return;
  groupGone = true;
  const end = Date.now() + LINK_GRACE_MS;
  const settle = () => {
    if (links === 0 || Date.now() >= end) finish();
    else setTimeout(settle, 50);
  };
  settle();
}, POLL_MS);
`;
