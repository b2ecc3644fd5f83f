"""The CP-SAT models and their features by name, with their help and defaults: what a
caller may choose (`encode.cpsat` builds them). This module imports no OR-Tools, so the
command line names the choices without loading the solver.
"""

from __future__ import annotations

from blackhole.encode import cnf

MODEL_HELP: dict[str, str] = {
    "inverse": "seq/pos inverse with a rank table (CSPLib 081): the fastest",
    "boolean": "card-at-position literals, rank literals, played-by ladders",
    "circuit": "add_circuit over rank-adjacent arcs, positions tied to arcs",
    "cnf": "the SAT encoding's clauses, one bool_or each (its features are the SAT ones)",
}
MODELS: tuple[str, ...] = tuple(MODEL_HELP)
# Over pysol:1-1000 the inverse model has the lowest median, p99 and maximum (presolve
# off, see blackhole.backends.cpsat).
DEFAULT_MODEL = "inverse"

FEATURE_HELP: dict[str, str] = {
    "symmetry": "same-rank symmetry breaking (Gent et al. 2007); every model",
    "rankcount": "rank k shows at as many positions as it has cards (implied); boolean",
    "alldiff": "all positions differ (implied by the circuit); circuit",
}
FEATURES: frozenset[str] = frozenset(FEATURE_HELP)
MODEL_FEATURES: dict[str, frozenset[str]] = {
    "inverse": frozenset({"symmetry"}),
    "boolean": frozenset({"symmetry", "rankcount"}),
    "circuit": frozenset({"symmetry", "alldiff"}),
    "cnf": cnf.FEATURES,
}
# The features each model runs with when no features are given (measured).
DEFAULT_FEATURES: dict[str, frozenset[str]] = {
    "inverse": frozenset({"symmetry"}),
    "boolean": frozenset({"rankcount"}),
    "circuit": frozenset({"alldiff", "symmetry"}),  # only with both does it settle every deal
    "cnf": cnf.DEFAULT_FEATURES,
}
# The rule features (`blackhole.model.games.Rules.features`) each model plays: the inverse
# and cnf models read a game's directed arcs and talon (encodings/golf.md), and the
# layout through the precedence pairs alone (`covers`); the others
# play Black Hole's rules only, and refuse any other game (`encode.cpsat.build_model`).
# The inverse and cnf models also play a free cell (encodings/worm-hole.md).
MODEL_PLAYS: dict[str, frozenset[str]] = {
    "inverse": frozenset({"talon", "wrap", "on_king", "won", "covers", "cells", "cell_uses"}),
    "boolean": frozenset(),
    "circuit": frozenset(),
    "cnf": cnf.PLAYS,
}
# The optional-position model (the best score) plays Black Hole's rules only: a game
# with a talon scores fan cards alone.
OPTIONAL_PLAYS: frozenset[str] = frozenset()
# The optional-position model is the Boolean one; both of its features are sound for
# prefixes (rankcount as "at most", encodings/cpsat.md).
OPTIONAL_FEATURES: frozenset[str] = MODEL_FEATURES["boolean"]
DEFAULT_OPTIONAL_FEATURES: frozenset[str] = frozenset({"rankcount"})  # measured
