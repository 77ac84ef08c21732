from arena.games.zoolorettodice.game import GAME, Zoo, ZoolorettoDice, ZooState

__all__ = ["GAME", "Zoo", "ZooState", "ZoolorettoDice"]
