"""Coding agents as developers: one declarative file per program (`NAME.toml` in this folder).

An adapter says how to find the program (its registry and package, the program's name), which
provider wire it speaks, how it gets the engagement's tools (its own MCP configuration pointing
at the kit's `ff-mcp`, or the `ff` command in its shell), its non-interactive command line, its
environment (the model endpoint is the loopback relay; home and configuration folders inside
the boundary) and where its own trajectory is read from:

| key | what |
|---|---|
| `title`, `registry` (`npm` or `pypi`), `package`, `program` | what is installed and run |
| `version_args` | how the program states its version (a PyPI package's metadata is read instead) |
| `provider` | `anthropic`, `openai`, or `model-prefix` (a litellm model name's `anthropic/` or `openai/`) |
| `default_model` | the model when `--developer-model` is not given |
| `tools` | `mcp` (the program's MCP client on `ff-mcp`) or `ff` (the command, through its shell) |
| `argv` | the command line |
| `env` | variables added inside the boundary |
| `files` | `{where = "stage" or "home", path, format = "json", "toml" or "text", content}` written before the run |
| `stdout` | a file of the developer's output folder the program's standard output goes to |
| `trajectory` | `{format, file}`: the program's own record, read back into ATIF (`trajectory.py`) |

Strings may hold `{program}`, `{model}`, `{instruction}`, `{kit}`, `{workspace}`, `{sockets}`,
`{stage}`, `{home}`, `{out}` (the developer's output folder), `{ff_mcp}`, `{base_url}` (the
relay, as the provider's base URL) and `{dummy_key}` (a key that is no key: the proxy drops
whatever the program sends and adds the real one outside the boundary).

The program is found, in order, under the prefix the user names (`--developer-prefix`: an npm
prefix, `DIR/node_modules/.bin/PROGRAM`, or a venv, `DIR/bin/PROGRAM`), in the engage process's
own venv, then on `PATH`. Its installation folder is bound read-only into the boundary. Nothing
is downloaded: `npm install --prefix DIR PACKAGE` or `pip install PACKAGE` installs it.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from facts.errors import FactforgeError

HERE = Path(__file__).resolve().parent
ENGAGE = HERE.parent
DUMMY_KEY = "ff-no-key-inside-the-boundary"
RELAY_TOKEN = "@FF_RELAY@"                       # replaced by the launcher with the relay's URL
KEYS = {"title", "registry", "package", "program", "version_args", "provider", "default_model", "tools", "argv",
        "env", "files", "stdout", "trajectory"}
PROVIDERS = ("anthropic", "openai", "model-prefix")
README_LIMIT = 6000                             # characters of the kit's README in the instruction
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass
class Adapter:
    name: str
    title: str
    registry: str
    package: str
    program: str
    provider: str
    default_model: str
    tools: str
    argv: list[str]
    trajectory: dict[str, str]
    version_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    files: list[dict] = field(default_factory=list)
    stdout: Optional[str] = None

    # ---- finding the program --------------------------------------------------------------------
    def find(self, prefix: Optional[Path] = None) -> Optional[Path]:
        """The program's path (not resolved: an npm `.bin` link stays a link), or None."""
        candidates = []
        if prefix is not None:
            candidates += [Path(prefix) / "node_modules" / ".bin" / self.program, Path(prefix) / "bin" / self.program]
        candidates.append(Path(sys.prefix) / "bin" / self.program)
        on_path = shutil.which(self.program)
        if on_path:
            candidates.append(Path(on_path))
        for c in candidates:
            if c.is_file() and os.access(c, os.X_OK):
                return c.absolute()
        return None

    def version(self, program: Path) -> Optional[str]:
        """What the program says its version is (first line), or the PyPI package's version."""
        if self.registry == "pypi":
            try:
                return importlib.metadata.version(self.package)
            except importlib.metadata.PackageNotFoundError:
                pass
        if not self.version_args:
            return None
        with tempfile.TemporaryDirectory(prefix="ff-version-") as home:
            try:
                r = subprocess.run([str(program), *self.version_args], capture_output=True, text=True, timeout=30,
                                   env={"PATH": f"{node_dir()}:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"},
                                   stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired):
                return None
        line = (r.stdout or r.stderr).strip().splitlines()[:1]
        return line[0][:80] if r.returncode == 0 and line else None

    def install_hint(self) -> str:
        if self.registry == "npm":
            return f"npm install --prefix DIR {self.package} (then --developer-prefix DIR)"
        return f"pip install {self.package}"

    # ---- a run ------------------------------------------------------------------------------------
    def provider_of(self, model: str) -> str:
        if self.provider != "model-prefix":
            return self.provider
        return "anthropic" if model.startswith("anthropic/") else "openai"

    def plan(self, *, program: Path, model: str, paths: dict[str, str], instruction: str, stage: Path) -> dict:
        """The launcher's plan (`launch.py`); writes the adapter's stage files into `stage`."""
        base = RELAY_TOKEN + ("" if self.provider_of(model) == "anthropic" else "/v1")
        values = {**paths, "program": str(program), "model": model, "instruction": instruction, "base_url": base,
                  "dummy_key": DUMMY_KEY}
        home_files = []
        for f in self.files:
            text = render_file(f["format"], render(f["content"], values))
            if f["where"] == "stage":
                target = stage / f["path"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
            else:
                home_files.append({"path": f["path"], "text": text})
        stdout = f"{paths['out']}/{self.stdout}" if self.stdout else None
        return {"relay": {"script": f"{paths['stage']}/looprelay.py", "socket": f"{paths['sockets']}/model.sock"},
                "home_files": home_files, "env": render(self.env, values), "argv": render(self.argv, values),
                "stdout": stdout}


def render(value: Any, values: dict[str, str]) -> Any:
    """`value` with every known `{name}` replaced (keys of tables too); unknown braces kept."""
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [render(v, values) for v in value]
    if isinstance(value, dict):
        return {render(k, values): render(v, values) for k, v in value.items()}
    return value


def render_file(fmt: str, content: Any) -> str:
    if fmt == "json":
        return json.dumps(content, indent=2, sort_keys=True) + "\n"
    if fmt == "toml":
        return to_toml(content)
    return str(content)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"no TOML for {type(v).__name__}")


