"""The JSON API's answers: a request's deal and options in, the CLI's `--json` document
out, from the same library functions and the same JSON builders the CLI calls.

Nothing here reads the server's disk on a request's behalf: a deal is a dealt spec
(`pysol:N[:GAME]`, `random:SEED[:...]`) or the text of a board or JSON deal sent as the
body (answered as `blackhole CMD -` answers that text on stdin); a file, a folder, `-`,
a list and `@FILE` moves are refused. Every limit is capped by the server.

`check` runs in the server and refuses bad requests before they take a worker;
`answer` runs in a worker process and never raises for an error a request can cause:
it returns the error's one line with its HTTP status.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blackhole.errors import InputError, InternalError, shorten

if TYPE_CHECKING:
    from blackhole.deal import Position

SERVER_TIMEOUT = 60.0  # seconds: the most any request may take, and its default
MAX_BODY_BYTES = 1_000_000  # a board or JSON deal sent as the body
BODY_SPEC = "-"  # a body's deal is named as the CLI names stdin
# The CLI's exit codes, which the answer's X-Blackhole-Exit header carries.
EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130

# Each question and the query parameters it takes (the CLI's options of the same name).
PARAMETERS: dict[str, frozenset[str]] = {
    "solve": frozenset({"deal", "backend", "timeout", "after"}),
    "best": frozenset({"deal", "backend", "timeout", "after"}),
    "hint": frozenset({"deal", "timeout", "after"}),
    "analyze": frozenset({"deal", "timeout", "after", "line"}),
    "atlas": frozenset({"deal"}),
    "deal": frozenset({"deal", "after"}),
    "position": frozenset({"deal", "after"}),
    "certify": frozenset({"deal", "timeout", "after"}),
}
# The questions that solve, and so run in the bounded pool of workers; the others
# (the atlas, a deal's layout, a position's legal moves) answer at once beside them.
SOLVING = frozenset({"solve", "best", "hint", "analyze", "certify"})
_TAKES_BODY = frozenset(PARAMETERS) - {"atlas"}
# The engines the page offers (each a `--backend` value of solve and best).
PAGE_ENGINES = ("auto", "look", "sat", "cpsat")
ZIP_TYPE = "application/zip"


@dataclass(frozen=True)
class Request:
    """One checked request: the question, the deal's spec or body, and its options."""

    question: str
    spec: str  # a dealt spec, or BODY_SPEC when the deal is `body`
    body: str | None = None
    backend: str = "auto"
    timeout: float = SERVER_TIMEOUT
    after: str | None = None
    line: str | None = None


@dataclass(frozen=True)
class Answer:
    """What a request gets: an HTTP status, the JSON document, and the CLI's exit code;
    or, for a file (a certificate's zip), its bytes and name instead of the document."""

    status: int
    data: dict
    exit_code: int
    content: bytes | None = None
    filename: str = ""


def check(question: str, query: Mapping[str, str] | Iterable[tuple[str, str]],
          body: str | None, cap: float = SERVER_TIMEOUT) -> Request:
    """The request `question` with these query parameters (a mapping, or the pairs in
    the order given) and body, checked: an unknown question or parameter, one given more
    than once, a deal that names a file, both a spec and a body, a bad or missing
    timeout are InputErrors. A timeout above `cap`, or none, is `cap`."""
    from blackhole.backends import DEFAULT_BACKEND
    from blackhole.sources import generated_spec

    if question not in PARAMETERS:
        raise InputError(f"unknown question (ask one of {', '.join(PARAMETERS)})", "path",
                         token=question)
    pairs = list(query.items() if isinstance(query, Mapping) else query)
    repeated = [name for name, count in Counter(name for name, _ in pairs).items()
                if count > 1]
    if repeated:
        raise InputError("given more than once (give each parameter once)", repeated[0])
    query = dict(pairs)
    unknown = sorted(set(query) - PARAMETERS[question])
    if unknown:
        raise InputError(f"{question} takes no such parameter (it takes "
                         f"{', '.join(sorted(PARAMETERS[question]))})", unknown[0])
    spec = query.get("deal")
    if body is not None and not body.strip():
        body = None
    if body is not None:
        if question not in _TAKES_BODY:
            raise InputError(f"{question} takes a PySolFC deal number as deal=pysol:N, "
                             "not a body", "body")
        if spec is not None:
            raise InputError("give the deal either as deal= or as the body, not both",
                             "deal", token=spec)
        spec = BODY_SPEC
    elif spec is None:
        raise InputError("no deal: give deal=pysol:N[:GAME] or deal=random:SEED[:...], or "
                         "send a board or JSON deal as the body", "deal")
    elif question != "atlas" and generated_spec(spec) is None:
        raise InputError("the server reads no files: give pysol:N[:GAME] or "
                         "random:SEED[:...], or send the deal as the body", "deal",
                         token=spec)
    for name in ("after", "line"):
        if query.get(name, "").lstrip().startswith("@"):
            raise InputError("the server reads no files: give the moves as cards", name,
                             token=query[name])
    return Request(question, spec, body, query.get("backend", DEFAULT_BACKEND),
                   _timeout(query.get("timeout"), cap), query.get("after"),
                   query.get("line"))


