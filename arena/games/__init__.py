"""The games: one package per game (rules module, component data, rulings in its docstring).

``arena.games.v1`` holds the generated protobuf code of each game's protocol
(``proto/arena/games/v1/<game>.proto``).
"""
