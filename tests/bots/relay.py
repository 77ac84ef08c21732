"""A relay in front of another bot's endpoint: what someone who registers that endpoint as his
own, through a server of his, would run. Every Play stream is forwarded to the upstream endpoint
message for message, both ways, as raw bytes (nothing is parsed or changed).

    python tests/bots/relay.py --upstream 127.0.0.1:50061 --port 0

Prints ``listening on 127.0.0.1:PORT``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import Any

import grpc
import grpc.aio

PLAY = "/arena.v1.BotService/Play"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", required=True, help="HOST:PORT of the endpoint relayed to")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    channel = grpc.aio.insecure_channel(args.upstream)

    async def play(requests: Any, context: grpc.aio.ServicerContext) -> None:
        upstream = channel.stream_stream(PLAY)()

        async def forward() -> None:
            while (message := await context.read()) is not grpc.aio.EOF:
                await upstream.write(message)
            await upstream.done_writing()

        sending = asyncio.ensure_future(forward())
        try:
            while (answer := await upstream.read()) is not grpc.aio.EOF:
                await context.write(answer)
        except grpc.aio.AioRpcError as error:  # the upstream's refusal, passed on as it came
            context.set_code(error.code())
            context.set_details(error.details() or "")
        finally:
            sending.cancel()
            with contextlib.suppress(BaseException):
                await sending

    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(play)  # raw bytes both ways
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("arena.v1.BotService", {"Play": handler}),))
    port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    await server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(main())
