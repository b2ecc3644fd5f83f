"""Tests for the project's own DRUP/DRAT checker (`blackhole.drat`).

pysat is used here only to *produce* proofs; the checker itself never sees it.
Every tampering test asserts a rejection that must happen, and says why:
either unit propagation over the formula plus *all* remaining lemmas (a superset
of what the checker may use) reaches no conflict, so no empty clause can be
derived, or the formula is satisfiable, or a hand-checked lemma is not RUP/RAT.
"""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from blackhole import drat
from blackhole.base.environment import DRAT_VARIABLE
from blackhole.base.errors import ArgumentError
from blackhole.drat import (
    CheckResult,
    DratError,
    Proof,
    check_files,
    parse_binary_proof,
    parse_dimacs,
    parse_proof,
    parse_proof_lines,
)
from blackhole.drat import check as drat_check
from blackhole.drat.python_engine import Checker

# --------------------------------------------------------------------------
# The checker under test: both engines, held to each other
# --------------------------------------------------------------------------

COUNTS = ("core_lemmas", "rup_literals", "rat_lemmas", "ignored_deletions", "trivial")


def variables(clauses, proof) -> int:
    return max((abs(lit) for c in [*clauses, *(lits for _, lits in proof)] for lit in c),
               default=0)


def c_core(clauses, proof) -> tuple[int, str, dict[str, float]]:
    """The compiled core alone: (status, why it handed over, counts)."""
    return drat_check._c_check(variables(clauses, proof), clauses, proof, None)


def check_proof(clauses, proof, **options) -> CheckResult:
    """``drat.check_proof`` as the project runs it (the compiled core first, when
    built), after checking it against the pure-Python checker: the same verdict and
    reason; and the compiled core on its own accepts exactly the proofs the Python
    checker accepts (RAT lemmas and extension variables included), with the same
    counts, and hands over exactly those it rejects."""
    result = drat.check_proof(clauses, proof, **options)
    if "deadline" in options or not drat.c_engine_built():
        return result
    python = drat.check_proof(clauses, proof, engine="python")
    assert (result.ok, result.reason) == (python.ok, python.reason)
    assert python.engine == "python"
    if "proof variable" in python.reason:  # refused before either engine looks
        return result
    status, note, counts = c_core(clauses, proof)
    if status == drat_check._C_ACCEPT:
        assert python.ok, "the compiled core accepted a proof the Python checker rejects"
        assert {k: counts[k] for k in COUNTS} == {k: python.stats[k] for k in COUNTS}
    else:
        assert status == drat_check._C_HANDOVER and note
        assert not python.ok, f"the compiled core handed over a valid proof: {note}"
    core_first = (options.get("engine") or drat_check._engine(None)) == "auto"
    assert result.engine == ("c" if core_first and status == drat_check._C_ACCEPT
                             else "python")
    return result


# --------------------------------------------------------------------------
# Helpers: formulas, proofs from pysat, and an independent naive oracle
# --------------------------------------------------------------------------

ALL_2VARS = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
# Pigeonhole 4 into 3 (see `pigeonhole`): a case split on pigeon 0, done by hand.
PHP43_PROOF = ["-1 -5 0", "-1 0", "-2 -4 0", "-2 0", "-4 0", "0"]


def pigeonhole(pigeons: int, holes: int) -> list[list[int]]:
    """Pigeon i in hole j is variable i * holes + j + 1."""

    def var(i: int, j: int) -> int:
        return i * holes + j + 1

    clauses = [[var(i, j) for j in range(holes)] for i in range(pigeons)]
    for j in range(holes):
        for a, b in itertools.combinations(range(pigeons), 2):
            clauses.append([-var(a, j), -var(b, j)])
    return clauses


def random_3sat(num_vars: int, num_clauses: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [
        [v * rng.choice((-1, 1)) for v in rng.sample(range(1, num_vars + 1), 3)]
        for _ in range(num_clauses)
    ]


def num_vars_of(clauses: list[list[int]]) -> int:
    return max(abs(lit) for clause in clauses for lit in clause)


def solver_proof(clauses: list[list[int]]) -> drat.FlatProof:
    """Glucose 4's DRUP proof of an unsatisfiable formula, parsed."""
    with Solver(name="g4", bootstrap_with=clauses, with_proof=True) as solver:
        assert solver.solve() is False, "the test formula must be unsatisfiable"
        lines = solver.get_proof()
    return parse_proof("\n".join(lines))


def is_sat(clauses: list[list[int]]) -> bool:
    with Solver(name="g4", bootstrap_with=clauses) as solver:
        return bool(solver.solve())


def brute_force_sat(num_vars: int, clauses: list[list[int]]) -> bool:
    for bits in itertools.product((False, True), repeat=num_vars):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            return True
    return False


def up_conflict(clauses: list[list[int]]) -> bool:
    """Naive unit propagation to fixpoint: does it falsify a clause?"""
    assigned: set[int] = set()
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            if any(lit in assigned for lit in clause):
                continue
            open_lits = [lit for lit in clause if -lit not in assigned]
            if not open_lits:
                return True
            if len(open_lits) == 1:
                assigned.add(open_lits[0])
                changed = True
    return False


def lemmas_of(proof: list[tuple[bool, list[int]]]) -> list[list[int]]:
    return [lits for is_del, lits in proof if not is_del]


def hopeless(clauses: list[list[int]], proof: list[tuple[bool, list[int]]]) -> bool:
    """Unit propagation over the formula plus *every* non-empty lemma (deletions
    ignored, RUP/RAT unchecked: a superset of what the checker may use) finds no
    conflict.  Then the checker cannot reach one either, so it must reject."""
    return not up_conflict(clauses + [lits for lits in lemmas_of(proof) if lits])


def text(steps: list[str]) -> drat.FlatProof:
    return parse_proof("\n".join(steps))


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def test_parse_dimacs_comments_header_and_spanning_clauses() -> None:
    num_vars, clauses = parse_dimacs("c hello\np cnf 3 2\n1 -2\n 3 0\nc mid\n-1 0\n")
    assert num_vars == 3
    assert clauses == [[1, -2, 3], [-1]]


def test_parse_dimacs_without_header_and_satlib_end_marker() -> None:
    assert parse_dimacs("1 2 0\n-2 0\n%\n0\n") == (2, [[1, 2], [-2]])


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("p cnf 2 1\n1 x 0\n", "line 2: invalid literal 'x'"),
        ("p cnf 2 1\n1 2\n", "not terminated by 0"),
        ("p cnf 2 2\n1 2 0\n", "declares 2 clauses but 1"),
        ("p cnf 2 1\n1 3 0\n", "literal 3 exceeds the 2 variables"),
        ("p dnf 2 1\n1 0\n", "expected 'p cnf"),
        ("p cnf 2 1\np cnf 2 1\n1 0\n", "second 'p' header"),
        ("1 0\np cnf 1 1\n", "header after clauses"),
    ],
)
def test_parse_dimacs_rejects_malformed_input(source: str, message: str) -> None:
    with pytest.raises(DratError, match=message) as info:
        parse_dimacs(source)
    assert isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_parse_proof_lemmas_deletions_comments_and_lines() -> None:
    proof = parse_proof("c start\n1 2 0\n\nd 1 2 0\n   -3 0\n0\n")
    assert list(proof) == [(False, [1, 2]), (True, [1, 2]), (False, [-3]), (False, [])]
    assert proof.lines == [2, 4, 5, 6]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("1 2\n", "line 1: clause is not terminated by 0"),
        ("1 a 0\n", "line 1: invalid token"),
        ("1 0 2 0\n", "line 1: more than one clause"),
        ("1 0\nd\n", "line 2: clause is not terminated by 0"),
    ],
)
def test_parse_proof_rejects_malformed_input(source: str, message: str) -> None:
    with pytest.raises(DratError, match=message):
        parse_proof(source)
    with pytest.raises(DratError, match=message):  # the solver's lines, read the same way
        parse_proof_lines(source.splitlines())


