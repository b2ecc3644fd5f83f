"""Parsers of the proof checker's input: DIMACS formulas and DRAT proofs (text or
binary), and files read up to a cap (``MAX_PROOF_BYTES``, ``MAX_CNF_BYTES``) so that a
larger one is rejected unread."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from blackhole.errors import BlackholeError

# Largest files the checker reads.  The biggest proof of a Black Hole deal seen so far
# is under 2 MB; a parsed literal costs about 40 bytes of memory, so a proof at the cap
# needs a few GB at most.
# `certify` writes no proof larger than this, so `verify` reads every proof it writes
# (glucose4's proof of random:24:ranks=31 takes 153 MB).
MAX_PROOF_BYTES = 2**30
MAX_CNF_BYTES = 64 * 2**20
_MAX_VARINT_SHIFT = 35  # binary literals beyond 2**35 cannot be variables of any input


class DratError(BlackholeError, ValueError):
    """Malformed DIMACS formula or DRAT proof."""


class Proof(list[tuple[bool, list[int]]]):
    """Parsed proof steps ``(is_deletion, literals)``.

    ``lines`` holds the 1-based source line of every step so that a rejection
    can point into the proof file; a plain list works as a proof too.
    """

    def __init__(
        self,
        steps: Iterable[tuple[bool, list[int]]] = (),
        lines: Iterable[int] = (),
    ) -> None:
        super().__init__(steps)
        self.lines: list[int] = list(lines)


def parse_dimacs(text: str) -> tuple[int, list[list[int]]]:
    """Parse a DIMACS CNF text into ``(num_vars, clauses)``.

    Comment lines (``c``) are skipped, clauses may span lines, a SATLIB-style
    ``%`` line ends the formula.  Without a ``p cnf`` header the variable
    count is the largest variable used.
    """
    header: tuple[int, int] | None = None
    body: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s[0] == "c":
            continue
        if s[0] == "%":
            break
        if s[0] == "p":
            parts = s.split()
            if header is not None:
                raise DratError(f"line {lineno}: second 'p' header")
            if body:
                raise DratError(f"line {lineno}: 'p' header after clauses")
            if len(parts) != 4 or parts[1] != "cnf":
                raise DratError(f"line {lineno}: expected 'p cnf <vars> <clauses>', got {s!r}")
            try:
                header = (int(parts[2]), int(parts[3]))
            except ValueError:
                raise DratError(f"line {lineno}: non-integer counts in header {s!r}") from None
            if header[0] < 0 or header[1] < 0:
                raise DratError(f"line {lineno}: negative counts in header {s!r}")
            continue
        body.append((lineno, s))

    try:
        nums = list(map(int, " ".join(s for _, s in body).split()))
    except ValueError:
        # Slow path only to name the offending line.
        for lineno, s in body:
            for tok in s.split():
                try:
                    int(tok)
                except ValueError:
                    raise DratError(f"line {lineno}: invalid literal {tok!r}") from None
        raise  # pragma: no cover - the loop above always finds it

    clauses: list[list[int]] = []
    cur: list[int] = []
    for x in nums:
        if x:
            cur.append(x)
        else:
            clauses.append(cur)
            cur = []
    if cur:
        raise DratError("last clause is not terminated by 0")

    max_var = max(map(abs, nums), default=0)
    if header is None:
        return max_var, clauses
    num_vars, num_clauses = header
    if max_var > num_vars:
        raise DratError(
            f"literal {max_var} exceeds the {num_vars} variables declared in the header"
        )
    if len(clauses) != num_clauses:
        raise DratError(f"header declares {num_clauses} clauses but {len(clauses)} were found")
    return num_vars, clauses


def parse_proof(text: str) -> Proof:
    """Parse a text DRAT proof: one ``l1 ... 0`` or ``d l1 ... 0`` per line.

    Blank lines and ``c`` comment lines are skipped.  Returns a :class:`Proof`
    (a list of ``(is_deletion, literals)``) that remembers source lines.
    """
    proof = Proof()
    steps = proof
    lines = proof.lines
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s[0] == "c":
            continue
        is_del = s[0] == "d"
        if is_del:
            s = s[1:]
        try:
            nums = list(map(int, s.split()))
        except ValueError:
            raise DratError(f"line {lineno}: invalid token in {line.strip()!r}") from None
        if not nums or nums[-1] != 0:
            raise DratError(f"line {lineno}: clause is not terminated by 0")
        nums.pop()
        if 0 in nums:
            raise DratError(f"line {lineno}: more than one clause on a line")
        steps.append((is_del, nums))
        lines.append(lineno)
    return proof


def parse_proof_lines(lines: Sequence[str]) -> Proof:
    """Parse a text DRAT proof given as its lines (as a solver hands them over), the same
    as ``parse_proof("\\n".join(lines))`` without joining and splitting them again."""
    proof = Proof()
    steps = proof
    numbers = proof.lines
    for lineno, line in enumerate(lines, 1):
        if line[:1] == "d":
            is_del, s = True, line[1:]
        else:
            is_del, s = False, line
        try:
            nums = list(map(int, s.split()))
        except ValueError:
            nums = []  # a comment, a blank or a bad line: the slow path says which
        if not nums or nums[-1] != 0 or 0 in nums[:-1]:
            try:  # a comment or a blank line is skipped; anything else says what is wrong
                found = parse_proof(line)
            except DratError as error:
                raise DratError(f"line {lineno}:{str(error).partition(':')[2]}") from None
            steps.extend(found)
            numbers.extend([lineno] * len(found))
            continue
        nums.pop()
        steps.append((is_del, nums))
        numbers.append(lineno)
    return proof


def parse_binary_proof(data: bytes) -> Proof:
    """Parse a binary DRAT proof (``a``/``d`` bytes, varint literals, 0 ends).

    Step numbers stand in for line numbers in rejection messages.
    """
    proof = Proof()
    i = 0
    n = len(data)
    while i < n:
        tag = data[i]
        i += 1
        if tag not in (0x61, 0x64):
            raise DratError(f"byte {i - 1}: expected 'a' or 'd', got 0x{tag:02x}")
        lits: list[int] = []
        while True:
            code = 0
            shift = 0
            while True:
                if i >= n:
                    raise DratError("binary proof ends inside a clause")
                b = data[i]
                i += 1
                code |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80:
                    break
                if shift > _MAX_VARINT_SHIFT:
                    raise DratError(f"byte {i - 1}: literal too large")
            if code == 0:
                break
            if code == 1:
                raise DratError(f"byte {i - 1}: invalid literal code 1")
            lits.append(-(code >> 1) if code & 1 else code >> 1)
        proof.append((tag == 0x64, lits))
    return proof


def parse_any_proof(data: bytes) -> Proof:
    """A text or binary DRAT proof: text proofs never contain NUL bytes, and every
    step of a binary proof ends with one."""
    if b"\0" in data:
        return parse_binary_proof(data)
    try:
        return parse_proof(data.decode("ascii"))
    except UnicodeDecodeError as error:
        raise DratError(f"byte {error.start}: not a DRAT proof (neither text nor binary)") \
            from None


def read_capped(path: str | Path, cap: int) -> bytes:
    """The bytes of a file of at most ``cap`` bytes; a larger one raises DratError
    after reading no more than ``cap + 1`` bytes (pipes have no size to ask)."""
    chunks, size = [], 0
    with open(path, "rb") as handle:
        # a chunk at a time: read(cap + 1) would set aside cap + 1 bytes before reading
        while size <= cap and (chunk := handle.read(min(_READ_CHUNK, cap + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    if size > cap:
        raise DratError(f"{Path(path).name} is larger than the cap of {cap} bytes")
    return b"".join(chunks)


_READ_CHUNK = 1 << 22
