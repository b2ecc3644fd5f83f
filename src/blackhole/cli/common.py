"""What every command shares: the app, the console, the exit codes, deal specs, errors.

A command's module is imported only when that command runs (`COMMAND_MODULES`), and Rich
only where output may reach a terminal or needs Rich's layout (piped plain text is written
as Rich would write it), so a piped `blackhole solve` loads none of bench's, certify's or
play's imports and no Rich (issue #12: a one-deal command's start-up).
"""

# No `from __future__ import annotations` in the command modules: Typer reads each command's
# annotations, and strings would be evaluated again (twice) on every start.

import errno
import importlib
import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.core
import typer.main
from typer.core import TyperGroup

from blackhole.backends import Options, Verdict
from blackhole.deadline import solver_left_running
from blackhole.errors import InputError, InternalError, shorten
from blackhole.version import installed_version

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT
DEBUG_ENV = "BLACKHOLE_DEBUG"
# When the running command began (`command_timeout`), set by the guard for each command.
_COMMAND_BEGAN: ContextVar[float | None] = ContextVar("command_began", default=None)
_LEAST_TIMEOUT = 0.001  # what is left of a limit the start-up has used up: stop at once

# The click that Typer runs on: recent Typer vendors its own copy, older Typer uses click.
_click = getattr(typer.core, "_click", None) or __import__("click")

_ABORTS = tuple({getattr(_click.exceptions, "Abort", typer.Abort), typer.Abort,
                 KeyboardInterrupt})

# Library errors name the Options field at fault; the CLI shows the flag that sets it.
# Settings read from the environment: the compiled cores' engine switches (probe.py,
# drat.py; tests/test_hostile.py holds these names and values to theirs). Named here so
# that a bad value is one line and exit 2 before any work, without importing the checker.
ENGINE_VARIABLES = ("BLACKHOLE_PROBE_ENGINE", "BLACKHOLE_DRAT_ENGINE")
ENGINE_CHOICES = ("auto", "python")

FLAG_OF = {f.name: "--" + f.name.replace("_", "-") for f in fields(Options)}
FLAG_OF.update(backend="--backend", options="option", after="--after")

# The module of blackhole.cli that defines each command, in the order `blackhole --help`
# lists them. tests/test_cli.py holds this equal to the commands the modules register.
COMMAND_MODULES = {
    "bench": "bench", "report": "bench",
    "certify": "certificates", "verify": "certificates",
    "show": "deals", "deal": "deals", "check": "deals",
    "play": "play",
    "best": "positions", "hint": "positions", "analyze": "positions",
    "solve": "solving", "encode": "solving",
    "atlas": "atlas", "atlas-build": "atlas",
}


def _check_environment() -> None:
    for name in ENGINE_VARIABLES:
        value = os.environ.get(name)
        if value is not None and value not in ENGINE_CHOICES:
            raise InputError(f"unknown engine (choose from {', '.join(ENGINE_CHOICES)})",
                             name, token=value)


