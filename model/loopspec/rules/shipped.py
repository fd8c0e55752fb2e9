"""Where the spec's files are, in an installed package or a source checkout, and their digest.

The wheel ships ``spec/`` as package data under ``loopspec/_spec`` (pyproject.toml,
``force-include``), read through :mod:`importlib.resources`; an editable install or a plain
``PYTHONPATH=model`` has no such folder and reads the checkout's ``spec/`` beside ``model/``.
:func:`spec_dir` is the one place that decides, so the checker, the vectors and ``--version``
all read the same files and name the same digest.
"""

from __future__ import annotations

import hashlib
from importlib import metadata, resources
from pathlib import Path

PACKAGE_SPEC = "_spec"
# model/loopspec/rules/shipped.py -> the checkout's root, when this file is in a checkout at all.
CHECKOUT_GUESS = Path(__file__).resolve().parents[3]
# The files a release carries and the digest covers: the rule chapters and their companions,
# the JSON Schemas and the exported lifecycle table (relative to the spec folder).
SHIPPED_PATTERNS = ("*.md", "schemas/*.json", "lifecycle-table.json")


class SpecMissing(FileNotFoundError):
    """Neither the installed package data nor a checkout's ``spec/`` folder is there."""


def _package_spec() -> Path | None:
    shipped = resources.files("loopspec").joinpath(PACKAGE_SPEC)
    # Only a package on the file system can be read as paths; a zip import falls back to a checkout.
    return shipped if isinstance(shipped, Path) and shipped.is_dir() else None


def installed_spec_dir() -> Path | None:
    """The spec pages an installed package ships, or None when the spec is read from a checkout."""
    return _package_spec()


def checkout_root() -> Path | None:
    """The source checkout this package is imported from (spec/, model/, tests/ beside each other), if any."""
    root = CHECKOUT_GUESS
    if (root / "spec").is_dir() and (root / "model" / "loopspec").is_dir() and (root / "pyproject.toml").is_file():
        return root
    return None


def spec_dir() -> Path:
    """The spec folder to read: the installed package data, else the checkout's ``spec/``."""
    shipped = _package_spec()
    if shipped is not None:
        return shipped
    root = checkout_root()
    if root is not None:
        return root / "spec"
    raise SpecMissing(
        f"the spec files are missing: neither the package data loopspec/{PACKAGE_SPEC} nor a source "
        f"checkout's spec/ folder is there (looked beside {CHECKOUT_GUESS}); reinstall loopspec"
    )


def shipped_files(folder: Path) -> tuple[str, ...]:
    """The shipped files' paths relative to ``folder``, sorted as POSIX strings (the digest's order)."""
    found = {p.relative_to(folder).as_posix() for pattern in SHIPPED_PATTERNS for p in folder.glob(pattern)}
    return tuple(sorted(found))


def digest_of(folder: Path) -> str:
    """``sha256:HEX`` over each shipped file's relative path and bytes, in :func:`shipped_files` order.

    Line endings are normalised to LF first, so a checkout made with ``core.autocrlf`` names the
    same digest as the wheel.
    """
    names = shipped_files(folder)
    if not names:
        raise SpecMissing(f"no spec files in {folder}")
    hasher = hashlib.sha256()
    for name in names:
        data = (folder / name).read_bytes().replace(b"\r\n", b"\n")
        hasher.update(name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0" + data)
    return "sha256:" + hasher.hexdigest()


def spec_digest() -> str:
    """The digest of the spec this package reads (see :func:`digest_of`)."""
    return digest_of(spec_dir())


def package_version() -> str:
    """The installed distribution's version; ``unknown`` when run from a tree that was never installed."""
    try:
        return metadata.version("loopspec")
    except metadata.PackageNotFoundError:
        return "unknown"
