"""Arena: a referee for bots playing tabletop games.

The domain package: the engine contract (:mod:`arena.engine`), chance (:mod:`arena.chance`),
the games (:mod:`arena.games`), the match runner and records, ratings and pairings. It imports
nothing from ``referee``, ``workers`` or ``bots``; the CLI (:mod:`arena.cli`) is the composition
root where those meet.
"""

__version__ = "0.1.0"
PROTOCOL_VERSION = "1.0"
