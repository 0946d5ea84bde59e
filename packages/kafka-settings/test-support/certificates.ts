// Throw-away certificates for the tests of TLS settings (Kafka's, the schema
// registry's, the portal's principal): one openssl call, which the test stack
// needs anyway. Test-only: nothing at run time imports it.
import { execFileSync } from "node:child_process";
import path from "node:path";

/**
 * Makes a self-signed P-256 certificate valid for a day and its unencrypted
 * key as <dir>/<name>.crt and <dir>/<name>.key; `subject` defaults to
 * /CN=<name>, `extra` adds openssl req arguments (e.g. -addext).
 */
export function selfSignedCertificate(
  dir: string,
  name: string,
  options: { subject?: string; extra?: string[] } = {},
): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "1",
      "-subj",
      options.subject ?? `/CN=${name}`,
      ...(options.extra ?? []),
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  return { cert, key };
}
