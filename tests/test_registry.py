"""The registry holds exactly the 26 games of the mission, by id (a game lost from the package
tree, or one added without its issue, fails here)."""

from arena.registry import games

GAME_IDS = (
    "chicken",
    "eggsandempires",
    "fortheemperor",
    "frenzyfalls",
    "friendlyfishing",
    "gasha",
    "getbit",
    "goldengoal",
    "karakum",
    "llamallama",
    "openseason",
    "opensesame",
    "petquartet",
    "prey",
    "rainbow",
    "rolldice",
    "seasons",
    "seerscatalog",
    "skyfive",
    "slambo",
    "sodajerk",
    "threewitches",
    "tricktothefuture",
    "vivo",
    "winecellar",
    "zoolorettodice",
)


def test_the_registry_lists_the_26_games_in_order():
    assert len(GAME_IDS) == 26
    assert tuple(games()) == GAME_IDS
