"""certify and verify: proofs of unsolvability, written and checked."""

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from blackhole.answers import certificate_document, certificate_exit
from blackhole.backends import Verdict
from blackhole.backends.pysat_tools import DEFAULT_PROOF_SOLVER, PROOF_SOLVERS, short_name
from blackhole.base.exits import EXIT_INTERRUPTED, EXIT_NO, EXIT_OK, EXIT_UNKNOWN
from blackhole.cli.guard import user_errors
from blackhole.cli.options import AfterOption, GameOption, JsonFlag, choices, read_game
from blackhole.cli.output import console
from blackhole.model.sources import expand_specs

if TYPE_CHECKING:
    from blackhole.certificates import Certificate, Verification


def certify_command(
    specs: Annotated[list[str], typer.Argument(
        help="Deal specs, one or several: pysol:N, files, ranges such as pysol:1-1000, comma "
             "lists, folders, @list.txt.", show_default=False)],
    out: Annotated[Path, typer.Option(help="Certificate folder (one subfolder per deal "
                                           "when several are given).")] = Path("certificate"),
    solver: Annotated[str, typer.Option(
        help="Proof-logging solver: "
             f"{choices([f'{name} ({short_name(name)})' for name in PROOF_SOLVERS])} "
             "(pysat's), or kissat (the [kissat] extra; a DRAT proof).")]
    = DEFAULT_PROOF_SOLVER,
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    timeout: Annotated[float | None, typer.Option(
        help="Seconds per deal (> 0, finite; default none) for the whole of it: encode, "
             "solve and check; at the limit the deal is unknown.", show_default=False)]
    = None,
    jobs: Annotated[int, typer.Option(
        min=1, help="Deals certified at once, each in its own process: at least 1, and no "
                    "more processes are started than there are deals to certify (no other "
                    "maximum).")] = 1,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Keep folders that already hold a complete certificate (or a "
                         "replaying solution) of their deal.")] = False,
    after: AfterOption = None,
    game: GameOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Prove deals unsolvable with checked DRUP certificates, or give their winning moves.

    With --after (one deal), prove that the position after those moves is lost; the
    certificate names the moves, for verify to rebuild the position. A Golf deal's
    certificate names its game in deal.board (a 'Game:' line). Each certificate is
    renamed into its folder only when complete and checked: an unknown verdict, an error
    or Ctrl-C leaves the folder's earlier certificate as it was."""
    from blackhole.certificates.batch import certify_all, plan

    began = time.perf_counter()
    rows: list[tuple[str, Certificate]] = []
    with user_errors():
        deal_specs = [one for given in specs for one in expand_specs(given)]
        work = plan(deal_specs, out, solver, timeout, checker, after, read_game(game))
        many = len(work) > 1
        try:
            for job, cert in certify_all(work, jobs, resume):
                rows.append((job.spec, cert))
                if not as_json and many:
                    _print_certificate(job.spec, cert)
        except KeyboardInterrupt:
            _print_interrupted(rows, len(work), as_json, time.perf_counter() - began)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if as_json:
        typer.echo(json.dumps([certificate_document(spec, c) for spec, c in rows]))
    elif many:
        _print_certificate_summary([c for _, c in rows], time.perf_counter() - began)
    else:
        _print_certificate(*rows[0])
    raise typer.Exit(max(certificate_exit(c) for _, c in rows))


