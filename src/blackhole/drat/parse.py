"""Parsers of the proof checker's input: DIMACS formulas and DRAT proofs (text or
binary), and files read up to a cap (``MAX_PROOF_BYTES``, ``MAX_CNF_BYTES``) so that a
larger one is rejected unread.

A proof file is read into a :class:`FlatProof`: its literals in one int32 array and
its steps as offsets into it, about 4 bytes a literal, where a list of Python ints
took about 40.  The compiled core (``blackhole._drat_core``), when built, reads a
well-formed file into those arrays; anything else (or an install without the core)
is read by the Python parser here, which says what is wrong with a malformed file."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import overload

from blackhole.base.errors import ArgumentError, BlackholeError

try:  # the compiled core, built at install time where a C compiler is at hand
    import blackhole._drat_core as _drat_core
except ImportError:  # pragma: no cover - an install without a compiler
    _drat_core = None

# Largest files the checker reads.  `certify` writes no proof larger than this, so
# `verify` reads every proof it writes (glucose4's proof of random:24:ranks=31 takes
# 153 MB).  A proof read flat takes about 4 bytes per literal, and the check a few
# bytes more per proof byte (docs/performance.md).
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


class FlatProof(Sequence[tuple[bool, list[int]]]):
    """Parsed proof steps held flat; read as a sequence of ``(is_deletion, literals)``
    like :class:`Proof` (a step read is a new tuple and list).

    ``literals`` holds every step's literals (int32 items), ``starts`` the offset of
    each step's first literal and, last, their number (int64 items; one more than the
    steps), ``deletions`` a byte per step (1: a deletion).  ``lines`` is the 1-based
    source line of every step (empty for a binary proof: rejections then name the
    step).  ``top`` is the largest variable used.  No literal is 0.
    """

    __slots__ = ("literals", "starts", "deletions", "_lines", "top")

    def __init__(self, literals: Sequence[int], starts: Sequence[int], deletions: bytes,
                 lines: Sequence[int] = (), top: int | None = None) -> None:
        if len(starts) != len(deletions) + 1:
            raise ArgumentError("starts must hold one offset more than there are steps")
        if top is None:
            if 0 in literals:
                raise DratError("a proof clause contains literal 0")
            top = max(max(literals, default=0), -min(literals, default=0))
        self.literals = literals
        self.starts = starts
        self.deletions = deletions
        self._lines = lines
        self.top = top

    @property
    def lines(self) -> list[int]:
        return list(self._lines)

    @property
    def lemmas(self) -> int:
        return len(self.deletions) - self.deletions.count(1)

    def __len__(self) -> int:
        return len(self.deletions)

    @overload
    def __getitem__(self, index: int) -> tuple[bool, list[int]]: ...

    @overload
    def __getitem__(self, index: slice) -> Proof: ...

    def __getitem__(self, index: int | slice) -> tuple[bool, list[int]] | Proof:
        if isinstance(index, slice):
            picked = range(len(self))[index]
            lines = self.lines
            return Proof(map(self.__getitem__, picked),
                         [lines[i] for i in picked] if lines else ())
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("proof step out of range")
        a, b = self.starts[index], self.starts[index + 1]
        return bool(self.deletions[index]), list(self.literals[a:b])

    def __iter__(self) -> Iterator[tuple[bool, list[int]]]:
        literals, starts = self.literals, self.starts
        for i, deletion in enumerate(self.deletions):
            yield bool(deletion), list(literals[starts[i]:starts[i + 1]])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == tuple(b) for a, b in zip(self, other,
                                                                         strict=True))

    __hash__ = None  # type: ignore[assignment]


def _flat(found: tuple[bytes, bytes, bytes, bytes, int]) -> FlatProof:
    """A FlatProof over the buffers the compiled parser returns."""
    literals, starts, deletions, lines, top = found
    return FlatProof(memoryview(literals).cast("i"), memoryview(starts).cast("q"),
                     deletions, memoryview(lines).cast("i"), top)


class _Builder:
    """The arrays of a FlatProof, filled a step at a time by the Python parsers."""

    def __init__(self) -> None:
        self.literals = array("i")
        self.starts = array("q", [0])
        self.deletions = bytearray()
        self.lines = array("i")
        self.top = 0

    def add(self, deletion: bool, literals: list[int], line: int = 0) -> None:
        if literals:
            top = max(max(literals), -min(literals))
            if top > 2**31 - 1:
                raise DratError(f"{f'line {line}' if line else 'proof'}: literal {top} is "
                                "too large for any formula")
            self.top = max(self.top, top)
        self.literals.extend(literals)
        self.starts.append(len(self.literals))
        self.deletions.append(deletion)
        if line:
            self.lines.append(line)

    def proof(self) -> FlatProof:
        return FlatProof(self.literals, self.starts, bytes(self.deletions), self.lines,
                         self.top)


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


def parse_proof(text: str | bytes) -> FlatProof:
    """Parse a text DRAT proof: one ``l1 ... 0`` or ``d l1 ... 0`` per line.

    Blank lines and ``c`` comment lines are skipped.  Returns a :class:`FlatProof`
    that remembers source lines.  ``text`` may be the file's bytes (ASCII).
    """
    if _drat_core is not None:
        data = text.encode("ascii", "replace") if isinstance(text, str) else text
        found = _drat_core.parse_text(data)
        del data
        if found is not None:
            return _flat(found)
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError as error:
            raise DratError(f"byte {error.start}: not a DRAT proof (neither text nor "
                            "binary)") from None
    built = _Builder()
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
        built.add(is_del, nums, lineno)
    return built.proof()


def parse_proof_lines(lines: Sequence[str]) -> FlatProof:
    """Parse a text DRAT proof given as its lines (as a solver hands them over), the same
    as ``parse_proof("\\n".join(lines))``."""
    if _drat_core is not None:
        joined = "\n".join(lines)
        if joined.count("\n") == max(len(lines) - 1, 0) and joined.isascii():
            data = joined.encode("ascii")
            del joined
            found = _drat_core.parse_text(data)
            del data
            if found is not None:
                return _flat(found)
    built = _Builder()
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
            for is_del, step in found:
                built.add(is_del, step, lineno)
            continue
        nums.pop()
        built.add(is_del, nums, lineno)
    return built.proof()


def parse_binary_proof(data: bytes) -> FlatProof:
    """Parse a binary DRAT proof (``a``/``d`` bytes, varint literals, 0 ends).

    Step numbers stand in for line numbers in rejection messages.
    """
    if _drat_core is not None:
        found = _drat_core.parse_binary(data)
        if found is not None:
            return _flat(found)
    built = _Builder()
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
        built.add(tag == 0x64, lits)
    return built.proof()


def parse_any_proof(data: bytes) -> FlatProof:
    """A text or binary DRAT proof: text proofs never contain NUL bytes, and every
    step of a binary proof ends with one."""
    if b"\0" in data:
        return parse_binary_proof(data)
    return parse_proof(data)


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
