"""Certificates on generalised decks: what `certify` proves agrees with the `search`
referee, and `verify` accepts it from the files alone.

The fast tests take decks whose refutation needs a real proof (a thousand lines and more)
yet which the referee settles at once; the hard band of issue 22 (R = 22..34) is under
`slow`, and its timings are in docs/performance.md, not here.
"""

from __future__ import annotations

import json

import pytest

from blackhole.backends import Options, Verdict, make_backend
from blackhole.base.errors import InputError
from blackhole.certificates import certify, verify
from blackhole.model.problem import build_problem
from blackhole.model.sources import load_deal

from .helpers import blackhole, ranked_deal

# A lost 12-rank deck whose glucose4 proof runs to 1,400 lines.
HARD_ISH = ["random:13:ranks=12"]


def referee(deal) -> Verdict:
    verdict = make_backend("search").solve(build_problem(deal), Options(timeout=60)).verdict
    assert verdict is not Verdict.UNKNOWN
    return verdict


@pytest.mark.parametrize("spec", HARD_ISH)
def test_a_hard_ish_generalised_deck_is_certified_as_the_referee_says(spec, tmp_path) -> None:
    deal = load_deal(spec)
    cert = certify(spec, tmp_path / "cert")
    assert cert.verdict is referee(deal) is Verdict.UNSOLVABLE
    assert cert.check.ok and cert.proof.lines > 1000  # a real refutation
    found = verify(tmp_path / "cert")
    assert found.ok and found.claim == "unsolvable" and found.spec == spec and found.dealt


@pytest.mark.parametrize(("ranks", "seed"), [(4, 8), (8, 1), (6, 4), (5, 2)])
def test_small_generalised_decks_are_certified_as_the_referee_says(ranks, seed,
                                                                   tmp_path) -> None:
    deal = ranked_deal(ranks, 3, seed)  # dealt in threes: the last fan holds 1, 2 or 3
    cert = certify(deal, tmp_path / "cert")
    assert cert.verdict is referee(deal)
    found = verify(tmp_path / "cert")
    assert found.ok and found.claim == cert.verdict.value


@pytest.mark.parametrize("size", [1, 2])
def test_a_layout_no_deal_is_dealt_in_is_refused_before_any_work(size, tmp_path) -> None:
    """A Deal built by hand in fans no source deals: its board would be refused by
    verify, so certify refuses it first and writes nothing."""
    deal = ranked_deal(8, size, 1)
    with pytest.raises(InputError, match="verify would refuse its board"):
        certify(deal, tmp_path / "cert")
    assert not (tmp_path / "cert").exists()


def _settled(problem) -> Verdict:
    """The look's verdict, or CP-SAT's where the look does not settle it in 10 s (on
    random:3, 4, 5 and 8 at 28 ranks it runs for minutes; CP-SAT takes under 10 s)."""
    for backend, seconds in (("look", 10.0), ("cpsat", 300.0)):
        verdict = make_backend(backend).solve(problem, Options(timeout=seconds)).verdict
        if verdict is not Verdict.UNKNOWN:
            return verdict
    raise AssertionError("no referee settles this deal: the test's premise broke")


@pytest.mark.slow
def test_the_hard_band_is_certified_in_two_jobs_and_verified(tmp_path) -> None:
    """`certify SPECS --jobs 2 --out DIR` then `verify DIR`, as real processes, on a slice
    of the hard band: every verdict is the one an engine that does not certify finds (the
    look, or CP-SAT on the four deals the look leaves for minutes), and every certificate
    verifies."""
    specs = [f"random:{seed}:ranks={ranks}" for ranks in (22, 28) for seed in range(1, 9)]
    out = tmp_path / "certs"
    made = blackhole("certify", ",".join(specs), "--jobs", "2", "--out", str(out), "--json",
                     timeout=1800)
    assert made.returncode in (0, 1), made.stderr
    rows = {row["deal"]: row for row in json.loads(made.stdout)}
    for spec in specs:
        expected = _settled(build_problem(load_deal(spec)))
        assert rows[spec]["verdict"] == expected.value and rows[spec]["certified"], spec
    assert made.returncode == (1 if any(row["verdict"] == "unsolvable"
                                        for row in rows.values()) else 0)
    checked = blackhole("verify", str(out), "--json", timeout=1800)
    assert checked.returncode == 0, checked.stdout + checked.stderr
