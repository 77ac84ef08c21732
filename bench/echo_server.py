"""A bare gRPC echo server on the same transport as a bot: one bidirectional stream, the same
sync server stack as the bot SDK, bytes echoed back untouched (no protobuf work).

    python -m bench.echo_server --port 0 [--unix PATH]
"""

from __future__ import annotations

import argparse
from concurrent import futures

import grpc

from bots.serve import SERVER_OPTIONS


def echo(requests, context):  # type: ignore[no-untyped-def]
    yield from requests


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--unix")
    args = parser.parse_args()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=SERVER_OPTIONS)
    handler = grpc.stream_stream_rpc_method_handler(echo)  # no (de)serializers: raw bytes
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
    address = f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}"
    port = server.add_insecure_port(address)
    server.start()
    print(f"listening on {address if args.unix else f'127.0.0.1:{port}'}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
