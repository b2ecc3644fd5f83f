"""What the commands print and how: stdout that survives a closed pipe, styled text and
a console that loads Rich only where output may reach a terminal or needs Rich's layout
(piped plain text is written as Rich would write it, so a piped `blackhole solve` loads
no Rich, to keep a one-deal command quick to start), cards drawn as text, and the
spinner of a long job.
"""

# No `from __future__ import annotations` in the command modules: Typer reads each command's
# annotations, and strings would be evaluated again (twice) on every start.

import codecs
import errno
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from blackhole.model.cards import Card
    from blackhole.model.deal import Deal


# What a symbol becomes on a stream that cannot encode it (an ASCII or a Windows code
# page console): the forms --ascii prints. Any other such character becomes "?".
PLAIN_FORMS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "–": "-", "—": "-", "→": "->",
               "←": "<-", "…": "...", "≤": "<=", "≥": ">=", "×": "x", "·": ".", "−": "-",
               "±": "+/-", "“": '"', "”": '"', "‘": "'", "’": "'", "✓": "ok", "✗": "x"}
PLAIN_ERRORS = "blackhole-plain"  # the codecs error handler that writes PLAIN_FORMS


def _plain_forms(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    return "".join(PLAIN_FORMS.get(char, "?") for char in text), error.end


codecs.register_error(PLAIN_ERRORS, _plain_forms)


def speaks_unicode(stream: Any) -> bool:
    """Whether `stream` can write the suit symbols (a UTF-8 terminal, pipe or file can; an
    ASCII, Latin-1 or Windows code page stream cannot)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "♠♥♦♣→".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def plain_where_needed(*streams: Any) -> None:
    """Let every stream that cannot write the suit symbols write their plain forms instead
    (`PLAIN_FORMS`), so that no output fails on a character half-way through."""
    for stream in streams:
        if not speaks_unicode(stream) and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=PLAIN_ERRORS)
            except (ValueError, OSError):  # a closed or detached stream
                pass


class PipeSafe:
    """stdout that drops what it cannot write once the reader has gone away, so that
    `blackhole solve pysol:2 | head -1` still ends with the verdict's exit code."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except OSError as error:
                if error.errno != errno.EPIPE:
                    raise
                self.broken = True
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except OSError as error:
                if error.errno != errno.EPIPE:
                    raise
                self.broken = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def say(line: str) -> None:
    try:
        print(line, file=sys.stderr)
    except OSError:
        pass


def silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit's flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


PIPED_WIDTH = 120  # columns of piped output (Rich's own default of 80 would crop tables)


def may_be_terminal(stream: Any) -> bool:
    """False only where Rich, too, finds no terminal: the stream is no tty, and neither
    FORCE_COLOR nor TTY_COMPATIBLE (which Rich honours) is set."""
    if "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ:
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Styled:
    """Text in pieces, each with a Rich style: what a command prints, made into a Rich Text
    only when Rich prints it (`__rich__`), so output that needs no Rich loads none of it."""

    def __init__(self, text: str = "", style: str | None = None) -> None:
        self.pieces: list[tuple[str, str | None]] = [(text, style)] if text else []

    def append(self, text: str, style: str | None = None) -> "Styled":
        self.pieces.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.pieces)

    def __rich__(self) -> "Text":
        from rich.text import Text

        text = Text()
        for piece, style in self.pieces:
            text.append(piece, style=style)
        return text


def plain_as_rich(renderable: Any) -> str | None:
    """What a Rich Console that is no terminal prints for `renderable`, when that is
    plainly its text: Styled (or a Text justified by default) without tabs or control
    characters, each line within PIPED_WIDTH cells. None when only Rich can say."""
    if isinstance(renderable, Styled):
        text, end = renderable.plain, "\n"
    elif "rich.text" in sys.modules and isinstance(renderable, sys.modules["rich.text"].Text) \
            and renderable.justify in (None, "default"):
        text, end = renderable.plain, renderable.end
    else:
        return None
    lines = text.split("\n")
    if not all(line.isprintable() for line in lines):  # Rich drops or expands some of them
        return None
    for line in lines:  # a character takes 0, 1 or 2 cells; ASCII ones take 1
        if len(line) * 2 > PIPED_WIDTH and not (line.isascii() and len(line) <= PIPED_WIDTH):
            from rich.cells import cell_len

            if cell_len(line) > PIPED_WIDTH:
                return None
    return text + end