def test_parse_proof_lines_reads_a_solver_proof_as_parse_proof_does() -> None:
    with Solver(name="g4", bootstrap_with=pigeonhole(6, 5), with_proof=True) as solver:
        assert solver.solve() is False
        lines = list(solver.get_proof())
    assert any(line.startswith("d ") for line in lines)
    joined = parse_proof("\n".join(lines))
    found = parse_proof_lines(lines)
    assert list(found) == list(joined) and found.lines == joined.lines
    found = parse_proof_lines(["c start", "1 2 0", "", "d 1 2 0", "   -3 0", "0"])
    assert list(found) == [(False, [1, 2]), (True, [1, 2]), (False, [-3]), (False, [])]
    assert found.lines == [2, 4, 5, 6]




def test_parse_binary_proof() -> None:
    # 'a' 1 -2 0, 'd' 1 -2 0, 'a' 0, with literal l coded as 2*|l| + (l < 0)
    data = bytes([0x61, 2, 5, 0, 0x64, 2, 5, 0, 0x61, 0])
    assert list(parse_binary_proof(data)) == [(False, [1, -2]), (True, [1, -2]), (False, [])]
    # a multi-byte varint: literal 100 is 200 = 0xC8 0x01
    assert list(parse_binary_proof(bytes([0x61, 0xC8, 0x01, 0]))) == [(False, [100])]
    with pytest.raises(DratError):
        parse_binary_proof(bytes([0x61, 2]))


def parsed(parse, data):
    """What a parser makes of data: its steps and lines, or its error message."""
    try:
        proof = parse(data)
    except DratError as error:
        return str(error)
    return list(proof), proof.lines


TEXT_PIECES = ["1", "-2", "0", "12", "-0", "007", " ", "  ", "\t", "\n", "\n", "d", "c", "x",
               "\r", "\x0b", "\x1c", "+3", "2147483648", "-", "é"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TEXT_PIECES), max_size=30),
       st.lists(st.integers(0, 255), max_size=24))
def test_the_compiled_parsers_read_as_the_python_parsers_do(pieces, raw) -> None:
    """The compiled core reads only what it is sure of and leaves the rest (and every
    error message) to the Python parser: both read every input to the same steps and
    lines, or refuse it with the same message."""
    from blackhole.drat import parse as drat_parse

    if drat_parse._drat_core is None:
        pytest.skip("no compiled core in this install")
    source = "".join(pieces)
    binary = bytes([0x61, *raw, 0])
    found = [parsed(drat_parse.parse_proof, source), parsed(drat_parse.parse_any_proof,
             source.encode()), parsed(drat_parse.parse_binary_proof, binary),
             parsed(drat_parse.parse_proof_lines, source.split("\n"))]
    core = drat_parse._drat_core
    try:
        drat_parse._drat_core = None
        python = [parsed(drat_parse.parse_proof, source), parsed(drat_parse.parse_any_proof,
                  source.encode()), parsed(drat_parse.parse_binary_proof, binary),
                  parsed(drat_parse.parse_proof_lines, source.split("\n"))]
    finally:
        drat_parse._drat_core = core
    assert found == python


def test_check_proof_rejects_literal_zero() -> None:
    with pytest.raises(DratError):
        check_proof([[1, 0, 2]], [])


# --------------------------------------------------------------------------
# Hand-written proofs
# --------------------------------------------------------------------------


def test_all_four_clauses_over_two_variables() -> None:
    result = check_proof(ALL_2VARS, text(["1 0", "0"]))
    assert result == CheckResult(ok=True)
    assert result.reason == ""
    assert result.stats["lemmas"] == 2
    assert result.stats["core_lemmas"] == 1
    assert result.stats["seconds"] >= 0


def test_all_four_clauses_removed_lemma_is_rejected() -> None:
    # Without "1 0" no clause is unit, so the empty clause is not RUP.
    result = check_proof(ALL_2VARS, text(["0"]))
    assert not result.ok
    assert result.reason == "lemma 1 (line 1) is not RUP/RAT"


def test_truncated_proofs_are_rejected() -> None:
    assert hopeless(ALL_2VARS, [])
    result = check_proof(ALL_2VARS, [])
    assert not result.ok
    assert result.reason == "proof does not derive the empty clause"
    php = pigeonhole(4, 3)
    truncated = text(PHP43_PROOF[:4])
    assert hopeless(php, truncated)
    result = check_proof(php, truncated)
    assert result == CheckResult(ok=False, reason="proof does not derive the empty clause")


def test_pigeonhole_3_into_2() -> None:
    # p(i, j) = 2i + j + 1.  Pigeon 0 in hole 0 forces pigeons 1 and 2 into hole 1.
    php = pigeonhole(3, 2)
    assert check_proof(php, text(["-1 0", "0"])).ok
    assert not check_proof(php, text(["0"])).ok


