"""Open Season: see :mod:`arena.games.openseason.game` for the rules and rulings."""

from arena.games.openseason.game import BOARDS, GAME, OpenSeason, SeasonState, legal_spaces, score_lines, total

__all__ = ["BOARDS", "GAME", "OpenSeason", "SeasonState", "legal_spaces", "score_lines", "total"]
