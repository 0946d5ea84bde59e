// The shared protocol vectors (packages/protocol/vectors) through frames.ts and paths.ts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { ClientFrameError, decodeClientFrame, encodeClientFrame, type ClientFrame } from "./frames.js";
import { parsePath } from "./paths.js";
import { ProtocolError } from "./errors.js";

const vectors = (name: string) => JSON.parse(readFileSync(new URL(`../../protocol/vectors/${name}`, import.meta.url), "utf8"));

interface ValidFrame {
  frame: string;
  type: ClientFrame["type"];
  id: string;
  token?: string;
  endpoint?: string;
  from?: unknown;
  data?: string;
  data_is_string?: boolean;
  data_base64?: string;
}

const frames = vectors("frames.json") as { valid: ValidFrame[]; invalid: { frame: string; code: number; id: string; message_contains: string }[] };

// The frame the SDK would send for a vector: built from the vector's fields, not from its text.
function sdkFrame(v: ValidFrame): ClientFrame {
  const id = v.id === "" ? undefined : v.id;
  switch (v.type) {
    case "auth":
    case "refresh":
      return { type: v.type, id, token: v.token as string };
    case "subscribe":
      // The SDK leaves "from" out for "latest" unless asked for it explicitly.
      return { type: "subscribe", id, endpoint: v.endpoint as string, from: v.frame.includes('"from"') ? (v.from as never) : undefined };
    case "unsubscribe":
      return { type: "unsubscribe", id, endpoint: v.endpoint as string };
    case "publish":
      if (v.data_base64 !== undefined) return { type: "publish", id, endpoint: v.endpoint as string, data: v.data_base64, encoding: "base64" };
      return { type: "publish", id, endpoint: v.endpoint as string, data: v.data_is_string ? v.data : JSON.parse(v.data as string) };
    case "ping":
      return { type: "ping", id };
  }
}

describe("vectors/frames.json", () => {
  for (const v of frames.valid) {
    it(`decodes ${v.frame.trim()}`, () => {
      const got = decodeClientFrame(v.frame);
      assert.equal(got.type, v.type);
      assert.equal(got.id, v.id);
      if (v.token !== undefined) assert.equal(got.token, v.token);
      if (v.endpoint !== undefined) assert.equal(got.endpoint, v.endpoint);
      if (v.from !== undefined) assert.deepEqual(got.from, v.from);
      if (v.data !== undefined) assert.equal(got.data, v.data);
      assert.equal(got.dataIsString, v.data_is_string);
      if (v.data_base64 !== undefined) {
        assert.equal(got.encoding, "base64");
        assert.equal(got.data, v.data_base64);
      }
    });

    it(`encodes ${v.type} ${v.id || "(no id)"} so that the gateway reads the same fields`, () => {
      const text = encodeClientFrame(sdkFrame(v));
      const again = decodeClientFrame(text);
      const want = decodeClientFrame(v.frame);
      assert.deepEqual(again, want);
      // Where the vector's text is already compact and canonical, the SDK writes exactly it.
      const compact = JSON.stringify(JSON.parse(v.frame));
      if (compact === v.frame && !v.frame.includes("extra") && !v.frame.includes("%2e")) {
        assert.equal(text, v.frame);
      }
    });
  }

  for (const v of frames.invalid) {
    it(`refuses ${JSON.stringify(v.frame).slice(0, 80)} with ${v.code}`, () => {
      assert.throws(
        () => decodeClientFrame(v.frame),
        (err: unknown) => {
          assert.ok(err instanceof ClientFrameError, String(err));
          assert.equal(err.code, v.code);
          assert.equal(err.id, v.id);
          assert.ok(err.message.includes(v.message_contains), `${JSON.stringify(err.message)} should contain ${JSON.stringify(v.message_contains)}`);
          return true;
        },
      );
    });
  }
});

describe("vectors/paths.json", () => {
  const paths = vectors("paths.json") as { cases: { path: string; topic?: string; key?: string; canonical?: string; error?: number }[] };
  for (const c of paths.cases) {
    it(`${JSON.stringify(c.path)} → ${c.error ?? c.canonical}`, () => {
      if (c.error !== undefined) {
        assert.throws(
          () => parsePath(c.path),
          (err: unknown) => err instanceof ProtocolError && err.code === c.error,
        );
        return;
      }
      assert.deepEqual(parsePath(c.path), { topic: c.topic, key: c.key, canonical: c.canonical });
      // Canonical paths are fixed points.
      assert.equal(parsePath(c.canonical as string).canonical, c.canonical);
    });
  }
});