def _print_certificate(spec: str, cert: "Certificate") -> None:
    kept = " (kept from an earlier run)" if cert.resumed else ""
    if cert.verdict is Verdict.UNSOLVABLE:
        if cert.certified:
            seconds, proof = cert.seconds, cert.proof
            console.print(Text(f"{spec}: certified unsolvable", style="bold red"),
                          f"({proof.lines} proof lines, {proof.bytes} bytes; solve "
                          f"{seconds.solve:.3f} s, check {seconds.check:.3f} s) "
                          f"→ {cert.folder}{kept}")
        else:
            console.print(Text(f"{spec}: proof REJECTED by the checker: {cert.check.reason}",
                               style="bold red on white"))
    elif cert.verdict is Verdict.SOLVED:
        played = f"{cert.solution.replay.played} cards, " if cert.solution else ""
        console.print(Text(f"{spec}: solvable", style="bold green"),
                      f"— no certificate of unsolvability; the winning moves "
                      f"({played}replayed) are in {cert.folder / 'solution.json'}{kept}")
    else:
        console.print(Text(f"{spec}: unknown ({cert.reason or 'time limit reached'}); "
                           f"{cert.left_in_place()}", style="yellow"))


def _print_certificate_summary(certs: "list[Certificate]", wall: float) -> None:
    """The verdicts; the run's wall time, and the time of the deals worked on in this run
    (not those kept from an earlier one), each its encode + solve + check + write, summed
    over deals (several at once with --jobs, so the sum may exceed the wall time); and
    the sizes of the proofs made and checked in this run."""
    from statistics import median

    worked = [c for c in certs if not c.resumed]
    made = [c for c in worked if c.certified and c.proof is not None]
    counts = {v: sum(c.verdict is v for c in certs) for v in Verdict}
    rejected = sum(c.verdict is Verdict.UNSOLVABLE and not c.certified for c in certs)
    kept = len(certs) - len(worked)
    console.print(f"{len(certs)} deals: {counts[Verdict.UNSOLVABLE]} certified unsolvable "
                  f"({rejected} rejected), {counts[Verdict.SOLVED]} solvable, "
                  f"{counts[Verdict.UNKNOWN]} unknown" + (f"; {kept} kept from an earlier "
                                                          "run" if kept else ""))
    if not worked:
        console.print(f"run: {wall:.3f} s wall time; no deal worked on (all {kept} kept)")
        return
    total = [c.seconds.total for c in worked]
    console.print(f"run: {wall:.3f} s wall time; per deal worked on in this run "
                  f"({len(worked)}{f'; the {kept} kept are not counted' if kept else ''}), "
                  f"encode + solve + check + write: median {median(total):.3f} s, max "
                  f"{max(total):.3f} s, summed over deals {sum(total):.3f} s (check alone "
                  f"{sum(c.seconds.check for c in worked):.3f} s)")
    if made:
        lines = [c.proof.lines for c in made]
        console.print(f"proofs made in this run: {len(made)}; lines median {median(lines):.0f}, "
                      f"max {max(lines)}; bytes max {max(c.proof.bytes for c in made)}")


def _print_interrupted(rows: "list[tuple[str, Certificate]]", planned: int,
                       as_json: bool, wall: float) -> None:
    """What an interrupted certify finished, so that nothing done is lost from view."""
    if as_json:
        typer.echo(json.dumps([certificate_document(spec, c) for spec, c in rows]))
    elif rows:
        _print_certificate_summary([c for _, c in rows], wall)
    finished = ", ".join(spec for spec, _ in rows[:20]) + (", ..." if len(rows) > 20 else "")
    typer.echo(f"interrupted: {len(rows)} of {planned} deals finished"
               + (f" ({finished})" if rows else "") + "; run again with --resume", err=True)


def verify(
    folder: Annotated[Path, typer.Argument(
        help="A certificate folder (or a file in it, such as its manifest.json), or the "
             "--out folder of a certify run (every certificate in it).")],
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    as_json: JsonFlag = False,
) -> None:
    """Check certificates from the files on disk: an unsolvable deal's proof, re-derived
    from its deal, or a solvable deal's winning moves, replayed. VERIFIED or why not; exit
    0 only when every one is verified. In a run's folder, a folder that holds no complete
    certificate is named and not verified, and counted apart from the certificates. The
    label is checked where it can be (a pysol:/random: spec dealt again, a file read:
    certify records a file by its absolute path, and the verdict names the file read);
    where not, the verdict says so and names the deal by deal.board's digest."""
    from blackhole.certificates.verification import certificate_folder, folders_to_verify
    from blackhole.certificates.verification import verify as verify_certificate

    results = []
    with user_errors():
        folders = folders_to_verify(folder)
        run = len(folders) > 1 or folders[0] != certificate_folder(folder)
        for one in folders:
            found = verify_certificate(one, checker, in_run=run)
            results.append((one, found))
            if not as_json:
                _print_verification(one, found)
    if as_json:
        lines = [_verification_json(one, found) for one, found in results]
        typer.echo(json.dumps(lines if run else lines[0]))
    elif run:
        _print_run_verified(folder, results)
    raise typer.Exit(_verify_exit([found for _, found in results]))


