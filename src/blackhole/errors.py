"""The project's exception types.

`InputError` is anything a user can cause and fix (a bad file, an unknown card, a bad
option). Its message is one line naming the source, line and token; the CLI prints it
and exits with code 2. `InternalError` means a cross-check inside the tool failed, such
as a solver model that does not replay; the CLI exits with code 4.
"""

from __future__ import annotations

TOKEN_SHOWN = 40  # characters of an offending token quoted in a message


def shorten(token: str, limit: int = TOKEN_SHOWN) -> str:
    """The token as quoted in a message: at most `limit` characters, one line."""
    token = token.replace("\n", " ").replace("\r", " ")
    return token if len(token) <= limit else token[:limit - 3] + "..."


class InputError(Exception):
    """Bad input from the user: one line, naming where and what."""

    def __init__(self, message: str, source: str = "", line: int | None = None,
                 token: str | None = None) -> None:
        self.source = source
        self.line = line
        self.token = token
        self.detail = message
        where = source
        if line is not None:
            where = f"{source}:{line}" if source else f"line {line}"
        text = f"{where}: {message}" if where else message
        if token is not None:
            text += f": {shorten(token)!r}"
        super().__init__(text)


class InternalError(Exception):
    """A cross-check failed: a backend answer the rules engine refuses, and the like."""
