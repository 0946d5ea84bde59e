@@HEADER@@
"""A client for the Sluice wire protocol v1 (WebSocket, subprotocol sluice.v1).

One connection at a time. Subscriptions outlive connections: after a drop the
client reconnects with exponential backoff and full jitter and re-subscribes
each endpoint from the last delivered position, dropping anything at or before
it, so a handler sees every message once. Given several gateway URLs (nodes of
one cluster), it puts them in a random order of its own, starts at the first
and moves to the next after every drop or failed attempt (so the clients of a
node that stops spread over all the others). A publish is sent once: if the
connection drops before its acknowledgement it fails (the outcome is unknown)
rather than risk writing the record twice.
"""
from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, Generic, Optional, TypeVar, Union

from websockets.asyncio.client import ClientConnection, connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

SUBPROTOCOL = "sluice.v1"
DEFAULT_GATEWAY_URL = @@GATEWAY_URL@@  # the gateway (comma-separated nodes) this client was generated for

# Error codes of PROTOCOL.md ("Errors"), plus client-side ones (>= 6000).
BAD_FRAME = 4000
UNAUTHENTICATED = 4001
FORBIDDEN = 4003
NOT_FOUND = 4004
NOT_ALLOWED = 4005
TOKEN_EXPIRED = 4008
REVOKED = 4009
INVALID_PAYLOAD = 4022
TOO_MANY_SUBSCRIPTIONS = 4029
ALREADY_SUBSCRIBED = 4090
INTERNAL = 5000
UNAVAILABLE = 5003
PUBLISH_UNCONFIRMED = 5004  # a publish that may or may not be written
TIMEOUT = 6001
DISCONNECTED = 6002
CLOSED = 6003
UNREACHABLE = 6004  # the first connection could be made to none of the gateway URLs

T = TypeVar("T")


class SluiceError(Exception):
    """An error from the gateway (code as in PROTOCOL.md) or from this client (codes >= 6000)."""

    def __init__(self, code: int, message: str, endpoint: Optional[str] = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.endpoint = endpoint


@dataclass(frozen=True)
class Position:
    """Where a message lives in Kafka; subscribe with from_=position to resume right after it."""

    epoch: str
    partition: int
    seq: int

    def to_json(self) -> Dict[str, Any]:
        return {"epoch": self.epoch, "partition": self.partition, "seq": self.seq}


@dataclass
class Message(Generic[T]):
    """One delivered message."""

    endpoint: str  # canonical endpoint path
    key: str  # the Kafka record key (decoded)
    data: T  # the payload: JSON value, text, or bytes (bytes endpoints and records that fit no format)
    raw_data: Any  # the payload exactly as it travelled (base64 text when encoding == "base64")
    encoding: Optional[str]
    ts: int  # Kafka record timestamp, ms since the epoch
    position: Position


@dataclass
class Gap:
    """Messages with from_seq <= seq < to_seq will not arrive (reason: retention, epoch, slow_consumer)."""

    endpoint: str
    epoch: str
    partition: int
    from_seq: int
    to_seq: int
    reason: str


@dataclass
class Ack:
    """A publish acknowledgement: Kafka stored the record here."""

    endpoint: str
    epoch: str
    partition: int
    seq: int

    def to_json(self) -> Dict[str, Any]:
        return {"endpoint": self.endpoint, "epoch": self.epoch, "partition": self.partition, "seq": self.seq}


# `from` of a subscription: "latest", "earliest", {"time": ms} or a Position.
From = Union[str, Dict[str, int], Position]
MessageHandler = Callable[[Message[Any]], Union[None, Awaitable[None]]]
GapHandler = Callable[[Gap], Union[None, Awaitable[None]]]

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_TOPIC_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _bad_path(message: str) -> SluiceError:
    return SluiceError(BAD_FRAME, f"endpoint: {message}")


def parse_path(raw: str) -> tuple[str, str, str]:
    """Reads an endpoint path (PROTOCOL.md, "Endpoints and paths"); returns (canonical, topic, key)."""
    if not raw.startswith("/"):
        raise _bad_path(f"{raw!r} must start with /")
    segments = raw[1:].split("/")
    if len(segments) < 2:
        raise _bad_path(f"{raw!r} needs a topic and a key (/topic/key)")
    decoded = []
    for i, segment in enumerate(segments):
        try:
            d = urllib.parse.unquote(segment, errors="strict")
        except UnicodeDecodeError:
            raise _bad_path(f"segment {i + 1} of {raw!r} is not valid percent-encoded UTF-8") from None
        if d == "":
            raise _bad_path(f"{raw!r} has an empty segment")
        if "/" in d:
            raise _bad_path(f"segment {i + 1} of {raw!r} encodes a '/'")
        decoded.append(d)
    topic, key_segments = decoded[0], decoded[1:]
    if len(topic) > 249 or topic in (".", "..") or not set(topic) <= _TOPIC_CHARS:
        raise _bad_path(f"topic {topic!r} is not a valid Kafka topic name (A-Z a-z 0-9 . _ -)")
    key = "/".join(key_segments)
    if len(key.encode("utf-8")) > 1024:
        raise _bad_path("key is longer than 1024 bytes")
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in key):
        raise _bad_path("key holds a control character")
    canonical = "/" + topic + "/" + "/".join(escape_segment(s) for s in key_segments)
    return canonical, topic, key


