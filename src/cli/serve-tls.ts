/**
 * `ocb serve --tls-cert <file> --tls-key <file>`: the sidecar serves https with them (PEM),
 * for clients and for the other sidecars of a cluster, which then never see the token or the
 * cluster secret in clear. Both or neither.
 */
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import type { SidecarTls } from "../sidecar/sidecar.js";
import { readOptionFile } from "./option-file.js";

export interface TlsServeOptions {
  tlsCert?: string;
  tlsKey?: string;
}

export function addTlsOptions(command: Command): Command {
  return command
    .option("--tls-cert <file>", "serve https with this certificate (PEM, with its chain)")
    .option("--tls-key <file>", "the private key (PEM) of --tls-cert");
}

/** The certificate and key the options name, read; undefined without them. */
export function tlsOf(options: TlsServeOptions): SidecarTls | undefined {
  if (options.tlsCert === undefined && options.tlsKey === undefined) return undefined;
  if (options.tlsCert === undefined || options.tlsKey === undefined) {
    throw new UsageError("--tls-cert and --tls-key go together: pass both files, or neither");
  }
  return {
    cert: readOptionFile("--tls-cert", options.tlsCert),
    key: readOptionFile("--tls-key", options.tlsKey),
  };
}
