"""The project's exception types.

Every error the library raises on purpose derives from `BlackholeError`, so a caller can
catch the project's errors in one place. `InputError` is anything a user can cause and
fix (a bad file, an unknown card, a bad option). Its message is one line naming the
source, line and token; the CLI prints it and exits with code 2. `InternalError` means a
cross-check inside the tool failed, such as a solver model that does not replay; the CLI
exits with code 4.
"""

from __future__ import annotations

from collections.abc import Mapping

TOKEN_SHOWN = 40  # characters of an offending token quoted in a message


SOURCE_SHOWN = 200  # characters of a file name or spec shown before a message


def shorten(token: str, limit: int = TOKEN_SHOWN) -> str:
    """Text as quoted in a message: at most `limit` characters on one line, with control
    characters shown as `?` so that no input can break the line or move the cursor."""
    token = "".join(c if c.isprintable() else "?" for c in token[:limit + 1])
    return token if len(token) <= limit else token[:limit - 3] + "..."


class BlackholeError(Exception):
    """The base of every error the library raises on purpose."""


class InputError(BlackholeError):
    """Bad input from the user: one line, naming where and what.

    `source` is a file, a spec, or the name of the setting at fault (an Options field such
    as `timeout`); a front end may show the setting under its own name (the CLI shows
    `--timeout`) through `describe`.
    """

    def __init__(self, message: str, source: str = "", line: int | None = None,
                 token: str | None = None) -> None:
        self.source = source
        self.line = line
        self.token = token
        self.detail = message
        super().__init__(self.describe())

    def __reduce__(self) -> tuple:
        """Pickled whole (a worker process raises it to its pool's owner)."""
        return type(self), (self.detail, self.source, self.line, self.token)

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        """The one-line message, with `source` renamed through `names` when it is there."""
        where = shorten((names or {}).get(self.source, self.source), SOURCE_SHOWN)
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        text = f"{where}: {self.detail}" if where else self.detail
        if self.token is not None:
            text += f": {shorten(self.token)!r}"
        return text


class InternalError(BlackholeError):
    """A cross-check failed: a backend answer the rules engine refuses, and the like."""


class ArgumentError(InputError, ValueError):
    """A bad argument to a library function (an unknown card, engine or bound). It is a
    ValueError too, for callers that catch one."""


class IllegalMove(BlackholeError, ValueError):
    """A move the rules do not allow from the position at hand (a `Game`'s play, undo or
    redo); a ValueError too."""


class DecodeError(InternalError, ValueError):
    """A solver's model that does not read back as one move per position."""
