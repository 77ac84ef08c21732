"""A bare gRPC echo server on the same transport as a bot: one bidirectional stream, the same
asyncio server stack and options as the bot SDK (:mod:`bots.serve`), bytes echoed back
untouched (no protobuf work), after an optional delay (``asyncio.sleep``, as ``first_bot``).

    python -m bench.echo_server --port 0 [--unix PATH] [--delay 0.02] [--marks FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import grpc.aio

from bench.options import finite
from bench.transport_legs import write_marks
from bots.serve import SERVER_OPTIONS


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--unix")
    parser.add_argument("--delay", type=finite(0.0, "seconds", inclusive=True), default=0.0)
    parser.add_argument("--marks", help="note when each message was read here (bench.transport_legs)")
    args = parser.parse_args()

    async def echo(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        async for message in requests:
            if args.delay:
                await asyncio.sleep(args.delay)
            yield message

    async def marked_echo(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        reads: list[int] = []
        try:
            async for message in requests:
                reads.append(time.monotonic_ns())
                yield message
        finally:
            write_marks(args.marks, reads)

    server = grpc.aio.server(options=SERVER_OPTIONS)
    # No (de)serializers: raw bytes.
    handler: grpc.RpcMethodHandler = grpc.stream_stream_rpc_method_handler(marked_echo if args.marks else echo)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
    address = f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}"
    port = server.add_insecure_port(address)
    await server.start()
    print(f"listening on {address if args.unix else f'127.0.0.1:{port}'}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(main())
