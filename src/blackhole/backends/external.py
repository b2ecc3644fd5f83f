"""Any DIMACS SAT solver binary: write the CNF, run the command, check its answer.

The command (`Options.solver_cmd`, e.g. "cadical -q" or "kissat -q") gets the path of
the DIMACS file, then the proof arguments, and answers in the SAT-competition format: an
`s SATISFIABLE` / `s UNSATISFIABLE` line, `v` lines with the model, exit code 10 or 20.
The solver and its folder (the CNF, the proof) belong to `blackhole.base.children`: at the
timeout, on Ctrl-C or SIGTERM, or when the process that started it dies, the solver is
killed with all it started, the folder removed, and the verdict is UNKNOWN.

An outside answer is checked like our own. A model must satisfy every clause, decode
and (in `solve.decode`) replay; otherwise it is an InternalError. An UNSATISFIABLE
needs a DRAT proof, which the solver writes to a file: `Options.proof_arg` is the
arguments that ask for it, with `{proof}` standing for the file's path (default
`{proof}` for cadical and kissat, whose second positional argument is the proof file,
text or binary). `blackhole.drat` checks the proof against the CNF in memory, within
what is left of the timeout. UNSATISFIABLE counts only with a proof the check accepts:
without one (none asked, none written, too large, malformed, rejected by the check, or
the time ran out) it is UNKNOWN, with the reason in `stats["reason"]` and
`stats["proof"]` "unchecked" or, for a proof the check refused, "rejected".
"""

from __future__ import annotations

import shlex
import shutil
import time
from pathlib import Path

from blackhole import drat
from blackhole.backends import Backend, Options, Result, Verdict
from blackhole.backends.pysat_tools import features_of, read_answer
from blackhole.base import children
from blackhole.base import deadline as clock
from blackhole.base.errors import InputError, InternalError
from blackhole.encode import cnf
from blackhole.encode.cnf import build_cnf
from blackhole.model.problem import Problem

DEFAULT_COMMAND = "cadical -q"
PROOF = "{proof}"  # stands for the proof file's path in Options.proof_arg
# Default proof arguments by the solver binary's name: both take the proof file as their
# second positional argument, after the DIMACS file.
PROOF_ARGS = {"cadical": PROOF, "kissat": PROOF}
_EXIT_VERDICT = {10: True, 20: False}
# The check holds the proof in this process, so a larger outside proof is left unchecked
# (unknown) and a solve stays within the 1 GiB the README promises; `certify` keeps its
# own, larger bound. Measured on kissat's binary proofs (2026-12-05): the compiled check
# adds about 3.5 bytes for each byte of proof (random:29:ranks=31, 39 MB: the solve's
# process from 68 to 203 MB; random:42:ranks=52, 80 MB: 387 MB). Where the Python checker
# judges (no compiled core, or a proof the core hands over), the formula takes 152 MB
# at 31 ranks and 242 MB at 52, and the proof about 10 bytes a byte more; at this bound
# that is under 0.9 GB at 52 ranks.
MAX_CHECKED_PROOF_BYTES = 48 * 2**20


class ExternalBackend(Backend):
    name = "external"
    reads = frozenset({"solver_cmd", "proof_arg", "features"})
    plays = cnf.PLAYS  # the CNF reads a game's arcs and talon (encodings/golf.md)

    def check(self, options: Options) -> None:
        super().check(options)
        features_of(options)
        self.command(options)

    def command(self, options: Options) -> tuple[list[str], str, list[str] | None]:
        """The solver's arguments (its binary found), the command as the answer names it,
        and the arguments that ask for a proof in {proof} (None: none asked); an
        InputError when the binary is not found or the arguments do not parse."""
        command = options.solver_cmd or DEFAULT_COMMAND
        return _argv(command), command, proof_args(options)

    def solve(self, problem: Problem, options: Options, *,
              stop: bytearray | None = None) -> Result:
        """The solver's checked answer. `stop` is a flag another thread may set (its first
        byte made non-zero): the solver is then killed, or its proof's check ended, and
        the answer is UNKNOWN."""
        began = time.perf_counter()
        deadline = clock.after(options.timeout, began)
        argv, command, asked = self.command(options)
        solver = Path(argv[0]).name
        features = features_of(options, problem)
        try:
            encoding = build_cnf(problem, features, deadline=deadline)
            text = encoding.dimacs(names=False, deadline=deadline)
        except clock.OutOfTime:
            return Result(Verdict.UNKNOWN, None, self.name, solver, time.perf_counter() - began,
                          {"command": command, "stopped": "encoding"})
        encoded = time.perf_counter()
        stats: dict = {"vars": encoding.num_vars, "clauses": len(encoding.clauses),
                       "features": sorted(features), "command": command}
        who = f"external solver {command!r}"
        parks: tuple[tuple[int, int], ...] = ()
        with children.folder() as folder:
            path = folder / "formula.cnf"
            proof_path = folder / "proof.drat"
            path.write_text(text, encoding="ascii")
            del text
            extra = [arg.replace(PROOF, str(proof_path)) for arg in asked or ()]
            output, code = run_binary(argv + [str(path)] + extra, command, clock.left(deadline),
                                      stop)
            finished = time.perf_counter()
            stats.update(encode_seconds=round(encoded - began, 6),
                         solve_seconds=round(finished - encoded, 6), exit_code=code)
            answer, model = (None, []) if output is None else \
                parse_answer(output, code, command, encoding.num_vars)
            if answer is False:
                verdict = _checked_refutation(encoding.clauses,
                                              proof_path if asked else None, deadline, stats,
                                              who, stop)
                order = None
            else:
                if answer:
                    check_model(encoding.clauses, model, who)
                verdict, order = read_answer(answer, model, encoding, who)
                parks = encoding.decode_parks(model) if order is not None else ()
        return Result(verdict, order, self.name, solver, time.perf_counter() - began, stats,
                      parks=parks)


