"""Exact game math of the statute games: every bet's return under optimal play, as par sheets."""
