"""The committed generated code matches the .proto sources (regenerate: scripts/gen_protos.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def generated_files(base: Path) -> dict[str, bytes]:
    out = {}
    for pattern in ("*_pb2.py", "*_pb2.pyi", "*_pb2_grpc.py", "*_pb2_grpc.pyi"):
        for path in (base / "arena").rglob(pattern):
            out[str(path.relative_to(base))] = path.read_bytes()
    return out


def test_committed_protocol_code_is_fresh(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_protos.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = generated_files(tmp_path)
    committed = generated_files(ROOT)
    assert fresh, "no code generated"
    stale = sorted(k for k in fresh.keys() | committed.keys() if fresh.get(k) != committed.get(k))
    assert not stale, f"stale generated code (run python scripts/gen_protos.py): {stale}"


def test_every_game_has_a_proto_and_every_proto_a_game():
    from arena.registry import games

    protos = {path.stem for path in (ROOT / "proto" / "arena" / "games" / "v1").glob("*.proto")}
    # a proto of no registered game: a game whose package does not register (or a leftover)
    assert protos == set(games()), {"no proto": set(games()) - protos, "no game": protos - set(games())}