def _print_run_verified(folder: Path, results: "list[tuple[Path, Verification]]") -> None:
    """How many of the run's certificates were verified; the folders that hold none (a
    claim of neither kind: an unknown verdict, a deal not reached) are named apart."""
    certificates = [found for _, found in results if found.claim]
    without = [one.name for one, found in results if not found.claim]
    said = (f"{sum(found.ok for found in certificates)} of {len(certificates)} certificates "
            f"in {folder} verified")
    if without:
        shown = ", ".join(without[:10]) + (", ..." if len(without) > 10 else "")
        said += (f"; {len(without)} folder{'s hold' if len(without) > 1 else ' holds'} no "
                 f"certificate ({shown})")
    console.print(said)


def _verify_exit(found: "list[Verification]") -> int:
    """0 when all are verified; 1 when one fails; 3 when the only ones not verified are
    checks that ran out of time (drat-trim's limit)."""
    if all(one.ok for one in found):
        return EXIT_OK
    if all(one.ok or (one.check is not None and one.check.timed_out) for one in found):
        return EXIT_UNKNOWN
    return EXIT_NO


def _verification_json(folder: Path, found: "Verification") -> dict:
    check = found.check
    return {"folder": str(folder), "verified": found.ok, "claim": found.claim,
            "deal": found.spec, "dealt": found.dealt, "best": found.best,
            "label": {"checked": bool(found.label), "how": found.label or None,
                      "note": found.label_note, "replayed": found.replayed},
            "label_file": found.label_file or None,
            "board_sha256": found.board_sha256,
            "reason": found.reason, "stats": check.stats if check is not None else {},
            "seconds": round(found.seconds, 6)}


def _print_verification(folder: Path, found: "Verification") -> None:
    if not found.ok:
        name = (found.claim and found.spec) or str(folder)
        console.print(Text("NOT VERIFIED", style="bold red"), f"{name}: {found.reason}")
        return
    if found.label:
        name = found.spec
        how = {"dealt": "dealt again", "file": f"the file {found.label_file} read"}[found.label]
        if found.label_note:  # a relative file label
            how += f" ({found.label_note})"
        if found.replayed:
            how += f", {found.replayed} move(s) replayed"
        how += ", equal to deal.board"
    else:
        name = f"deal.board sha256:{found.board_sha256[:16]}"
        labelled = f"labelled {found.spec!r}" if found.spec else "no label"
        how = f"{labelled}, not checked: {found.label_note}"
    seconds = found.check.stats.get("seconds", 0.0) if found.check else 0.0
    if found.claim == "best":
        console.print(Text("VERIFIED", style="bold green"),
                      f"{name} ({how}): no line from the position scores more than "
                      f"{found.best} (CNF re-derived with the bound, proof checked in "
                      f"{seconds:.3f} s)")
    elif found.claim == "solved":
        console.print(Text("VERIFIED", style="bold green"),
                      f"{name} ({how}) is solvable: {folder / 'solution.json'} wins, all "
                      f"{found.played} cards replayed by the rules engine")
    else:
        console.print(Text("VERIFIED", style="bold green"),
                      f"{name} ({how}) has no solution (CNF re-derived, proof checked in "
                      f"{seconds:.3f} s)")
