"""Putting a certificate in its place: made in a hidden folder beside it, renamed into
place only when complete and checked, so that at every moment a folder holds one whole
certificate (the new one or the one before). What a process that is gone left half made
is tidied away, and a certificate it had moved aside is put back."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from blackhole.certificates.files import (
    CERTIFICATE_FILES,
    DEAL_FILE,
    Certificate,
    holds_certificate,
)
from blackhole.errors import InputError

PARTIAL, OLD = ".partial-", ".old-"  # hidden folders beside a certificate's place


def check_place(folder: Path) -> None:
    """A certificate may go to `folder`: it is new, or a folder that holds nothing but a
    certificate's files (the one it replaces), so that renaming a new one into its place
    loses nothing else. Checked before any work; else an InputError naming it."""
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
            return
        for parent in folder.absolute().parents:
            if parent.exists():
                if not parent.is_dir():
                    raise InputError("cannot write the certificate (a file is in the way: "
                                     f"{parent})", str(folder))
                return
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None


def staging(folder: Path) -> Path:
    """A new hidden folder beside `folder` to make its certificate in, named after it and
    this process (`tidy` removes those whose process is gone)."""
    check_place(folder)
    folder = folder.absolute()
    if not folder.name:
        raise InputError("cannot write the certificate (no folder named)", str(folder))
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tidy(folder)
        return Path(tempfile.mkdtemp(prefix=f".{folder.name}{PARTIAL}{os.getpid()}-",
                                     dir=folder.parent))
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None


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
    and put back a certificate that such a process had moved aside but not replaced."""
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
