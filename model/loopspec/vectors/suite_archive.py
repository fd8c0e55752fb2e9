"""A packed suite (``loopspec-vectors-VERSION.tar.gz``, :mod:`.pack`) read as it is, without unpacking.

``loopspec vectors run`` takes the archive an implementation pins as readily as the folder it
holds: the archive's one top folder is the suite directory, and its files are read from the
archive in memory (nothing is written to disk, so no member can land outside a folder).
"""

from __future__ import annotations

import tarfile
from pathlib import Path, PurePosixPath


class ArchiveUnreadable(Exception):
    """The file is not a packed suite: not a tar archive, or not one folder holding manifest.json."""


def is_archive(path: Path) -> bool:
    """Whether ``path`` is a (possibly compressed) tar file, judged by its bytes, not its name."""
    try:
        return path.is_file() and tarfile.is_tarfile(path)
    except OSError:
        return False


def archive_files(path: Path) -> dict[str, bytes]:
    """The regular files of the archive's one top folder, by their path inside that folder."""
    try:
        with tarfile.open(path) as tar:
            members = [m for m in tar.getmembers() if m.isfile()]
            files = {m.name: tar.extractfile(m).read() for m in members}  # type: ignore[union-attr]
    except (OSError, tarfile.TarError, EOFError) as err:
        raise ArchiveUnreadable(f"{path}: not a readable suite archive ({err})") from None
    roots = {PurePosixPath(name).parts[0] for name in files}
    root = roots.pop() if len(roots) == 1 else None
    if root is None or f"{root}/manifest.json" not in files:
        raise ArchiveUnreadable(f"{path}: not a packed suite (expected one folder holding manifest.json, as "
                                "`loopspec vectors pack` writes)")
    return {name[len(root) + 1:]: data for name, data in files.items()}
