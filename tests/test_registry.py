"""The registry holds exactly the 26 games of the mission, by id (a game lost from the package
tree, or one added without its issue, fails here; a new game's id goes into ``GAME_IDS``, in
the registry's order: README "Adding a game", step 6)."""

import sys

import pytest

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


def test_a_package_without_its_game_is_named(tmp_path, monkeypatch):
    """A contributor's package that exports no ``GAME`` is an error naming it, not a game left
    out without a word ("unknown game 'pipgrab'" although arena/games/pipgrab exists)."""
    import arena.games
    from arena import registry

    (tmp_path / "pipgrab").mkdir()
    (tmp_path / "pipgrab" / "__init__.py").write_text("from arena.engine import Game\n")  # GAME is in game.py only
    monkeypatch.setattr(arena.games, "__path__", [*arena.games.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_ALONE", {})
    registry.games.cache_clear()
    try:
        with pytest.raises(registry.RegistryError, match=r"arena\.games\.pipgrab exports no GAME"):
            registry.get_game("pipgrab")
        with pytest.raises(registry.RegistryError, match=r"arena\.games\.pipgrab exports no GAME"):
            registry.games()
    finally:
        registry.games.cache_clear()
        sys.modules.pop("arena.games.pipgrab", None)
