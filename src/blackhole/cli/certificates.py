"""certify and verify: proofs of unsolvability, written and checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from blackhole.backends import Verdict
from blackhole.cli.common import (
    EXIT_INTERNAL,
    EXIT_NO,
    EXIT_OK,
    VERDICT_EXIT,
    JsonFlag,
    app,
    console,
    user_errors,
)
from blackhole.deal import expand_specs, load_deal


@app.command("certify")
def certify_command(
    specs: Annotated[str, typer.Argument(
        help="A deal spec, or several: ranges such as pysol:1-1000, folders, @list.txt.",
        show_default=False)],
    out: Annotated[Path, typer.Option(help="Certificate folder (one subfolder per deal "
                                           "when several are given).")] = Path("certificate"),
    solver: Annotated[str, typer.Option(
        help="Proof-logging pysat solver: g4, g3, mcb or mcm.")] = "g4",
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    timeout: Annotated[float | None, typer.Option(min=0.0, help="Seconds per deal.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Prove a deal unsolvable with a checked DRUP certificate, or give its winning moves."""
    from blackhole.certify import certificate_folders, certify, check_choices

    with user_errors():
        deal_specs = expand_specs(specs)
        check_choices(solver, checker)
        many = len(deal_specs) > 1
        rows = []
        for spec, folder in zip(deal_specs, certificate_folders(deal_specs, out), strict=True):
            deal = load_deal(spec)
            rows.append((spec, certify(deal, spec, folder, solver, timeout, checker)))
            if not as_json and many:
                _print_certificate(*rows[-1])
    if as_json:
        typer.echo(json.dumps([_certificate_json(spec, c) for spec, c in rows]))
    elif many:
        _print_certificate_summary([c for _, c in rows])
    else:
        _print_certificate(*rows[0])
    raise typer.Exit(max(_certificate_exit(c) for _, c in rows))


def _certificate_exit(cert) -> int:
    if cert.verdict is Verdict.UNSOLVABLE:
        return EXIT_NO if cert.check.ok else EXIT_INTERNAL
    return VERDICT_EXIT[cert.verdict]


def _certificate_json(spec: str, cert) -> dict:
    data = {"deal": spec, "verdict": cert.verdict.value, "folder": str(cert.folder)}
    if cert.check is not None:
        data.update(certified=cert.check.ok, reason=cert.check.reason,
                    proof_lines=cert.manifest["proof"]["lines"],
                    proof_bytes=cert.manifest["proof"]["bytes"],
                    seconds=cert.manifest["seconds"])
    if cert.solution is not None:
        data["moves"] = [{"card": str(card), "fan": fan} for card, fan in cert.solution.moves]
    return data


def _print_certificate(spec: str, cert) -> None:
    if cert.verdict is Verdict.UNSOLVABLE:
        seconds = cert.manifest["seconds"]
        proof = cert.manifest["proof"]
        if cert.check.ok:
            console.print(Text(f"{spec}: certified unsolvable", style="bold red"),
                          f"({proof['lines']} proof lines, {proof['bytes']} bytes; solve "
                          f"{seconds['solve']:.3f} s, check {seconds['check']:.3f} s) "
                          f"→ {cert.folder}")
        else:
            console.print(Text(f"{spec}: proof REJECTED by the checker: {cert.check.reason}",
                               style="bold red on white"))
    elif cert.verdict is Verdict.SOLVED:
        console.print(Text(f"{spec}: solvable", style="bold green"),
                      f"— no certificate of unsolvability; the winning moves "
                      f"({cert.solution.replay.played} cards, replayed) are in "
                      f"{cert.folder / 'solution.json'}")
    else:
        console.print(Text(f"{spec}: unknown (time limit reached)", style="yellow"))


def _print_certificate_summary(certs: list) -> None:
    from statistics import median

    proofs = [c for c in certs if c.check is not None]
    counts = {v: sum(c.verdict is v for c in certs) for v in Verdict}
    console.print(f"{len(certs)} deals: {counts[Verdict.UNSOLVABLE]} certified unsolvable "
                  f"({sum(not c.check.ok for c in proofs)} rejected), "
                  f"{counts[Verdict.SOLVED]} solvable, {counts[Verdict.UNKNOWN]} unknown")
    if proofs:
        total = [sum(c.manifest["seconds"].values()) for c in proofs]
        lines = [c.manifest["proof"]["lines"] for c in proofs]
        size = [c.manifest["proof"]["bytes"] for c in proofs]
        console.print(f"per certificate (encode + solve + check): median {median(total):.3f} s, "
                      f"max {max(total):.3f} s, total {sum(total):.1f} s; proof lines median "
                      f"{median(lines):.0f}, max {max(lines)}; bytes max {max(size)}")


@app.command()
def verify(
    folder: Annotated[Path, typer.Argument(help="A folder written by `blackhole certify`.")],
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    as_json: JsonFlag = False,
) -> None:
    """Re-derive the CNF from the certificate's deal and check its proof: VERIFIED or why not."""
    from blackhole.certify import verify as verify_certificate

    with user_errors():
        check = verify_certificate(folder, checker)
    if as_json:
        typer.echo(json.dumps({"folder": str(folder), "verified": check.ok,
                               "reason": check.reason, "stats": check.stats}))
    elif check.ok:
        console.print(Text("VERIFIED", style="bold green"),
                      f"the deal in {folder} has no solution "
                      f"(proof checked in {check.stats.get('seconds', 0):.3f} s)")
    else:
        console.print(Text("NOT VERIFIED", style="bold red"), check.reason)
    raise typer.Exit(EXIT_OK if check.ok else EXIT_NO)
