/**
 * The relay's paths, version 1, on their own: a device in a browser builds the URL it
 * connects to from them, without the relay's Node-only modules.
 */
export const RELAY_PATHS = {
  sidecar: "/v1/relay/sidecar",
  connect: (sidecarId: string) => `/v1/relay/connect/${sidecarId}`,
  accept: (sidecarId: string, connectionId: string) =>
    `/v1/relay/accept/${sidecarId}/${connectionId}`,
} as const;
