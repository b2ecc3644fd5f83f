"""Levers for the hardest deals, measured by glucose4's conflicts (deterministic: the same
counts on any machine, whatever its load) and by seconds (which depend on the machine).

    python benchmarks/hard_levers.py features DEAL [--conflicts N]
    python benchmarks/hard_levers.py cubes DEAL --depth D [--fresh] [--conflicts N]

`features` solves DEAL's CNF with glucose4 under feature sets around the portfolio's
(the default and the same-rank symmetry cut), one at a time, each up to N conflicts
(default 300,000; over it the row says "none").

`cubes` splits DEAL at depth D: every state the rules reach after D moves (the cards
played and the hole's card; two orders of the same cards are one state) is one cube,
stated on the CNF as "exactly these cards are played by position D, and this one at
D". Every winning line passes through one of them, so the deal is lost exactly when
every cube is refuted. Each cube is solved in turn: by one incremental glucose4 under
assumptions (learnt clauses carried from cube to cube), or with `--fresh` by a new
solver with the cube as unit clauses. It stops at the first cube that is satisfiable.
The CNF is the portfolio's (default features and the symmetry cut), which keeps a win
whenever there is one, so the cubes stay complete.
"""

from __future__ import annotations

import argparse
import sys
import time

from pysat.solvers import Solver

from blackhole.encode.cnf import DEFAULT_FEATURES, build_cnf
from blackhole.model.deal import Deal
from blackhole.model.problem import Problem, build_problem
from blackhole.model.rules import State, initial_state, legal_moves, play
from blackhole.model.sources import load_deal

PORTFOLIO = DEFAULT_FEATURES | {"symmetry"}
VARIANTS = {  # name → features
    "default": DEFAULT_FEATURES,
    "default + symmetry (auto's first solver)": PORTFOLIO,
    "+ symmetry - forward": PORTFOLIO - {"forward"},
    "+ symmetry - rankcount": PORTFOLIO - {"rankcount"},
    "+ symmetry + deadrank": PORTFOLIO | {"deadrank"},
    "+ symmetry + alo": PORTFOLIO | {"alo"},
}


def solve(clauses: list[list[int]], conflicts: int,
          assumptions: list[int] | None = None, solver: Solver | None = None
          ) -> tuple[bool | None, int, float]:
    """(answer or None at the budget, conflicts spent, seconds)."""
    own = solver is None
    sat = Solver(name="glucose4", bootstrap_with=clauses) if own else solver
    before = sat.accum_stats().get("conflicts", 0)
    sat.conf_budget(conflicts)
    began = time.perf_counter()
    answer = sat.solve_limited(assumptions=assumptions or [])
    seconds = time.perf_counter() - began
    spent = sat.accum_stats().get("conflicts", 0) - before
    if own:
        sat.delete()
    return answer, spent, seconds


def features(spec: str, conflicts: int) -> None:
    problem = build_problem(load_deal(spec))
    print(f"{spec}, glucose4, at most {conflicts:,} conflicts\n")
    print("| features | clauses | answer | conflicts | solve s |")
    print("|---|---|---|---|---|")
    for name, chosen in VARIANTS.items():
        encoding = build_cnf(problem, chosen)
        answer, spent, seconds = solve(encoding.clauses, conflicts)
        said = {True: "won", False: "lost", None: "none"}[answer]
        print(f"| {name} | {len(encoding.clauses):,} | {said} | {spent:,} | {seconds:.1f} |",
              flush=True)


def states_at(deal: Deal, depth: int) -> list[State]:
    """Every state the rules reach after `depth` moves, in a fixed order."""
    states = {initial_state(deal)}
    for _ in range(depth):
        states = {play(deal, state, fan) for state in states for fan in legal_moves(deal, state)}
    return sorted(states, key=lambda s: (s.heights, str(s.hole)))


def cube(deal: Deal, problem: Problem, ids: dict[tuple, int], state: State, depth: int
         ) -> list[int]:
    """The literals that say "this state after `depth` moves" (`ids`: key → variable)."""
    node = {card: v for v, card in enumerate(problem.cards)}
    left = {deal.fans[f][h] for f, height in enumerate(state.heights) for h in range(height)}
    literals = []
    for v in problem.moves:
        by = ids.get(("by", v, depth))
        if by is not None:
            literals.append(-by if problem.cards[v] in left else by)
    at = ids.get(("at", node[state.hole], depth))
    if at is not None:
        literals.append(at)
    return literals


def cubes(spec: str, depth: int, fresh: bool, conflicts: int) -> None:
    deal = load_deal(spec)
    problem = build_problem(deal)
    encoding = build_cnf(problem, PORTFOLIO)
    states = states_at(deal, depth)
    ids = {key: encoding.pool.id(key) for key in encoding.keys}
    how = "a new glucose4 per cube" if fresh else "one incremental glucose4, assumptions"
    print(f"{spec}: {len(states)} states after {depth} moves; {how}\n")
    shared = None if fresh else Solver(name="glucose4", bootstrap_with=encoding.clauses)
    total_conflicts, total_seconds, worst = 0, 0.0, (0, 0.0)
    settled = "lost"
    for state in states:
        literals = cube(deal, problem, ids, state, depth)
        if fresh:
            answer, spent, seconds = solve(encoding.clauses + [[x] for x in literals],
                                           conflicts)
        else:
            answer, spent, seconds = solve([], conflicts, literals, shared)
        total_conflicts += spent
        total_seconds += seconds
        worst = max(worst, (spent, seconds))
        if answer is not False:
            settled = "won" if answer else "unknown (a cube reached the budget)"
            break
    print(f"answer {settled}; conflicts {total_conflicts:,} in all, the worst cube "
          f"{worst[0]:,}; solve {total_seconds:.1f} s in all, the worst cube {worst[1]:.1f} s")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("features", "cubes"))
    parser.add_argument("deal")
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--conflicts", type=int, default=300_000)
    args = parser.parse_args(argv)
    if args.what == "features":
        features(args.deal, args.conflicts)
    else:
        cubes(args.deal, args.depth, args.fresh, args.conflicts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
