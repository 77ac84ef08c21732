"""Arena: a referee for bots playing tabletop games.

The domain package: the engine contract (:mod:`arena.engine`), chance (:mod:`arena.chance`),
the games (:mod:`arena.games`), the match runner and records, ratings and pairings. It imports
nothing from ``referee``, ``workers`` or ``bots``; the CLI (:mod:`arena.cli`) is the composition
root where those meet.
"""

import os

# One BLAS thread, unless the operator says otherwise: Arena's matrices are small (a board's bots
# squared), its processes many (pool processes, the service, clients), and on these 2-core
# machines OpenBLAS's threads made a 300-bot board's Newton solves 24x slower (121 ms against 5
# a solve; the bootstrap of a game board across tournaments 11.9 s against 2.3). Set before
# numpy is imported (the arena package comes first in every entry point).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
PROTOCOL_VERSION = "1.0"
