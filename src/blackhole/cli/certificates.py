"""certify and verify: proofs of unsolvability, written and checked."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from blackhole.backends import Verdict
from blackhole.cli.common import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO,
    EXIT_OK,
    VERDICT_EXIT,
    JsonFlag,
    app,
    console,
    user_errors,
)
from blackhole.deal import expand_specs

if TYPE_CHECKING:
    from blackhole.certificates import Certificate, Verification


@app.command("certify")
def certify_command(
    specs: Annotated[str, typer.Argument(
        help="A deal spec, or several: ranges such as pysol:1-1000, folders, @list.txt.",
        show_default=False)],
    out: Annotated[Path, typer.Option(help="Certificate folder (one subfolder per deal "
                                           "when several are given).")] = Path("certificate"),
    solver: Annotated[str, typer.Option(
        help="Proof-logging pysat solver: glucose4 (g4), glucose3 (g3), glucose42, "
             "maplechrono (mcb) or maplecm (mcm).")] = "glucose4",
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    timeout: Annotated[float | None, typer.Option(
        min=0.0, help="Seconds per deal for the whole of it: encode, solve and check; at the "
                      "limit the deal is unknown.")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Deals certified at once, each in its "
                                                  "own process.")] = 1,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Keep folders that already hold a complete certificate (or a "
                         "replaying solution) of their deal.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Prove deals unsolvable with checked DRUP certificates, or give their winning moves."""
    from blackhole.certificates import certify_all, plan

    rows: list[tuple[str, Certificate]] = []
    with user_errors():
        deal_specs = expand_specs(specs)
        work = plan(deal_specs, out, solver, timeout, checker)
        many = len(work) > 1
        try:
            for job, cert in certify_all(work, jobs, resume):
                rows.append((job.spec, cert))
                if not as_json and many:
                    _print_certificate(job.spec, cert)
        except KeyboardInterrupt:
            _print_interrupted(rows, len(work), as_json)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if as_json:
        typer.echo(json.dumps([_certificate_json(spec, c) for spec, c in rows]))
    elif many:
        _print_certificate_summary([c for _, c in rows])
    else:
        _print_certificate(*rows[0])
    raise typer.Exit(max(_certificate_exit(c) for _, c in rows))


def _certificate_exit(cert: "Certificate") -> int:
    if cert.verdict is Verdict.UNSOLVABLE:
        return EXIT_NO if cert.certified else EXIT_INTERNAL
    return VERDICT_EXIT[cert.verdict]


def _certificate_json(spec: str, cert: "Certificate") -> dict:
    data: dict = {"deal": spec, "verdict": cert.verdict.value, "folder": str(cert.folder),
                  "resumed": cert.resumed}
    if cert.check is not None and cert.proof is not None:
        data.update(certified=cert.certified, reason=cert.check.reason,
                    proof_lines=cert.proof.lines, proof_bytes=cert.proof.bytes,
                    seconds={"encode": round(cert.seconds.encode, 6),
                             "solve": round(cert.seconds.solve, 6),
                             "check": round(cert.seconds.check, 6),
                             "write": round(cert.seconds.write, 6)})
    if cert.reason:
        data["reason"] = cert.reason
    if cert.solution is not None:
        data["moves"] = [{"card": str(card), "fan": fan} for card, fan in cert.solution.moves]
    return data


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
        console.print(Text(f"{spec}: unknown ({cert.reason or 'time limit reached'})",
                           style="yellow"))