def test_pigeonhole_4_into_3() -> None:
    # p(i, j) = 3i + j + 1; the lemmas follow a small case split by hand.
    php = pigeonhole(4, 3)
    result = check_proof(php, text(PHP43_PROOF))
    assert result.ok, result.reason
    # The last lemma before "0" already makes propagation fail.
    assert result.stats["core_lemmas"] == 5


def test_pigeonhole_4_into_3_removed_lemma_is_rejected() -> None:
    php = pigeonhole(4, 3)
    tampered = [step for step in PHP43_PROOF if step != "-1 0"]
    # Even keeping every other lemma, propagation reaches no conflict.
    assert hopeless(php, text(tampered))
    result = check_proof(php, text(tampered))
    assert not result.ok
    assert result.reason == "lemma 5 (line 5) is not RUP/RAT"


# F: not-1 is refuted by (1 3)(1 -3); with 1, "2" and then the empty clause follow.
FLIP_FORMULA = [[1, 3], [1, -3], [-1, 2, 4], [-1, 2, -4], [-1, -2, 5], [-1, -2, -5]]


def test_flipped_literal_is_rejected() -> None:
    assert check_proof(FLIP_FORMULA, text(["1 0", "2 0", "0"])).ok
    # "-1 0": F has no units, so any conflict after it depends on it; assuming 1
    # propagates nothing (not RUP) and the resolvent (-1 3) with (1 3) is not RUP
    # either (not RAT).
    result = check_proof(FLIP_FORMULA, text(["-1 0", "2 0", "0"]))
    assert not result.ok
    assert result.reason == "lemma 1 (line 1) is not RUP/RAT"


# "1" is not RUP (assuming -1 propagates nothing) but is RAT on 1: both
# resolvents (1 2) and (1 -2) are RUP.
RAT_FORMULA = [[-1, 2], [-1, -2], [1, 2, 3], [1, 2, -3], [1, -2, 4], [1, -2, -4]]


def test_rat_lemma_is_accepted() -> None:
    result = check_proof(RAT_FORMULA, text(["1 0", "0"]))
    assert result.ok, result.reason
    assert result.stats["rat_lemmas"] == 1


def test_rat_needs_the_pivot_first() -> None:
    # (1 5) and (1 -5) are RAT on 1 (their resolvents with (-1 2), (-1 -2) are
    # RUP), and "1" follows from them by unit propagation.
    result = check_proof(RAT_FORMULA, text(["1 5 0", "1 -5 0", "1 0", "0"]))
    assert result.ok, result.reason
    assert result.stats["rat_lemmas"] == 2
    # Written with 5 first, (5 1) is still RAT (no clause holds -5) but (-5 1)
    # is not: its only resolvent on -5 is (1), which is not RUP.  "1" needs both.
    result = check_proof(RAT_FORMULA, text(["5 1 0", "-5 1 0", "1 0", "0"]))
    assert not result.ok
    assert result.reason == "lemma 2 (line 2) is not RUP/RAT"


def test_lines_in_reason_skip_comments() -> None:
    result = check_proof(ALL_2VARS, parse_proof("c a comment\n\n0\n"))
    assert result.reason == "lemma 1 (line 3) is not RUP/RAT"
    # A plain list has no line numbers: proof steps are counted instead.
    result = check_proof(ALL_2VARS, [(True, [1, 2]), (False, [])])
    assert result.reason == "lemma 1 (proof step 2) is not RUP/RAT"


def test_deleted_clause_is_not_used() -> None:
    # After deleting (1 -2), "1" is no longer RUP.
    assert check_proof(ALL_2VARS, text(["1 0", "0"])).ok
    result = check_proof(ALL_2VARS, text(["d 1 -2 0", "1 0", "0"]))
    assert not result.ok
    assert result.reason == "lemma 1 (line 2) is not RUP/RAT"
    assert result.stats["deletions"] == 1


def test_a_clause_written_twice_is_deleted_once_per_deletion() -> None:
    formula = [*ALL_2VARS, [3, 4, 5], [1, -2], [5, 4, 3]]
    result = check_proof(formula, text(["d 3 4 5 0", "d 4 5 3 0", "d 1 -2 0", "1 0", "0"]))
    assert result.ok and result.stats["ignored_deletions"] == 0
    result = check_proof(formula, text(["d 1 -2 0", "d -2 1 0", "1 0", "0"]))
    assert result.reason == "lemma 1 (line 3) is not RUP/RAT"
    result = check_proof(formula, text(["d 1 -2 0", "d -2 1 0", "d 1 -2 0", "1 0", "0"]))
    assert result.stats["ignored_deletions"] == 1 and not result.ok


def test_a_literal_written_twice_counts_once() -> None:
    formula = [[1, 2, 2], [1, -2, 1], [-1, 2], [-1, -2, -2, -1], [3, 3, 4, 3, 5]]
    result = check_proof(formula, text(["d 1 1 -2 2 0", "1 1 0", "d 5 4 3 0", "0"]))
    assert result.ok and result.stats["core_lemmas"] == 1
    assert result.stats["ignored_deletions"] == 1  # (1 2 -2) was never there
    result = check_proof(formula, text(["d 1 -2 1 0", "1 1 0", "0"]))
    assert result.reason == "lemma 1 (line 2) is not RUP/RAT"


def test_deleting_unit_clauses_is_ignored() -> None:
    formula = [[1], [-1, 2], [-2, 3], [-3, -1]]
    # Unit propagation refutes the formula; the proof need not say anything.
    assert check_proof(formula, text([])).ok
    # With the unit (1), "2" is RUP; were its deletion honoured, it would not be.
    formula = [[1], [-1, 2, 3], [-1, 2, -3], [-1, -2, 4], [-1, -2, -4]]
    assert not up_conflict(formula)
    result = check_proof(formula, text(["d 1 0", "2 0", "0"]))
    assert result.ok, result.reason
    assert result.stats["ignored_deletions"] == 1


