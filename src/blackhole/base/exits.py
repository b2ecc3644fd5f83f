"""The exit codes: the one contract of every answer, the command line's process exit
and the JSON API's `X-Blackhole-Exit` header alike.

0 solved (or the check passed), 1 unsolvable or a failed check and nothing else, 2 bad
input, 3 unknown (a time limit or budget came first), 4 an internal error, 130
interrupted (Ctrl-C, as shells report SIGINT). A verdict's code is `verdict_exit`.
"""

from __future__ import annotations

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130

# A solver's verdict (`blackhole.backends.Verdict`, a string enum) by its value.
VERDICT_EXIT = {"solved": EXIT_OK, "unsolvable": EXIT_NO, "unknown": EXIT_UNKNOWN}


def verdict_exit(verdict: str) -> int:
    """The exit code of a verdict: 0 solved, 1 unsolvable, 3 unknown."""
    return VERDICT_EXIT[verdict]


def proven_exit(proven: bool) -> int:
    """The exit code of an answer that is proven (0) or was cut short by the limit (3):
    a best score, hints, an analysis."""
    return EXIT_OK if proven else EXIT_UNKNOWN
