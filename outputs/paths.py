"""Paths that manifests name, and reading a tree that a hostile party may have written.

One rule for every file a bundle manifest or a pack manifest lists (`path_problem`): a
relative POSIX path inside the folder it is joined to (no `/` at the start, no `..` or `.`
parts, no empty parts, no backslash or control character, at most 4096 bytes with parts of at
most 255). Bundles check it when they are written and verified; packs when a manifest is
loaded, verified, materialized and exported. A path that passes cannot leave a folder it is
joined to, whatever the folder.

`walk` lists a tree through directory file descriptors without following any link, and
`hash_file` opens only what the walk found (with O_NOFOLLOW), so a verifier built on them never
opens a file outside the tree it walks.

This module imports nothing from Dagster or the media stack.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
from typing import Any, Iterable, Iterator, Optional

from facts.errors import FactforgeError

CHUNK = 1 << 20

# Paths the writers make (the fast case): parts of safe characters not starting with a dot.
PLAIN_PATH = re.compile(r"[\w+=@,~-][\w.+=@,~-]{0,254}(?:/[\w+=@,~-][\w.+=@,~-]{0,254})*", re.ASCII)
HEX64 = re.compile(r"[0-9a-f]{64}")


def path_problem(rel: Any, reserved: Iterable[str] = ("manifest.json",)) -> Optional[str]:
    """Why `rel` cannot be a path a manifest lists (None when it can). `reserved`: the names
    of the manifest itself in the folder or archive it describes."""
    if type(rel) is str and len(rel) <= 4096 and PLAIN_PATH.fullmatch(rel) and rel not in reserved:
        return None
    if not isinstance(rel, str) or not rel:
        return "a manifest path must be a non-empty string"
    if "\\" in rel or not rel.isprintable():
        return "backslash and control characters are not allowed in a manifest path"
    if rel.startswith("/"):
        return "an absolute path is not allowed (manifest paths are relative to their folder)"
    parts = rel.split("/")
    if ".." in parts:
        return "'..' is not allowed in a manifest path"
    if "." in parts or "" in parts:
        return "empty or '.' parts are not allowed in a manifest path"
    if len(rel.encode("utf-8", "surrogatepass")) > 4096 or any(len(p.encode("utf-8", "surrogatepass")) > 255
                                                               for p in parts):
        return "path or path part too long"
    if rel in reserved:
        return "the manifest cannot list itself"
    return None


def open_dir(path, what: str, flags: int = 0) -> int:
    """A directory fd for the one path taken as given (a bundle's or a pack's own folder);
    a missing or unreadable one is one line naming `what` ("bundle", "task pack")."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | flags)
    except FileNotFoundError:
        raise FactforgeError(f"not a {what}: no such directory", path) from None
    except NotADirectoryError:
        raise FactforgeError(f"not a {what}: not a directory", path) from None
    except OSError as e:
        raise FactforgeError(f"cannot open the {what}: {e.strerror}", path) from None


def shown(rel: str) -> str:
    """A path found in a tree as one printable line (a name may hold control characters)."""
    return rel if rel.isprintable() else repr(rel)


def walk(dir_fd: int, prefix: str, dirs: bool = False) -> Iterator[tuple[str, str, int, str]]:
    """(path, kind, directory fd, name) of everything under a directory, in the sort order of
    full paths (a directory sorts as its name + '/'); links are not followed. kind: file, dir
    (only with `dirs`, yielded before its content), symlink, special or unreadable."""
    entries = []
    with os.scandir(dir_fd) as it:
        for de in it:
            if de.is_symlink():
                kind = "symlink"
            elif de.is_dir(follow_symlinks=False):
                kind = "dir"
            elif de.is_file(follow_symlinks=False):
                kind = "file"
            else:
                kind = "special"
            entries.append((de.name + "/" if kind == "dir" else de.name, de.name, kind))
    entries.sort()
    for _, name, kind in entries:
        rel = prefix + name
        if kind == "dir":
            try:
                fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            except OSError:
                yield rel, "unreadable", dir_fd, name
                continue
            try:
                if dirs:
                    yield rel, "dir", dir_fd, name
                yield from walk(fd, rel + "/", dirs)
            finally:
                os.close(fd)
        else:
            yield rel, kind, dir_fd, name


def hash_file(dir_fd: int, name: str, size: int) -> Optional[str]:
    """sha256 of a regular file opened without following links, or None when it is not one
    (replaced by a link or a special file since the walk) or its size is not `size`."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != size:
            return None
        h = hashlib.sha256()
        while True:
            chunk = os.read(fd, CHUNK)
            if not chunk:
                break
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)
