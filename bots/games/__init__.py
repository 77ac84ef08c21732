"""Built-in bots per game: module ``bots.games.<game id>`` exports ``BOTS``, a mapping from bot
name to a factory ``(params: dict[str, str]) -> Bot``."""
