"""An engagement's folder: the kit (read-only for the developer) and the working copy.

- `DIR/kit/`: the task's kit, materialized from the pack (never the sealed part), its files
  mode 0444, plus `bin/ff` and `bin/ff-mcp` (the tools' command and MCP relay, standard
  library only). The developer's boundary binds it read-only.
- `DIR/workspace/`: a copy of the kit's `workspace/` when the task has a starting workspace;
  otherwise the smallest agent the kit's AGENT_CONTRACT.md accepts (`agent.py`: a
  `create_agent()` whose agent says nothing, like the `null` reference agent, so an untouched
  empty workspace scores what `null` scores) and a README saying so. It is a git repository
  with one commit, "Initial import", made with a fixed author and date: the same task gives
  the same commit id.

What the workspace holds is compared with the initial import by `snapshot` and `diff`, in
Python, never by running git on it again: once a developer has written to the workspace its
`.git/config` is the developer's (hooks, `core.fsmonitor`), and nothing of it runs outside the
boundary. Snapshots do not follow links and never open anything but regular files.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from facts.errors import FactforgeError

HERE = Path(__file__).resolve().parent
KIT_BIN = {"ff": "ff", "ff-mcp": "relay.py"}          # name in kit/bin -> source in this package
GIT_DATE = "2000-01-01T00:00:00+00:00"
GIT_NAME, GIT_EMAIL = "factforge", "engage@factforge.invalid"
INITIAL_MESSAGE = "Initial import"
SNAPSHOT_MAX = 20_000                                # entries a snapshot reads; past them it says so

EMPTY_AGENT = '''"""The starting agent of a task without a starting workspace: it says nothing.

It follows the agent contract (AGENT_CONTRACT.md in the kit): `create_agent()` returns an
object with `get_init_state()` and `generate_next_message(message, state)`. Replace it with
your agent.
"""


class Agent:
    def get_init_state(self) -> dict:
        return {}

    def generate_next_message(self, message: str, state: dict) -> tuple[str, dict]:
        return "", state


def create_agent() -> Agent:
    return Agent()
'''
EMPTY_README = ("# Starting workspace\n\nThis task has no starting workspace: `agent.py` is the smallest agent the "
                "agent contract accepts, and it says nothing. Build the agent here.\n")


@dataclass(frozen=True)
class Entry:
    kind: str                     # file | link | other
    sha256: str = ""              # a file's content, or a link's target
    size: int = 0


@dataclass
class Snapshot:
    entries: dict[str, Entry]
    truncated: bool = False


@dataclass
class Prepared:
    kit: Path
    workspace: Path
    starting: str                 # seeded | empty
    commit: str                   # the initial import's commit id
    initial: Snapshot
    initial_bytes: dict[str, bytes]   # the initial import's files (what the scan compares with)


def git_env(home: Path) -> dict[str, str]:
    """The environment of the one git command the engagement runs (nothing of the user's)."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": GIT_NAME, "GIT_AUTHOR_EMAIL": GIT_EMAIL, "GIT_AUTHOR_DATE": GIT_DATE,
            "GIT_COMMITTER_NAME": GIT_NAME, "GIT_COMMITTER_EMAIL": GIT_EMAIL, "GIT_COMMITTER_DATE": GIT_DATE,
            "LANG": "C"}


