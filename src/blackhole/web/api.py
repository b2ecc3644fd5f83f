"""The JSON API's requests: a request's deal and options in, the CLI's `--json` document
out, from the answer layer the CLI prints (`blackhole.answers`); this module only maps a
request to a question and its answer to an HTTP status.

Nothing here reads the server's disk on a request's behalf: a deal is a dealt spec
(`pysol:N[:GAME]`, `random:SEED[:...]`) or the text of a board or JSON deal sent as the
body (answered as `blackhole CMD -` answers that text on stdin); a file, a folder, `-`,
a list and `@FILE` moves are refused. Every limit is capped by the server.

`check` runs in the server and refuses bad requests before they take a worker;
`answer` runs in a worker process and never raises for an error a request can cause:
it returns the error's one line with its HTTP status.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blackhole import answers
from blackhole.base.errors import InputError, InternalError, shorten
from blackhole.base.exits import EXIT_INTERNAL, EXIT_USAGE
from blackhole.model.games import Variant, refusal

if TYPE_CHECKING:
    from blackhole.model.deal import Position

SERVER_TIMEOUT = 60.0  # seconds: the most any request may take, and its default
MAX_BODY_BYTES = 1_000_000  # a board or JSON deal sent as the body
BODY_SPEC = "-"  # a body's deal is named as the CLI names stdin

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
    from blackhole.model.sources import generated_spec

    if question not in PARAMETERS:
        raise InputError(f"unknown question (ask one of {', '.join(PARAMETERS)})", "path",
                         token=question)
    query = _parameters(question, query, PARAMETERS[question])
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


def _parameters(question: str, query: Mapping[str, str] | Iterable[tuple[str, str]],
                takes: frozenset[str]) -> dict[str, str]:
    """The query's parameters by name: one given more than once, or one `question` does
    not take (`takes`), is an InputError naming it."""
    pairs = list(query.items() if isinstance(query, Mapping) else query)
    repeated = [name for name, count in Counter(name for name, _ in pairs).items()
                if count > 1]
    if repeated:
        raise InputError("given more than once (give each parameter once)", repeated[0])
    unknown = sorted({name for name, _ in pairs} - takes)
    if unknown:
        raise InputError(f"{question} takes no such parameter (it takes "
                         f"{', '.join(sorted(takes))})", unknown[0])
    return dict(pairs)


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
    return _answered(lambda: _ANSWERS[request.question](request))


def _answered(question: Callable[[], answers.Answer]) -> Answer:
    """The answer `question` gives, with its HTTP status; an error is its one line."""
    try:
        found = question()
    except InputError as error:
        return Answer(400, {"error": error.describe(), "exit": EXIT_USAGE}, EXIT_USAGE)
    except InternalError as error:
        return Answer(500, {"error": f"internal error: {error}", "exit": EXIT_INTERNAL},
                      EXIT_INTERNAL)
    except Exception as error:  # noqa: BLE001 — a bug is one line, never a traceback
        return Answer(500, {"error": f"internal error (a bug in blackhole): "
                                     f"{type(error).__name__}: {shorten(str(error), 120)}",
                            "exit": EXIT_INTERNAL}, EXIT_INTERNAL)
    return Answer(200, found.document, found.exit_code, found.content, found.filename)


def _position(request: Request) -> Position:
    """The request's position: its dealt spec's or its body's, with `after` played."""
    from blackhole.model.formats import parse_position_text
    from blackhole.model.positions import load_position, play_after, read_moves
    from blackhole.model.sources import source_name

    if request.body is None:
        return load_position(request.spec, request.after)
    position = parse_position_text(request.body, source_name(BODY_SPEC))
    if request.after is None:
        return position
    return play_after(position, *read_moves(request.after, "after"))


def _solve(request: Request) -> answers.Answer:
    from blackhole.backends import choose

    name, options = choose(request.backend, request.timeout)
    return answers.solve(request.spec, _position(request), name, options)


def _best(request: Request) -> answers.Answer:
    from blackhole.questions.best import choose_best

    name, options = choose_best(request.backend, request.timeout)
    return answers.best(request.spec, _position(request), name, options)