class GuardedGroup(TyperGroup):
    """The exit-code contract, kept in one place for every command; and commands that are
    loaded when they are looked up, not all at start-up.

    Exit 1 must only ever mean "unsolvable" or "check failed", so nothing else may reach
    it: usage errors become one line and exit 2, an unexpected exception one line and exit
    4 (its traceback only with --debug or BLACKHOLE_DEBUG=1), Ctrl-C exit 130, and a
    closed output pipe (`blackhole solve pysol:2 | head -1`) ends quietly with exit 0.

    A solver left running at the time limit (`blackhole.deadline.stoppable`: CP-SAT still
    loading a large model) is not waited for: the process ends at once with its code, as
    a normal exit would wait for that thread, or abort under it.
    """

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv[:argv.index("--")] if "--" in argv else "--debug" in argv
        stdout, sys.stdout = sys.stdout, _PipeSafe(sys.stdout)
        began = _COMMAND_BEGAN.set(time.perf_counter())
        try:
            _check_environment()
            code = super().main(args=argv, prog_name=prog_name, complete_var=complete_var,
                                standalone_mode=False, **extra)
            code = code if isinstance(code, int) else EXIT_OK
        except InputError as error:  # raised outside a command's own handling
            _say(f"error: {error.describe(FLAG_OF)}")
            code = EXIT_USAGE
        except InternalError as error:
            _say(f"internal error: {error}")
            code = EXIT_INTERNAL
        except _click.exceptions.NoArgsIsHelpError as error:  # a bare `blackhole`
            print(error.ctx.get_help() if error.ctx else "see blackhole --help")
            code = EXIT_USAGE
        except _click.exceptions.UsageError as error:
            where = error.ctx.command_path if error.ctx else "blackhole"
            _say(f"error: {_one_line(error.format_message())} (see {where} --help)")
            code = EXIT_USAGE
        except _click.exceptions.ClickException as error:  # a bad file argument and the like
            _say(f"error: {_one_line(error.format_message())}")
            code = EXIT_USAGE
        except _ABORTS:
            _say("interrupted")
            code = EXIT_INTERRUPTED
        except Exception as error:  # noqa: BLE001 — the contract: any bug is one line, exit 4
            code = _bug(error, debug)
        finally:
            broken, sys.stdout = sys.stdout.broken, stdout
            _COMMAND_BEGAN.reset(began)
        if broken:
            _silence_stdout()
        if standalone_mode:
            if solver_left_running():
                _exit_now(code)
            sys.exit(code)
        return code

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:  # an unknown name loads all: "did you mean ...?"
            self._load(COMMAND_MODULES.get(cmd_name))
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        self._load(None)
        order = list(COMMAND_MODULES)
        return sorted(self.commands, key=lambda name: order.index(name) if name in order
                      else len(order))

    def _load(self, module: str | None) -> None:
        """Import one command module (None: all of them), and add the commands it
        registered on `app` as Typer would have built them."""
        for name in (module,) if module else dict.fromkeys(COMMAND_MODULES.values()):
            importlib.import_module(f"blackhole.cli.{name}")
        for info in app.registered_commands:
            name = info.name or typer.main.get_command_name(info.callback.__name__)
            if name not in self.commands:
                self.commands[name] = typer.main.get_command_from_info(
                    info, pretty_exceptions_short=app.pretty_exceptions_short,
                    rich_markup_mode=app.rich_markup_mode)


class _PipeSafe:
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


def _bug(error: BaseException, debug: bool) -> int:
    if debug or os.environ.get(DEBUG_ENV):
        traceback.print_exception(error, file=sys.stderr)
    _say(f"internal error (a bug in blackhole): {type(error).__name__}: "
         f"{shorten(str(error), 120)} (rerun with --debug for the traceback)")
    return EXIT_INTERNAL


def _exit_now(code: int) -> None:
    """End the process with `code` without waiting for other threads (the output is
    flushed first)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _say(line: str) -> None:
    try:
        print(line, file=sys.stderr)
    except OSError:
        pass


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit's flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _one_line(text: str) -> str:
    return " ".join(text.split())


app = typer.Typer(cls=GuardedGroup,
                  help="Solve, compare and certify deals of the patience game Black Hole.",
                  no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False, rich_markup_mode=None)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"blackhole {installed_version()}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _global_options(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option(
        "--debug", help="Show the traceback of an internal error (or set BLACKHOLE_DEBUG=1).")]
    = False,
) -> None:
    """Solve, compare and certify deals of the patience game Black Hole."""


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
    a file or a pipe does not pay for loading Rich's console (issue #12: start-up)."""

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
            from rich.console import Console

            # A terminal keeps its own width.
            self._console = Console(highlight=False,
                                    width=None if sys.stdout.isatty() else PIPED_WIDTH,
                                    **self._settings)
        return getattr(self._console, name)


