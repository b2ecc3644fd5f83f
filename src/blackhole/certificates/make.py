"""Making a certificate: encode the deal once, have a proof-logging solver refute it,
check the proof, and write the folder aside before renaming it into place.

`certify` encodes a deal with the plain certification encoding (`files.certify_features`:
the game's default features less symmetry breaking, so only clauses that every real
solution satisfies; `cnf.CERTIFY_FEATURES` for Black Hole), has a
proof-logging pysat solver (the `sat` backend's) refute it, and checks the proof with
`blackhole.drat` (the project's own checker, which shares no code with the solver)
against the CNF it built from the deal. A solvable deal gets `solution.json` instead,
its winning moves replayed by the rules engine. `certify_best` writes the same kind of
folder for a best score (the CNF "at least best+1 cards are scored from this position"),
`certify_win` a won position's line, and `certify_found` whichever of the two a proven
`blackhole.questions.best.Best` asks for.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blackhole import drat
from blackhole.backends import Options, Result, Verdict
from blackhole.base.errors import InputError, InternalError
from blackhole.certificates import drat_trim
from blackhole.certificates.files import (
    CNF_FILE,
    DEAL_FILE,
    MANIFEST_FILE,
    PROOF_FILE,
    SOLUTION_FILE,
    Certificate,
    FileFacts,
    Seconds,
    as_folder,
    bound_encoding,
    certificate_board,
    certify_features,
    check_checker,
    digest_label,
    dimacs,
    manifest,
    named_game,
    proof_text,
    read_certificate_board,
    sha256,
)
from blackhole.certificates.labels import check_label, recorded
from blackhole.certificates.place import made_aside, write, write_bytes
from blackhole.encode import cnf
from blackhole.model.cards import Card
from blackhole.model.deal import Deal, Position, position_of
from blackhole.model.formats import moves_json
from blackhole.model.games import Variant, game_named
from blackhole.model.problem import build_problem
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import decode, solution_json

if TYPE_CHECKING:
    from blackhole.questions.best import Best

# The one proof solver that is no pysat solver: the kissat backend's binary, whose proof
# is DRAT (text).
KISSAT = "kissat"


def check_choices(solver: str | None, checker: str) -> str:
    """The canonical proof solver for `solver` (any name or alias `solve` takes), after
    checking it and the checker once, before any work."""
    from blackhole.backends.pysat_tools import (
        DEFAULT_PROOF_SOLVER,
        check_proof_solver,
        solver_name,
    )

    if solver is not None and not isinstance(solver, str):
        raise InputError(f"must be a solver's name, not {type(solver).__name__}", "solver")
    if solver == KISSAT:
        from blackhole.backends.kissat import binary

        binary()  # installed, or the error that says how to install it
        canonical = KISSAT
    else:
        canonical = solver_name(solver or DEFAULT_PROOF_SOLVER)
        check_proof_solver(canonical, proof=True)
    check_checker(checker)
    if checker == "drat-trim":
        drat_trim.binary()
    return canonical


def check_timeout(timeout: object) -> float | None:
    """The time limit in seconds: None (none) or a positive, finite number; else the
    InputError every entry point gives (`backends.Options`)."""
    limit = Options(timeout=timeout).timeout  # type: ignore[arg-type]
    return None if limit is None else float(limit)


def certify(deal_or_spec: Deal | Position | str, folder: str | os.PathLike[str], *,
            solver: str | None = None, timeout: float | None = None,
            checker: str = "blackhole", game: Variant | str | None = None) -> Certificate:
    """Certify a deal or a position into `folder`: a checked proof that it has no winning
    line, or its winning moves (see `make_certificate`).

    `deal_or_spec` is a deal spec (`pysol:N`, `random:SEED`, a file), a Deal or a
    Position; the certificate's label comes from it, for `verify` to check against the
    deal it holds: a spec is its own label, a file by its absolute path; a Deal or
    Position is labelled by its name when that name gives it (a spec dealt again, a file
    read, and a Position's known moves played), else by its board's digest
    (`sha256:...`). A Position's known moves are written in the certificate. `solver` is
    any name or alias of a proof-logging solver (None: DEFAULT_PROOF_SOLVER of
    `backends.pysat_tools`); `timeout` bounds the whole of it, in
    seconds. `game` (a `blackhole.model.games.Variant` or its name, as `--game`) is the game a
    file is played by: a Golf board names none unless it has a `Game:` line; a dealt spec,
    a Deal and a Position name their own, which it must then be. A bad value is an
    InputError naming its parameter, raised before any work; so is a `folder` whose
    certificate another process is making now. The certificate's deal.board names a
    Golf game on a `Game:` line (`files.certificate_board`)."""
    place = as_folder(folder)
    canonical = check_choices(solver, checker)
    limit = check_timeout(timeout)
    deal, label, moves = _subject(deal_or_spec, read_game(game))
    return make_certificate(deal, label, place, canonical, limit, checker, moves)


def read_game(game: object) -> Variant | None:
    """The game `game` names: None, a Variant, or a game's name (an InputError naming the
    parameter otherwise, or for a name that is no game's)."""
    if game is None or isinstance(game, Variant):
        return game
    if isinstance(game, str):
        return game_named(game, "game")
    raise InputError(f"must be a game's name or a Variant, not {type(game).__name__}",
                     "game")


def _subject(given: object, game: Variant | None = None) -> tuple[Deal, str, tuple[str, ...]]:
    """The deal to certify, its label and the moves known to have reached it; `game`, when
    given, the game a file is read as, which a Deal or a Position must be."""
    if isinstance(given, str):
        return standard(load_deal(given, game), given), recorded(given), ()
    if isinstance(given, Position):
        deal = given.deal
        known = given.history_known
        moves = tuple(str(card) for card in given.history) if known else ()
    elif isinstance(given, Deal):
        deal, moves = given, ()
    else:
        raise InputError(f"must be a Deal, a Position or a deal spec, not "
                         f"{type(given).__name__}", "deal_or_spec")
    if game is not None and deal.game != game:
        raise InputError(f"the deal is {deal.game.name}, not {game.name} as asked", "game",
                         token=game.name)
    board = certificate_board(standard(deal, deal.name or "deal"))
    named = check_label(deal.name, moves, deal) if deal.name else None
    label = (named.file or deal.name) if named is not None and not isinstance(named, str) \
        and named.how else digest_label(board)
    return deal, label, moves


def standard(deal: Deal, spec: str) -> Deal:
    """The deal, when deal.board (the certificate's statement, `certificate_board`) can
    hold it and `verify` can read it back as the same game: a layout the board reader
    refuses (one no deal is dealt in, such as fans of one card) would make a certificate
    nothing could check. Refused before any work, naming the spec."""
    board = certificate_board(replace(deal, name=spec))
    try:
        read, _ = read_certificate_board(board, spec)
    except InputError as error:
        raise InputError(f"cannot be certified: verify would refuse its board "
                         f"({error.detail})", spec) from None
    if read.game != deal.game:  # cannot happen: the board names every game but Black Hole
        raise InternalError(f"{spec}: deal.board reads back as {read.game.name}, not "
                            f"{deal.game.name}")
    return deal


def make_certificate(deal: Deal, spec: str, folder: Path, solver: str,
                     timeout: float | None = None, checker: str = "blackhole",
                     moves: Sequence[str] = (),
                     after: Sequence[tuple[Card, int]] = ()) -> Certificate:
    """Refute the deal's plain CNF with a proof and check it, then write the certificate
    labelled `spec`.

    The CNF is built once, from the deal: the solver gets a copy of its clauses and the
    check reads the same clauses in memory (not the solver's word for them), so the proof
    is checked against the statement the deal says. `timeout` bounds the whole of it
    (encode, solve and check); at the limit the verdict is unknown. `solver` must be
    canonical (`check_choices`). `moves` are the cards played to reach `deal` when it is
    a position (`load_position`), for verify to rebuild it from `spec`; `after` holds
    the moves (card, fan) that `--after` played on `spec`, written into a win's
    solution.json as `solve --json` writes them, so that `check SPEC` replays it.

    The certificate is made in a hidden folder beside `folder` and renamed into place
    only when complete and checked (`place.made_aside`): an unknown, an error or an
    interrupt leaves `folder` as it was, and another process making a certificate for
    `folder` at the same time is refused (InputError)."""
    board = certificate_board(standard(deal, spec))
    with made_aside(folder) as aside:
        aside.cert = _certify_in(aside.path, deal, spec, folder, board, solver, timeout,
                                 checker, tuple(moves), tuple(after))
    return aside.cert


def _certify_in(staged: Path, deal: Deal, spec: str, folder: Path, board: str,
                solver: str, timeout: float | None, checker: str,
                moves: tuple[str, ...],
                after: tuple[tuple[Card, int], ...] = ()) -> Certificate:
    """`certify`'s work, its files written to `staged`."""
    began = time.perf_counter()
    deadline = None if timeout is None else began + timeout
    write(staged / DEAL_FILE, board)
    problem = build_problem(deal, "certify", cnf.PLAYS)  # the CNF reads the game
    encoding = cnf.build_cnf(problem, certify_features(problem))  # what the proof refutes
    encoded = time.perf_counter()
    answer, order, parks, proof_lines, stats = _refute(encoding, solver, deadline)
    solved = time.perf_counter()
    seconds = Seconds(encode=encoded - began, solve=solved - encoded)
    moved = position_of(deal).moved if moves else 0
    base = dict(spec=spec, folder=folder, board=board, solver=solver,
                features=encoding.features, variables=encoding.num_vars,
                clauses=len(encoding.clauses), checker=checker, solver_stats=stats,
                moved=moved, history=moves, game=named_game(deal))
    if answer is None:
        return Certificate(verdict=Verdict.UNKNOWN, seconds=seconds, reason=stats.pop(
            "reason", "time limit reached while solving"), **base)
    if answer:
        backend = KISSAT if solver == KISSAT else "sat"
        result = Result(Verdict.SOLVED, order, backend, solver, solved - encoded, stats,
                        parks=parks)
        solution = decode(problem, result, deal)  # replays through the rules engine
        facts = solution_json(spec, solution)
        if moves:
            facts["position"] = {"moved": moved, "moves": list(moves)}
        if after:
            facts.update(after=moves_json(after), moved=moved)
        write(staged / SOLUTION_FILE, json.dumps(facts) + "\n")
        return Certificate(verdict=Verdict.SOLVED, seconds=seconds, solution=solution, **base)
    return _refutation(staged, encoding, solver, proof_lines, checker, deadline, seconds, base)


def _refutation(staged: Path, encoding: cnf.Encoding, solver: str,
                proof_lines: list[str] | None, checker: str, deadline: float | None,
                seconds: Seconds, base: dict[str, Any]) -> Certificate:
    """The certificate of a refuted CNF (`certify`'s and `certify_best`'s): the proof
    checked against the encoding's clauses in memory (or by drat-trim from the files),
    formula.cnf, proof.drup and the manifest written to `staged`. Unknown, with the
    reason, for a proof larger than `verify` reads or a check the deadline stops."""
    if proof_lines is None:
        raise InternalError(f"sat/{solver} said unsatisfiable but returned no proof")
    too_large = _too_large(proof_lines)
    if too_large:
        return Certificate(verdict=Verdict.UNKNOWN, reason=too_large, seconds=seconds, **base)
    if checker == "blackhole":
        check = drat.check_proof(encoding.clauses,
                                 drat.parse_proof_lines(proof_lines), deadline=deadline)
        if check.timed_out:
            return Certificate(verdict=Verdict.UNKNOWN, reason="time limit reached while "
                               "checking the proof", seconds=replace(
                                   seconds, check=check.stats["seconds"]), **base)
    checked = time.perf_counter()
    cnf_bytes, proof_bytes = _write_statement(staged, encoding, proof_lines)
    written = time.perf_counter()
    if checker != "blackhole":  # drat-trim reads the files
        left = None if deadline is None else deadline - written
        check = drat_trim.run(staged / CNF_FILE, staged / PROOF_FILE, left)
        if check.timed_out:
            return Certificate(verdict=Verdict.UNKNOWN, reason="time limit reached while "
                               "checking the proof", seconds=seconds, **base)
    cert = Certificate(
        verdict=Verdict.UNSOLVABLE, check=check,
        seconds=Seconds(seconds.encode, seconds.solve, check.stats.get("seconds", 0.0),
                        write=written - checked),
        cnf=FileFacts(CNF_FILE, sha256(cnf_bytes), len(cnf_bytes)),
        proof=FileFacts(PROOF_FILE, sha256(proof_bytes), len(proof_bytes), len(proof_lines)),
        **base)
    write(staged / MANIFEST_FILE, json.dumps(manifest(cert), indent=2) + "\n")
    return cert


def _refute(encoding: cnf.Encoding, solver: str, deadline: float | None) -> tuple[
        bool | None, tuple[int, ...] | None, tuple[tuple[int, int], ...], list[str] | None,
        dict[str, Any]]:
    """Solve the encoding's clauses with a proof-logging solver, under the deadline:
    (True, the winning order, its parks (a game with a cell), None, stats), (False, None,
    (), the proof's lines, stats) or (None, None, (), None, stats) when the deadline came
    first (or, from kissat, the proof is too large to check: why in stats["reason"])."""
    from blackhole.backends.pysat_tools import read_answer

    stats: dict[str, Any] = {"vars": encoding.num_vars, "clauses": len(encoding.clauses),
                             "features": sorted(encoding.features)}
    if deadline is not None and deadline <= time.perf_counter():
        return None, None, (), None, stats
    answer, model, proof, more = _prove(encoding, solver, deadline)
    stats.update(more)
    _, order = read_answer(answer, model, encoding, _who(solver))
    parks = encoding.decode_parks(model) if order is not None and model else ()
    return answer, order, parks, proof, stats


def _who(solver: str) -> str:
    return solver if solver == KISSAT else f"sat/{solver}"


def _prove(encoding: cnf.Encoding, solver: str, deadline: float | None) -> tuple[
        bool | None, list[int] | None, list[str] | None, dict[str, Any]]:
    """The solver's answer on the encoding's clauses (None: the deadline came first), its
    model when satisfiable, its proof's lines when not, and its counters."""
    if solver == KISSAT:
        from blackhole.backends.kissat import refute

        return refute(encoding, deadline)
    from pysat.solvers import Solver

    from blackhole.backends.pysat_tools import check_proof_solver, interruptible, run_solver

    check_proof_solver(solver, proof=True)
    proof = model = None
    with cnf.gc_paused(), Solver(name=solver, bootstrap_with=encoding.clauses,
                                 with_proof=True) as sat, interruptible():
        answer = run_solver(sat, solver, deadline)
        if answer:
            model = sat.get_model()
        elif answer is False:
            proof = list(sat.get_proof())
        return answer, model, proof, dict(sat.accum_stats() or {})


def _too_large(proof_lines: Sequence[str]) -> str:
    """Why a proof is not written (it is larger than `verify` reads), or ""."""
    size = sum(len(line) + 1 for line in proof_lines)
    if size <= drat.MAX_PROOF_BYTES:
        return ""
    return (f"the proof ({size:,} bytes) is larger than verify reads "
            f"({drat.MAX_PROOF_BYTES:,} bytes): no certificate written")


def _write_statement(folder: Path, encoding: cnf.Encoding,
                     proof_lines: Sequence[str]) -> tuple[bytes, bytes]:
    """Write formula.cnf and proof.drup; their bytes, for the manifest's hashes and sizes."""
    cnf_bytes = dimacs(encoding).encode()
    proof_bytes = proof_text(proof_lines).encode()
    write_bytes(folder / CNF_FILE, cnf_bytes)
    write_bytes(folder / PROOF_FILE, proof_bytes)
    return cnf_bytes, proof_bytes


# ---------------------------------------------------------------- best scores and wins


def certify_best(position: Position, best: int, folder: str | os.PathLike[str], *,
                 spec: str = "", solver: str | None = None,
                 checker: str = "blackhole", timeout: float | None = None) -> Certificate:
    """An optimality certificate: refute "at least best+1 cards are scored from this
    position" with a proof, check it, and write deal.board (the position), formula.cnf,
    proof.drup and a manifest naming the deal (`spec`, when given, is dealt again and
    replayed through `position.history` by `verify`), the moves and the bound. As with
    `certify`, it is renamed into place only when complete and checked.

    A line that scores more than `best` is an InputError naming it: the bound is not
    the best. `timeout` bounds the whole of it (encode, solve and check), as `certify`'s
    does. At the limit, or with a proof larger than `verify` reads, the Certificate's
    verdict is unknown, with the reason: a certificate already in the folder is left as
    it was, and a folder that held none is given the position tried (deal.board) alone,
    as `certify` does (`place.settle`)."""
    target = as_folder(folder)
    solver = check_choices(solver, checker)
    limit = check_timeout(timeout)
    board = certificate_board(standard(position.deal, spec or "position"))
    with made_aside(target) as aside:
        aside.cert = _certify_best_in(aside.path, position, best, target, recorded(spec),
                                      board, solver, checker, limit)
    return aside.cert


def _certify_best_in(staged: Path, position: Position, best: int, folder: Path, spec: str,
                     board: str, solver: str, checker: str,
                     timeout: float | None) -> Certificate:
    began = time.perf_counter()
    deadline = None if timeout is None else began + timeout
    encoding, _ = bound_encoding(position, best)
    encoded = time.perf_counter()
    write(staged / DEAL_FILE, board)
    answer, order, _, proof, stats = _refute(encoding, solver, deadline)
    if answer:
        talon = set(encoding.problem.talon)
        played = sum(1 for node in order or () if node not in talon)
        raise InputError(f"not the best score: a line from the position scores "
                         f"{position.moved + played}", "best", token=str(best))
    solved = time.perf_counter()
    base = dict(spec=spec, folder=folder, board=board, solver=solver,
                features=encoding.features, variables=encoding.num_vars,
                clauses=len(encoding.clauses), checker=checker, solver_stats=stats,
                best=best, moved=position.moved,
                history=tuple(str(card) for card in position.history),
                game=named_game(position.deal))
    seconds = Seconds(encoded - began, solved - encoded)
    if answer is None:
        return Certificate(verdict=Verdict.UNKNOWN, seconds=seconds, reason=stats.pop(
            "reason", "time limit reached while solving"), **base)
    return _refutation(staged, encoding, solver, proof, checker, deadline, seconds, base)


def certify_win(position: Position, line: Sequence[tuple[Card, int]],
                folder: str | os.PathLike[str], *,
                spec: str = "", facts: dict[str, Any] | None = None) -> Certificate:
    """A won position's certificate, as `certify` writes a solvable deal's: deal.board
    (the position) and solution.json, the winning `line` from the position (replayed
    here by the rules engine; one that does not win is an InternalError) with `facts`
    (who found it), and the moves that reached the position, for `verify` to rebuild it
    from `spec`. Renamed into place only when complete."""
    target = as_folder(folder)
    board = certificate_board(standard(position.deal, spec or "position"))
    judged = replay(position.deal, [move[0] for move in line])
    if not judged.won:
        raise InternalError(f"a winning line that does not win: {judged.describe()}")
    moves = moves_json(line)
    spec = recorded(spec)
    data: dict[str, Any] = {"deal": spec, "verdict": Verdict.SOLVED.value, "moves": moves,
                            **(facts or {})}
    history = tuple(str(card) for card in position.history)
    if position.made:
        data["position"] = {"moved": position.moved, "moves": list(history)}
    if position.after:  # as `solve --json` writes it, so that `check SPEC` replays the file
        data.update(after=moves_json(position.after), moved=position.moved)
    with made_aside(target) as aside:
        write(aside.path / DEAL_FILE, board)
        write(aside.path / SOLUTION_FILE, json.dumps(data) + "\n")
        aside.cert = Certificate(spec=spec, verdict=Verdict.SOLVED, folder=target,
                                 board=board, solver=str((facts or {}).get("solver", "")),
                                 moved=position.moved, history=history,
                                 game=named_game(position.deal))
    return aside.cert


def certify_found(found: Best, position: Position, folder: str | os.PathLike[str],
                  spec: str = "", *, timeout: float | None = None) -> Certificate:
    """The certificate of a best score `blackhole.questions.best.best_score` found and proved:
    below a win, its optimality certificate (`certify_best`: the CNF "at least best+1
    cards are scored from this position", its checked DRUP proof and a manifest that
    `verify` reads); a win's is its line, as `certify` writes a solvable deal's
    (`certify_win`: deal.board and solution.json). A best not proven is an InputError:
    there is nothing to certify. `timeout` bounds the optimality certificate as
    `certify_best`'s does: at the limit its verdict is unknown and no proof is written."""
    if not found.proven:
        raise InputError("the best score was not proven (the limit came first): nothing to "
                         "certify", "certify", token=str(folder))
    if found.won:
        return certify_win(position, found.moves, folder, spec=spec, facts={
            "backend": found.backend, "solver": found.solver,
            "seconds": round(found.seconds, 6)})
    try:
        return certify_best(position, found.best, folder, spec=spec, timeout=timeout)
    except InputError as error:
        if error.source == "best":  # a line that scores more: our proven best is wrong
            raise InternalError(f"{found.backend}/{found.solver}: proven best "
                                f"{found.best}, but {error.detail}") from None
        raise
