"""The reference developers, named by `--developer`:

- `starting`: delivers the starting workspace untouched (the floor); no program runs.
- `scripted:FILE`: a script of tool calls and file writes (JSON or TOML), run inside the
  boundary by `driver.py` with the interpreter that has the `mcp` SDK:

  ```toml
  face = "mcp"            # or "ff": the same steps through the kit's ff command
  [[steps]]
  tool = "ask_owner"
  args = { message = "Do pass holders get a discount on late fees?" }
  [[steps]]
  write = "agent.py"
  text = "..."
  [[steps]]
  tool = "submit"
  ```

- `cmd:'...'`: any program, run by `/bin/sh -c` in the workspace inside the boundary.
- `claude-code`, `codex`, `opencode`, `mini-swe-agent` (any adapter of `adapters/`): a coding
  agent, run by the launcher (`launch.py`) with the loopback model relay in front of it, its
  configuration written from its adapter, with `--developer-model` and the program found
  under `--developer-prefix`, in the engage venv or on `PATH`.
"""
from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from facts.errors import FactforgeError

from . import adapters

HERE = Path(__file__).resolve().parent
FACES = ("mcp", "ff")
SCRIPT_MAX = 4 << 20
SPEC_MAX = 64 << 10  # characters of a --developer value (a cmd: line may carry a small program)


@dataclass
class Developer:
    kind: str                          # starting | scripted | cmd | adapter
    spec: str                          # what --developer said
    script: Optional[dict] = None
    command: Optional[str] = None
    adapter: Optional[adapters.Adapter] = None

    def argv(self, stage: Path, boundary, python: str, *, relay: bool = False, model: Optional[str] = None,
             prefix: Optional[Path] = None) -> Optional[list[str]]:
        """The program to run in `boundary` (None: nothing runs); writes what it needs into
        `stage` (bound read-only at `boundary.stage_path()`) and, for a coding agent, sets the
        boundary's extra binds and variables. With `relay` a `cmd` program runs behind the
        launcher too, so the loopback model relay is up (`FF_MODEL_URL`)."""
        inside = boundary.stage_path()
        if self.kind == "starting":
            return None
        if self.kind == "scripted":
            shutil.copyfile(HERE / "driver.py", stage / "driver.py")
            (stage / "script.json").write_text(json.dumps(self.script, indent=1, sort_keys=True), encoding="utf-8")
            return [python, "-I", "-B", f"{inside}/driver.py", f"{inside}/script.json"]
        if self.kind == "cmd" and not relay:
            return ["/bin/sh", "-c", self.command or ""]
        if self.kind == "cmd":
            plan = {"relay": relay_plan(boundary), "env": {}, "argv": ["/bin/sh", "-c", self.command or ""]}
        else:
            plan = adapter_plan(self.adapter, stage, boundary, model=model, prefix=prefix)
        for name in ("launch.py", "looprelay.py"):
            shutil.copyfile(HERE / name, stage / name)
        (stage / "launch.json").write_text(json.dumps(plan, indent=1, sort_keys=True), encoding="utf-8")
        return [python, "-I", "-B", f"{inside}/launch.py", f"{inside}/launch.json"]


def relay_plan(boundary) -> dict:
    return {"script": f"{boundary.stage_path()}/looprelay.py", "socket": f"{boundary.sockets_path()}/model.sock"}


def adapter_plan(adapter: adapters.Adapter, stage: Path, boundary, *, model: Optional[str],
                 prefix: Optional[Path]) -> dict:
    """The launcher's plan for a coding agent; the program's installation (and node's, for an
    npm program) bound read-only into `boundary`."""
    program = adapter.find(prefix)
    if program is None:
        raise FactforgeError(f"{adapter.program} ({adapter.title}) is not installed: {adapter.install_hint()}")
    for root in (adapters.install_root(program),
                 adapters.install_root(Path(shutil.which("node") or "/usr/bin/node"))
                 if adapter.registry == "npm" else None):
        if root and root not in boundary.ro_binds:
            boundary.ro_binds.append(root)
    if adapter.registry == "npm":
        boundary.path_prepend.append(adapters.node_dir())
    paths = {"kit": boundary.kit_path(), "workspace": boundary.workspace_path(), "sockets": boundary.sockets_path(),
             "stage": boundary.stage_path(), "home": boundary.home_path(), "out": boundary.developer_out_path(),
             "ff_mcp": f"{boundary.kit_path()}/bin/ff-mcp"}
    text = adapters.instruction(adapter, boundary.kit, paths)
    if boundary.developer_out is not None:       # the engagement's copy, outside the developer's reach
        (Path(boundary.developer_out).parent / "instruction.md").write_text(text + "\n", encoding="utf-8")
    plan = adapter.plan(program=program, model=model or adapter.default_model, paths=paths, instruction=text,
                        stage=stage)
    plan["relay"] = relay_plan(boundary)
    return plan


def parse(spec: str) -> Developer:
    """A `--developer` value; FactforgeError for anything else."""
    if len(spec) > SPEC_MAX:
        raise FactforgeError(f"--developer is over {SPEC_MAX} characters: put the program in a file and run it")
    if spec == "starting":
        return Developer("starting", spec)
    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise FactforgeError("--developer cmd:'...' needs a command after cmd:")
        return Developer("cmd", spec, command=spec[4:])
    if spec.startswith("scripted:"):
        return Developer("scripted", spec, script=load_script(Path(spec[len("scripted:"):]).expanduser()))
    if spec in adapters.names():
        return Developer("adapter", spec, adapter=adapters.load(spec))
    raise FactforgeError(f"unknown developer {spec!r}: give starting, scripted:FILE, cmd:'...' or a coding agent "
                         f"({', '.join(adapters.names())})")


def load_script(path: Path) -> dict:
    """A developer script (JSON, or TOML by its suffix), checked: `face` and `steps`."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise FactforgeError(f"cannot read the developer script: {e.strerror}", path) from None
    if len(raw) > SCRIPT_MAX:
        raise FactforgeError(f"the developer script is over {SCRIPT_MAX} bytes", path)
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (UnicodeDecodeError, ValueError) as e:
        raise FactforgeError(f"not a {'TOML' if path.suffix == '.toml' else 'JSON'} developer script: "
                             f"{str(e).splitlines()[0]}", path) from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise FactforgeError("a developer script is a table with a list of steps (`steps`)", path)
    face = data.get("face", "mcp")
    if face not in FACES:
        raise FactforgeError(f"face {face!r}: give mcp or ff", path)
    extra = set(data) - {"face", "steps"}
    if extra:
        raise FactforgeError(f"unknown key {sorted(extra)[0]!r} in the developer script (keys: face, steps)", path)
    for i, step in enumerate(data["steps"]):
        if not _step_ok(step):
            raise FactforgeError(f"step {i + 1}: a step is {{tool, args}}, {{write, text}} or {{delete}} "
                                 "(names and paths strings, args a table, text a string)", path)
    return {"face": face, "steps": data["steps"]}


def _step_ok(step) -> bool:
    if not isinstance(step, dict):
        return False
    if "tool" in step:
        return set(step) <= {"tool", "args"} and isinstance(step["tool"], str) and isinstance(step.get("args", {}), dict)
    if "write" in step:
        return set(step) <= {"write", "text"} and isinstance(step["write"], str) and isinstance(step.get("text", ""), str)
    return set(step) == {"delete"} and isinstance(step["delete"], str)
