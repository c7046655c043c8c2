"""Code fingerprints and external tool versions: what goes into honest cache keys.

A cached file may only be reused when nothing that shaped it has changed. Besides the data
(spec, facts, database reads, writer), that is the code and the tools:

- **Code.** `code_fingerprint(module)` hashes the source of a module and of every project
  module it imports, transitively (static analysis of `import` statements anywhere in the
  file, lazy imports inside functions included; a package's `__init__` counts as imported
  with it). A renderer that imports the writer and `transforms/common.py` therefore changes
  its fingerprint when either changes, with no hand-kept list and no version constant to
  bump. The versions of the third-party distributions those modules import (reportlab,
  pillow, numpy, pocketsphinx...) and Python's major.minor are part of it.
- **Tools.** A module that runs an external program or reads external data files declares
  it in a module-level `EXTERNAL_TOOLS = ("espeak-ng",)`; every module importing it
  inherits the declaration. `tool_version(name)` probes the installed program (its version
  line, and the hash of its data files where those decide the output: tesseract's
  traineddata, pocketsphinx's acoustic model and dictionary, the font files).
- `kind_fingerprint("family/kind")` combines both for a kind's module (its renderer and its
  extractor live there). Render keys and extraction keys include it.

A missing tool raises a FactforgeError naming the tool and how to install it;
`missing_tools(kinds)` lets the build report every missing tool in one line before any
work starts (preflight).
"""
from __future__ import annotations

import ast
import hashlib
import importlib.metadata as md
import inspect
import re
import shutil
import subprocess
import sys
import threading
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

from facts.errors import FactforgeError
from facts.hashing import content_hash, file_sha256
from transforms.common import FONT_FILES, font_file

from . import registry


ROOT = Path(__file__).resolve().parents[1]
PROJECT_PACKAGES = ("facts", "domains", "transforms", "audits", "outputs", "pipeline")


