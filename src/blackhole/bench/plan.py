"""Planning a run: the deals, the backend labels, and every (deal, backend) task.

Everything a user can get wrong is found here, before any task runs: a spec that deals
nothing, a file that is no deal, an unknown backend or variant, an option no chosen
backend reads, an external solver command that is not installed, a game a chosen backend
does not play.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from blackhole.backends import (
    Backend,
    Options,
    available_backends,
    check_options_apply,
    make_backend,
    split_label,
)
from blackhole.base.errors import InputError
from blackhole.bench.record import TASKS, deal_board
from blackhole.model.games import DEFAULT_GAME, VARIANTS, Variant
from blackhole.model.positions import load_position
from blackhole.model.sources import expand_specs, generated_spec

DEFAULT_TIMEOUT = 60.0  # backend seconds per task
GRACE = 5.0  # seconds past the backend's timeout before the worker is killed


@dataclass(frozen=True)
class Task:
    """One deal through one backend. `board` carries a file's deal to the worker, so a
    worker (on any host) never reads the file, and the record says what was solved."""

    deal: str  # one deal spec
    label: str  # the backend entry as the user wrote it, e.g. "sat:glucose4"
    backend: str  # the registry name, e.g. "sat"
    options: Options
    kind: str = "solve"  # one of record.TASKS
    board: dict[str, Any] | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """The key of the record this task writes (record.Record.key)."""
        return self.kind, self.deal, self.label


# What a bench compares when no backends are named: the SAT encoding against the CP-SAT
# model, each running only its own engine.
DEFAULT_BACKENDS = ("sat", "cpsat")


def default_backends(kind: str = "solve") -> list[str]:
    """DEFAULT_BACKENDS, those of them installed here (both find best scores too)."""
    names = [name for name in DEFAULT_BACKENDS if name in available_backends()]
    return names if kind == "solve" else [n for n in names if make_backend(n).finds_best]


def plays_game(backend: Backend, game: Variant, kind: str, spec: str) -> None:
    """Refuse, before any task runs, a backend that cannot take `game`'s rules for this
    kind of task (a rule feature of the game outside `Backend.plays`, `best_plays`): an
    InputError naming the first deal of that game, the game and the backend, and auto
    where auto plays it."""
    kind_of = "best" if kind == "best" else "solve"
    plays = backend.best_plays if kind_of == "best" else backend.plays
    if not game.features <= plays:
        what = "find its best score" if kind_of == "best" else "play it"
        auto = make_backend("auto")
        also = auto.best_plays if kind_of == "best" else auto.plays
        does = " (auto does)" if game.features <= also else ""
        raise InputError(f"{game.title}: the {backend.name} backend does not {what}{does}",
                         spec, token=backend.name)


def plan_tasks(specs: str | Sequence[str], backends: Sequence[str] | None,
               options: Options, kind: str = "solve",
               given: Iterable[str] = ()) -> list[Task]:
    """Every (deal, backend) task, deal-major, so that a partial run compares backends
    fairly; `kind` is what each task asks (record.TASKS). `given` names the Options
    fields the user set: each must be read by some chosen backend, or the user would
    believe it took effect."""
    if kind not in TASKS:
        raise InputError(f"unknown task (choose from {', '.join(TASKS)})", "task", token=kind)
    deals = list(dict.fromkeys(expand_specs(specs)))
    if not deals:
        raise InputError("no deals to run", "specs", token=str(specs))
    labels = list(dict.fromkeys(backends if backends else default_backends(kind)))
    if not labels:
        raise InputError("no backend available", "backends")
    chosen = []
    for label in labels:
        name, opts = split_label(label, options)
        backend = make_backend(name)  # a backend whose solver is missing stops it here
        if kind == "best":  # so does one that finds no best score
            backend.check_best(opts)
        else:  # so does a bad variant, or a solver command that is not installed
            backend.check(opts)
        chosen.append((label, name, opts))
    check_options_apply(list(dict.fromkeys(name for _, name, _ in chosen)), given)
    boards: dict[str, dict[str, Any] | None] = {}
    refused: set[str] = set()  # the games already checked against every backend
    for spec in deals:
        if spec == "-":
            raise InputError("bench reads no deal from stdin", "specs", token=spec)
        generated = generated_spec(spec)  # checks the spec; dealt later, in a worker
        if generated is not None:
            boards[spec] = None
            game = VARIANTS.get(generated[2].rpartition(":")[2], DEFAULT_GAME)
        else:
            position = load_position(spec)  # a file: read it now, so a bad one stops the run
            for _, name, _ in chosen:
                make_backend(name).check_size(position.deal.cards_in_fans, spec)
            boards[spec] = deal_board(position)
            game = position.deal.game
        if game.name not in refused:
            refused.add(game.name)
            for _, name, _ in chosen:
                plays_game(make_backend(name), game, kind, spec)
    return [Task(deal, label, name, opts, kind, boards[deal])
            for deal in deals for label, name, opts in chosen]

