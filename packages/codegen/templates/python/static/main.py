@@HEADER@@
"""Command line: subscribe to or publish on an endpoint of @@TITLE@@.

  python main.py subscribe <path> [--from earliest|latest|<ms since epoch>]
  python main.py publish <path> '<json>'

SLUICE_TOKEN (required) is the app token; SLUICE_GATEWAY_URL (or --gateway) overrides
the gateway: one URL or several nodes separated by commas.
subscribe prints one JSON line per message and runs until stopped; publish prints
the acknowledgement as one JSON line. Exit codes: 0 done, 1 error, 2 usage,
3 no token or token refused, 4 token expired, 5 token revoked, 6 no gateway reachable.
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any, Optional

import api
from sluice_client import (REVOKED, TOKEN_EXPIRED, UNAUTHENTICATED, UNREACHABLE, Client, From, Gap, Message,
                           SluiceError, parse_path)

USAGE = __doc__.split("\n\n")[1]


def out(value: Any) -> None:
    sys.stdout.write(json.dumps(value, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def find_channel(path: str) -> tuple[Optional[api.Channel], str]:
    """The channel serving a concrete path (an exact endpoint first, then its topic's parameterised one)."""
    canonical, topic, key = parse_path(path)
    for channel in api.CHANNELS:
        if channel.key is not None and parse_path(channel.address)[0] == canonical:
            return channel, key
    for channel in api.CHANNELS:
        if channel.key is None and channel.topic == topic:
            return channel, key
    return None, key


async def subscribe(path: str, start: From) -> int:
    def on_message(message: Message[Any]) -> None:
        line = {"endpoint": message.endpoint, "partition": message.position.partition, "seq": message.position.seq,
                "epoch": message.position.epoch, "key": message.key, "data": message.raw_data, "ts": message.ts}
        if message.encoding:
            line["encoding"] = message.encoding
        out(line)

    def on_gap(gap: Gap) -> None:
        print(f"sluice: gap on {gap.endpoint} partition {gap.partition}: seq {gap.from_seq} to {gap.to_seq} will not arrive ({gap.reason})", file=sys.stderr, flush=True)

    async with Client() as client:
        channel, key = find_channel(path)
        if channel is not None and channel.subscribe is not None:
            sub = await channel.subscribe(client, key, on_message, from_=start, on_gap=on_gap)
        else:
            print(f"sluice: {path} is not a subscribable endpoint of this API; trying anyway", file=sys.stderr, flush=True)
            sub = await client.subscribe(path, on_message, from_=start, on_gap=on_gap)
        out({"subscribed": sub.endpoint})
        ended = asyncio.ensure_future(sub.wait_ended())
        closed = asyncio.ensure_future(client.wait_closed())
        done, pending = await asyncio.wait({ended, closed}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        errors = [task.exception() for task in done]  # retrieved, so asyncio never prints one at exit
        for error in errors:
            if error is not None:
                raise error
    return 0


async def publish(path: str, text: str) -> int:
    try:
        data = json.loads(text)
    except ValueError as exc:
        print(f"sluice: the message is not JSON: {exc}", file=sys.stderr)
        return 2
    async with Client() as client:
        channel, key = find_channel(path)
        if channel is not None and channel.publish is not None:
            ack = await channel.publish(client, key, data)
        else:
            print(f"sluice: {path} is not a publishable endpoint of this API; trying anyway", file=sys.stderr, flush=True)
            ack = await client.publish(path, data)
        out(ack.to_json())
    return 0


def parse_from(value: str) -> From:
    if value in ("earliest", "latest"):
        return value
    if value.isdigit():
        return {"time": int(value)}
    raise SluiceError(4000, f"--from must be earliest, latest or a time in ms since the epoch, not {value!r}")


# Exit codes shared by every generated client (codegen README, "Exit codes").
EXIT_ERROR, EXIT_USAGE, EXIT_TOKEN_REFUSED, EXIT_TOKEN_EXPIRED, EXIT_TOKEN_REVOKED, EXIT_UNREACHABLE = 1, 2, 3, 4, 5, 6


def ending(err: SluiceError) -> tuple[int, str]:
    """The exit code and the one line on stderr that end the program after err."""
    if err.code == REVOKED:
        return EXIT_TOKEN_REVOKED, "sluice: token revoked (4009): mint a new token in the portal"
    if err.code == TOKEN_EXPIRED:
        return EXIT_TOKEN_EXPIRED, "sluice: token expired (4008): mint a new token in the portal"
    if err.code == UNAUTHENTICATED and not os.environ.get("SLUICE_TOKEN"):
        return EXIT_TOKEN_REFUSED, "sluice: no token: set SLUICE_TOKEN to an app token from the portal"
    if err.code == UNAUTHENTICATED:
        return EXIT_TOKEN_REFUSED, f"sluice: token refused (4001): {err.message}"
    if err.code == UNREACHABLE:
        return EXIT_UNREACHABLE, f"sluice: {err.message}"
    return EXIT_ERROR, f"sluice: {err}"


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "--gateway":
        os.environ["SLUICE_GATEWAY_URL"] = argv[1]
        argv = argv[2:]
    try:
        if len(argv) >= 2 and argv[0] == "subscribe":
            start: From = "latest"
            rest = argv[2:]
            if len(rest) == 2 and rest[0] == "--from":
                start = parse_from(rest[1])
            elif rest:
                raise SluiceError(4000, "usage: " + USAGE.strip())
            return asyncio.run(subscribe(argv[1], start))
        if len(argv) == 3 and argv[0] == "publish":
            return asyncio.run(publish(argv[1], argv[2]))
        print("usage:\n" + USAGE, file=sys.stderr)
        return 2
    except SluiceError as err:
        code, line = ending(err)
        print(line, file=sys.stderr)
        return code
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # a bug or an unexpected failure: still one line, never a traceback
        print(f"sluice: unexpected error: {type(err).__name__}: {err}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
