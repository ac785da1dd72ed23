"""How much room a folder's disk has, and how much of it a store of memory-mapped files may still claim.

A process that writes into a memory-mapped file on a full disk is not told ENOSPC: the kernel kills it with
SIGBUS. So whatever grows mapped files (Qdrant Edge) is checked against these figures first.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Collection, Iterator
from pathlib import Path

from spider.core.errors import OutOfSpace

MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})  # their files live in memory pages, taken when first touched
_MOUNTS = Path("/proc/self/mounts")


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer may still use on the filesystem of `path`, or of its nearest existing folder
    (the folder a store is about to be made in may not exist yet)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize


def _files(folder: Path, skip: Collection[str] = ()) -> Iterator[os.stat_result]:
    """The files under `folder`, but for those in subfolders named in `skip`."""
    for root, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if name not in skip]
        yield from (os.stat(Path(root, name)) for name in names)


def allocated_bytes(folder: Path) -> int:
    """What the files under `folder` take on disk (not their apparent size: mapped files are mostly holes)."""
    return sum(stat.st_blocks * 512 for stat in _files(folder))


def hole_bytes(folder: Path, skip: Collection[str] = ()) -> int:
    """The holes of the sparse files under `folder` (but for subfolders named in `skip`): what touching every
    page of them would still take."""
    return sum(max(0, stat.st_size - stat.st_blocks * 512) for stat in _files(folder, skip))


def _unescaped(mount_point: str) -> str:
    """/proc/self/mounts writes a space in a mount point as \\040 (octal escapes)."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match[1], 8)), mount_point)


def filesystem_type(path: Path) -> str:
    """The type of the filesystem holding `path` ("ext4", "tmpfs", …) from its innermost mount; "" where the
    system does not say (no /proc)."""
    try:
        mounts = _MOUNTS.read_text()
    except OSError:
        return ""
    path = path.resolve()
    found, kind = -1, ""
    for line in mounts.splitlines():
        fields = line.split(" ")
        if len(fields) < 3:
            continue
        point = Path(_unescaped(fields[1]))
        if (point == path or point in path.parents) and len(point.parts) >= found:  # later mounts hide earlier
            found, kind = len(point.parts), fields[2]
    return kind


def reading_holes_takes_space(path: Path) -> bool:
    """Whether reading a hole of a mapped file under `path` takes a page: on tmpfs it does (so a store that only
    reads can still run out of room); on a disk a hole reads as zeros and takes nothing until written."""
    return filesystem_type(path) in MEMORY_FILESYSTEMS


def mib(count: int) -> str:
    return f"{count / (1 << 20):,.1f} MiB"


def disk_failure(error: BaseException) -> OutOfSpace | None:
    """A write refused for want of room (a full disk, a quota) as the user-facing failure it is, or None."""
    if not isinstance(error, OSError) or error.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    where = f" to write {error.filename}" if error.filename else ""
    return OutOfSpace(f"no room left on the disk{where} ({error.strerror}): free space on it, then run again")
