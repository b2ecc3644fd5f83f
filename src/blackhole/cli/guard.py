"""The exit-code guard every command runs under.

Exit 1 means "unsolvable" or "check failed" and nothing else: `GuardedGroup` maps every
other ending to its code (the codes are `blackhole.base.exits`), and `user_errors` does the
same for the errors a command handles itself. The app and the table of commands are
`blackhole.cli.commands`.
"""

import os
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields
from typing import Any

import typer
import typer.core
from typer.core import TyperGroup

from blackhole.backends import Options
from blackhole.base import children, environment
from blackhole.base.deadline import solver_left_running
from blackhole.base.errors import InputError, InternalError, shorten
from blackhole.base.exits import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from blackhole.cli.output import PipeSafe, plain_where_needed, say, silence_stdout

# When the running command began (`command_timeout`), set by the guard for each command.
_COMMAND_BEGAN: ContextVar[float | None] = ContextVar("command_began", default=None)
_LEAST_TIMEOUT = 0.001  # what is left of a limit the start-up has used up: stop at once

# The click that Typer runs on: recent Typer vendors its own copy, older Typer uses click.
_click = getattr(typer.core, "_click", None) or __import__("click")

_ABORTS = tuple({getattr(_click.exceptions, "Abort", typer.Abort), typer.Abort,
                 KeyboardInterrupt})

# Library errors name the Options field at fault; the CLI shows the flag that sets it.
FLAG_OF = {f.name: "--" + f.name.replace("_", "-") for f in fields(Options)}
FLAG_OF.update(backend="--backend", options="option", after="--after", line="--line")

def _check_environment() -> None:
    """The compiled cores' engine switches (environment.py), checked here so that a bad value
    is one line and exit 2 before any work."""
    for name, value in environment.engine_switches():
        if value is not None and value not in environment.ENGINES:
            raise InputError(f"unknown engine (choose from {', '.join(environment.ENGINES)})",
                             name, token=value)


class GuardedGroup(TyperGroup):
    """The exit-code contract, kept in one place for every command.

    Exit 1 must only ever mean "unsolvable" or "check failed", so nothing else may reach
    it: usage errors become one line and exit 2, an unexpected exception one line and exit
    4 (its traceback only with --debug or BLACKHOLE_DEBUG=1), Ctrl-C, SIGTERM and SIGHUP
    exit 130 (`children.owned`), and a closed output pipe (`blackhole solve pysol:2 |
    head -1`) ends quietly with exit 0. Whatever the command started (a solver binary, a
    temp folder) ends with it, however it ends (`children.end_all`).

    A solver left running at the time limit (`blackhole.base.deadline.stoppable`: CP-SAT still
    loading a large model) is not waited for: the process ends at once with its code, as
    a normal exit would wait for that thread, or abort under it.
    """

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        # --debug goes anywhere before "--": `blackhole solve X --debug` as the error says
        end = argv.index("--") if "--" in argv else len(argv)
        debug = "--debug" in argv[:end]
        argv = [arg for arg in argv[:end] if arg != "--debug"] + argv[end:]
        plain_where_needed(sys.stdout, sys.stderr)
        stdout, sys.stdout = sys.stdout, PipeSafe(sys.stdout)
        began = _COMMAND_BEGAN.set(time.perf_counter())
        try:
            with children.owned():  # SIGTERM is Ctrl-C; nothing started outlives the command
                _check_environment()
                code = super().main(args=argv, prog_name=prog_name,
                                    complete_var=complete_var, standalone_mode=False, **extra)
            code = code if isinstance(code, int) else EXIT_OK
        except InputError as error:  # raised outside a command's own handling
            say(f"error: {error.describe(FLAG_OF)}")
            code = EXIT_USAGE
        except InternalError as error:
            say(f"internal error: {error}")
            code = EXIT_INTERNAL
        except _click.exceptions.NoArgsIsHelpError as error:  # a bare `blackhole`
            print(error.ctx.get_help() if error.ctx else "see blackhole --help")
            code = EXIT_USAGE
        except _click.exceptions.UsageError as error:
            where = error.ctx.command_path if error.ctx else "blackhole"
            say(f"error: {_one_line(error.format_message())} (see {where} --help)")
            code = EXIT_USAGE
        except _click.exceptions.ClickException as error:  # a bad file argument and the like
            say(f"error: {_one_line(error.format_message())}")
            code = EXIT_USAGE
        except _ABORTS:
            say("interrupted")
            code = EXIT_INTERRUPTED
        except Exception as error:  # noqa: BLE001 — the contract: any bug is one line, exit 4
            code = _bug(error, debug)
        finally:
            broken, sys.stdout = sys.stdout.broken, stdout
            _COMMAND_BEGAN.reset(began)
        if broken:
            silence_stdout()
        if standalone_mode:
            if solver_left_running():
                _exit_now(code)
            sys.exit(code)
        return code

    def invoke(self, ctx: Any) -> Any:
        """Run the command; Ctrl-C during it says "interrupted" on one line and exits 130
        (Typer would end with 130 and say nothing)."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            say("interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None

def _bug(error: BaseException, debug: bool) -> int:
    if debug or os.environ.get(environment.DEBUG_VARIABLE):
        traceback.print_exception(error, file=sys.stderr)
    say(f"internal error (a bug in blackhole): {type(error).__name__}: "
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


def _one_line(text: str) -> str:
    return " ".join(text.split())


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