console: "Console" = _LazyConsole()  # type: ignore[assignment]
# For terminals without suit symbols or colour (--ascii).
plain_console: "Console" = _LazyConsole(no_color=True,  # type: ignore[assignment]
                                         emoji=False)

VERDICT_EXIT = {Verdict.SOLVED: EXIT_OK, Verdict.UNSOLVABLE: EXIT_NO,
                Verdict.UNKNOWN: EXIT_UNKNOWN}

DealSpec = Annotated[str, typer.Argument(
    help="A board or JSON file, '-' for stdin, pysol:N[:all-in-a-row] or random:SEED[:any].",
    show_default=False)]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
WorkersOption = Annotated[int | None, typer.Option(
    min=1, help="CP-SAT search workers (default 1).", show_default=False)]
SeedOption = Annotated[int | None, typer.Option(
    help="CP-SAT random seed (default 0).", show_default=False)]
BudgetOption = Annotated[int | None, typer.Option(
    min=1, metavar="NODES",
    help="The look's moves (look and auto backends): at this many the look gives up "
         "(look: unknown; auto: SAT goes on). Default: none for look; auto's own.",
    show_default=False)]
AsciiFlag = Annotated[bool, typer.Option(
    "--ascii", help="Plain ASCII cards (KH, not K♥) and no colour.")]


def command_timeout(timeout: float | None) -> float | None:
    """The --timeout of a one-deal command as what is left of it now: the limit bounds the
    whole command, so the time since it began (loading a solver's package takes most of
    a second) is taken off. A value that is no limit is returned as given, for Options to
    refuse it by name."""
    began = _COMMAND_BEGAN.get()
    if began is None or not isinstance(timeout, int | float) or not timeout > 0:
        return timeout
    return max(timeout - (time.perf_counter() - began), _LEAST_TIMEOUT)


@contextmanager
def user_errors() -> Iterator[None]:
    """Bad input → one line on stderr and exit 2; failed cross-check → exit 4."""
    try:
        yield
    except InputError as error:
        typer.echo(f"error: {error.describe(FLAG_OF)}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except InternalError as error:
        typer.echo(f"internal error: {error}", err=True)
        raise typer.Exit(EXIT_INTERNAL) from None


def card_piece(card, ascii_only: bool) -> tuple[str, str | None]:
    """A card as text and its style: KH, or K♥ in red."""
    if ascii_only:
        return str(card), None
    return card.unicode(), "red" if card.is_red else "bold"


def card_text(card, ascii_only: bool) -> "Text":
    from rich.text import Text

    text, style = card_piece(card, ascii_only)
    return Text(text, style=style or "")


def parse_features(text: str | None) -> frozenset[str] | None:
    """`--features a,b` → {a, b}; `none` → the plain encoding; an empty list is an error
    (`,,,` would otherwise run the plain encoding without saying so)."""
    if text is None:
        return None
    if text.strip().lower() == "none":
        return frozenset()
    names = frozenset(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise InputError("names no feature (use 'none' for the plain encoding)", "features",
                         token=text)
    return names


@contextmanager
def working(what: str, *, after: float = 1.0, every: float = 30.0) -> Iterator[None]:
    """Show that a long job is alive: on a terminal a spinner once it passes `after`
    seconds; when stderr is piped, a plain line every `every` seconds instead of a bar."""
    done = threading.Event()
    began = time.monotonic()
    err = None
    if may_be_terminal(sys.stderr):  # else Rich would find no terminal either: no need of it
        from rich.console import Console

        err = Console(stderr=True)

    def watch() -> None:
        if err is not None and err.is_terminal:
            if done.wait(after):
                return
            with err.status(f"{what} ..."):
                done.wait()
        else:
            while not done.wait(every):
                _say(f"blackhole: still {what} ({time.monotonic() - began:.0f} s)")

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


AfterOption = Annotated[str | None, typer.Option(
    "--after", metavar="MOVES",
    help="Start from the position after these moves: cards separated by spaces or commas, "
         "or @FILE in any solution format check reads.", show_default=False)]