def _print_certificate_summary(certs: "list[Certificate]") -> None:
    from statistics import median

    made = [c for c in certs if c.check is not None and not c.resumed]
    counts = {v: sum(c.verdict is v for c in certs) for v in Verdict}
    rejected = sum(c.verdict is Verdict.UNSOLVABLE and not c.certified for c in certs)
    kept = sum(c.resumed for c in certs)
    console.print(f"{len(certs)} deals: {counts[Verdict.UNSOLVABLE]} certified unsolvable "
                  f"({rejected} rejected), {counts[Verdict.SOLVED]} solvable, "
                  f"{counts[Verdict.UNKNOWN]} unknown" + (f"; {kept} kept from an earlier "
                                                          "run" if kept else ""))
    if made:
        total = [c.seconds.total for c in made]
        check = [c.seconds.check for c in made]
        lines = [c.proof.lines for c in made]
        size = [c.proof.bytes for c in made]
        console.print(f"per certificate (encode + solve + check + write): median "
                      f"{median(total):.3f} s, "
                      f"max {max(total):.3f} s, total {sum(total):.1f} s (check alone: total "
                      f"{sum(check):.1f} s); proof lines median {median(lines):.0f}, max "
                      f"{max(lines)}; bytes max {max(size)}")


def _print_interrupted(rows: "list[tuple[str, Certificate]]", planned: int,
                       as_json: bool) -> None:
    """What an interrupted certify finished, so that nothing done is lost from view."""
    if as_json:
        typer.echo(json.dumps([_certificate_json(spec, c) for spec, c in rows]))
    elif rows:
        _print_certificate_summary([c for _, c in rows])
    finished = ", ".join(spec for spec, _ in rows[:20]) + (", ..." if len(rows) > 20 else "")
    typer.echo(f"interrupted: {len(rows)} of {planned} deals finished"
               + (f" ({finished})" if rows else "") + "; run again with --resume", err=True)


@app.command()
def verify(
    folder: Annotated[Path, typer.Argument(
        help="A certificate folder, or the --out folder of a certify run (every "
             "certificate in it).")],
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    as_json: JsonFlag = False,
) -> None:
    """Check certificates from the files on disk: an unsolvable deal's proof, re-derived
    from its deal, or a solvable deal's winning moves, replayed. VERIFIED or why not; exit
    0 only when every one is verified."""
    from blackhole.certificates import folders_to_verify
    from blackhole.certificates import verify as verify_certificate

    folders = folders_to_verify(folder)
    results = []
    with user_errors():
        for one in folders:
            found = verify_certificate(one, checker)
            results.append((one, found))
            if not as_json:
                _print_verification(one, found)
    if as_json:
        lines = [_verification_json(one, found) for one, found in results]
        typer.echo(json.dumps(lines[0] if len(folders) == 1 and folders[0] == folder
                              else lines))
    elif len(results) > 1:
        good = sum(found.ok for _, found in results)
        console.print(f"{good} of {len(results)} certificates in {folder} verified")
    raise typer.Exit(EXIT_OK if all(found.ok for _, found in results) else EXIT_NO)


def _verification_json(folder: Path, found: "Verification") -> dict:
    check = found.check
    return {"folder": str(folder), "verified": found.ok, "claim": found.claim,
            "deal": found.spec, "dealt": found.dealt, "best": found.best,
            "reason": found.reason, "stats": check.stats if check is not None else {},
            "seconds": round(found.seconds, 6)}


def _print_verification(folder: Path, found: "Verification") -> None:
    name = found.spec or str(folder)
    how = "dealt again, equal to deal.board" if found.dealt else "the deal in deal.board"
    if not found.ok:
        console.print(Text("NOT VERIFIED", style="bold red"), f"{name}: {found.reason}")
    elif found.claim == "best":
        seconds = found.check.stats.get("seconds", 0.0) if found.check else 0.0
        how = ("dealt again and replayed, equal to deal.board" if found.dealt
               else "the position in deal.board")
        console.print(Text("VERIFIED", style="bold green"),
                      f"{name} ({how}): no line from the position scores more than "
                      f"{found.best} (CNF re-derived with the bound, proof checked in "
                      f"{seconds:.3f} s)")
    elif found.claim == "solved":
        console.print(Text("VERIFIED", style="bold green"),
                      f"{name} ({how}) is solvable: {folder / 'solution.json'} wins, all "
                      f"{found.played} cards replayed by the rules engine")
    else:
        seconds = found.check.stats.get("seconds", 0.0) if found.check else 0.0
        console.print(Text("VERIFIED", style="bold green"),
                      f"{name} ({how}) has no solution (CNF re-derived, proof checked in "
                      f"{seconds:.3f} s)")
