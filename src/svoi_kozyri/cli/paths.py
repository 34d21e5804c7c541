"""Checks of input and output paths before a command starts its work.

Why up front: an arena run can take minutes, and a bad ``--json`` path found
only after the last hand throws the whole run away.  The checks create
nothing (a missing parent folder is an error, not something to make), and
they refuse the kernel's pseudo file systems, where a write either fails or
does something other than store a file.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core import SvoiKozyriError

#: Folders whose contents are not ordinary files.
_PSEUDO_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))


class PathError(SvoiKozyriError, ValueError):
    """A path given on the command line cannot be used as asked; the message says why."""


def _is_pseudo(path: Path) -> bool:
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        real = path.absolute()
    return any(real == root or root in real.parents for root in _PSEUDO_ROOTS)


def _check_parent(path: Path, what: str) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise PathError(f"{what} {path}: the folder {parent} does not exist")
    if not parent.is_dir():
        raise PathError(f"{what} {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PathError(f"{what} {path}: the folder {parent} is not writable")


def check_output_file(path: Path, what: str) -> Path:
    """``path`` can be written as a regular file: not a folder, not a device or
    pseudo file, its folder exists and is writable.  ``what`` names the option in
    the message (``--json``)."""
    if _is_pseudo(path):
        raise PathError(f"{what} {path}: not a place for an ordinary file")
    if path.is_dir():
        raise PathError(f"{what} {path}: is a folder, give a file name")
    if path.exists():
        if not path.is_file():
            raise PathError(f"{what} {path}: not an ordinary file")
        if not os.access(path, os.W_OK):
            raise PathError(f"{what} {path}: the file is not writable")
    _check_parent(path, what)
    return path


def check_output_dir(path: Path, what: str) -> Path:
    """``path`` is a writable folder, or can be created as one folder inside an
    existing writable folder (its parents are not created)."""
    if _is_pseudo(path):
        raise PathError(f"{what} {path}: not a place for a folder of files")
    if path.exists():
        if not path.is_dir():
            raise PathError(f"{what} {path}: is a file, give a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise PathError(f"{what} {path}: the folder is not writable")
        return path
    _check_parent(path, what)
    return path


def check_distinct(paths: dict[str, Path | None]) -> None:
    """No two output options name the same file (the second would overwrite the first)."""
    seen: dict[Path, str] = {}
    for what, path in paths.items():
        if path is None:
            continue
        key = path.absolute()
        if key in seen:
            raise PathError(f"{seen[key]} and {what} name the same file {path}")
        seen[key] = what