def _timeout(text: str | None, cap: float) -> float:
    if text is None:
        return cap
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise InputError("expected a number of seconds > 0", "timeout", token=text)
    return min(value, cap)


def answer(request: Request) -> Answer:
    """The CLI's `--json` document for `request`, with its HTTP status and the exit code
    the CLI gives; an error is its one-line message (`{"error", "exit"}`), 400 for bad
    input and 500 for an internal error, never a traceback."""
    try:
        if request.question == "certify":
            return _certify(request)
        data, code = _ANSWERS[request.question](request)
    except InputError as error:
        return Answer(400, {"error": error.describe(), "exit": EXIT_USAGE}, EXIT_USAGE)
    except InternalError as error:
        return Answer(500, {"error": f"internal error: {error}", "exit": EXIT_INTERNAL},
                      EXIT_INTERNAL)
    except Exception as error:  # noqa: BLE001 — a bug is one line, never a traceback
        return Answer(500, {"error": f"internal error (a bug in blackhole): "
                                     f"{type(error).__name__}: {shorten(str(error), 120)}",
                            "exit": EXIT_INTERNAL}, EXIT_INTERNAL)
    return Answer(200, data, code)


def _position(request: Request) -> Position:
    """The request's position: its dealt spec's or its body's, with `after` played."""
    from blackhole.formats import parse_position_text
    from blackhole.positions import load_position, play_after, read_moves
    from blackhole.sources import source_name

    if request.body is None:
        return load_position(request.spec, request.after)
    position = parse_position_text(request.body, source_name(BODY_SPEC))
    if request.after is None:
        return position
    return play_after(position, *read_moves(request.after, "after"))


def _solve(request: Request) -> tuple[dict, int]:
    from blackhole.backends import Verdict, choose
    from blackhole.pipeline import solve_deal

    name, options = choose(request.backend, request.timeout)
    position = _position(request)
    solution = solve_deal(position.deal, name, options)
    code = {Verdict.SOLVED: EXIT_OK, Verdict.UNSOLVABLE: EXIT_NO}.get(solution.verdict,
                                                                      EXIT_UNKNOWN)
    return solution.to_json(request.spec, position), code


def _best(request: Request) -> tuple[dict, int]:
    from blackhole.best import best_position, choose_best

    name, options = choose_best(request.backend, request.timeout)
    position = _position(request)
    found = best_position(position, name, options)
    return found.to_json(request.spec, position.after), \
        EXIT_OK if found.proven else EXIT_UNKNOWN


def _hint(request: Request) -> tuple[dict, int]:
    from blackhole.advice import hints, hints_json, summarise

    position = _position(request)
    began = time.perf_counter()
    found = hints(position, timeout=request.timeout)
    seconds = time.perf_counter() - began
    return hints_json(request.spec, position, found, seconds), \
        EXIT_OK if summarise(position, found).proven else EXIT_UNKNOWN


