/**
 * A self-signed certificate for 127.0.0.1 and localhost, made by the `openssl` CLI in a temp
 * dir (node:crypto makes keys, not X.509 certificates). It is its own CA: a peer given it as
 * `ca` trusts it, one without does not.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SelfSigned {
  cert: string;
  key: string;
}

/** Makes a certificate and key (PEM); needs `openssl` 1.1.1 or later on the PATH. */
export function selfSignedCertificate(): SelfSigned {
  const dir = mkdtempSync(join(tmpdir(), "ocb-tls-"));
  try {
    const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=ocb-test-sidecar",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: ["ignore", "ignore", "pipe"], timeout: 30_000 },
    );
    return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