def _hint(request: Request) -> answers.Answer:
    return answers.hint(request.spec, _position(request), request.timeout)


def _analyze(request: Request) -> answers.Answer:
    position = _position(request)
    moves = None if request.line is None else answers.read_line(position, request.line,
                                                                "line")
    return answers.analyze(request.spec, position, moves, request.timeout)


def _atlas(request: Request) -> answers.Answer:
    return answers.atlas(request.spec)


def _deal(request: Request) -> answers.Answer:
    return answers.layout(_position(request))


def page_refusal(game: Variant) -> InputError | None:
    """Why the page does not draw and play `game` (None when it does): it plays the rule
    features the rules engine plays (a talon, a layout of slots, a free cell)."""
    from blackhole.model.rules import PLAYS

    return refusal(game, PLAYS, "the page", game.name, "solve and best play it")


def _position_answer(request: Request) -> answers.Answer:
    position = _position(request)
    refused = page_refusal(position.deal.game)
    if refused is not None:
        raise refused
    return answers.position_answer(request.spec, position)


def _certify(request: Request) -> answers.Answer:
    """The certificate `blackhole certify` writes for the request's deal or position,
    as a zip of its folder (`answers.certificate_archive`): a dealt spec with no moves
    played is labelled by itself, as `blackhole certify pysol:N` labels it."""
    position = _position(request)
    plain = request.body is None and request.after is None
    slug = "".join(c if c.isalnum() else "-" for c in request.spec).strip("-")
    name = f"certificate-{slug}" if request.body is None else "certificate"
    return answers.certificate_archive(request.spec, request.spec if plain else position,
                                       name, request.timeout)


def games() -> dict:
    """The games the page offers, read from the one table of games, with whether the
    atlas answers for each and the one a spec deals when it names none; and the engines
    it offers and the longest limit it takes."""
    from blackhole.atlas import shipped_path
    from blackhole.model.games import DEFAULT_GAME, VARIANTS

    return {"default": DEFAULT_GAME.name,
            "games": [{"name": game.name, "title": game.title, "pysol": bool(game.pysol),
                       "atlas": shipped_path(game.name).is_file()}
                      for game in VARIANTS.values() if page_refusal(game) is None],
            "engines": list(PAGE_ENGINES), "timeout": SERVER_TIMEOUT}


_ANSWERS = {"solve": _solve, "best": _best, "hint": _hint, "analyze": _analyze,
            "atlas": _atlas, "deal": _deal, "position": _position_answer,
            "certify": _certify}


# Entering a deal card by card: the slots of a game to fill, in order, and the deal the
# cards picked for them compose (`answers.entry_slots`, `answers.compose_deal`). They
# take a game, not a deal, and answer at once, beside the solves.
ENTRY_PARAMETERS: dict[str, frozenset[str]] = {
    "entry": frozenset({"game"}),
    "compose": frozenset({"game", "cards", "partial"}),
}
_TRUTH = {"true": True, "1": True, "false": False, "0": False}


def entry(question: str, query: Mapping[str, str] | Iterable[tuple[str, str]]) -> Answer:
    """The answer to `entry?game=GAME` (the slots of GAME, in the order they are filled)
    or to `compose?game=GAME&cards=C1+C2+...[&partial=true]` (the deal those cards
    compose, or with `partial` how far a pick not yet complete has come): the document
    with status 200, or a bad request's one line with 400, naming the slot at fault."""
    from blackhole.model.games import game_named

    def ask() -> answers.Answer:
        given = _parameters(question, query, ENTRY_PARAMETERS[question])
        if "game" not in given:
            raise InputError("no game: give game=NAME (one of /api/games)", "game")
        game = game_named(given["game"])
        if question == "entry":
            return answers.entry_slots(game)
        partial = _TRUTH.get(given.get("partial", "false").strip().lower())
        if partial is None:
            raise InputError("expected true or false", "partial", token=given["partial"])
        cards = given.get("cards", "").replace(",", " ").split()
        return answers.compose_deal(game, cards, partial)

    return _answered(ask)
