"""The registry holds exactly the 26 games of the mission, by id (a game lost from the package
tree, or one added without its issue, fails here; a new game's id goes into ``GAME_IDS``, in
the registry's order: README "Adding a game", step 6)."""

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
    registered = tuple(games())
    assert registered == GAME_IDS, (
        f"not registered: {sorted(set(GAME_IDS) - set(registered))}; registered but not listed "
        f"here: {sorted(set(registered) - set(GAME_IDS))} (a new game: README 'Adding a game', step 6)"
    )
