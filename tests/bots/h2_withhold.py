"""A hostile bot at the HTTP/2 level that thinks before its request has arrived (an outside
probe's, kept as a test bot): with flow control it lets the referee write every byte of a
decision request but the last 9 (the request_id), parses the options from what it has,
"thinks" ``--think`` seconds while the referee's write is still pending, then lets the rest in
and answers after ``--after`` seconds. When the referee's clock started at the write's end, such
a bot thought ``--think`` seconds for free (530 ms a decision at a 300 ms limit).

    python tests/bots/h2_withhold.py --port 0 --think 0.25 --after 0.25

Prints ``serving on 127.0.0.1:PORT``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import h2.config
import h2.connection
import h2.events
import h2.settings

from arena.v1 import bot_pb2

ARGS = None


class Stream:
    def __init__(self, sid: int) -> None:
        self.sid = sid
        self.buf = b""
        self.messages = 0
        self.want = 0  # bytes granted but not yet received
        self.length: int | None = None
        self.partial_done = False


class Conn:
    def __init__(self, reader, writer) -> None:
        self.reader, self.writer = reader, writer
        cfg = h2.config.H2Configuration(client_side=False, header_encoding=None)
        self.h2 = h2.connection.H2Connection(config=cfg)
        self.streams: dict[int, Stream] = {}

    def flush(self) -> None:
        data = self.h2.data_to_send()
        if data:
            self.writer.write(data)

    def grant(self, st: Stream, n: int) -> None:
        if n > 0:
            self.h2.increment_flow_control_window(n, stream_id=st.sid)
            st.want += n
            self.flush()

    def send(self, st: Stream, msg: bot_pb2.BotMessage) -> None:
        body = msg.SerializeToString()
        self.h2.send_data(st.sid, b"\x00" + struct.pack(">I", len(body)) + body)
        self.flush()

    async def run(self) -> None:
        self.h2.initiate_connection()
        self.h2.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
        self.flush()
        while True:
            data = await self.reader.read(65536)
            if not data:
                return
            for ev in self.h2.receive_data(data):
                await self.on_event(ev)
            self.flush()

    async def on_event(self, ev) -> None:
        if isinstance(ev, h2.events.RequestReceived):
            st = self.streams[ev.stream_id] = Stream(ev.stream_id)
            st.want = self.h2._get_stream_by_id(ev.stream_id).inbound_flow_control_window
            self.h2.send_headers(ev.stream_id, [(b":status", b"200"), (b"content-type", b"application/grpc")])
            # Data may already be in flight under the default window (before our SETTINGS):
            # h2 tracks it against the window it announced; grant the prefix.
            self.grant(st, 5)
        elif isinstance(ev, h2.events.DataReceived):
            st = self.streams.get(ev.stream_id)
            self.h2.increment_flow_control_window(ev.flow_controlled_length)  # connection level only
            if st is None:
                return
            st.buf += ev.data
            st.want -= ev.flow_controlled_length
            self.process(st)
        elif isinstance(ev, (h2.events.StreamEnded, h2.events.StreamReset)):
            self.streams.pop(ev.stream_id, None)

    def process(self, st: Stream) -> None:
        while True:
            if st.length is None:
                if len(st.buf) < 5:
                    self.grant(st, 5 - len(st.buf) - max(0, st.want))
                    return
                st.length = struct.unpack(">I", st.buf[1:5])[0]
                st.buf = st.buf[5:]
                if st.messages == 0 or ARGS.think <= 0:
                    self.grant(st, st.length - len(st.buf) - max(0, st.want))
                else:
                    self.grant(st, st.length - 9 - len(st.buf) - max(0, st.want))
            L = st.length
            if len(st.buf) >= L:
                body, st.buf = st.buf[:L], st.buf[L:]
                st.length = None
                st.partial_done = False
                self.on_message(st, bot_pb2.RefereeMessage.FromString(body))
                continue
            if st.messages > 0 and ARGS.think > 0 and not st.partial_done and len(st.buf) >= L - 9:
                st.partial_done = True
                # Everything but the request_id: parse the DecisionRequest from the bytes we have.
                raw = st.buf[: L - 9]
                # skip RefereeMessage tag (0x12) and the varint length
                i = 1
                while raw[i] & 0x80:
                    i += 1
                partial = bot_pb2.DecisionRequest.FromString(raw[i + 1 :])
                assert partial.options  # what the bot thinks about, before the request is complete
                asyncio.get_running_loop().call_later(ARGS.think, self.grant_rest, st)
            return

    def grant_rest(self, st: Stream) -> None:
        if st.sid in self.streams:
            self.grant(st, st.length - len(st.buf) - max(0, st.want) if st.length else 9)

    def on_message(self, st: Stream, msg: bot_pb2.RefereeMessage) -> None:
        body = msg.WhichOneof("body")
        st.messages += 1
        if body == "start":
            self.send(st, bot_pb2.BotMessage(ready=bot_pb2.Ready(protocol_version="1.0", bot_name="h2bot")))
        elif body == "decision":
            req = msg.decision

            def answer() -> None:
                if st.sid not in self.streams:
                    return
                resp = bot_pb2.DecisionResponse(
                    decision_index=req.decision_index, option_id=req.options[0].id, request_id=req.request_id
                )
                self.send(st, bot_pb2.BotMessage(decision=resp))

            if ARGS.after > 0:
                asyncio.get_running_loop().call_later(ARGS.after, answer)
            else:
                answer()
        # else finish/abort: nothing


async def main() -> None:
    async def handle(reader, writer):
        try:
            await Conn(reader, writer).run()
        except Exception as exc:
            print("conn error", type(exc).__name__, exc, file=sys.stderr)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", ARGS.port)
    print(f"serving on 127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--think", type=float, default=0.25)
    p.add_argument("--after", type=float, default=0.0)
    ARGS = p.parse_args()
    asyncio.run(main())