def _git(args: list[str], cwd: Path) -> str:
    git = shutil.which("git")
    if git is None:
        raise FactforgeError("git is not installed (the engagement keeps the workspace in a git repository)")
    r = subprocess.run([git, "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null",
                        *args], cwd=cwd, env=git_env(cwd), capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise FactforgeError(f"git {args[0]} failed: {(r.stderr or r.stdout).strip().splitlines()[-1:]}", cwd)
    return r.stdout.strip()


def install_bin(kit: Path) -> list[str]:
    """`kit/bin/ff` and `kit/bin/ff-mcp`; the names installed (a program this package does not
    ship yet is left out)."""
    (kit / "bin").mkdir(exist_ok=True)
    done = []
    for name, src in KIT_BIN.items():
        if (HERE / src).is_file():
            shutil.copyfile(HERE / src, kit / "bin" / name)
            os.chmod(kit / "bin" / name, 0o555)
            done.append(name)
    return done


def _read_only(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            p = Path(dirpath) / name
            os.chmod(p, 0o444 | (0o111 if os.stat(p).st_mode & 0o100 else 0))


def prepare(ctx, out: Path) -> Prepared:
    """Set up `out/kit` and `out/workspace` for the task of `ctx` (an evaluator TaskContext)."""
    kit = ctx.materialize_kit(out / "kit")
    install_bin(kit)
    workspace = out / "workspace"
    if (kit / "workspace").is_dir():
        shutil.copytree(kit / "workspace", workspace, symlinks=True)
        for dirpath, _, filenames in os.walk(workspace):
            for name in filenames:
                os.chmod(Path(dirpath) / name, 0o644)
        starting = "seeded"
    else:
        workspace.mkdir()
        (workspace / "agent.py").write_text(EMPTY_AGENT, encoding="utf-8")
        (workspace / "README.md").write_text(EMPTY_README, encoding="utf-8")
        starting = "empty"
    _read_only(kit)
    _git(["init", "-q"], workspace)
    _git(["add", "-A"], workspace)
    _git(["commit", "-q", "-m", INITIAL_MESSAGE], workspace)
    commit = _git(["rev-parse", "HEAD"], workspace)
    initial = snapshot(workspace)
    files = {p: read_regular(workspace / p) or b"" for p, e in initial.entries.items() if e.kind == "file"}
    return Prepared(kit=kit, workspace=workspace, starting=starting, commit=commit, initial=initial,
                    initial_bytes=files)


# --------------------------------------------------------------------------- what the workspace holds

def _open_regular(path: Path) -> Optional[int]:
    """A descriptor of the regular file at `path`, opened without following a link and without
    blocking; None for anything else (the caller closes it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def read_regular(path: Path, limit: Optional[int] = None) -> Optional[bytes]:
    """A regular file's bytes (at most `limit`), opened without following a link and without
    blocking; None for anything else."""
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        chunks, left = [], limit if limit is not None else -1
        while left != 0:
            chunk = os.read(fd, 1 << 20 if left < 0 else min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            if left > 0:
                left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _hash_regular(path: Path) -> Optional[tuple[str, int]]:
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        h, size = hashlib.sha256(), 0
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
            size += len(chunk)
        return h.hexdigest(), size
    except OSError:
        return None
    finally:
        os.close(fd)


def snapshot(root: Path) -> Snapshot:
    """Every entry under `root` but `.git/`, by relative path: files by content hash, links by
    target (never followed), anything else as `other`; at most SNAPSHOT_MAX entries."""
    entries: dict[str, Entry] = {}
    todo = [""]
    while todo:
        rel = todo.pop()
        try:
            with os.scandir(root / rel if rel else root) as it:
                items = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for e in items:
            path = f"{rel}/{e.name}" if rel else e.name
            if path == ".git":
                continue
            if len(entries) >= SNAPSHOT_MAX:
                return Snapshot(entries, truncated=True)
            if e.is_symlink():
                try:
                    entries[path] = Entry("link", os.readlink(e.path))
                except OSError:
                    entries[path] = Entry("other")
            elif e.is_dir(follow_symlinks=False):
                todo.append(path)
            elif e.is_file(follow_symlinks=False):
                got = _hash_regular(Path(e.path))
                entries[path] = Entry("file", *got) if got else Entry("other")
            else:
                entries[path] = Entry("other")
    return Snapshot(entries)


def diff(before: Snapshot, after: Snapshot) -> dict[str, list[str]]:
    """Paths added, modified and deleted from `before` to `after` (sorted)."""
    a, b = before.entries, after.entries
    return {"added": sorted(b.keys() - a.keys()), "modified": sorted(p for p in a.keys() & b.keys() if a[p] != b[p]),
            "deleted": sorted(a.keys() - b.keys())}
