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
"""
from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from facts.errors import FactforgeError

HERE = Path(__file__).resolve().parent
FACES = ("mcp", "ff")
SCRIPT_MAX = 4 << 20


@dataclass
class Developer:
    kind: str                          # starting | scripted | cmd
    spec: str                          # what --developer said
    script: Optional[dict] = None
    command: Optional[str] = None

    def argv(self, stage: Path, stage_inside: str, python: str) -> Optional[list[str]]:
        """The program to run in the boundary (None: nothing runs); writes what it needs
        into `stage` (bound read-only at `stage_inside`)."""
        if self.kind == "starting":
            return None
        if self.kind == "cmd":
            return ["/bin/sh", "-c", self.command or ""]
        shutil.copyfile(HERE / "driver.py", stage / "driver.py")
        (stage / "script.json").write_text(json.dumps(self.script, indent=1, sort_keys=True), encoding="utf-8")
        return [python, "-I", "-B", f"{stage_inside}/driver.py", f"{stage_inside}/script.json"]


def parse(spec: str) -> Developer:
    """A `--developer` value; FactforgeError for anything else."""
    if spec == "starting":
        return Developer("starting", spec)
    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise FactforgeError("--developer cmd:'...' needs a command after cmd:")
        return Developer("cmd", spec, command=spec[4:])
    if spec.startswith("scripted:"):
        return Developer("scripted", spec, script=load_script(Path(spec[len("scripted:"):]).expanduser()))
    raise FactforgeError(f"unknown developer {spec!r}: give starting, scripted:FILE or cmd:'...'")


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