def to_toml(data: dict, table: str = "") -> str:
    """TOML text of `data` (strings, numbers, booleans, lists, tables): plain values first, then
    every table at the top or holding a table as its own `[section]`, any other inline."""
    lines, subs = [], []
    for k, v in data.items():
        key = json.dumps(k) if not re.fullmatch(r"[A-Za-z0-9_-]+", k) else k
        if isinstance(v, dict) and (any(isinstance(x, dict) for x in v.values()) or not table):
            subs.append((f"{table}.{key}" if table else key, v))
        else:
            lines.append(f"{key} = {_toml_value(v)}")
    out = (f"[{table}]\n" if table and lines else "") + "".join(line + "\n" for line in lines)
    for name, sub in subs:
        out += ("\n" if out else "") + to_toml(sub, name)
    return out


def node_dir() -> str:
    node = shutil.which("node")
    return str(Path(node).resolve().parent) if node else "/usr/bin"


def install_root(program: Path) -> Optional[str]:
    """The folder to bind read-only so that `program` runs inside the boundary: the npm prefix
    holding its `node_modules`, or the prefix holding its `bin`; None for one under /usr."""
    roots = []
    for p in (program.absolute(), program.resolve()):
        if p.parts[:2] == ("/", "usr"):
            continue
        if "node_modules" in p.parts:
            roots.append(Path(*p.parts[:p.parts.index("node_modules")]))
        elif p.parent.name == "bin":
            roots.append(p.parent.parent)
        else:
            roots.append(p.parent)
    if not roots:
        return None
    root = min(roots, key=lambda r: len(r.parts))
    if root in (Path("/"), Path.home()) or len(root.parts) < 3:
        raise FactforgeError(f"{program} is installed in {root}, which is too wide a folder to show the developer: "
                             "install it under its own prefix and give --developer-prefix")
    return str(root)


def _check(name: str, data: dict) -> None:
    extra = set(data) - KEYS
    if extra:
        raise FactforgeError(f"adapter {name}: unknown key {sorted(extra)[0]!r}")
    missing = {"title", "registry", "package", "program", "provider", "default_model", "tools", "argv",
               "trajectory"} - set(data)
    if missing:
        raise FactforgeError(f"adapter {name}: missing {sorted(missing)[0]!r}")
    if data["provider"] not in PROVIDERS or data["tools"] not in ("mcp", "ff") or data["registry"] not in ("npm", "pypi"):
        raise FactforgeError(f"adapter {name}: provider, tools or registry not one of the known values")
    for f in data.get("files", []):
        if f.get("where") not in ("stage", "home") or f.get("format") not in ("json", "toml", "text") \
                or not isinstance(f.get("path"), str) or "content" not in f:
            raise FactforgeError(f"adapter {name}: a file is {{where, path, format, content}}")


def load(name: str) -> Adapter:
    path = HERE / f"{name}.toml"
    if not re.fullmatch(r"[a-z0-9-]+", name) or not path.is_file():
        raise FactforgeError(f"no adapter {name!r}: the adapters are {', '.join(names())}")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    _check(name, data)
    return Adapter(name=name, **data)


def names() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.toml"))


def instruction(adapter: Adapter, kit: Path, paths: dict[str, str]) -> str:
    """The one instruction every adapter is given: what to build, the tools, submitting; with
    the kit's README (at most README_LIMIT characters)."""
    try:
        readme = (kit / "README.md").read_text(encoding="utf-8")[:README_LIMIT]
    except OSError:
        readme = "(the kit has no README.md)"
    tools = (HERE / f"tools-{adapter.tools}.md").read_text(encoding="utf-8").strip()
    text = (HERE / "instruction.md").read_text(encoding="utf-8")
    return render(text, {**paths, "tools": tools}).replace("{readme}", readme.strip()).strip()


def listing(prefix: Optional[Path] = None) -> list[dict]:
    """Each adapter: name, title, package, whether its program is installed, where, its version."""
    out = []
    for name in names():
        a = load(name)
        program = a.find(prefix)
        out.append({"name": name, "title": a.title, "registry": a.registry, "package": a.package,
                    "program": a.program, "installed": program is not None,
                    "path": str(program) if program else None,
                    "version": a.version(program) if program else None, "tools": a.tools,
                    "provider": a.provider, "default_model": a.default_model, "install": a.install_hint()})
    return out
