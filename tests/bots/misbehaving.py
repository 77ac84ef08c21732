"""A bot process that misbehaves in one chosen way, for the referee's failure-handling tests.

    python tests/bots/misbehaving.py --behaviour sleep --at 1 --port 0

Prints ``listening on 127.0.0.1:PORT`` and serves BotService with a raw handler (responses are
bytes, so it can also send garbage). Until its ``--at``-th decision (0-based, its own count) it
plays the first option; then it misbehaves:

  well       never misbehaves (a control)
  sleep      sleeps ``--sleep`` seconds before answering
  sleeps     sleeps at several of its decisions: ``--sleeps 0:1.09,1:0.5`` (decision:seconds)
  exit       the process exits at once (os._exit)
  illegal    answers an id that is not an option
  oversized  answers with a 200 KB option id
  garbage    sends bytes that are not a BotMessage
  noready    never answers start with ready
  twice      answers the decision twice
  thrice     answers the decision three times
  latetwice  sleeps ``--sleep`` seconds, then answers the decision twice
  early      right after ready, answers a decision it was never asked
  readytwice right after ready, sends ready again
  close      ends the stream instead of answering
  extraclose answers, sends ready again, and ends the stream (status OK)
  exhausted  ends the stream with status RESOURCE_EXHAUSTED (its own, not an oversized message)
  version    ready names another game version (checked at start)
  concurrent counts its concurrent streams into --count-file (max seen), answering after --sleep
  index      answers with a decision_index that is not the request's
  mangled    answers with the request_id plus one
  flood      after ready, sends unsolicited 4 KB messages as fast as it can (at most 20,000),
             writing how many it sent to --count-file
  floodatend plays well, then floods as `flood` does when the match ends (finish or abort)
  jsnumber   never misbehaves on purpose, but echoes every request_id through a double, as a
             JavaScript client decoding 64-bit integers as numbers does

``--clock-file PATH`` (any behaviour) appends the clock of every MatchStart it receives to PATH,
one JSON object a line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from concurrent import futures

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import grpc
from google.protobuf.json_format import MessageToDict

from arena.v1 import bot_pb2

JS_NUMBERS = False  # set by --behaviour jsnumber
GARBAGE = b"\x0f\xff\xff\xff"  # field 1 with wire type 7: no protobuf parser accepts it


def ready(game_version: str = "") -> bytes:
    return bot_pb2.BotMessage(
        ready=bot_pb2.Ready(protocol_version="1.0", bot_name="misbehaving", game_version=game_version)
    ).SerializeToString()


def answer(request: bot_pb2.DecisionRequest | None, option: str, *, index_shift: int = 0, id_shift: int = 0) -> bytes:
    index, request_id = (request.decision_index, request.request_id) if request else (0, 0)
    index, request_id = index + index_shift, request_id + id_shift
    if JS_NUMBERS:
        request_id = int(float(request_id))
    return bot_pb2.BotMessage(
        decision=bot_pb2.DecisionResponse(decision_index=index, option_id=option, request_id=request_id)
    ).SerializeToString()


def flood(count_file: str | None):
    junk = answer(None, "x" * 4096)
    for sent in range(1, 20_001):
        yield junk
        if count_file and sent % 50 == 0:
            with open(count_file, "w") as handle:
                handle.write(str(sent))


class Concurrency:
    def __init__(self, path: str | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            if self.path:
                with open(self.path, "w") as handle:
                    handle.write(str(self.peak))

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


def make_play(args: argparse.Namespace):
    counter = Concurrency(args.count_file)

    def play(requests, context):
        asked = 0
        with counter:
            for message in requests:
                body = message.WhichOneof("body")
                if body == "start":
                    if args.clock_file:
                        clock = MessageToDict(message.start.clock, preserving_proto_field_name=True)
                        with open(args.clock_file, "a") as handle:
                            handle.write(json.dumps(clock) + "\n")
                    if args.behaviour == "noready":
                        time.sleep(3600)
                    if args.behaviour == "busy":  # a live server that answers UNAVAILABLE
                        context.abort(grpc.StatusCode.UNAVAILABLE, "busy: try later")
                    yield ready("0.0-other" if args.behaviour == "version" else "")
                    if args.behaviour == "flood":
                        yield from flood(args.count_file)
                        return
                    if args.behaviour == "early":
                        yield answer(None, "stop")
                    if args.behaviour == "readytwice":
                        yield ready()
                elif body == "decision":
                    request = message.decision
                    first = request.options[0].id
                    if args.behaviour == "concurrent":
                        time.sleep(args.sleep)
                    elif args.behaviour == "sleeps":
                        time.sleep(args.sleeps.get(asked, 0.0))
                    elif asked == args.at:
                        behaviour = args.behaviour
                        if behaviour == "sleep":
                            time.sleep(args.sleep)
                        elif behaviour == "exit":
                            os._exit(3)
                        elif behaviour == "illegal":
                            yield answer(request, "no-such-option")
                            asked += 1
                            continue
                        elif behaviour == "oversized":
                            yield answer(request, "x" * 200_000)
                            asked += 1
                            continue
                        elif behaviour == "garbage":
                            yield GARBAGE
                            asked += 1
                            continue
                        elif behaviour in ("index", "mangled"):
                            shift = {"index_shift" if behaviour == "index" else "id_shift": 1}
                            yield answer(request, first, **shift)
                            asked += 1
                            continue
                        elif behaviour == "twice":
                            yield answer(request, first)
                        elif behaviour == "thrice":
                            yield answer(request, first)
                            yield answer(request, first)
                        elif behaviour == "latetwice":
                            time.sleep(args.sleep)
                            yield answer(request, first)
                        elif behaviour == "empty":  # a BotMessage with no body
                            yield b""
                            asked += 1
                            continue
                        elif behaviour == "close":
                            return
                        elif behaviour == "extraclose":
                            yield answer(request, first)
                            yield ready()
                            return
                        elif behaviour == "exhausted":
                            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "out of patience")
                    asked += 1
                    yield answer(request, first)
                elif args.behaviour == "floodatend":
                    yield from flood(args.count_file)
                    return
                else:
                    return

    return play


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--behaviour", required=True)
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument(
        "--sleeps",
        type=lambda text: {int(k): float(v) for k, v in (item.split(":") for item in text.split(","))},
        default={},
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--count-file")
    parser.add_argument("--clock-file")
    args = parser.parse_args()
    global JS_NUMBERS
    JS_NUMBERS = args.behaviour == "jsnumber"
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=64))
    handler = grpc.stream_stream_rpc_method_handler(
        make_play(args),
        request_deserializer=bot_pb2.RefereeMessage.FromString,
        response_serializer=lambda raw: raw,
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("arena.v1.BotService", {"Play": handler}),))
    port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
