/**
 * `ocb pair` and `ocb devices`: pairing a device with the running sidecar through its relays
 * (`ocb serve --relay`), and the paired devices, listed or revoked (docs/remote-access.md).
 */
import type { Command } from "commander";
import { renderUnicodeCompact } from "uqr";
import { addUrlOption, type SidecarOptions, withSidecar } from "../sidecar-client.js";
import { alignedColumns, titleCell } from "../text-table.js";

interface PairOptions extends SidecarOptions {
  page?: string;
  json?: boolean;
  qr: boolean;
}

export function registerRemoteCommands(program: Command): void {
  const pair = program
    .command("pair")
    .description(
      "show a one-time link and QR code that pairs a device with this sidecar through its relays (ten minutes, one device)",
    )
    .option(
      "--page <url>",
      "the page the link opens (default: the sidecar's --pair-page, else the first relay)",
    )
    .option("--no-qr", "the link only, no QR code")
    .option("--json", "print the sidecar's answer as JSON");
  addUrlOption(pair).action(async (options: PairOptions) => {
    await withSidecar(options, async (client) => {
      const pairing = await client.createPairing(
        options.page === undefined ? {} : { linkBase: options.page },
      );
      if (options.json) {
        console.log(JSON.stringify(pairing));
        return;
      }
      if (options.qr && process.stdout.isTTY === true) {
        process.stdout.write(`${renderUnicodeCompact(pairing.link, { ecc: "M", border: 2 })}\n`);
      }
      console.log(pairing.link);
      console.log(
        `\nThe link is a key: whoever opens it first pairs a device with this sidecar. It works once, until ${pairing.expiresAt}.`,
      );
    });
  });

  const devices = program
    .command("devices")
    .description("list the devices paired with this sidecar, and its relays")
    .option("--json", "print the sidecar's answer as JSON");
  addUrlOption(devices).action(async (options: SidecarOptions & { json?: boolean }) => {
    await withSidecar(options, async (client) => {
      const status = await client.remoteStatus();
      if (options.json) {
        console.log(JSON.stringify(status));
        return;
      }
      console.log(`sidecar ${status.sidecarId}`);
      for (const relay of status.relays) console.log(`relay ${relay.url}: ${relay.state}`);
      if (status.devices.length === 0) {
        console.log("no paired device (ocb pair shows a link to pair one)");
        return;
      }
      const rows = status.devices.map((device) => [
        device.id,
        device.pairedAt,
        String(device.connections),
        titleCell(device.name), // the device named itself: printed safely
      ]);
      for (const line of alignedColumns([["DEVICE", "PAIRED", "CONNECTIONS", "NAME"], ...rows])) {
        console.log(line);
      }
    });
  });
  const revoke = devices
    .command("revoke")
    .description("revoke a paired device: its connections are cut and its next handshake refused")
    .argument("<device>", "the device id (ocb devices lists them)");
  addUrlOption(revoke).action(async (deviceId: string, options: SidecarOptions) => {
    await withSidecar(options, async (client) => {
      await client.revokeDevice(deviceId);
      console.log(`revoked ${deviceId}`);
    });
  });
}
