"""atlas and atlas-build: the shipped verdicts of PySolFC's deals, and how they are made."""

import json
from pathlib import Path
from typing import Annotated

import typer

from blackhole import answers
from blackhole.atlas import shipped_games
from blackhole.base.exits import EXIT_OK, EXIT_UNKNOWN
from blackhole.cli.guard import user_errors
from blackhole.cli.options import JsonFlag


def atlas(
    spec: Annotated[str, typer.Argument(
        help="A PySolFC deal: pysol:N (Black Hole) or pysol:N:GAME, for the games whose "
             f"atlas ships ({', '.join(shipped_games())}).",
        show_default=False)],
    file: Annotated[Path | None, typer.Option(
        "--file", help="Read this atlas file instead of the one shipped for the game.")]
    = None,
    as_json: JsonFlag = False,
) -> None:
    """Won or lost, and the best score, from the atlas shipped with blackhole; no solving.
    Exit 0 won, 1 lost, 3 when no run settled the deal, 2 outside the atlas."""
    with user_errors():
        found = answers.atlas(spec, file)
    answer = found.found
    if as_json:
        typer.echo(json.dumps(found.document))
    elif answer.won is None:
        typer.echo(f"{answer.deal}: unknown (no run settled it)")
    elif answer.won:
        typer.echo(f"{answer.deal}: won ({answer.of} of {answer.of})")
    elif answer.best is None:
        typer.echo(f"{answer.deal}: lost (the atlas holds no best score for it)")
    else:
        typer.echo(f"{answer.deal}: lost, best {answer.best} of {answer.of}")
    raise typer.Exit(found.exit_code)


def atlas_build(
    results: Annotated[list[Path], typer.Argument(
        help="Bench results files (.jsonl or .jsonl.gz): solve and --task best runs of one "
             "game.", show_default=False)],
    out: Annotated[Path, typer.Option(help="The atlas file to write (gzip).",
                                      show_default=False)],
    first: Annotated[int | None, typer.Option(
        min=1, help="The first deal number it covers (default: the smallest in the "
                    "results).")] = None,
    last: Annotated[int | None, typer.Option(
        min=1, help="The last deal number it covers (default: the largest).")] = None,
    lost_list: Annotated[Path | None, typer.Option(
        help="Also write the lost deals' specs here, one a line: the input of "
             "`bench @FILE --task best`.")] = None,
    jobs: Annotated[int | None, typer.Option(
        min=1, help="Processes that check the lines (default: one per core).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Build an atlas file from bench results: every deal of the range won, lost (with
    its proven best score where a best run gave one) or unsettled. Exit 3 when some deal
    of the range is unsettled, 4 when two lines contradict each other."""
    from blackhole.atlas.build import build_atlas, write_atlas, write_lost_list

    with user_errors():
        built = build_atlas(results, first, last, jobs)
        write_atlas(built, out)
        if lost_list is not None:
            write_lost_list(built, lost_list)
    header = built.header()
    if as_json:
        typer.echo(json.dumps({**header, "file": str(out), "bytes": out.stat().st_size}))
    else:
        typer.echo(f"{out}: {header['game']} deals {header['first']}-{header['last']}: "
                   f"{header['last'] - header['first'] + 1 - header['lost'] - header['unsettled']}"
                   f" won, {header['lost']} lost ({header['best']} with a best score), "
                   f"{header['unsettled']} unsettled; {out.stat().st_size} bytes")
    raise typer.Exit(EXIT_UNKNOWN if header["unsettled"] else EXIT_OK)