def escape_segment(segment: str) -> str:
    """Percent-encodes one path segment's UTF-8 bytes, keeping A-Z a-z 0-9 - . _ ~."""
    return "".join(chr(b) if b in _UNRESERVED else "%%%02X" % b for b in segment.encode("utf-8"))


def key_path(prefix: str, key: str) -> str:
    """Builds `prefix/<key>` for a parameterised endpoint; a key may contain '/' (one segment each)."""
    return prefix + "/" + "/".join(escape_segment(s) for s in key.split("/"))


def websocket_url(gateway_url: str) -> str:
    """http(s)://host[:port][/base] -> ws(s)://host[:port][/base]/ws (a ws(s):// URL is taken as is)."""
    url = gateway_url.strip().rstrip("/")
    if url.startswith("ws://") or url.startswith("wss://"):
        return url
    if url.startswith("https://"):
        return "wss://" + url[len("https://"):] + "/ws"
    if url.startswith("http://"):
        return "ws://" + url[len("http://"):] + "/ws"
    raise SluiceError(BAD_FRAME, f"SLUICE_GATEWAY_URL must start with http://, https://, ws:// or wss://: {gateway_url!r}")


def gateway_urls(text: str) -> list[str]:
    """A comma-separated list of gateway URLs (SLUICE_GATEWAY_URL's form) as WebSocket URLs."""
    urls = [websocket_url(part) for part in text.split(",") if part.strip()]
    if not urls:
        raise SluiceError(BAD_FRAME, f"SLUICE_GATEWAY_URL holds no gateway URL: {text!r}")
    return urls


class Backoff:
    """Exponential backoff with full jitter: attempt n waits uniformly in [0, min(max, initial * 2^n))."""

    def __init__(self, initial: float = 0.5, maximum: float = 30.0, factor: float = 2.0) -> None:
        self.initial, self.maximum, self.factor = initial, maximum, factor
        self.attempt = 0

    def next(self) -> float:
        cap = min(self.maximum, self.initial * self.factor ** self.attempt)
        self.attempt += 1
        return random.uniform(0, cap)

    def reset(self) -> None:
        self.attempt = 0