class _LazyConsole:
    """A Rich Console, made when it is first needed. Piped output that Rich would print as
    its plain text (`plain_as_rich`) is written directly: a one-deal command's output to
    a file or a pipe does not pay for loading Rich's console, to keep start-up quick)."""

    def __init__(self, **settings: Any) -> None:
        self._settings = settings
        self._console: Console | None = None

    def print(self, *objects: Any, **settings: Any) -> None:
        if len(objects) == 1 and not settings and not may_be_terminal(sys.stdout):
            text = plain_as_rich(objects[0])
            if text is not None:
                sys.stdout.write(text)
                sys.stdout.flush()  # as Rich does after each print
                return
        self.__getattr__("print")(*objects, **settings)

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            # A terminal keeps its own width.
            self._console = make_console(
                width=None if sys.stdout.isatty() else PIPED_WIDTH, **self._settings)
        return getattr(self._console, name)


def make_console(**settings: Any) -> "Console":
    """A Rich Console that prints text as it is: no markup (`[red]`, `[link=…]`), no emoji
    codes (`:x:`) and no highlighting are read from what it prints. Every console of the
    commands is made here, so a label, a path or a file's text from outside can never
    restyle, hide or break the output; styles come only from Text and Styled pieces."""
    from rich.console import Console

    return Console(markup=False, emoji=False, highlight=False, **settings)


console: "Console" = _LazyConsole()  # type: ignore[assignment]
# For terminals without suit symbols or colour (--ascii).
plain_console: "Console" = _LazyConsole(no_color=True)  # type: ignore[assignment]

def card_piece(card, ascii_only: bool) -> tuple[str, str | None]:
    """A card as text and its style: KH, or K♥ in red (KH, as --ascii gives, where the
    output cannot write suit symbols)."""
    if ascii_only or not speaks_unicode(sys.stdout):
        return str(card), None
    return card.unicode(), "red" if card.is_red else "bold"


def from_where(fan: int | None, card: "Card | None" = None, deal: "Deal | None" = None,
               kind: str | None = None) -> str:
    """Where a move's card comes from, as the answers print it: " from fan N"
    (numbered from 1), " from the talon", " from the cell" (an unpark), or " into the
    cell, from fan N" (a park); in a layout that is not fans (`deal`'s), " from row N",
    the row of `card`'s slot counted from the top."""
    if kind == "park":
        return f" into the cell, from fan {fan + 1}" if fan is not None else " into the cell"
    if kind == "unpark":
        return " from the cell"
    if fan is None:
        return " from the talon"
    if deal is not None and not deal.tableau.chains and card in deal.tableau.slot_of:
        _, row = deal.tableau.places[deal.tableau.slot_of[card]]
        return f" from row {row + 1}"
    return f" from fan {fan + 1}"


def card_text(card, ascii_only: bool) -> "Text":
    from rich.text import Text

    text, style = card_piece(card, ascii_only)
    return Text(text, style=style or "")


@contextmanager
def working(what: str, *, after: float = 1.0, every: float = 30.0) -> Iterator[None]:
    """Show that a long job is alive: on a terminal a spinner once it passes `after`
    seconds; when stderr is piped, a plain line every `every` seconds instead of a bar."""
    done = threading.Event()
    began = time.monotonic()
    err = None
    if may_be_terminal(sys.stderr):  # else Rich would find no terminal either: no need of it
        err = make_console(stderr=True)

    def watch() -> None:
        if err is not None and err.is_terminal:
            if done.wait(after):
                return
            with err.status(f"{what} ..."):
                done.wait()
        else:
            while not done.wait(every):
                say(f"blackhole: still {what} ({time.monotonic() - began:.0f} s)")

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