def test_deleting_a_reason_clause_is_ignored() -> None:
    # (-1 2) is the reason of the top-level literal 2, so its deletion is
    # ignored; "3" is RUP with 2 true, then 3 refutes the formula.
    formula = [[1], [-1, 2], [-2, 3, 4], [-2, 3, -4], [-3, 5], [-3, -5]]
    assert not up_conflict(formula)
    result = check_proof(formula, text(["d -1 2 0", "3 0", "0"]))
    assert result.ok, result.reason
    assert result.stats["ignored_deletions"] == 1
    # Deleting a clause that is no reason takes effect: (-3 -5) is gone.
    result = check_proof(formula, text(["d -3 -5 0", "3 0", "0"]))
    assert result.reason == "lemma 2 (line 3) is not RUP/RAT"
    assert result.stats["ignored_deletions"] == 0


def test_trivially_refuted_formula() -> None:
    result = check_proof([[1], [-1, 2], [-2]], [])
    assert result.ok
    assert result.stats["trivial"] == 1


def test_conflict_before_the_empty_clause_suffices() -> None:
    # "1" makes unit propagation fail, so the rest of the proof is not needed.
    assert check_proof(ALL_2VARS, text(["1 0"] + ["d 1 2 0"] * 3)).ok


def test_formula_with_empty_clause() -> None:
    assert check_proof([[1], []], []).ok


def test_formula_has_no_clauses() -> None:
    result = check_proof([], text(["0"]))
    assert result == CheckResult(ok=False, reason="formula has no clauses")


def test_empty_clause_not_rup_when_no_conflict() -> None:
    # "2" is RUP, but the formula is satisfiable: the empty clause is not.
    result = check_proof([[1, 2], [-1, 2]], text(["2 0", "0"]))
    assert not result.ok
    assert result.reason == "lemma 2 (line 2) is not RUP/RAT"


def test_result_is_frozen() -> None:
    result = check_proof(ALL_2VARS, text(["1 0", "0"]))
    with pytest.raises(AttributeError):
        result.ok = False  # type: ignore[misc]


# --------------------------------------------------------------------------
# Real proofs from pysat's Glucose 4
# --------------------------------------------------------------------------

UNSAT_CASES = {
    "php5-4": pigeonhole(5, 4),
    "php6-5": pigeonhole(6, 5),
    "rand60": random_3sat(60, 300, 1),
    "rand80": random_3sat(80, 400, 7),
    "rand100": random_3sat(100, 500, 3),
}


@pytest.fixture(scope="module")
def proofs() -> dict[str, Proof]:
    return {name: solver_proof(clauses) for name, clauses in UNSAT_CASES.items()}


@pytest.mark.parametrize("name", sorted(UNSAT_CASES))
def test_solver_proofs_are_accepted(name: str, proofs: dict[str, Proof]) -> None:
    clauses = UNSAT_CASES[name]
    result = check_proof(clauses, proofs[name])
    assert result.ok, result.reason
    assert result.stats["lemmas"] == len(lemmas_of(proofs[name]))
    assert 0 < result.stats["core_lemmas"] <= result.stats["lemmas"]


@pytest.mark.parametrize("name", sorted(UNSAT_CASES))
def test_truncated_solver_proof_is_rejected(name: str, proofs: dict[str, Proof]) -> None:
    clauses = UNSAT_CASES[name]
    proof = proofs[name]
    # The longest prefix after which propagation over the formula plus all of its
    # lemmas still finds no conflict: cut just before the proof succeeds.
    lo, hi = 0, len(proof)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if hopeless(clauses, proof[:mid]):
            lo = mid
        else:
            hi = mid - 1
    assert lo < len(proof)
    result = check_proof(clauses, proof[:lo])
    assert not result.ok
    assert result.reason == "proof does not derive the empty clause"


@pytest.mark.parametrize("name", sorted(UNSAT_CASES))
def test_solver_proof_without_its_lemmas_is_rejected(name: str, proofs: dict[str, Proof]) -> None:
    clauses = UNSAT_CASES[name]
    tampered = [(d, lits) for d, lits in proofs[name] if d or not lits]
    assert hopeless(clauses, tampered)
    result = check_proof(clauses, tampered)
    assert not result.ok
    assert result.reason.endswith("is not RUP/RAT")


@pytest.mark.parametrize("name", ["php6-5", "rand100"])
def test_proof_for_another_cnf_is_rejected(name: str, proofs: dict[str, Proof]) -> None:
    clauses = UNSAT_CASES[name]
    # Dropping a fifth of the clauses makes the formula satisfiable, so no
    # proof whatsoever can be valid for it.
    other = [c for i, c in enumerate(clauses) if i % 5]
    assert is_sat(other)
    result = check_proof(other, proofs[name])
    assert not result.ok


def test_satisfiable_formula_rejects_any_proof(proofs: dict[str, Proof]) -> None:
    formula = random_3sat(100, 300, 11)
    assert is_sat(formula)
    for proof in [*proofs.values(), text(["0"]), text(["1 0", "-1 0", "0"])]:
        result = check_proof(formula, proof)
        assert not result.ok


def is_rup(clauses: list[list[int]], lits: list[int]) -> bool:
    return up_conflict(clauses + [[-lit] for lit in lits])


def provably_broken_flip(
    clauses: list[list[int]], proof: list[tuple[bool, list[int]]]
) -> list[tuple[bool, list[int]]] | None:
    """The proof with one literal of one lemma negated (and put first, as the
    RAT pivot) such that the checker must reject it:

    (a) without that lemma, propagation over the formula and *all* other lemmas
        finds no conflict, so any refutation depends on the flipped lemma;
    (b) the flipped lemma is not RUP even w.r.t. the formula and all earlier
        lemmas (a superset of the clauses active when it is added);
    (c) its resolvent with some never-deleted formula clause on the pivot is
        not RUP w.r.t. that superset either, so it is not RAT.
    """
    deleted = {tuple(sorted(lits)) for is_del, lits in proof if is_del}
    for k in range(len(proof) - 1, -1, -1):
        is_del, lits = proof[k]
        if is_del or not lits:
            continue
        others = [ls for d, ls in proof[:k] + proof[k + 1 :] if not d and ls]
        if up_conflict(clauses + others):
            continue  # (a) fails
        earlier = clauses + [ls for d, ls in proof[:k] if not d and ls]
        for i, lit in enumerate(lits):
            flipped = [-lit, *lits[:i], *lits[i + 1 :]]
            if is_rup(earlier, flipped):
                continue  # (b) fails
            for clause in clauses:
                if lit not in clause or tuple(sorted(clause)) in deleted:
                    continue
                resolvent = set(flipped) | (set(clause) - {lit})
                if all(-x not in resolvent for x in resolvent) and not is_rup(
                    earlier, sorted(resolvent)
                ):
                    return [*proof[:k], (False, flipped), *proof[k + 1 :]]
    return None


