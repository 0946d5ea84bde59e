// The shared protocol vectors (packages/protocol/vectors) through frames.ts,
// paths.ts and, for server frames, the subscription's handling of them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { ClientFrameError, decodeClientFrame, decodeServerFrame, encodeClientFrame, type ClientFrame } from "./frames.js";
import { parsePath } from "./paths.js";
import { ProtocolError } from "./errors.js";
import { Subscription, type Message } from "./subscription.js";

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

const frames = vectors("frames.json") as {
  valid: ValidFrame[];
  invalid: { frame: string; code: number; id: string; message_contains: string }[];
};

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
      if (v.data_base64 !== undefined)
        return { type: "publish", id, endpoint: v.endpoint as string, data: v.data_base64, encoding: "base64" };
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
          assert.ok(
            err.message.includes(v.message_contains),
            `${JSON.stringify(err.message)} should contain ${JSON.stringify(v.message_contains)}`,
          );
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

interface ServerFrameVector {
  name: string;
  type: string;
  input?: {
    endpoint: string;
    epoch: string;
    partition: number;
    seq: number;
    ts: number;
    format: string;
    value?: string;
    value_hex?: string;
    error?: string;
  };
  delivers?: "json" | "text" | "bytes";
  json: string;
  fields: Record<string, unknown>;
  sse?: string;
}

const serverFrames = vectors("server-frames.json") as { frames: ServerFrameVector[] };

function recordBytes(input: NonNullable<ServerFrameVector["input"]>): Uint8Array {
  if (input.value !== undefined) return new TextEncoder().encode(input.value);
  return Uint8Array.from((input.value_hex ?? "").match(/../g) ?? [], (h) => parseInt(h, 16));
}

// A subscription outside a client, to run frames through the SDK's own handling.
function bareSubscription<T>(endpoint: string): Subscription<T> {
  return new Subscription<T>({ unsubscribe: async () => {}, reportError: (err) => assert.fail(String(err)) }, endpoint, "latest", 0);
}

// What an EventSource hands its listener for one event: data lines joined with "\n".
function parseSSE(text: string): { id?: string; event?: string; data?: string; comments: string[] } {
  const out: { id?: string; event?: string; data?: string; comments: string[] } = { comments: [] };
  const data: string[] = [];
  for (const line of text.replace(/\n\n$/, "").split("\n")) {
    if (line.startsWith(":")) out.comments.push(line.slice(1).trim());
    else if (line.startsWith("id: ")) out.id = line.slice(4);
    else if (line.startsWith("event: ")) out.event = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
    else assert.fail(`unexpected SSE line ${JSON.stringify(line)}`);
  }
  if (data.length > 0) out.data = data.join("\n");
  return out;
}

