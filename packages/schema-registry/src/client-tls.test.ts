// The client over https: the CA of the settings is what it trusts (a
// self-signed registry fails without it), and the client certificate is sent.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import { after, before, test } from "node:test";
import { selfSignedCertificate } from "@sluice/kafka-settings/test-support/certificates";
import { RegistryClient, RegistryError } from "./client.ts";

const dir = mkdtempSync(path.join(tmpdir(), "registry-tls-"));
const f = (name: string) => path.join(dir, name);
selfSignedCertificate(dir, "registry", { extra: ["-addext", "subjectAltName=IP:127.0.0.1"] });
selfSignedCertificate(dir, "client");
const pem = (name: string) => readFileSync(f(name), "utf8");

let server: https.Server;
let url: string;
let clientName: string | undefined;

before(async () => {
  server = https.createServer(
    { key: pem("registry.key"), cert: pem("registry.crt"), ca: pem("client.crt"), requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const cn = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
      clientName = Array.isArray(cn) ? cn[0] : cn;
      res.writeHead(200, { "content-type": "application/json" });
      res.end('["tls-value"]');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the settings' CA and client certificate are used", async () => {
  const client = new RegistryClient({
    url,
    auth: { kind: "none" },
    tls: {
      ca: { file: f("registry.crt"), pem: pem("registry.crt") },
      cert: { file: f("client.crt"), pem: pem("client.crt") },
      key: { file: f("client.key"), pem: pem("client.key") },
    },
  });
  try {
    assert.deepEqual(await client.subjects(), ["tls-value"]);
    assert.equal(clientName, "client");
  } finally {
    client.close();
  }
});

test("without the CA a self-signed registry is unavailable, saying why", async () => {
  const client = new RegistryClient({ url, auth: { kind: "none" } });
  try {
    await assert.rejects(client.subjects(), (err: unknown) => {
      assert.ok(err instanceof RegistryError && err.kind === "unavailable", String(err));
      assert.match(err.message, /SELF_SIGNED|self-signed|self signed/i);
      return true;
    });
  } finally {
    client.close();
  }
});