@pytest.mark.parametrize("name", ["php5-4", "php6-5"])
def test_flipped_literal_in_solver_proof_is_rejected(name: str, proofs: dict[str, Proof]) -> None:
    clauses = UNSAT_CASES[name]
    tampered = provably_broken_flip(clauses, list(proofs[name]))
    assert tampered is not None, "no provably broken flip found"
    result = check_proof(clauses, tampered)
    assert not result.ok
    assert result.reason.endswith("is not RUP/RAT")


def test_check_files_text_and_binary(tmp_path, proofs: dict[str, Proof]) -> None:
    clauses = UNSAT_CASES["php5-4"]
    cnf = tmp_path / "f.cnf"
    cnf.write_text(
        f"c test\np cnf {num_vars_of(clauses)} {len(clauses)}\n"
        + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    )
    proof = proofs["php5-4"]
    drup = tmp_path / "p.drup"
    drup.write_text(
        "".join(("d " if d else "") + " ".join(map(str, [*lits, 0])) + "\n" for d, lits in proof)
    )
    assert check_files(cnf, drup).ok

    def varint(x: int) -> bytes:
        out = bytearray()
        while x > 0x7F:
            out.append(x & 0x7F | 0x80)
            x >>= 7
        out.append(x)
        return bytes(out)

    data = bytearray()
    for d, lits in proof:
        data.append(0x64 if d else 0x61)
        for lit in lits:
            data += varint(2 * abs(lit) + (lit < 0))
        data.append(0)
    binary = tmp_path / "p.drat"
    binary.write_bytes(bytes(data))
    assert check_files(cnf, binary).ok
    truncated = tmp_path / "t.drup"
    truncated.write_text("1 0\n")
    assert not check_files(cnf, truncated).ok


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

literal = st.integers(1, 5).flatmap(lambda v: st.sampled_from([v, -v]))
clause = st.lists(literal, min_size=1, max_size=3)
formula = st.lists(clause, min_size=1, max_size=14)
step = st.tuples(st.booleans(), st.lists(literal, max_size=3))


@settings(max_examples=250, deadline=None)
@given(formula, st.lists(step, max_size=10))
def test_accepted_proofs_only_for_unsat_formulas(
    clauses: list[list[int]], proof: list[tuple[bool, list[int]]]
) -> None:
    """Soundness: whatever the proof, acceptance implies unsatisfiability."""
    result = check_proof(clauses, proof)
    if result.ok:
        assert not brute_force_sat(5, clauses)


@settings(max_examples=60, deadline=None)
@given(st.lists(clause, min_size=4, max_size=24))
def test_solver_proofs_of_small_unsat_formulas_are_accepted(clauses: list[list[int]]) -> None:
    """Completeness on the proofs we actually get."""
    if brute_force_sat(5, clauses):
        return
    with Solver(name="g4", bootstrap_with=clauses, with_proof=True) as solver:
        assert solver.solve() is False
        proof = parse_proof("\n".join(solver.get_proof()))
    result = check_proof(clauses, proof)
    assert result.ok, result.reason


# --------------------------------------------------------------------------
# Bounds: time, variables, file sizes
# --------------------------------------------------------------------------


def test_a_deadline_stops_the_check_without_a_verdict() -> None:
    import time

    php = pigeonhole(4, 3)
    result = check_proof(php, text(PHP43_PROOF), deadline=time.perf_counter() - 1)
    assert result.timed_out and not result.ok
    assert "time limit" in result.reason
    assert check_proof(php, text(PHP43_PROOF), deadline=time.perf_counter() + 60).ok


@pytest.mark.parametrize("engine", ["auto", "python"])
def test_a_stop_flag_ends_the_check_without_a_verdict(engine: str) -> None:
    """Another thread sets the flag (auto's race, once an engine has answered): the check
    ends as one out of time, saying it was stopped; a flag left clear changes nothing."""
    php = pigeonhole(4, 3)
    result = drat.check_proof(php, text(PHP43_PROOF), engine=engine,
                              stop=bytearray(b"\x01"))
    assert result.timed_out and not result.ok and result.reason.startswith("stopped")
    assert result.engine == ("c" if engine == "auto" and drat.c_engine_built() else "python")
    assert drat.check_proof(php, text(PHP43_PROOF), engine=engine, stop=bytearray(1)).ok
    with pytest.raises(ArgumentError):
        drat.check_proof(php, text(PHP43_PROOF), engine=engine, stop=bytearray())


def test_a_variable_beyond_the_bound_is_rejected_before_any_work() -> None:
    # One new variable per lemma is allowed (extended resolution); a deletion brings none.
    result = check_proof(ALL_2VARS, text(["d 100000000 0", "1 0", "0"]))
    assert not result.ok and "proof variable 100000000 is beyond" in result.reason
    result = check_proof(ALL_2VARS, text(["3 0", "1 0", "0"]))
    assert result.ok  # variable 3 is new, and there are two lemmas
    result = check_proof(ALL_2VARS, text(["6 0", "1 0", "0"]))
    assert not result.ok and "beyond the formula's 2 variables" in result.reason


def test_binary_literals_too_large_for_any_variable_are_malformed() -> None:
    with pytest.raises(DratError, match="too large"):
        parse_binary_proof(bytes([0x61]) + b"\xff" * 100_000 + b"\x01\x00")


def test_files_over_the_cap_are_refused_unread(tmp_path) -> None:
    from blackhole.drat import parse_any_proof, read_capped

    path = tmp_path / "p"
    path.write_bytes(b"1 0\n" * 10)
    assert read_capped(path, 40) == b"1 0\n" * 10
    with pytest.raises(DratError, match="larger than the cap of 39 bytes"):
        read_capped(path, 39)
    assert list(parse_any_proof(b"1 0\n0\n")) == [(False, [1]), (False, [])]
    assert list(parse_any_proof(bytes([0x61, 2, 0]))) == [(False, [1])]
    with pytest.raises(DratError, match="not a DRAT proof"):
        parse_any_proof("1 é 0\n".encode())