# --- module graph -------------------------------------------------------------------------
def module_file(name: str, root: Path = ROOT) -> Path | None:
    """Source file of a project module (`a.b` -> a/b.py or a/b/__init__.py), else None."""
    if name.split(".")[0] not in PROJECT_PACKAGES:
        return None
    base = Path(root).joinpath(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


_AST_LOCK = threading.Lock()


def warm(root: Path = ROOT) -> int:
    """Parse every project source file now (the results are cached for the process) and
    return how many. Builds call it before any step runs: CPython 3.11 keeps the ast module's
    recursion counter per interpreter, not per thread, so an `ast.parse` in a step's thread
    while another thread parses (a lazy import whose pydantic models read their source)
    failed a build under load with "SystemError: AST constructor recursion depth mismatch"
    (the LLM-writer build test). After `warm`, the render and audit threads never parse."""
    n = 0
    for pkg in PROJECT_PACKAGES:
        for p in sorted((Path(root) / pkg).rglob("*.py")):
            _parsed(p, Path(root))
            n += 1
    return n


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(body: list) -> Iterable[ast.AST]:
    """Every statement of `body`, nested blocks (functions, classes, branches, handlers, match
    cases) included: where an import can stand. Expressions are not walked: none holds one."""
    todo = list(reversed(body))
    while todo:
        node = todo.pop()
        yield node
        for name in _BLOCKS:
            todo.extend(reversed(getattr(node, name, None) or ()))


@lru_cache(maxsize=None)
def _parsed(path: Path, root: Path = ROOT) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(imported absolute module names incl. `from X import y` candidates X.y, top-level
    third-party names, declared EXTERNAL_TOOLS) of one source file."""
    with _AST_LOCK:  # one parse at a time in this process (see `warm`)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(root).with_suffix("")
    name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
    pkg = _package_of(name, path)
    mods: list[str] = []
    tools: list[str] = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            mods += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                src = f"{base}.{node.module}" if node.module else base
            else:
                src = node.module or ""
            mods.append(src)
            mods += [f"{src}.{a.name}" for a in node.names]
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "EXTERNAL_TOOLS" for t in targets) and node.value is not None:
            tools += [e.value for e in getattr(node.value, "elts", []) if isinstance(e, ast.Constant)]
    third = sorted({m.split(".")[0] for m in mods if m and m.split(".")[0] not in PROJECT_PACKAGES
                    and m.split(".")[0] not in sys.stdlib_module_names})
    return tuple(sorted(set(m for m in mods if m))), tuple(third), tuple(tools)


@lru_cache(maxsize=None)
def _direct(name: str, root: Path = ROOT) -> tuple[str, ...]:
    """Project modules that importing `name` runs directly: its parent packages and the
    modules its source imports (with their parent packages)."""
    out: set[str] = set()
    for m in (name, *_parsed(module_file(name, root), root)[0]):
        parts = m.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    out.discard(name)
    return tuple(sorted(m for m in out if module_file(m, root) is not None))


@lru_cache(maxsize=None)
def module_closure(name: str, root: Path = ROOT) -> tuple[str, ...]:
    """The project modules `name` imports, transitively, itself and parent packages included."""
    if module_file(name, root) is None:
        return ()
    seen = {name}
    todo = [name]
    while todo:
        for dep in _direct(todo.pop(), root):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return tuple(sorted(seen))


@lru_cache(maxsize=1)
def _top_level_index() -> dict[str, tuple[str, ...]]:
    """Import name -> distributions declaring it in top_level.txt (for names that are not
    their distribution's name: PIL -> pillow, docx -> python-docx)."""
    out: dict[str, set[str]] = {}
    for d in md.distributions():
        for top in (d.read_text("top_level.txt") or "").split():
            out.setdefault(top, set()).add(d.metadata["Name"])
    return {k: tuple(sorted(v)) for k, v in out.items()}


@lru_cache(maxsize=None)
def library_version(top: str) -> str:
    """Version of the distribution(s) providing import name `top` ("?" when unknown)."""
    try:
        return f"{top}=={md.version(top)}"
    except md.PackageNotFoundError:
        pass
    dists = _top_level_index().get(top, ())
    return ",".join(f"{d}=={md.version(d)}" for d in dists) or "?"


@lru_cache(maxsize=None)
def code_fingerprint(name: str, root: Path = ROOT) -> str:
    """Hash of the module's transitive project sources, the versions of the third-party
    distributions they import and Python's major.minor. `root`: the source tree (tests)."""
    closure = module_closure(name, root)
    if not closure:
        raise FactforgeError(f"no project module {name!r} to fingerprint")
    sources = {m: file_sha256(module_file(m, root)) for m in closure}
    third = sorted({t for m in closure for t in _parsed(module_file(m, root), root)[1]})
    return content_hash({"python": f"{sys.version_info[0]}.{sys.version_info[1]}", "sources": sources,
                         "libraries": {t: library_version(t) for t in third}})


def declared_tools(name: str, root: Path = ROOT) -> tuple[str, ...]:
    """External tools declared (EXTERNAL_TOOLS) by the module or anything it imports."""
    return tuple(sorted({t for m in module_closure(name, root) for t in _parsed(module_file(m, root), root)[2]}))


# --- external tools -----------------------------------------------------------------------
def _run(args: list[str]) -> str:
    proc = subprocess.run(args, capture_output=True, text=True)
    return (proc.stdout + proc.stderr).strip()


def _which(exe: str, tool: str) -> str:
    path = shutil.which(exe)
    if path is None:
        raise MissingTool(tool)
    return path


def _espeak() -> str:
    return _run([_which("espeak-ng", "espeak-ng"), "--version"]).splitlines()[0]


def _tesseract() -> str:
    exe = _which("tesseract", "tesseract")
    version = _run([exe, "--version"]).splitlines()[0]
    m = re.search(r'"([^"]+)"', _run([exe, "--list-langs"]))
    data = Path(m.group(1)) / "eng.traineddata" if m else None
    return f"{version} eng:{file_sha256(data)[:16] if data and data.is_file() else 'missing'}"


def _ffmpeg() -> str:
    try:
        import imageio_ffmpeg  # noqa: PLC0415  (heavy; loaded on first use)
        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError):
        raise MissingTool("ffmpeg") from None
    return _run([exe, "-version"]).splitlines()[0]


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(f"{p.relative_to(root)}:{file_sha256(p)}\n".encode())
    return h.hexdigest()


def _speech_model() -> str:
    try:
        from pocketsphinx import get_model_path  # noqa: PLC0415  (heavy; loaded on first use)
    except ImportError:
        raise MissingTool("pocketsphinx-model") from None
    root = Path(get_model_path())
    if not root.is_dir():
        raise MissingTool("pocketsphinx-model")
    return f"pocketsphinx {md.version('pocketsphinx')} model:{_tree_hash(root)[:16]}"


def _poppler() -> str:
    return _run([_which("pdftoppm", "poppler"), "-v"]).splitlines()[0]


def _fonts() -> str:

    files = sorted({font_file(fam, bold) for fam, bold in FONT_FILES})
    if not all(Path(f).is_file() for f in files):
        raise MissingTool("dejavu-fonts")
    return content_hash({Path(f).name: file_sha256(f) for f in files})[:16]


# name -> (probe returning a version string, what it is for, how to install it on Debian)
TOOLS: dict[str, tuple[Callable[[], str], str, str]] = {
    "espeak-ng": (_espeak, "speech synthesis of calls and narrations", "apt-get install espeak-ng"),
    "tesseract": (_tesseract, "OCR of images and video frames", "apt-get install tesseract-ocr tesseract-ocr-eng"),
    "ffmpeg": (_ffmpeg, "audio and video encoding", "pip install imageio-ffmpeg"),
    "pocketsphinx-model": (_speech_model, "speech recognition", "pip install pocketsphinx"),
    "dejavu-fonts": (_fonts, "text in images and PDFs", "apt-get install fonts-dejavu-core"),
    "poppler": (_poppler, "rasterising scanned PDFs for OCR", "apt-get install poppler-utils"),
}


class MissingTool(FactforgeError):
    def __init__(self, tool: str):
        _, purpose, hint = TOOLS.get(tool, (None, "", ""))
        self.tool = tool
        super().__init__(f"{tool} is missing ({purpose}; {hint})")


@lru_cache(maxsize=None)
def tool_version(name: str) -> str:
    if name not in TOOLS:
        raise FactforgeError(f"unknown external tool {name!r} declared in EXTERNAL_TOOLS; known: {', '.join(TOOLS)}")
    return TOOLS[name][0]()


def kind_module(kind: str) -> str:

    return type(registry.get(kind)).__module__


@lru_cache(maxsize=None)
def kind_fingerprint(kind: str) -> str:
    """Code fingerprint of a kind's module plus the versions of the tools it uses."""
    mod = kind_module(kind)
    return content_hash({"kind": kind, "code": code_fingerprint(mod),
                         "tools": {t: tool_version(t) for t in declared_tools(mod)}})


def writer_fingerprint(writer: object) -> str:
    """Code fingerprint of the module defining the writer's class (for a writer defined
    outside the project, e.g. a plug-in, the hash of that one source file)."""
    mod = type(writer).__module__
    if module_file(mod) is not None:
        return code_fingerprint(mod)

    return file_sha256(inspect.getfile(type(writer)))


def missing_tools(kinds: Iterable[str]) -> list[str]:
    """One entry per missing tool the given kinds need ("tesseract (OCR...; apt-get ...)")."""
    needed = sorted({t for k in kinds for t in declared_tools(kind_module(k))})
    out = []
    for t in needed:
        try:
            tool_version(t)
        except MissingTool as e:
            out.append(e.problem)
    return out
