/**
 * End to end: a cluster over https, as users start it. Two `ocb serve --cluster` processes
 * with `--tls-cert/--tls-key` and `--cluster-ca` (a self-signed certificate made by openssl,
 * its own CA), on one embedded Postgres, attached to one real `opencode serve`: a send to B for
 * A's session goes to A over https with the cluster secret and runs there. And `ocb serve
 * --cluster` without a cluster secret, or with the token as one, is refused at start, saying
 * what to set.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ocb } from "../support/ocb-cli.js";
import { useOcbCluster } from "../support/ocb-cluster.js";
import { selfSignedCertificate } from "../support/self-signed.js";

const TOKEN = "sidecar-cluster-tls-e2e-token-0123456789";
/** Safety net for a state to be reached (a cold real server on a loaded machine). */
const BOUND_MS = 90_000;

const fixture = useOcbCluster({ token: TOKEN, boundMs: BOUND_MS });

const certificate = selfSignedCertificate();
const dir = mkdtempSync(join(tmpdir(), "ocb-cluster-tls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const files = { cert: join(dir, "cert.pem"), key: join(dir, "key.pem"), ca: join(dir, "cert.pem") };
writeFileSync(files.cert, certificate.cert);
writeFileSync(files.key, certificate.key, { mode: 0o600 });

/** A JSON call over https, trusting the test's certificate; the status and the parsed body. */
function callHttps(url: string, method: string, path: string, body: object) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const outgoing = request(
      `${url}${path}`,
      {
        method,
        ca: certificate.cert,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        timeout: BOUND_MS,
      },
      (incoming) => {
        let text = "";
        incoming.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        incoming.on("end", () =>
          resolve({ status: incoming.statusCode ?? 0, body: JSON.parse(text) as unknown }),
        );
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${BOUND_MS} ms`)));
    outgoing.on("error", reject);
    outgoing.end(JSON.stringify(body));
  });
}

it("forwards a command from B to A over https, verified against --cluster-ca", async () => {
  const a = await fixture.cluster.start("A", { addressed: true, tls: files });
  const b = await fixture.cluster.start("B", { addressed: true, tls: files });
  expect(a.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const created = await callHttps(a.url, "POST", "/v1/sessions", { title: "tls" });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { id } = created.body as { id: string };
  const sent = await callHttps(b.url, "POST", `/v1/sessions/${id}/inputs`, {
    text: "over https",
    delivery: "queue",
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  const transcript = await fixture.store.read(id);
  expect(transcript.filter((event) => event.type === "input.admitted")).toHaveLength(1);
  // A ran it: B forwarded it, it did not take the session.
  expect(b.cli.stderr).not.toContain("took over a session");
});

it("refuses to start a cluster sidecar without a cluster secret, or with the token as one", async () => {
  const args = ["serve", "--cluster", "--attach", "http://127.0.0.1:9", "--store", ":memory:"];
  const missing = await ocb(args, { OCB_TOKEN: TOKEN, OCB_CLUSTER_SECRET: "" });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("set OCB_CLUSTER_SECRET or pass --cluster-secret-file");
  expect(missing.stderr).not.toMatch(/\n\s+at /); // no stack
  const same = await ocb(args, { OCB_TOKEN: TOKEN, OCB_CLUSTER_SECRET: TOKEN });
  expect(same.code).toBe(2);
  expect(same.stderr).toContain("must differ from OCB_TOKEN");
  expect(same.stderr).not.toContain(TOKEN);
});