def proof_args(options: Options) -> list[str] | None:
    """The arguments that ask the solver for a proof (holding `{proof}`), or None when no
    proof is asked: `proof_arg` given as "" or left unset for a solver not in PROOF_ARGS."""
    template = options.proof_arg
    if template is None:
        command = _split(options.solver_cmd or DEFAULT_COMMAND)
        template = PROOF_ARGS.get(Path(command[0]).name, "") if command else ""
    if not template.strip():
        return None
    try:
        args = shlex.split(template)
    except ValueError as error:
        raise InputError(f"cannot parse the proof arguments ({error})", "proof_arg",
                         token=template) from None
    if not any(PROOF in arg for arg in args):
        raise InputError(f"the proof arguments must hold {PROOF}, the proof file's path",
                         "proof_arg", token=template)
    return args


def _checked_refutation(clauses: list[list[int]], proof_path: Path | None,
                        deadline: float | None, stats: dict, who: str,
                        stop: bytearray | None = None) -> Verdict:
    """UNSOLVABLE once the solver's proof checks; UNKNOWN (why in stats) when there is no
    proof the check accepts."""
    if proof_path is None:
        return _unchecked(stats, "the solver said UNSATISFIABLE, but no proof was asked "
                                 "(set proof_arg)")
    try:
        data = drat.read_capped(proof_path, MAX_CHECKED_PROOF_BYTES)
    except FileNotFoundError:
        return _unchecked(stats, "the solver said UNSATISFIABLE but wrote no proof")
    except drat.DratError as error:
        return _unchecked(stats, f"the solver's proof is not checked: {error}")
    stats["proof_bytes"] = len(data)
    try:
        proof = drat.parse_any_proof(data)
    except drat.DratError as error:
        return _unchecked(stats, f"{who} said UNSATISFIABLE but its proof is malformed: "
                                 f"{error}", "rejected")
    del data
    check = drat.check_proof(clauses, proof, deadline=deadline, stop=stop)
    stats["check_seconds"] = round(check.stats.get("seconds", 0.0), 6)
    if check.timed_out:
        return _unchecked(stats, "the solver said UNSATISFIABLE; its proof's check ended "
                                 f"early: {check.reason}")
    if not check.ok:
        return _unchecked(stats, f"{who} said UNSATISFIABLE but its proof fails the check: "
                                 f"{check.reason}", "rejected")
    stats["proof"] = "checked"
    return Verdict.UNSOLVABLE


def _unchecked(stats: dict, reason: str, proof: str = "unchecked") -> Verdict:
    stats["proof"] = proof
    stats["reason"] = reason
    return Verdict.UNKNOWN


def check_model(clauses: list[list[int]], model: list[int], who: str) -> None:
    """A model must make a literal of every clause true."""
    true = set(model)
    for number, clause in enumerate(clauses, start=1):
        if not true.intersection(clause):
            raise InternalError(f"{who} says SATISFIABLE but its model falsifies clause "
                                f"{number} of the CNF")


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError as error:
        raise InputError(f"cannot parse solver command ({error})", "solver_cmd",
                         token=command) from None


def _argv(command: str) -> list[str]:
    argv = _split(command)
    if not argv:
        raise InputError("empty solver command", "solver_cmd", token=command)
    found = shutil.which(argv[0])
    if found is None:
        raise InputError("solver command not found", "solver_cmd", token=argv[0])
    return [found] + argv[1:]


def run_binary(argv: list[str], command: str, timeout: float | None,
               stop: bytearray | None = None) -> tuple[str | None, int | None]:
    """The solver's standard output and exit code, or (None, None) when time ran out or
    the first byte of `stop` was set (`children.run`: the solver is then killed with all
    it started); an InputError naming `command` when it cannot be started."""
    try:
        return children.run(argv, timeout, stop)
    except OSError as error:
        raise InputError(f"cannot run solver command ({error.strerror})", "solver_cmd",
                         token=command) from None


def parse_answer(output: str, code: int | None, command: str,
                 num_vars: int | None = None) -> tuple[bool | None, list[int]]:
    """(True, model) / (False, []) / (None, []) from SAT-competition output. A SATISFIABLE
    needs `v` lines, except for a CNF of `num_vars` 0, whose model is empty (solvers print
    it as `v 0`, or not at all)."""
    status = None
    model: list[int] = []
    printed = False  # any `v` line, even one that holds only its terminating 0
    for line in output.splitlines():
        if line.startswith("s "):
            status = line[2:].strip()
        elif line.startswith("v ") or line == "v":
            printed = True
            for token in line[2:].split():
                if not token.lstrip("-").isdigit():
                    raise InputError("solver printed a model value that is no literal",
                                     "solver_cmd", token=token)
                if token != "0":
                    model.append(int(token))
    by_status = {"SATISFIABLE": True, "UNSATISFIABLE": False, "UNKNOWN": None}
    if status is not None and status not in by_status:
        raise InputError("solver answered an unknown status", "solver_cmd", token=status)
    answer = by_status.get(status) if status is not None else _EXIT_VERDICT.get(code)
    if status is None and code not in _EXIT_VERDICT:
        raise InputError(f"solver gave no SAT-competition answer (exit code {code})",
                         "solver_cmd", token=command)
    if code in _EXIT_VERDICT and status in ("SATISFIABLE", "UNSATISFIABLE") \
            and _EXIT_VERDICT[code] != answer:
        raise InternalError(f"solver {command!r} says {status} but exits with {code}")
    if answer and not printed and num_vars != 0:
        raise InternalError(f"solver {command!r} says SATISFIABLE but prints no model")
    return answer, model