# --------------------------------------------------------------------------
# Tampered proofs of a real Black Hole certificate
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def black_hole_837() -> tuple[int, list[list[int]], Proof]:
    """The certification CNF of pysol:837 and Glucose 4's proof of it."""
    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem
    from blackhole.model.sources import load_deal

    encoding = cnf.build_cnf(build_problem(load_deal("pysol:837")), cnf.CERTIFY_FEATURES)
    return encoding.num_vars, encoding.clauses, solver_proof(encoding.clauses)


def up_fails(clauses: list[list[int]], assumptions: list[int] = ()) -> bool:
    """Does unit propagation over `clauses` under `assumptions` reach a conflict? An
    oracle from pysat (never used by the checker)."""
    with Solver(name="g4", bootstrap_with=clauses) as solver:
        ok, _ = solver.propagate(assumptions=list(assumptions))
        return not ok


def test_the_black_hole_proof_is_accepted(black_hole_837) -> None:
    num_vars, clauses, proof = black_hole_837
    assert not up_fails(clauses)  # the formula alone is not refuted by propagation
    result = check_proof(clauses, proof)
    assert result.ok and result.stats["core_lemmas"] >= 5


def test_a_black_hole_proof_for_a_solvable_deal_is_rejected(black_hole_837) -> None:
    """837's proof against the certification CNF of pysol:2, which has a model (the
    deal is solvable): no proof can refute it."""
    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem
    from blackhole.model.sources import load_deal

    _, _, proof = black_hole_837
    other = cnf.build_cnf(build_problem(load_deal("pysol:2")), cnf.CERTIFY_FEATURES)
    assert is_sat(other.clauses)
    result = check_proof(other.clauses, proof)
    assert not result.ok and result.reason


def test_a_black_hole_proof_cut_short_is_rejected(black_hole_837) -> None:
    num_vars, clauses, proof = black_hole_837
    # the longest prefix whose lemmas, with the formula, still propagate to no conflict
    lo, hi = 0, len(proof)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if not up_fails(clauses + [lits for d, lits in proof[:mid] if not d and lits]):
            lo = mid
        else:
            hi = mid - 1
    result = check_proof(clauses, proof[:lo])
    assert result.reason == "proof does not derive the empty clause"
    # the same prefix ending in the empty clause: that one is not RUP there
    result = check_proof(clauses, [*proof[:lo], (False, [])])
    assert not result.ok and result.reason.endswith("is not RUP/RAT")


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 3))
def test_solver_proofs_never_refute_a_satisfiable_formula(seed, pick, mutation) -> None:
    """Soundness on real proofs: Glucose's proof of an unsatisfiable random formula,
    possibly mutated (a lemma dropped or flipped, a deletion added), checked against the
    formula less one clause. Whenever that is satisfiable, the check must fail."""
    clauses = random_3sat(9, 45, seed)
    if brute_force_sat(9, clauses):
        return
    # a clause without which the formula has a model, when there is one
    drop = next((i for i in (pick % len(clauses) + j for j in range(len(clauses)))
                 if brute_force_sat(9, clauses[:i % len(clauses)]
                                    + clauses[i % len(clauses) + 1:])), pick)
    proof = list(solver_proof(clauses))
    lemmas = [k for k, (d, lits) in enumerate(proof) if not d and lits]
    if lemmas and mutation == 1:
        del proof[lemmas[pick % len(lemmas)]]
    elif lemmas and mutation == 2:
        k = lemmas[pick % len(lemmas)]
        lits = list(proof[k][1])
        lits[0] = -lits[0]
        proof[k] = (False, lits)
    elif mutation == 3:
        proof.insert(pick % (len(proof) + 1), (True, list(clauses[pick % len(clauses)])))
    weaker = [c for i, c in enumerate(clauses) if i != drop % len(clauses)]
    result = check_proof(weaker, proof)
    if brute_force_sat(9, weaker):
        assert not result.ok
    if check_proof(clauses, proof).ok:
        assert not brute_force_sat(9, clauses)


# --------------------------------------------------------------------------
# A real Black Hole proof
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deal_837() -> tuple[int, list[list[int]], list[str]]:
    """The certification CNF of pysol:837 and Glucose 4's proof of it (a few thousand
    lines, most of them deletions of formula clauses)."""
    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem
    from blackhole.model.sources import load_deal

    encoding = cnf.build_cnf(build_problem(load_deal("pysol:837")), cnf.CERTIFY_FEATURES)
    with Solver(name="g4", bootstrap_with=encoding.clauses, with_proof=True) as solver:
        assert solver.solve() is False
        lines = list(solver.get_proof())
    return encoding.num_vars, encoding.clauses, lines


def test_a_deal_proof_is_accepted_and_its_work_counted(deal_837) -> None:
    num_vars, clauses, lines = deal_837
    result = check_proof(clauses, parse_proof_lines(lines))
    assert result.ok, result.reason
    assert result.stats["core_lemmas"] > 0 and result.stats["trivial"] == 0
    # every core lemma's check propagates at least its own negation
    assert result.stats["rup_literals"] >= result.stats["core_lemmas"]
    assert result.stats["deletions"] > result.stats["lemmas"]  # Glucose deletes a lot


