"""Bots: the SDK (:mod:`bots.sdk`) and the built-in bots of every game (:mod:`bots.registry`)."""
