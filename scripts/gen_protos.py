"""Regenerate the committed Python code of every .proto under proto/.

    python scripts/gen_protos.py            # write into the repository
    python scripts/gen_protos.py --out DIR  # write elsewhere (the staleness test compares)

Uses the pinned grpcio-tools (see pyproject's ``dev`` extra) and mypy-protobuf for typed stubs.
Output paths mirror the proto paths, so ``proto/arena/v1/bot.proto`` becomes
``arena/v1/bot_pb2.py`` and the generated absolute imports resolve without patching.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"


def proto_files() -> list[Path]:
    return sorted(PROTO.rglob("*.proto"))


def generate(out: Path) -> None:
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    files = [str(p.relative_to(PROTO)) for p in proto_files()]
    services = [f for f in files if "service " in (PROTO / f).read_text()]
    base = ["protoc", f"-I{PROTO}", f"-I{include}", f"--python_out={out}", f"--mypy_out={out}"]
    if protoc.main([*base, *files]) != 0:
        raise SystemExit("protoc failed")
    grpc_args = ["protoc", f"-I{PROTO}", f"-I{include}", f"--grpc_python_out={out}"]
    grpc_args.append(f"--mypy_grpc_out={out}")
    if services and protoc.main([*grpc_args, *services]) != 0:
        raise SystemExit("protoc (grpc) failed")
    for directory in {(out / f).parent for f in files}:
        for package in [directory, *directory.parents]:
            if package == out or out not in package.parents:
                break
            (package / "__init__.py").touch(exist_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    generate(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