def test_a_deal_proof_without_its_lemmas_or_cut_short_is_rejected(deal_837) -> None:
    num_vars, clauses, lines = deal_837
    proof = parse_proof_lines(lines)
    assert not up_conflict(clauses)  # the formula alone is not refuted
    without = Proof([(d, lits) for d, lits in proof if d or not lits])
    result = check_proof(clauses, without)
    assert not result.ok and result.reason.endswith("is not RUP/RAT")
    lemmas = [i for i, (d, lits) in enumerate(proof) if not d and lits]
    cut = Proof(proof[:lemmas[len(lemmas) // 2]])
    assert hopeless(clauses, cut)
    result = check_proof(clauses, cut)
    assert result.reason == "proof does not derive the empty clause"


def test_stamps_used_up_start_again_without_changing_the_verdict(deal_837, monkeypatch) -> None:
    """With only a few stamps below TOP the RUP checks use them up many times over;
    starting again from 1 must keep every verdict and every count."""

    num_vars, clauses, lines = deal_837
    proof = parse_proof_lines(lines)
    plain = check_proof(clauses, proof)
    monkeypatch.setattr(Checker, "TOP", 4)
    few = check_proof(clauses, proof)
    assert plain.ok and few.ok
    for key in ("core_lemmas", "rup_literals", "ignored_deletions"):
        assert few.stats[key] == plain.stats[key]
    broken = Proof([(d, lits) for d, lits in proof if d or not lits])
    assert not check_proof(clauses, broken).ok


# --------------------------------------------------------------------------
# The compiled core
# --------------------------------------------------------------------------

# Set where the project is installed without a C compiler on purpose.
NO_C_CORE = "BLACKHOLE_NO_C_CORE"


def test_the_compiled_core_is_built_and_judges() -> None:
    """CI installs with a compiler: a build that failed quietly (the extension is
    optional) must fail here, unless the install is meant to be pure Python."""
    import os

    if os.environ.get(NO_C_CORE):
        pytest.skip(f"{NO_C_CORE} is set: a pure-Python install is intended")
    assert drat.c_engine_built(), "the compiled core of the checker was not built"
    php = pigeonhole(4, 3)
    result = drat.check_proof(php, text(PHP43_PROOF), engine="auto")
    assert result.ok and result.engine == "c" and result.stats["core_lemmas"] == 5


@cache
def deal_proof(number: int) -> tuple[int, list[list[int]], Proof]:
    """The certification CNF of an unsolvable deal and Glucose 4's proof of it: pysol:1
    (refuted by unit propagation alone), 837, and 265 (the longest check of 1-1000)."""
    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem
    from blackhole.model.sources import load_deal

    encoding = cnf.build_cnf(build_problem(load_deal(f"pysol:{number}")),
                             cnf.CERTIFY_FEATURES)
    return encoding.num_vars, encoding.clauses, solver_proof(encoding.clauses)


@pytest.mark.parametrize("number", [1, 837, pytest.param(265, marks=pytest.mark.slow)])
def test_the_engines_agree_on_black_hole_proofs(number) -> None:
    num_vars, clauses, proof = deal_proof(number)
    python = drat.check_proof(clauses, proof, engine="python")
    assert python.ok and python.engine == "python"
    if not drat.c_engine_built():
        pytest.skip("no compiled core in this install")
    c = drat.check_proof(clauses, proof, engine="auto")
    assert c.ok and c.engine == "c"
    for key in (*COUNTS, "lemmas", "deletions", "rat_lemmas"):
        assert c.stats[key] == python.stats[key], key
    assert (python.stats["trivial"] == 1) == (number == 1)
    if number == 265:
        assert c.stats["core_lemmas"] > 1000
        assert c.stats["seconds"] < python.stats["seconds"]


def test_the_engine_is_chosen_by_argument_or_variable(monkeypatch) -> None:
    php = pigeonhole(4, 3)
    monkeypatch.setenv(DRAT_VARIABLE, "python")
    assert drat.check_proof(php, text(PHP43_PROOF)).engine == "python"
    assert drat.check_proof(php, text(PHP43_PROOF), engine="auto").engine == \
        ("c" if drat.c_engine_built() else "python")
    monkeypatch.setenv(DRAT_VARIABLE, "fast")
    with pytest.raises(ValueError, match="unknown proof-check engine 'fast'"):
        drat.check_proof(php, text(PHP43_PROOF))


def test_what_the_compiled_core_hands_over() -> None:
    """Rejections and input it does not take go to the Python checker, which judges
    them; RAT lemmas and extension variables it checks itself."""
    if not drat.c_engine_built():
        pytest.skip("no compiled core in this install")
    result = drat.check_proof(RAT_FORMULA, text(["1 0", "0"]), engine="auto")
    assert result.ok and result.engine == "c" and result.stats["rat_lemmas"] == 1
    assert c_core(RAT_FORMULA, text(["1 0", "0"]))[:2] == (drat_check._C_ACCEPT, "")
    result = drat.check_proof(ALL_2VARS, text(["3 0", "1 0", "0"]), engine="auto")
    assert result.ok and result.engine == "c"  # variable 3 is new: RAT on it
    pivot_second = text(["5 1 0", "-5 1 0", "1 0", "0"])  # (-5 1) is not RAT on -5
    result = drat.check_proof(RAT_FORMULA, pivot_second, engine="auto")
    assert not result.ok and result.engine == "python" and "c_seconds" in result.stats
    assert result.reason == "lemma 2 (line 2) is not RUP/RAT"
    assert c_core(RAT_FORMULA, pivot_second)[:2] == (
        drat_check._C_HANDOVER, "a core lemma is neither RUP nor RAT")
    result = drat.check_proof(ALL_2VARS, text(["0"]), engine="auto")
    assert not result.ok and result.engine == "python" and "c_seconds" in result.stats
    for clauses, proof in [([[1, 2**40]], []), ([[1, "2"]], []), ([[1]], [(False, [1.5])]),
                           ([[1]], [(False, [1], 3)]), ([[1]], [None])]:
        status, note, _ = drat_check._c_check(2, clauses, proof, None)
        assert (status, note) == (drat_check._C_HANDOVER, "input the compiled core does not take")
    from array import array

    for flat in [drat.FlatProof([1], [0, 1, 1], b"\0\0"),  # lists, not buffers
                 drat.FlatProof(array("l", [1]), array("q", [0, 1, 1]), b"\0\0"),
                 drat.FlatProof(array("i", [1]), array("q", [0, 2, 1]), b"\0\0"),
                 drat.FlatProof(array("i", [1]), array("q", [0, 1, 1]), b"\0\2")]:
        status, note, _ = drat_check._c_check(2, ALL_2VARS, flat, None)
        assert (status, note) == (drat_check._C_HANDOVER, "input the compiled core does not take")
    accepted = drat_check._c_check(2, ALL_2VARS, text(["1 0", "0"]), None)[:2]
    assert accepted == (drat_check._C_ACCEPT, "")
    flat = drat.FlatProof(array("i", [1]), array("q", [0, 1, 1]), b"\0\0")
    assert drat_check._c_check(2, ALL_2VARS, flat, None)[:2] == accepted


def test_the_compiled_core_stops_at_the_deadline() -> None:
    import time

    if not drat.c_engine_built():
        pytest.skip("no compiled core in this install")
    php = pigeonhole(4, 3)
    result = drat.check_proof(php, text(PHP43_PROOF), deadline=time.perf_counter() - 1,
                              engine="auto")
    assert result.timed_out and not result.ok and result.engine == "c"
    status, _, _ = drat_check._c_check(12, php, text(PHP43_PROOF), time.perf_counter() + 60)
    assert status == drat_check._C_ACCEPT


def resolution_proof(clauses: list[list[int]], moves) -> list[tuple[bool, list[int]]]:
    """A proof built from `moves` (kind, i, j, k): kind 0 adds the resolvent of two
    known clauses (implied, and RUP), kind 1 that resolvent less one literal (often not
    implied), kind 2 deletes a known clause, kind 3 adds a clause picked by the bits of
    i and j, kind 4 a unit clause; then the empty clause."""
    known = [list(c) for c in clauses]
    proof: list[tuple[bool, list[int]]] = []
    for kind, i, j, k in moves:
        a, b = known[i % len(known)], known[j % len(known)]
        if kind <= 1:
            pivots = [x for x in a if -x in b]
            if not pivots:
                continue
            lemma = list(dict.fromkeys([x for x in a if x != pivots[0]]
                                       + [x for x in b if x != -pivots[0]]))
            if kind == 1 and lemma:
                del lemma[k % len(lemma)]
        elif kind == 2:
            proof.append((True, list(a)))
            continue
        elif kind == 3:
            lemma = [v if i >> v & 1 else -v for v in range(1, 7) if j >> v & 1]
        else:
            lemma = [(i % 6 + 1) * (1 if j & 1 else -1)]
        proof.append((False, lemma))
        known.append(lemma)
    return [*proof, (False, [])]


literal6 = st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v]))
move = st.tuples(st.integers(0, 4), st.integers(0, 127), st.integers(0, 127),
                 st.integers(0, 5))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(literal6, min_size=1, max_size=3), min_size=2, max_size=18),
       st.lists(move, max_size=16), st.integers(0, 6))
