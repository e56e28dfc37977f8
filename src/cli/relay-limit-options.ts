/**
 * The relay's limits as `ocb relay` options, one per limit, in the units a person types
 * (seconds, KiB, MiB/s), each converted to the limit's own unit (docs/relay.md lists them).
 */
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { DEFAULT_RELAY_LIMITS, type RelayLimits } from "../relay/relay-limits.js";

interface LimitOption {
  readonly flag: string;
  readonly limit: keyof RelayLimits;
  /** How many of the limit's units one unit of the option is. */
  readonly scale: number;
  readonly help: string;
}

const KIB = 1024;
const MIB = 1024 * 1024;

export const RELAY_LIMIT_OPTIONS: readonly LimitOption[] = [
  {
    flag: "--max-clients",
    limit: "maxClientsPerSidecar",
    scale: 1,
    help: "clients joined to one sidecar at once",
  },
  {
    flag: "--max-pending",
    limit: "maxPendingPerSidecar",
    scale: 1,
    help: "clients waiting for one sidecar to pick them up",
  },
  {
    flag: "--pickup-timeout",
    limit: "pickupTimeoutMs",
    scale: 1000,
    help: "seconds a client waits for its sidecar to pick it up",
  },
  { flag: "--max-frame-kib", limit: "maxFrameBytes", scale: KIB, help: "the largest frame, KiB" },
  {
    flag: "--client-rate-mib",
    limit: "bytesPerSecondPerClient",
    scale: MIB,
    help: "MiB/s through one client connection",
  },
  {
    flag: "--client-burst-mib",
    limit: "burstBytesPerClient",
    scale: MIB,
    help: "MiB one client connection may run ahead of its rate",
  },
  {
    flag: "--sidecar-rate-mib",
    limit: "bytesPerSecondPerSidecar",
    scale: MIB,
    help: "MiB/s through one sidecar, all its clients together",
  },
  {
    flag: "--sidecar-burst-mib",
    limit: "burstBytesPerSidecar",
    scale: MIB,
    help: "MiB one sidecar's clients may run ahead of its rate",
  },
  {
    flag: "--attempts-per-minute",
    limit: "attemptsPerMinutePerIp",
    scale: 1,
    help: "new connections from one address per minute",
  },
  {
    flag: "--max-per-ip",
    limit: "concurrentPerIp",
    scale: 1,
    help: "open connections from one address",
  },
  { flag: "--max-sidecars", limit: "maxSidecars", scale: 1, help: "sidecars registered at once" },
  {
    flag: "--ping-interval",
    limit: "pingIntervalMs",
    scale: 1000,
    help: "seconds between pings (2 missed pongs drop a socket)",
  },
  {
    flag: "--idle-timeout",
    limit: "idleTimeoutMs",
    scale: 1000,
    help: "seconds without a frame before a connection is dropped",
  },
];

/** The commander attribute name of a flag: --max-frame-kib is maxFrameKib. */
function attributeOf(flag: string): string {
  return flag.slice(2).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

export function addRelayLimitOptions(command: Command): Command {
  for (const option of RELAY_LIMIT_OPTIONS) {
    const fallback = DEFAULT_RELAY_LIMITS[option.limit] / option.scale;
    command.option(`${option.flag} <n>`, `${option.help} (default: ${fallback})`);
  }
  return command;
}

/** The limits the options set; the others stay at their defaults. */
export function relayLimitsFromOptions(options: Record<string, unknown>): Partial<RelayLimits> {
  const limits: Partial<RelayLimits> = {};
  for (const option of RELAY_LIMIT_OPTIONS) {
    const value = options[attributeOf(option.flag)];
    if (value === undefined) continue;
    const number = Number(value);
    if (typeof value !== "string" || !(Number.isFinite(number) && number > 0)) {
      throw new UsageError(`${option.flag} must be a positive number, got "${String(value)}"`);
    }
    limits[option.limit] = Math.round(number * option.scale);
  }
  return limits;
}
