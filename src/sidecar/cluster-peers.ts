/**
 * What the routes, the stream routes and the security hook ask of a cluster about the calls
 * between its sidecars, declared here, below the cluster, so that none of them imports it:
 * cluster/sidecar/sidecar-cluster.ts implements it, and a sidecar outside a cluster has none
 * (it forwards nothing, serves no relay, and refuses every call marked as another sidecar's).
 */
import type { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Session } from "../runtime/session/session.js";
import type { SidecarContext } from "./context.js";
import { PEER_ROUTE } from "./peer-routes.js";
import type { SidecarApp } from "./sidecar-app.js";
import type { FeedSource } from "./streams/feed-types.js";

/** How a route's commands are forwarded to the session's driver. */
export interface ForwardOptions {
  /** Whether sending the command twice is harmless (default: yes). */
  repeatable?: (body: Buffer, contentType: string | undefined) => boolean;
}

/** A route's `preParsing` hook: it may answer the request itself, before the body is read. */
export type PreParsingHook = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: Readable,
) => Promise<Readable>;

export interface ClusterPeers {
  /** The secret the sidecars of the cluster call each other with (never a client's token). */
  readonly secret: string;
  /**
   * The `preParsing` hook of a route whose commands go to the session's driver: a command for
   * a session another sidecar drives is sent there and its answer is the client's; any other
   * goes on to the route untouched.
   */
  forwardToDriver(ctx: SidecarContext, app: SidecarApp, options: ForwardOptions): PreParsingHook;
  /**
   * What another sidecar's delta relay of `sessionId` reads: the ephemeral events of `open`,
   * the session this sidecar drives now (`not_driver` when it drives none of that id).
   */
  relaySource(open: Session | undefined, sessionId: string): FeedSource;
}

/**
 * What a route whose commands go to the session's driver adds to its options: in a cluster,
 * the `preParsing` hook that forwards them; and the mark that lets other sidecars call it.
 */
export function forwardedRoute(
  ctx: SidecarContext,
  app: SidecarApp,
  options: ForwardOptions = {},
): { preParsing?: PreParsingHook; config: typeof PEER_ROUTE.forwarded } {
  const cluster = ctx.cluster;
  return {
    ...(cluster === undefined ? {} : { preParsing: cluster.forwardToDriver(ctx, app, options) }),
    config: PEER_ROUTE.forwarded,
  };
}