class Subscription:
    """A subscription to one endpoint; it is restored after every reconnect from the last delivered message."""

    def __init__(self, client: "Client", endpoint: str, key: str, from_: From,
                 on_message: MessageHandler, on_gap: Optional[GapHandler], decode: Callable[[Any], Any]) -> None:
        self._client = client
        self.endpoint = endpoint
        self.key = key
        self._from = from_
        self._created_ms = int(time.time() * 1000)
        self._on_message = on_message
        self._on_gap = on_gap
        self._decode = decode
        self._epoch: Optional[str] = None
        self._last_seq: Dict[int, int] = {}  # highest seq delivered per partition in _epoch
        self.position: Optional[Position] = None
        self.duplicates_dropped = 0
        self.acknowledgements = 0
        self._sent = False
        self._not_found_retries = 0
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    @property
    def active(self) -> bool:
        return not self._ended.done()

    async def ready(self) -> None:
        """Waits for the gateway's first acknowledgement; raises SluiceError if it refused the subscription."""
        await asyncio.shield(self._ready)

    async def wait_ended(self) -> None:
        """Waits until the subscription ends; raises the SluiceError that ended it, if any."""
        await asyncio.shield(self._ended)

    async def unsubscribe(self) -> None:
        await self._client._unsubscribe(self)

    def _resume_from(self) -> Any:
        # After a message: right after it. Before any: right after the acknowledged
        # start (subscribed.seq). From a gateway that sends no seq: the original
        # start, except "latest", whose start moved on: then the subscribe time.
        if self.position is not None:
            return self.position.to_json()
        if isinstance(self._from, Position):
            return self._from.to_json()
        if self._from == "latest":
            return {"time": self._created_ms} if self._sent else None
        return self._from

    def _handle_subscribed(self, answer: Dict[str, Any]) -> None:
        epoch, partition, seq = answer.get("epoch", ""), int(answer.get("partition", 0)), answer.get("seq")
        if self._epoch is not None and self._epoch != epoch:
            self._last_seq.clear()
        self._epoch = epoch
        # A resume is acknowledged with the position it asked for; only a start in
        # another epoch or partition (the topic was recreated) replaces it.
        pos = self.position
        if isinstance(seq, int) and (pos is None or pos.epoch != epoch or pos.partition != partition):
            self.position = Position(epoch, partition, seq)
        self.acknowledgements += 1
        self._not_found_retries = 0
        if not self._ready.done():
            self._ready.set_result(None)

    async def _handle_message(self, frame: Dict[str, Any]) -> None:
        epoch, partition, seq = frame["epoch"], int(frame["partition"]), int(frame["seq"])
        if self._epoch != epoch:
            self._last_seq.clear()  # the topic was recreated: seqs restart
            self._epoch = epoch
        last = self._last_seq.get(partition)
        if last is not None and seq <= last:
            self.duplicates_dropped += 1
            return
        self._last_seq[partition] = seq
        self.position = Position(epoch, partition, seq)
        raw = frame.get("data")
        encoding = frame.get("encoding")
        data = base64.b64decode(raw) if encoding == "base64" and isinstance(raw, str) else self._decode(raw)
        message = Message(self.endpoint, self.key, data, raw, encoding, int(frame.get("ts", 0)), self.position)
        await _call(self._on_message, message)

    async def _handle_gap(self, frame: Dict[str, Any]) -> None:
        if self._on_gap is not None:
            gap = Gap(self.endpoint, frame["epoch"], int(frame["partition"]), int(frame["from_seq"]), int(frame["to_seq"]), frame.get("reason", ""))
            await _call(self._on_gap, gap)

    def _end(self, error: Optional[SluiceError]) -> None:
        if self._ended.done():
            return
        if error is not None:
            self._ended.set_exception(error)
            if not self._ready.done():
                self._ready.set_exception(error)
        else:
            self._ended.set_result(None)
            if not self._ready.done():
                self._ready.set_exception(SluiceError(CLOSED, "the subscription ended", self.endpoint))
        # Nobody may await these: don't let Python warn about unretrieved exceptions.
        self._ended.exception()
        if not self._ready.cancelled():
            self._ready.exception()


async def _call(fn: Callable[..., Any], arg: Any) -> None:
    result = fn(arg)
    if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
        await result


