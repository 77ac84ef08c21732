"""Golden Goal: see :mod:`arena.games.goldengoal.game` for the rules and rulings."""

from arena.games.goldengoal.game import GAME, GoldenGoal, GoldenGoalState, goal_ends_match

__all__ = ["GAME", "GoldenGoal", "GoldenGoalState", "goal_ends_match"]
