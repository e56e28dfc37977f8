/**
 * `ocb serve --relay wss://…`: the sidecar reachable through relays too, for devices paired
 * with `ocb pair` (docs/remote-access.md). Nothing more listens on this machine: the sidecar
 * connects out to each relay.
 */
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import {
  defaultRelayIdentityPath,
  loadOrCreateRelayIdentity,
} from "../relay/relay-identity-file.js";
import { defaultPairedDevicesPath, PairedDevices } from "../remote/paired-devices.js";
import { isRelayUrl } from "../remote/pairing-link.js";
import type { SidecarRemoteOptions } from "../sidecar/sidecar.js";
import { readOptionFile } from "./option-file.js";

export interface RelayServeOptions {
  relay: string[];
  relayIdentity?: string;
  pairPage?: string;
  relayCa?: string;
}

export function addRelayOptions(command: Command): Command {
  return command
    .option(
      "--relay <url>",
      "be reachable through this relay (ws:// or wss://, `ocb relay`) for devices paired with `ocb pair` (repeatable: failover)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--relay-identity <file>",
      "the sidecar's identity at relays (default: relay-identity.json in the bridge's data directory; made on first use, 0600)",
    )
    .option("--pair-page <url>", "the page pairing links open (default: the first relay's address)")
    .option("--relay-ca <file>", "CA certificate (PEM) of relays with a self-signed certificate");
}

/** The remote options `--relay` and its companions name; undefined without `--relay`. */
export function remoteOf(options: RelayServeOptions): SidecarRemoteOptions | undefined {
  if (options.relay.length === 0) {
    for (const [flag, value] of [
      ["--relay-identity", options.relayIdentity],
      ["--pair-page", options.pairPage],
      ["--relay-ca", options.relayCa],
    ] as const) {
      if (value !== undefined)
        throw new UsageError(`${flag} needs --relay: pass the relay's wss:// URL too`);
    }
    return undefined;
  }
  for (const relay of options.relay) {
    if (!isRelayUrl(relay)) {
      throw new UsageError(
        `--relay ${JSON.stringify(relay)} is not a relay's address: pass ws://host:port or wss://host`,
      );
    }
  }
  if (options.relay.length > 4)
    throw new UsageError("at most 4 relays (--relay): a pairing link names them all");
  if (options.pairPage !== undefined && !/^https?:\/\//.test(options.pairPage)) {
    throw new UsageError(`--pair-page ${JSON.stringify(options.pairPage)} is not an http(s) URL`);
  }
  return {
    relays: options.relay,
    ...(options.relayIdentity === undefined ? {} : { identityPath: options.relayIdentity }),
    ...(options.pairPage === undefined ? {} : { linkBase: options.pairPage }),
    ...(options.relayCa === undefined ? {} : { ca: readOptionFile("--relay-ca", options.relayCa) }),
  };
}

/**
 * The identity file (its secret is the sidecar's Noise key too) and the paired devices file
 * (whoever writes it adds a device), made now when they are not there yet: the sandbox hides
 * from the agent only files that exist when it starts, and both would otherwise be made just
 * after, on a first `--relay`.
 */
export function relayFilesForSandbox(remote: SidecarRemoteOptions): string[] {
  const identityPath = remote.identityPath ?? defaultRelayIdentityPath();
  loadOrCreateRelayIdentity(identityPath);
  const devicesPath = remote.devicesPath ?? defaultPairedDevicesPath(remote.identityPath);
  PairedDevices.loadOrCreate(devicesPath);
  return [identityPath, devicesPath];
}