class Client:
    """A connection to a Sluice gateway that reconnects and resumes on its own.

    token defaults to the environment variable SLUICE_TOKEN and gateway_url to
    SLUICE_GATEWAY_URL, then to the gateway this client was generated for.
    gateway_url may list several nodes separated by commas: the client starts at
    a random one and moves to the next after a drop or a failed attempt.
    Call `await client.start()` (or use `async with Client() as client`).
    """

    def __init__(self, gateway_url: Optional[str] = None, token: Optional[str] = None, *,
                 request_timeout: float = 10.0, publish_timeout: float = 30.0, ping_interval: float = 30.0,
                 first_connect_timeout: float = 30.0, backoff: Optional[Backoff] = None,
                 log: Optional[Callable[[str], None]] = None) -> None:
        token = token if token is not None else os.environ.get("SLUICE_TOKEN", "")
        if not token:
            raise SluiceError(UNAUTHENTICATED, "no token: set the environment variable SLUICE_TOKEN to an app token from the Sluice portal")
        self.token = token
        # A random order of its own: starts spread over the nodes, and so do the
        # moves away from a node that stops.
        self.urls = gateway_urls(gateway_url or os.environ.get("SLUICE_GATEWAY_URL") or DEFAULT_GATEWAY_URL)
        random.shuffle(self.urls)
        self._url_index = 0
        self.request_timeout = request_timeout
        self.publish_timeout = publish_timeout
        self.ping_interval = ping_interval
        self.first_connect_timeout = first_connect_timeout
        self.backoff = backoff or Backoff()
        self.log = log or (lambda line: print(f"sluice: {line}", file=sys.stderr, flush=True))
        self.app: Optional[str] = None
        self._ws: Optional[ClientConnection] = None
        self._authenticated = asyncio.Event()
        self._next_id = 0
        self._pending: Dict[str, asyncio.Future[Dict[str, Any]]] = {}
        self._subs: Dict[str, Subscription] = {}
        self._runner: Optional[asyncio.Task[None]] = None
        self._first: Optional[asyncio.Future[None]] = None
        self._done: Optional[asyncio.Future[None]] = None
        self._closing = False

    @property
    def url(self) -> str:
        """The gateway URL in use (or tried next)."""
        return self.urls[self._url_index]

    async def __aenter__(self) -> "Client":
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def start(self) -> None:
        """Connects and authenticates; raises SluiceError if the first connection cannot be made."""
        loop = asyncio.get_running_loop()
        self._first = loop.create_future()
        self._done = loop.create_future()
        self._runner = asyncio.create_task(self._run())
        await asyncio.shield(self._first)

    async def wait_closed(self) -> None:
        """Waits until the client ends for good; raises the SluiceError that ended it (not after close())."""
        assert self._done is not None, "start() first"
        await asyncio.shield(self._done)

    async def close(self) -> None:
        """Ends the client: subscriptions end, pending calls fail."""
        self._closing = True
        if self._runner is not None:
            self._runner.cancel()
            try:
                await self._runner
            except (asyncio.CancelledError, Exception):
                pass
        self._shutdown(None)

    async def subscribe(self, path: str, on_message: MessageHandler, *, from_: From = "latest",
                        on_gap: Optional[GapHandler] = None, decode: Callable[[Any], Any] = lambda v: v) -> Subscription:
        """Subscribes to a concrete endpoint path and waits for the gateway's acknowledgement.

        from_: "latest" (default), "earliest", {"time": ms} or a Position to resume after.
        Raises SluiceError when the gateway refuses (4003 not permitted, 4004 no such endpoint, ...).
        """
        canonical, _, key = parse_path(path)
        if canonical in self._subs:
            raise SluiceError(ALREADY_SUBSCRIBED, f"already subscribed to {canonical}", canonical)
        sub = Subscription(self, canonical, key, from_, on_message, on_gap, decode)
        self._subs[canonical] = sub
        if self._authenticated.is_set() and self._ws is not None:
            self._send_subscribe(self._ws, sub)
        await sub.ready()
        return sub

    async def publish(self, path: str, data: Any, *, encoding: Optional[str] = None) -> Ack:
        """Publishes one message and returns where Kafka stored it.

        bytes are sent base64-encoded. Waits for a connection up to publish_timeout.
        Raises SluiceError: 4022 payload rejected, 4003 not permitted, DISCONNECTED
        when the connection dropped before the acknowledgement (it may or may not be written).
        """
        canonical, _, _ = parse_path(path)
        if isinstance(data, (bytes, bytearray)):
            data, encoding = base64.b64encode(bytes(data)).decode("ascii"), "base64"
        frame: Dict[str, Any] = {"type": "publish", "endpoint": canonical, "data": data}
        if encoding:
            frame["encoding"] = encoding
        deadline = time.monotonic() + self.publish_timeout
        ws = await self._connected(canonical, self.publish_timeout)
        answer = await self._request(ws, frame, max(0.1, deadline - time.monotonic()))
        return Ack(answer["endpoint"], answer["epoch"], int(answer["partition"]), int(answer["seq"]))

    async def _connected(self, endpoint: str, timeout: float) -> ClientConnection:
        """Waits until the client is authenticated on a connection (or ends)."""
        if self._done is None:
            raise SluiceError(CLOSED, "start() the client first", endpoint)
        waiter = asyncio.ensure_future(self._authenticated.wait())
        try:
            await asyncio.wait({waiter, self._done}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if self._done.done():
            error = self._done.exception()
            raise error if error is not None else SluiceError(CLOSED, "the client is closed", endpoint)
        if self._ws is None or not self._authenticated.is_set():
            raise SluiceError(TIMEOUT, f"{endpoint}: not connected within {timeout:.0f} s", endpoint)
        return self._ws

    # ---- connection loop ---------------------------------------------------

    async def _run(self) -> None:
        connected_once = False
        auth_failures = 0
        refused = 0  # first attempts in a row that no node answered (a 502/503/504 from a loading node does not count)
        first_deadline = time.monotonic() + self.first_connect_timeout
        while not self._closing:
            authenticated, reason, fatal = await self._connection()
            if self._closing:
                return
            refused = 0 if reason.startswith("HTTP 5") else refused + 1
            if authenticated:
                connected_once, auth_failures = True, 0
            elif fatal is not None and fatal.code == UNAUTHENTICATED and connected_once and auth_failures < 2:
                # The token worked before: a node that just started may not know its key yet.
                auth_failures += 1
                fatal = None
            if fatal is not None:
                self._shutdown(fatal)
                return
            if not connected_once and (refused >= len(self.urls) or time.monotonic() > first_deadline):
                self._shutdown(SluiceError(UNREACHABLE, f"no gateway reachable ({', '.join(self.urls)}): {reason}"))
                return
            # Whatever ended this connection may end the next attempt at the same
            # node too (it died, or is shutting down): try the next one.
            self._url_index = (self._url_index + 1) % len(self.urls)
            delay = self.backoff.next()
            self.log(f"disconnected ({reason}); reconnecting to {self.url} in {delay:.1f} s")
            await asyncio.sleep(delay)

    async def _connection(self) -> tuple[bool, str, Optional[SluiceError]]:
        """Runs one connection until it ends: (authenticated, why it ended, error that ends the client)."""
        try:
            ws = await ws_connect(self.url, subprotocols=[SUBPROTOCOL], open_timeout=self.request_timeout,
                                  max_size=2 ** 20 + 1024, ping_interval=20, ping_timeout=20, close_timeout=2,
                                  user_agent_header="sluice-python websockets")
        except InvalidStatus as exc:
            status = exc.response.status_code
            if status in (502, 503, 504):  # a node still loading its catalog, or a proxy in between
                return False, f"HTTP {status}", None
            body = exc.response.body.decode("utf-8", "replace")[:300] if exc.response.body else ""
            return False, f"HTTP {status}", SluiceError(DISCONNECTED, f"the gateway refused the WebSocket upgrade with HTTP {status} {body}".strip())
        except (OSError, InvalidHandshake, asyncio.TimeoutError) as exc:
            return False, f"{type(exc).__name__}: {exc}", None
        self._ws = ws
        authenticated = False
        closing: tuple[int, str] = (1006, "connection lost")
        reader = asyncio.create_task(self._read(ws))
        pinger: Optional[asyncio.Task[None]] = None
        try:
            answer = await self._request(ws, {"type": "auth", "token": self.token}, self.request_timeout, reader)
            self.app = answer.get("app")
            authenticated = True
            self.backoff.reset()
            self._authenticated.set()
            if self._first is not None and not self._first.done():
                self._first.set_result(None)
            for sub in list(self._subs.values()):
                self._send_subscribe(ws, sub)
            pinger = asyncio.create_task(self._ping(ws))
            closing = await reader
        except SluiceError as err:
            if reader.done() and not reader.cancelled():
                closing = reader.result()
            elif err.code != DISCONNECTED:
                return False, err.message, err if err.code in (UNAUTHENTICATED, TOKEN_EXPIRED, REVOKED) else None
        finally:
            self._ws = None
            self._authenticated.clear()
            reader.cancel()
            if pinger is not None:
                pinger.cancel()
            await ws.close()
            self._fail_in_flight()
        code, reason = closing
        fatal: Optional[SluiceError] = None
        if code == REVOKED:
            fatal = SluiceError(REVOKED, f"token revoked: {reason}; a new token is needed")
        elif code == TOKEN_EXPIRED:
            fatal = SluiceError(TOKEN_EXPIRED, "token expired: set SLUICE_TOKEN to a new token")
        elif code == UNAUTHENTICATED:
            fatal = SluiceError(UNAUTHENTICATED, f"not authenticated: {reason}")
        return authenticated, f"{code} {reason}".strip(), fatal

    async def _read(self, ws: ClientConnection) -> tuple[int, str]:
        """Dispatches frames until the connection ends; returns the closing code and reason."""
        closing: Optional[tuple[int, str]] = None
        try:
            async for raw in ws:
                try:
                    frame = json.loads(raw)
                except ValueError:
                    self.log(f"ignored a frame that is not JSON: {str(raw)[:100]}")
                    continue
                if not isinstance(frame, dict):
                    continue
                kind = frame.get("type")
                if kind == "message":
                    sub = self._subs.get(frame.get("endpoint", ""))
                    if sub is not None:
                        await self._guard(sub._handle_message(frame))
                elif kind == "gap":
                    sub = self._subs.get(frame.get("endpoint", ""))
                    if sub is not None:
                        await self._guard(sub._handle_gap(frame))
                elif kind == "closing":
                    closing = (int(frame.get("code", 1006)), str(frame.get("reason", "")))
                elif kind == "unsubscribed" and not frame.get("id"):
                    sub = self._subs.pop(frame.get("endpoint", ""), None)
                    if sub is not None:
                        sub._end(SluiceError(int(frame.get("code", NOT_FOUND)), frame.get("reason") or "ended by the gateway", sub.endpoint))
                else:
                    future = self._pending.pop(str(frame.get("id", "")), None)
                    if future is not None and not future.done():
                        future.set_result(frame)
                    elif kind == "error":
                        self.log(f"gateway error {frame.get('code')}: {frame.get('message')}")
        except ConnectionClosed as exc:
            if closing is None and exc.rcvd is not None:
                closing = (exc.rcvd.code, exc.rcvd.reason)
        return closing or (ws.close_code or 1006, ws.close_reason or "connection lost")

    async def _guard(self, work: Awaitable[None]) -> None:
        try:
            await work
        except Exception as exc:  # a handler's exception must not end the connection
            self.log(f"handler failed: {type(exc).__name__}: {exc}")

    async def _ping(self, ws: ClientConnection) -> None:
        # The gateway's WebSocket pings keep the socket open; this one finds a dead
        # connection that the operating system has not noticed yet.
        while True:
            await asyncio.sleep(self.ping_interval)
            try:
                await self._request(ws, {"type": "ping"}, self.request_timeout)
            except SluiceError as err:
                if err.code == TIMEOUT:
                    self.log("no pong: the connection is dead")
                    await ws.close(1000, "no pong")
                return

    async def _request(self, ws: ClientConnection, frame: Dict[str, Any], timeout: float,
                       reader: Optional[asyncio.Task[Any]] = None) -> Dict[str, Any]:
        self._next_id += 1
        ident = str(self._next_id)
        future: asyncio.Future[Dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            await ws.send(json.dumps({**frame, "id": ident}, separators=(",", ":")))
            waiters: set[asyncio.Future[Any]] = {future}
            if reader is not None:
                waiters.add(reader)  # the connection may end before the answer
            done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if future not in done:
                if reader is not None and reader in done:
                    raise SluiceError(DISCONNECTED, f"connection closed before the answer to {frame['type']}")
                raise SluiceError(TIMEOUT, f"{frame['type']}: no answer within {timeout:.0f} s")
            answer = future.result()
        except ConnectionClosed:
            raise SluiceError(DISCONNECTED, f"connection closed before the answer to {frame['type']}") from None
        finally:
            self._pending.pop(ident, None)
        if answer.get("type") == "error":
            raise SluiceError(int(answer.get("code", INTERNAL)), str(answer.get("message", "")), frame.get("endpoint"))
        return answer

    def _send_subscribe(self, ws: ClientConnection, sub: Subscription) -> None:
        frame: Dict[str, Any] = {"type": "subscribe", "endpoint": sub.endpoint}
        start = sub._resume_from()
        if start is not None and start != "latest":
            frame["from"] = start
        sub._sent = True

        async def go() -> None:
            try:
                answer = await self._request(ws, frame, self.request_timeout)
                if self._subs.get(sub.endpoint) is sub:
                    sub._handle_subscribed(answer)
            except SluiceError as err:
                if self._ws is not ws or self._subs.get(sub.endpoint) is not sub:
                    return
                not_found_on_resume = err.code == NOT_FOUND and sub.acknowledgements > 0 and sub._not_found_retries < 3
                if err.code in (INTERNAL, UNAVAILABLE, TIMEOUT) or not_found_on_resume:
                    # Transient (Kafka unavailable, a node still loading): try again on this connection.
                    sub._not_found_retries += 1 if not_found_on_resume else 0
                    self.log(f"subscribe {sub.endpoint} failed ({err.message}); retrying")
                    await asyncio.sleep(0.5 * (2 ** sub._not_found_retries))
                    if self._ws is ws and self._subs.get(sub.endpoint) is sub:
                        self._send_subscribe(ws, sub)
                    return
                if err.code == DISCONNECTED:
                    return  # the next connection subscribes again
                self._subs.pop(sub.endpoint, None)
                sub._end(err)

        asyncio.create_task(go())

    async def _unsubscribe(self, sub: Subscription) -> None:
        if self._subs.get(sub.endpoint) is sub:
            del self._subs[sub.endpoint]
        sub._end(None)
        ws = self._ws
        if ws is not None and self._authenticated.is_set() and sub._sent:
            try:
                await self._request(ws, {"type": "unsubscribe", "endpoint": sub.endpoint}, self.request_timeout)
            except SluiceError as err:
                if err.code not in (NOT_FOUND, DISCONNECTED):
                    raise

    def _fail_in_flight(self) -> None:
        for ident, future in list(self._pending.items()):
            if not future.done():
                future.set_exception(SluiceError(DISCONNECTED, "connection lost before the answer: a publish may or may not have been written"))
                future.exception()
            self._pending.pop(ident, None)

    def _shutdown(self, error: Optional[SluiceError]) -> None:
        self._closing = True
        for sub in list(self._subs.values()):
            sub._end(error)
        self._subs.clear()
        for future in (self._first, self._done):
            if future is not None and not future.done():
                if error is not None:
                    future.set_exception(error)
                    future.exception()
                elif future is self._done:
                    future.set_result(None)
                else:
                    future.set_exception(SluiceError(CLOSED, "the client was closed"))
                    future.exception()
