/**
 * Remote access through relays (`ocb serve --relay`): its state and the paired devices, a
 * new pairing link, a device revoked. Pairing and revoking are for whoever holds the token on
 * the sidecar's side: a device that came through a relay (the tunnel marks its requests) may
 * read the state but not add or remove devices, so a lost phone cannot lock its owner out or
 * let another device in.
 */
import { DEVICE_HEADER } from "../../remote/remote-access.js";
import {
  DeviceIdParamsSchema,
  OkSchema,
  PairingRequestSchema,
  PairingSchema,
  RemoteStatusSchema,
} from "../../wire/http.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES } from "./meta.js";

export function registerRemoteRoutes(app: SidecarApp, ctx: SidecarContext): void {
  const access = () => {
    const remote = ctx.remote?.access;
    if (remote === undefined) {
      throw new ApiError(
        "not_found",
        "remote access is off: start the sidecar with --relay wss://… (docs/remote-access.md)",
      );
    }
    return remote;
  };
  const notThroughRelay = (headers: Record<string, unknown>) => {
    if (headers[DEVICE_HEADER] !== undefined) {
      throw new ApiError(
        "forbidden",
        "devices are paired and revoked on the sidecar's machine (ocb pair, ocb devices), not through a relay",
      );
    }
  };

  app.get(
    "/v1/remote",
    {
      schema: {
        summary: "Remote access: the relays, their state, and the paired devices",
        response: { 200: RemoteStatusSchema, ...ERROR_RESPONSES },
      },
    },
    async () => access().status(),
  );

  app.post(
    "/v1/remote/pairings",
    {
      schema: {
        summary: "A one-time pairing link (ten minutes, one device): show it to the device only",
        body: PairingRequestSchema.nullish(),
        response: { 201: PairingSchema, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      notThroughRelay(request.headers);
      const linkBase = request.body?.linkBase;
      const pairing = access().createPairing(linkBase === undefined ? {} : { linkBase });
      return reply.code(201).send(pairing);
    },
  );

  app.delete(
    "/v1/remote/devices/:id",
    {
      schema: {
        summary: "Revokes a paired device: its connections are cut, its next handshake refused",
        params: DeviceIdParamsSchema,
        response: { 200: OkSchema, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      notThroughRelay(request.headers);
      if (!access().revoke(request.params.id)) {
        throw new ApiError(
          "not_found",
          `no paired device ${request.params.id} (ocb devices lists them)`,
        );
      }
      return { ok: true as const };
    },
  );
}
