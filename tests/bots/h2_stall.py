"""A hostile bot at the HTTP/2 level: it starves the referee's writes (issue 10, A).

    python tests/bots/h2_stall.py --behaviour stop-reading --at 1 --port 0

Prints ``listening on 127.0.0.1:PORT``. A hand-written gRPC server on the ``h2`` package, so it
can do what a well-behaved HTTP/2 stack never does:

  silent        accepts TCP connections and never reads or writes: the HTTP/2 handshake never
                completes
  zero-window   completes the handshake with a stream flow-control window of 0: the referee can
                never send the start message
  stop-reading  plays the first option until its ``--at``-th decision (0-based, its own count);
                with that answer it sets its window to 0 (SETTINGS_INITIAL_WINDOW_SIZE) and
                never grants more: the referee's next write blocks for good
"""

from __future__ import annotations

import argparse
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import h2.config
import h2.connection
import h2.events
from h2.settings import SettingCodes

from arena.v1 import bot_pb2


def grpc_frame(message: bot_pb2.BotMessage) -> bytes:
    body = message.SerializeToString()
    return struct.pack(">?I", False, len(body)) + body


class Connection:
    def __init__(self, sock: socket.socket, args: argparse.Namespace) -> None:
        self.sock = sock
        self.args = args
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding=None))
        self.buffers: dict[int, bytes] = {}
        self.asked = 0
        self.starving = False

    def run(self) -> None:
        if self.args.behaviour == "silent":
            time.sleep(3600)
            return
        self.conn.initiate_connection()
        if self.args.behaviour == "zero-window":
            self.conn.update_settings({SettingCodes.INITIAL_WINDOW_SIZE: 0})
        self.flush()
        while True:
            data = self.sock.recv(65536)
            if not data:
                return
            for event in self.conn.receive_data(data):
                self.handle(event)
            self.flush()

    def flush(self) -> None:
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)

    def handle(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.RequestReceived):
            self.buffers[event.stream_id] = b""
            self.conn.send_headers(event.stream_id, [(b":status", b"200"), (b"content-type", b"application/grpc")])
        elif isinstance(event, h2.events.DataReceived):
            if not self.starving:  # grant the window back, until we starve the referee
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            buffer = self.buffers.get(event.stream_id, b"") + event.data
            while len(buffer) >= 5:
                _, size = struct.unpack(">?I", buffer[:5])
                if len(buffer) < 5 + size:
                    break
                message = bot_pb2.RefereeMessage.FromString(buffer[5 : 5 + size])
                buffer = buffer[5 + size :]
                self.answer(event.stream_id, message)
            self.buffers[event.stream_id] = buffer
        elif isinstance(event, h2.events.StreamEnded) and not self.starving:
            self.conn.send_headers(event.stream_id, [(b"grpc-status", b"0")], end_stream=True)

    def answer(self, stream_id: int, message: bot_pb2.RefereeMessage) -> None:
        body = message.WhichOneof("body")
        if body == "start":
            ready = bot_pb2.Ready(protocol_version="1.0", bot_name="h2-stall")
            self.conn.send_data(stream_id, grpc_frame(bot_pb2.BotMessage(ready=ready)))
        elif body == "decision" and not self.starving:
            request = message.decision
            if self.args.behaviour == "stop-reading" and self.asked == self.args.at:
                # Sent before the answer, so the referee's next request finds the window at 0.
                self.conn.update_settings({SettingCodes.INITIAL_WINDOW_SIZE: 0})
                self.starving = True
            self.asked += 1
            response = bot_pb2.DecisionResponse(
                decision_index=request.decision_index, option_id=request.options[0].id, request_id=request.request_id
            )
            self.conn.send_data(stream_id, grpc_frame(bot_pb2.BotMessage(decision=response)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--behaviour", required=True, choices=("silent", "zero-window", "stop-reading"))
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.port))
    server.listen(64)
    print(f"listening on 127.0.0.1:{server.getsockname()[1]}", flush=True)
    while True:
        sock, _ = server.accept()
        threading.Thread(target=Connection(sock, args).run, daemon=True).start()


if __name__ == "__main__":
    main()
