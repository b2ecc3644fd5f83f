"""Putting a certificate in its place: made in a hidden folder beside it, renamed into
place only when complete and checked, so that at every moment a folder holds one whole
certificate (the new one or the one before). One process at a time makes a folder's
certificate: it holds the folder's lock (`.NAME.lock` beside it) from start to end, and
another is refused. What a process that is gone left half made is tidied away, and a
certificate it had moved aside is put back."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from blackhole.base.errors import InputError
from blackhole.certificates.files import (
    CERTIFICATE_FILES,
    DEAL_FILE,
    Certificate,
    holds_certificate,
)

PARTIAL, OLD = ".partial-", ".old-"  # hidden folders beside a certificate's place
LOCK = ".lock"  # the hidden file beside it that its maker holds locked


def check_place(folder: Path) -> None:
    """A certificate may go to `folder`: it is new, or a folder that holds nothing but a
    certificate's files (the one it replaces), so that renaming a new one into its place
    loses nothing else; and no other process is making its certificate now. Checked
    before any work; else an InputError naming it."""
    try:
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                raise InputError("cannot write the certificate (a file is in its place)",
                                 str(folder))
            other = sorted(p.name for p in folder.iterdir() if p.name not in CERTIFICATE_FILES)
            if other:
                shown = ", ".join(other[:3]) + (", ..." if len(other) > 3 else "")
                raise InputError(f"holds more than a certificate ({shown}): certify replaces "
                                 "the whole folder, so give a new one", str(folder))
        else:
            parent = next(p for p in folder.absolute().parents if p.exists())
            if not parent.is_dir():
                raise InputError("cannot write the certificate (a file is in the way: "
                                 f"{parent})", str(folder))
        _release(_lock(folder, create=False))  # only to see that no one holds it
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None


@dataclass
class Aside:
    """A certificate being made: the hidden folder its files are written to, and the
    certificate made there (None until the maker sets it)."""

    path: Path
    cert: Certificate | None = None


@contextmanager
def made_aside(folder: Path) -> Iterator[Aside]:
    """Make `folder`'s certificate aside: hold the folder's lock (another process making
    its certificate now is an InputError naming the folder), tidy what gone processes
    left beside it, and give a new hidden folder, named after `folder` and this process,
    to write in. On leaving, what the maker set as `cert` is put in place (`settle`) and
    the lock is let go."""
    check_place(folder)
    folder = folder.absolute()
    if not folder.name:
        raise InputError("cannot write the certificate (no folder named)", str(folder))
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        lock = _lock(folder)
        tidy(folder)
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None
    try:
        try:
            aside = Aside(Path(tempfile.mkdtemp(prefix=f".{folder.name}{PARTIAL}"
                                                       f"{os.getpid()}-", dir=folder.parent)))
        except OSError as error:
            raise InputError(f"cannot write the certificate ({error.strerror})",
                             str(folder)) from None
        try:
            yield aside
        finally:
            settle(aside.path, folder, aside.cert)
    finally:
        _release(lock)


def settle(staged: Path, folder: Path, cert: Certificate | None) -> None:
    """Put a complete, checked certificate made in `staged` in `folder`'s place. Anything
    else (no certificate: an error or an interrupt; unknown; a proof the check rejected)
    leaves `folder` as it was, but for a folder that holds no certificate: there an
    unknown verdict leaves the deal alone, to say which deal was tried."""
    try:
        good = cert is not None and cert.certified
        tried = cert is not None and not good and not holds_certificate(folder)
        if tried:
            for name in CERTIFICATE_FILES:
                if name != DEAL_FILE:
                    (staged / name).unlink(missing_ok=True)
        if good or tried:
            _rename_into(staged, folder.absolute())
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def _rename_into(staged: Path, folder: Path) -> None:
    """Rename `staged` to `folder`; what was there is moved aside first and removed
    after, so that at every moment one whole certificate is found (a crash between the
    two renames leaves the old one hidden beside, and `tidy` puts it back)."""
    old = None
    if folder.exists() or folder.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{folder.name}{OLD}{os.getpid()}-",
                                    dir=folder.parent))
        os.rename(folder, old)  # onto the empty folder just made
    try:
        os.rename(staged, folder)
    except OSError:
        if old is not None:
            os.rename(old, folder)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def tidy(folder: Path) -> None:
    """Remove the hidden folders beside `folder` that a process now gone left half made,
    and put back a certificate that such a process had moved aside but not replaced; a
    lock file that no process holds is removed too."""
    folder = folder.absolute()
    try:
        beside = list(folder.parent.iterdir())
    except OSError:
        return
    for path in beside:
        for mark in (PARTIAL, OLD):
            prefix = f".{folder.name}{mark}"
            if not path.name.startswith(prefix):
                continue
            owner = path.name[len(prefix):].partition("-")[0]
            if not owner.isdigit() or _alive(int(owner)):
                continue
            if mark == OLD and not (folder.exists() or folder.is_symlink()):
                os.rename(path, folder)
            else:
                shutil.rmtree(path, ignore_errors=True)
    with suppress(InputError, OSError):  # InputError: held, by a live process
        _release(_lock(folder, create=False))


@dataclass(frozen=True)
class _Held:
    path: Path
    fd: int


def _lock(folder: Path, create: bool = True) -> _Held | None:
    """Hold `folder`'s lock: an exclusive flock on the file `.NAME.lock` beside it, which
    the kernel lets go when the process ends, however it ends (a killed writer blocks no
    one). The holder writes its pid in it, for the message that refuses another. None
    when `create` is false and there is no lock file; an InputError when another holds
    it."""
    path = folder.parent / f".{folder.name}{LOCK}"
    while True:
        try:
            fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
        except FileNotFoundError:
            if create:
                raise
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            who = f" (process {holder})" if holder.isdigit() else ""
            raise InputError(f"another certify{who} is writing this certificate now: "
                             "wait for it to end, or give another folder",
                             str(folder)) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:  # else its holder let it go and removed it meanwhile: take it anew
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return _Held(path, fd)
        os.close(fd)


def _release(held: _Held | None) -> None:
    """Let a lock go, removing its file first: one who opened it meanwhile finds it
    removed once it has the lock, and takes a new one (`_lock`)."""
    if held is not None:
        held.path.unlink(missing_ok=True)
        os.close(held.fd)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's: alive
        return True
    try:  # a zombie (ended, not yet reaped) is gone too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def write(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(path)) from None