def _analyze(request: Request) -> tuple[dict, int]:
    from blackhole.advice import analyze
    from blackhole.positions import read_moves
    from blackhole.rules import advance

    position = _position(request)
    moves = None
    if request.line is not None:
        moves, source = read_moves(request.line, "line")
        advance(position, moves, source)
    found = analyze(position, moves, timeout=request.timeout)
    return found.to_json(request.spec, position.after), \
        EXIT_OK if found.proven else EXIT_UNKNOWN


def _atlas(request: Request) -> tuple[dict, int]:
    from blackhole.atlas import lookup

    found = lookup(request.spec)
    return found.to_json(), \
        EXIT_UNKNOWN if found.won is None else EXIT_OK if found.won else EXIT_NO


def _deal(request: Request) -> tuple[dict, int]:
    from blackhole.formats import position_json

    return position_json(_position(request)), EXIT_OK


def _position_answer(request: Request) -> tuple[dict, int]:
    """A position as the page draws and plays it: its layout (as `deal --format json`
    writes it), the cards moved of the deal's and the moves made (talon turns included,
    from which the page numbers a line), the outcome, and the legal moves now from the
    rules engine (a talon turn has `"fan": null`)."""
    from blackhole.formats import moves_json, position_json
    from blackhole.rules import initial_state, legal_cards, outcome

    position = _position(request)
    state = initial_state(position.deal)
    return {"deal": request.spec, "after": moves_json(position.after),
            "moved": position.moved, "made": position.made, "of": position.of,
            "outcome": outcome(position.deal, state).value,
            "game": position.deal.game.name, "title": position.deal.game.title,
            "layout": position_json(position),
            "legal": moves_json(legal_cards(position.deal, state))}, EXIT_OK


def _certify(request: Request) -> Answer:
    """The certificate `blackhole certify` writes for the request's deal or position,
    as a zip of its folder (unzipped, `blackhole verify` checks it): a checked proof that
    it cannot be won, or its winning moves replayed. At the limit no certificate is
    made: the answer is the verdict unknown (exit 3)."""
    import io
    import tempfile
    import zipfile
    from pathlib import Path

    from blackhole.backends import Verdict
    from blackhole.certificates.make import certify

    position = _position(request)
    plain = request.body is None and request.after is None
    slug = "".join(c if c.isalnum() else "-" for c in request.spec).strip("-")
    name = f"certificate-{slug}" if request.body is None else "certificate"
    with tempfile.TemporaryDirectory(prefix="blackhole-certify-") as staging:
        folder = Path(staging) / name
        found = certify(request.spec if plain else position, folder,
                        timeout=request.timeout)
        code = {Verdict.SOLVED: EXIT_OK, Verdict.UNSOLVABLE: EXIT_NO}.get(found.verdict,
                                                                          EXIT_UNKNOWN)
        if found.verdict is Verdict.UNSOLVABLE and not found.certified:
            raise InternalError(f"the proof was rejected by the checker: "
                                f"{found.check.reason if found.check else found.reason}")
        if not found.certified:
            return Answer(200, {"deal": request.spec, "verdict": found.verdict.value,
                                "certified": False,
                                "reason": found.reason or "time limit reached"}, code)
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(staging).as_posix())
    return Answer(200, {"deal": request.spec, "verdict": found.verdict.value,
                        "certified": True}, code, packed.getvalue(), name + ".zip")


def games() -> dict:
    """The games the page offers, read from the one table of games, with whether the
    atlas answers for each and the one a spec deals when it names none; and the engines
    it offers and the longest limit it takes."""
    from blackhole.atlas import shipped_path
    from blackhole.games import DEFAULT_GAME, VARIANTS

    return {"default": DEFAULT_GAME.name,
            "games": [{"name": game.name, "title": game.title, "pysol": bool(game.pysol),
                       "atlas": shipped_path(game.name).is_file()}
                      for game in VARIANTS.values()],
            "engines": list(PAGE_ENGINES), "timeout": SERVER_TIMEOUT}


_ANSWERS = {"solve": _solve, "best": _best, "hint": _hint, "analyze": _analyze,
            "atlas": _atlas, "deal": _deal,
            "position": _position_answer}