describe("vectors/server-frames.json", () => {
  it("covers every server frame kind", () => {
    const kinds = new Set(serverFrames.frames.map((v) => v.type));
    for (const k of ["authenticated", "subscribed", "unsubscribed", "message", "gap", "published", "error", "closing", "pong"])
      assert.ok(kinds.has(k), k);
  });

  for (const v of serverFrames.frames) {
    it(`decodes ${v.name}`, () => {
      const frame = decodeServerFrame(v.json);
      assert.ok(frame, "a known frame type");
      assert.deepEqual(frame, v.fields);

      if (frame.type === "message") {
        const input = v.input!;
        const sub = bareSubscription<unknown>(input.endpoint);
        const got: Message<unknown>[] = [];
        sub.on("message", (m) => got.push(m));
        assert.equal(sub.handleMessage(frame), true);
        const m = got[0]!;
        assert.deepEqual(m.position, { epoch: input.epoch, partition: input.partition, seq: input.seq });
        assert.equal(m.ts, input.ts);
        switch (v.delivers) {
          case "json":
            assert.deepEqual(m.data, JSON.parse(input.value!));
            assert.equal(m.encoding, undefined);
            break;
          case "text":
            assert.equal(m.data, input.value);
            break;
          case "bytes":
            assert.equal(m.encoding, "base64");
            assert.deepEqual(m.data, recordBytes(input));
            assert.equal(m.error, input.error);
            break;
          default:
            assert.fail(`message vector without delivers: ${v.delivers}`);
        }
      }
      if (frame.type === "subscribed") {
        const sub = bareSubscription(frame.endpoint);
        sub.handleSubscribed(frame.epoch, frame.partition, frame.seq);
        // Before any message, the acknowledged start is where the subscription resumes.
        assert.deepEqual(sub.position, { epoch: frame.epoch, partition: frame.partition, seq: frame.seq });
        assert.deepEqual(sub.resumeFrom(), sub.position);
      }
      if (frame.type === "gap") {
        const sub = bareSubscription(frame.endpoint);
        sub.handleSubscribed(frame.epoch, frame.partition, 0);
        const gaps: unknown[] = [];
        sub.on("gap", (g) => gaps.push(g));
        sub.handleGap(frame);
        assert.deepEqual(gaps, [
          {
            endpoint: frame.endpoint,
            epoch: frame.epoch,
            partition: frame.partition,
            fromSeq: frame.from_seq,
            toSeq: frame.to_seq,
            reason: frame.reason,
          },
        ]);
      }
    });

    if (v.sse !== undefined) {
      it(`reads the SSE event of ${v.name}`, () => {
        const ev = parseSSE(v.sse!);
        const f = v.fields as Record<string, unknown>;
        if (v.type === "subscribed") {
          assert.deepEqual(ev.comments, [`subscribed ${f.endpoint}`]);
          assert.equal(ev.id, `${f.epoch}:${f.partition}:${f.seq}`);
          assert.equal(ev.data, undefined); // sets the last event id, dispatches nothing
          return;
        }
        assert.equal(ev.event, v.type);
        const data = JSON.parse(ev.data!) as Record<string, unknown>;
        if (v.type === "message") {
          // The same object without "type"; the position is the event id.
          const { type: _type, ...rest } = f;
          assert.deepEqual(data, rest);
          assert.equal(ev.id, `${f.epoch}:${f.partition}:${f.seq}`);
        } else {
          assert.deepEqual(data, f);
        }
      });
    }
  }

  it("refuses a subscribed frame whose seq is not an integer", () => {
    assert.throws(() => decodeServerFrame('{"type":"subscribed","endpoint":"/a/b","epoch":"E","partition":0,"seq":"7"}'), ProtocolError);
    assert.deepEqual(decodeServerFrame('{"type":"subscribed","endpoint":"/a/b","epoch":"E","partition":0}'), {
      type: "subscribed",
      endpoint: "/a/b",
      epoch: "E",
      partition: 0,
    });
  });
});

const handshakes = vectors("handshakes.json") as {
  token: string;
  app: string;
  expires_at: number;
  cases: { name: string; authorization: string; send: string[]; expect: string[]; status?: number }[];
};

describe("vectors/handshakes.json", () => {
  it("the SDK's handshake is the auth-frame case: the frame it sends and the answer it reads", () => {
    const c = handshakes.cases.find((x) => x.authorization === "" && x.send.length === 1);
    assert.ok(c, "an auth-frame case");
    // The SDK cannot set headers in a browser, so it always authenticates with the frame.
    assert.equal(encodeClientFrame({ type: "auth", id: "1", token: handshakes.token }), c.send[0]);
    assert.deepEqual(decodeServerFrame(c.expect[0]!), {
      type: "authenticated",
      id: "1",
      app: handshakes.app,
      expires_at: handshakes.expires_at,
    });
  });

  it("an Authorization header is answered with an authenticated frame the client did not ask for", () => {
    const c = handshakes.cases.find((x) => x.authorization !== "" && x.send.length === 0 && x.status === undefined);
    assert.ok(c, "a header case without client frames");
    assert.deepEqual(
      c.expect.map((f) => decodeServerFrame(f)),
      [{ type: "authenticated", app: handshakes.app, expires_at: handshakes.expires_at }],
    );
  });

  for (const c of handshakes.cases) {
    it(`decodes every frame of "${c.name}"`, () => {
      for (const f of c.send) assert.equal(decodeClientFrame(f).type, JSON.parse(f).type);
      for (const f of c.expect) assert.deepEqual(decodeServerFrame(f), JSON.parse(f));
    });
  }
});