def test_the_compiled_core_never_accepts_a_refutation_of_a_satisfiable_formula(
        clauses, moves, close) -> None:
    """Some proofs end in (v) (-v) before the empty clause (`close`): their forward
    pass meets a conflict, so the backward pass must find the lemma that is wrong."""
    assume(brute_force_sat(6, clauses))
    proof = resolution_proof(clauses, moves)
    if close:
        proof[-1:-1] = [(False, [close]), (False, [-close])]
    if drat.c_engine_built():
        status, note, _ = c_core(clauses, proof)
        assert status == drat_check._C_HANDOVER and note
        event(note)
    assert not check_proof(clauses, proof).ok


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(literal6, min_size=1, max_size=3), min_size=8, max_size=40),
       st.lists(move, max_size=24))
def test_the_engines_agree_on_random_resolution_proofs(clauses, moves) -> None:
    """Many of these formulas are unsatisfiable and many proofs valid: the compiled
    core accepts them with the Python checker's counts (`check_proof` above)."""
    proof = resolution_proof(clauses, moves)
    result = check_proof(clauses, proof)
    event(f"{result.engine} {'accepts' if result.ok else 'rejects'}")
    if result.ok:
        assert not brute_force_sat(6, clauses)


# --------------------------------------------------------------------------
# Kissat's proofs: RAT lemmas on the variables it introduces
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kissat_837(tmp_path_factory) -> tuple[list[list[int]], drat.FlatProof]:
    """The certification CNF of pysol:837 and kissat's binary DRAT proof of it (a few
    hundred RAT lemmas: kissat introduces variables, each defined by RAT lemmas)."""
    import subprocess

    from blackhole.backends import kissat
    from blackhole.base.errors import InputError
    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem
    from blackhole.model.sources import load_deal

    try:
        binary = kissat.binary()
    except InputError:
        pytest.skip("kissat not installed (pip install 'blackhole-solitaire[kissat]')")
    encoding = cnf.build_cnf(build_problem(load_deal("pysol:837")), cnf.CERTIFY_FEATURES)
    folder = tmp_path_factory.mktemp("kissat")
    (folder / "f.cnf").write_text(encoding.dimacs())
    done = subprocess.run([binary, "-q", str(folder / "f.cnf"), str(folder / "p.drat")],
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 20  # UNSATISFIABLE
    proof = drat.parse_any_proof((folder / "p.drat").read_bytes())
    assert isinstance(proof, drat.FlatProof) and not proof.lines  # binary: no lines
    return encoding.clauses, proof


def test_the_compiled_core_checks_kissat_rat_lemmas(kissat_837) -> None:
    """The core accepts kissat's proof itself, variables beyond the formula's and RAT
    lemmas included, with the Python checker's counts (`check_proof` above)."""
    clauses, proof = kissat_837
    assert proof.top > variables(clauses, [])  # kissat's own variables
    result = check_proof(clauses, proof)
    assert result.ok and result.stats["rat_lemmas"] > 100
    assert result.stats["rat_lemmas"] < result.stats["core_lemmas"]
    assert result.engine == ("c" if drat.c_engine_built() else "python")


def test_a_tampered_kissat_rat_lemma_is_rejected(kissat_837, monkeypatch) -> None:
    """A RAT lemma is RAT on its first literal only: the same clause with that literal
    written last is rejected, by the Python checker (the core hands it over), at that
    very lemma."""
    clauses, proof = kissat_837
    needed_rat: list[int] = []  # lemma numbers (from 0), in the backward pass's order
    rat = Checker._rat

    def recording(self, c: int, pivot: int) -> bool:
        passed = rat(self, c, pivot)
        if passed:
            needed_rat.append(c - self.num_formula)
        return passed

    monkeypatch.setattr(Checker, "_rat", recording)
    assert drat.check_proof(clauses, proof, engine="python").ok
    monkeypatch.undo()
    lemma = needed_rat[0]  # the last lemma of the proof that needed RAT
    step = [i for i, (deletion, _) in enumerate(proof) if not deletion][lemma]
    _, lits = proof[step]
    steps = list(proof)
    steps[step] = (False, [*lits[1:], lits[0]])
    result = check_proof(clauses, steps)
    assert not result.ok and result.engine == "python"
    assert result.reason == f"lemma {lemma + 1} (proof step {step + 1}) is not RUP/RAT"
    if drat.c_engine_built():
        assert c_core(clauses, steps)[:2] == (drat_check._C_HANDOVER,
                                              "a core lemma is neither RUP nor RAT")
