/**
 * The devices paired with this sidecar, kept in a file (0600, written whole and renamed into
 * place, so a crash leaves the old list or the new, never half of one). A device is its
 * Noise static public key; revoking one removes it, and the next handshake it tries is
 * refused. The file holds no secret (public keys and names), but whoever may write it may add
 * a device: it is owner-only, and refused when others may write it.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { equalBytes } from "@noble/ciphers/utils.js";
import { z } from "zod";
import { UsageError } from "../errors.js";
import { fromBase64url, toBase64url } from "../util/base64url.js";
import { describeError } from "../util/describe-error.js";
import { bridgeDataDir } from "../util/user-data-dir.js";
import { deviceIdOf } from "./remote-handshake.js";

export interface PairedDevice {
  readonly id: string;
  readonly name: string;
  readonly publicKey: Uint8Array;
  /** ISO time. */
  readonly pairedAt: string;
}

const DevicesFile = z.object({
  version: z.literal(1),
  devices: z.array(
    z.object({
      id: z.string(),
      name: z.string().max(64),
      publicKey: z.string().max(64),
      pairedAt: z.string(),
    }),
  ),
});

/**
 * Where `ocb serve --relay` keeps its paired devices unless told otherwise: beside the
 * identity file it was given, else in the bridge's data directory (where the identity is).
 */
export function defaultPairedDevicesPath(
  identityPath?: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const dir = identityPath === undefined ? bridgeDataDir(env) : dirname(identityPath);
  return join(dir, "paired-devices.json");
}

export class PairedDevices {
  readonly #path: string;
  #devices: PairedDevice[];

  private constructor(path: string, devices: PairedDevice[]) {
    this.#path = path;
    this.#devices = devices;
  }

  /** The list in `path`, empty when there is no such file yet. */
  static load(path: string): PairedDevices {
    let text: string;
    try {
      const mode = statSync(path).mode & 0o777;
      if ((mode & 0o022) !== 0) {
        throw new UsageError(
          `the paired devices file ${path} can be written by others (mode ${mode.toString(8)}): chmod 600 ${path}`,
        );
      }
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new PairedDevices(path, []);
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot read the paired devices ${path}: ${describeError(error)}`, {
        cause: error,
      });
    }
    return new PairedDevices(path, devicesIn(path, text));
  }

  /** The list in `path`, its file written (empty) when there is none yet. */
  static loadOrCreate(path: string): PairedDevices {
    const devices = PairedDevices.load(path);
    if (!existsSync(path)) devices.#save([]);
    return devices;
  }

  list(): readonly PairedDevice[] {
    return this.#devices;
  }

  byPublicKey(publicKey: Uint8Array): PairedDevice | undefined {
    const id = deviceIdOf(publicKey);
    return this.#devices.find(
      (device) => device.id === id && equalBytes(device.publicKey, publicKey),
    );
  }

  /** Adds (or renames, when its key is known already) a device, and writes the file. */
  add(publicKey: Uint8Array, name: string, now = new Date()): PairedDevice {
    const device: PairedDevice = {
      id: deviceIdOf(publicKey),
      name,
      publicKey,
      pairedAt: now.toISOString(),
    };
    this.#save([...this.#devices.filter((known) => known.id !== device.id), device]);
    return device;
  }

  /** Removes the device; false when there is none of that id. */
  revoke(id: string): boolean {
    if (!this.#devices.some((device) => device.id === id)) return false;
    this.#save(this.#devices.filter((device) => device.id !== id));
    return true;
  }

  #save(devices: PairedDevice[]): void {
    const file = {
      version: 1,
      devices: devices.map((device) => ({ ...device, publicKey: toBase64url(device.publicKey) })),
    };
    mkdirSync(dirname(this.#path), { recursive: true, mode: 0o700 });
    const temporary = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.#path);
    this.#devices = devices;
  }
}

function devicesIn(path: string, text: string): PairedDevice[] {
  let parsed: z.infer<typeof DevicesFile>;
  try {
    parsed = DevicesFile.parse(JSON.parse(text));
  } catch (error) {
    throw new UsageError(
      `the paired devices file ${path} is not one (${describeError(error)}): move it away to start with no devices`,
    );
  }
  return parsed.devices.flatMap((device) => {
    const publicKey = fromBase64url(device.publicKey);
    // A key that is not one, or an id that is not its key's, is no device (an edited file).
    if (publicKey?.length !== 32 || deviceIdOf(publicKey) !== device.id) return [];
    return [{ ...device, publicKey }];
  });
}
