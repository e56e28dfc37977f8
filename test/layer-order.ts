/**
 * The layer order of the repository, declared once: `test/layers.test.ts` checks every import of
 * every module of `src/`, `test/`, `bench/` and `scripts/` against it, and CONTRIBUTING.md and
 * docs/architecture.md point here.
 *
 * Top to bottom: a module imports modules of its own layer and of the layers below it, never
 * one above (`import type` included: a type names a dependency too). A module's layer is the
 * entry whose path names it most closely: its own file, else its nearest folder listed; a
 * folder's subfolders are part of it unless listed themselves. Every `*.test.ts`, wherever it
 * sits, is in the `tests` layer at the top: a test may start a whole Bridge.
 */

import type { Layer, LayerException } from "./support/layer-check.js";

export const LAYERS: readonly Layer[] = [
  {
    name: "tests",
    paths: ["test"],
    what: "the test files (test/**, and every *.test.ts beside the code)",
  },
  { name: "scripts", paths: ["scripts"], what: "npm scripts: api report, fixtures, npm start" },
  { name: "bench", paths: ["bench"], what: "the benchmarks and the reliability suite" },
  {
    name: "test/tiers",
    paths: ["test/tiers.ts"],
    what: "the test tiers, declared once (vitest.config.ts and scripts/test-tiers.ts read it)",
  },
  { name: "test/parity", paths: ["test/parity"], what: "the parity suite's scenarios" },
  { name: "test/scenarios", paths: ["test/scenarios"], what: "the fixture recording scenarios" },
  {
    name: "test/support",
    paths: ["test/support"],
    what: "test helpers, the layer order's own reader",
  },
  {
    name: "entries",
    paths: ["src/index.ts", "src/protocol-entry.ts", "src/cluster-entry.ts"],
    what: "the package's root, opencode-bridge/protocol and opencode-bridge/cluster entries",
  },
  { name: "cli", paths: ["src/cli"], what: "ocb" },
  {
    name: "client",
    paths: ["src/client"],
    what: "opencode-bridge/client, isomorphic (test/client-isomorphic.test.ts)",
  },
  {
    name: "sidecar",
    paths: ["src/sidecar"],
    what: "the sidecar's assembly: startSidecar, the app, the security hook (every root module not in sidecar/parts)",
  },
  {
    name: "cluster",
    paths: ["src/cluster"],
    what:
      "sidecars sharing one Postgres: leases, the durable feed, the fenced store, and " +
      "(cluster/sidecar/) the sidecar's use of them, which implements the sidecar parts' " +
      "SessionCluster and ClusterPeers; above the routes and the streams, so that of the " +
      "sidecar only its assembly imports it",
  },
  { name: "sidecar/routes", paths: ["src/sidecar/routes"], what: "the HTTP routes per concern" },
  { name: "sidecar/streams", paths: ["src/sidecar/streams"], what: "per-session fan-out over WS" },
  { name: "sidecar/web", paths: ["src/sidecar/web"], what: "serving the built web chat" },
  {
    name: "sidecar/parts",
    // Root modules of src/sidecar/ that the subfolders share, named one by one (a new root
    // module is in the assembly above until it is listed here), among them the interfaces the
    // cluster implements (session-cluster.ts, cluster-peers.ts), and the stream source the
    // streams read and the cluster provides.
    paths: [
      "src/sidecar/allowed-directories.ts",
      "src/sidecar/call-bounds.ts",
      "src/sidecar/cluster-peers.ts",
      "src/sidecar/context.ts",
      "src/sidecar/errors.ts",
      "src/sidecar/bounded-ttl.ts",
      "src/sidecar/idempotency.ts",
      "src/sidecar/limits.ts",
      "src/sidecar/live-snapshots.ts",
      "src/sidecar/local-directories.ts",
      "src/sidecar/metrics.ts",
      "src/sidecar/open-sessions.ts",
      "src/sidecar/peer-routes.ts",
      "src/sidecar/recent-answer.ts",
      "src/sidecar/requested-directory.ts",
      "src/sidecar/sent-images.ts",
      "src/sidecar/session-cluster.ts",
      "src/sidecar/session-pages.ts",
      "src/sidecar/session-records.ts",
      "src/sidecar/sidecar-app.ts",
      "src/sidecar/tickets.ts",
      "src/sidecar/streams/feed-types.ts",
    ],
    what:
      "the sidecar's shared parts: its context, errors, bounds, open sessions, stream source, " +
      "and what they ask of a cluster",
  },
  {
    name: "remote",
    paths: ["src/remote"],
    what:
      "remote access through relays: pairing, paired devices, the Noise handshake's framing, " +
      "the encrypted channel, the device's connection (isomorphic) and the sidecar's end",
  },
  {
    name: "relay",
    paths: ["src/relay"],
    what:
      "`ocb relay`, the content-blind relay between clients and sidecars, and the sidecar's " +
      "connector to it; below the sidecar, which it must never need",
  },
  {
    name: "tunnel",
    paths: ["src/tunnel"],
    what:
      "HTTP requests and WebSockets multiplexed over one channel of binary messages (the " +
      "relay's end-to-end encrypted connection); the client half isomorphic",
  },
  {
    name: "wire",
    paths: ["src/wire"],
    what: "what travels between the sidecar and its clients: zod schemas of the canonical events and the API, and the conversation reducer the client, the web chat and the CLI share",
  },
  { name: "testing", paths: ["src/testing"], what: "opencode-bridge/testing: the scripted model" },
  {
    name: "runtime/bridge",
    paths: ["src/runtime/bridge"],
    what: "the Bridge, its servers and their config",
  },
  {
    name: "runtime/session",
    paths: ["src/runtime/session"],
    what: "a Session and its parts (SessionState, Turn, EventLog, the input sender)",
  },
  { name: "backends", paths: ["src/backends"], what: "serve, serve-legacy, subprocess" },
  { name: "store", paths: ["src/store"], what: "the transcript stores" },
  { name: "events", paths: ["src/events"], what: "the canonical events and the normalisers" },
  { name: "server", paths: ["src/server"], what: "managed opencode serve processes" },
  { name: "opencode-client", paths: ["src/opencode-client"], what: "the typed OpenCode client" },
  { name: "transport", paths: ["src/transport"], what: "HTTP, SSE, recording and replay" },
  { name: "opencode-protocol", paths: ["src/opencode-protocol"], what: "OpenCode's wire schemas" },
  {
    name: "noise",
    paths: ["src/noise"],
    what: "the Noise handshake and transport (Noise_*_25519_ChaChaPoly_SHA256) on @noble: isomorphic, below everything that encrypts a channel",
  },
  {
    name: "web-files",
    paths: ["src/web-files"],
    what: "what serving the built web chat needs, shared by the sidecar and the relay: where it is, its files, its headers",
  },
  { name: "util", paths: ["src/util"], what: "small shared helpers" },
  { name: "errors", paths: ["src/errors.ts"], what: "the one error base and its subclasses" },
];

/** Known imports up the order, each to be removed (issue 30); the test fails once one is gone. */
export const LAYER_EXCEPTIONS: readonly LayerException[] = [];
