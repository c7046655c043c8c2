"""The results table of reference developers over a whole pack, offline.

    python benchmarks/bench_engage_table.py --pack PACK --out DIR [--jobs 2] [--task ID ...]

Three developers, each one `factforge engage PACK --task all --developer ... --out DIR/<run>`
batch, then `factforge results` over the three runs (printed, and written as DIR/results.csv,
.json and .html):

- `starting`: delivers the starting workspace unchanged. Its agent asks the serving model for
  every reply; offline no model answers, so it is the floor.
- `notes`: a program in the developer's boundary that writes a deterministic agent (standard
  library only, no model): each customer message is answered with the line of the
  workspace's `prompt.md` (the starting notes, where the task seeds them) that shares the
  most content words with it, greeting and writing amounts as the kit's phrasing rules say;
  then it submits. It asks the owner nothing and calls no API operation.
- `elicit`: the same program and agent, but first it asks the owner about each fact the
  task's client holds (one question per held fact: the fact's statement with its values
  masked, so the question names the rule and the owner supplies the value), and the agent's
  notes take the owner's replies too.

`elicit` is a *reference* developer: the questions are made here from the sealed part
(`client.json`), which no real developer sees; it shows what asking the right questions is
worth on these tasks, with everything else equal to `notes`. Both programs reach the tools
through the engagement's socket exactly as `kit/bin/ff` does.

No network and no key are needed; the runs are resumable (a finished engagement is not re-run).
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENT = '''"""A deterministic notes agent: each customer message is answered with the note sharing the
most content words with it (notes: prompt.md and owner.md beside this file), in the house
style the kit states (style.json)."""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
STOP = set("""the and for you your are can with that this what how does have has our from not any will
would could should about into when which there their them they than then was were been being
just also only more most some such each may might must please thanks thank hello need want""".split())


def words(text):
    return {w[:6] for w in re.findall(r"[a-z][a-z0-9]+", text.lower()) if len(w) > 2 and w not in STOP}


def notes():
    out = []
    for name in ("owner.md", "prompt.md"):
        path = os.path.join(HERE, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip().lstrip("-*#>").strip()
                if len(line.split()) >= 4:
                    out.append((line, words(line)))
    return out


def house_style():
    """The greeting (the kit's first greeting phrase, company filled in) and whether amounts take
    two decimals, from style.json beside this file (the developer copied them from the kit)."""
    path = os.path.join(HERE, "style.json")
    if not os.path.exists(path):
        return "", False
    with open(path, encoding="utf-8") as fh:
        style = json.load(fh)
    greeting, cents = "", False
    for rule in style.get("phrasing", []):
        if rule.get("kind") == "greeting" and rule.get("phrases") and not greeting:
            greeting = rule["phrases"][0].replace("{company}", style.get("company", "")) + "."
        if rule.get("kind") == "money_format" and rule.get("style") == "symbol_two_decimals":
            cents = True
    return greeting, cents


class Agent:
    def __init__(self):
        self.notes = notes()
        self.greeting, self.cents = house_style()

    def get_init_state(self):
        return {"turn": 0}

    def generate_next_message(self, message, state):
        asked = words(message or "")
        best, shared = None, 1
        for line, w in self.notes:
            if len(asked & w) > shared:
                best, shared = line, len(asked & w)
        reply = best or "Could you tell me a little more about what you need?"
        if self.cents:
            reply = re.sub(r"\$(\d[\d,]*)(?![\d.,]*\d)", lambda m: "$" + m.group(1) + ".00", reply)
        if state.get("turn", 0) == 0 and self.greeting:
            reply = self.greeting + " " + reply
        return reply, {"turn": state.get("turn", 0) + 1}


def create_agent():
    return Agent()
'''

DEVELOPER = '''
import json, os, socket

def call(tool, args):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(os.environ.get("FF_SOCKETS") or "/run/ff", "tools.sock"))
    s.sendall(json.dumps({"tool": tool, "args": args}).encode() + b"\\n")
    data = b""
    while not data.endswith(b"\\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return json.loads(data or b"{}")

with open(os.path.join(os.environ.get("FACTFORGE_KIT", "/kit"), "task.json")) as fh:
    task = json.load(fh)["id"]
replies = []
for q in QUESTIONS.get(task, []):
    r = call("ask_owner", {"message": q})
    if r.get("ok"):
        replies.append(r["result"]["reply"])
with open("owner.md", "w", encoding="utf-8") as fh:
    fh.write("".join("- " + " ".join(x.split()) + "\\n" for x in replies))
with open("style.json", "w", encoding="utf-8") as fh:
    kit = json.load(open(os.path.join(os.environ.get("FACTFORGE_KIT", "/kit"), "task.json")))
    json.dump({"company": kit.get("company", ""), "phrasing": kit.get("phrasing", [])}, fh)
with open("agent.py", "w", encoding="utf-8") as fh:
    fh.write(AGENT)
call("submit", {"note": "notes agent; %d owner replies" % len(replies)})
'''


def masked(statement: str, values: list[str]) -> str:
    """The statement with each of its values replaced by "what" (the rule, not the number)."""
    out = statement
    for v in sorted(values, key=len, reverse=True):
        out = re.sub(re.escape(v), "what", out, flags=re.IGNORECASE)
    return out.rstrip(". ")


def questions(pack: Path, tasks: list[str]) -> dict[str, list[str]]:
    """Per task, one question per fact its client holds (from the sealed part)."""
    from outputs.packs.store import Pack  # noqa: PLC0415

    p = Pack(pack)
    out = {}
    for t in tasks:
        try:
            client = p.json(t, "sealed", "client.json")
        except Exception:  # noqa: BLE001  (a task without a client has no owner to ask)
            continue
        if client.get("enabled"):
            out[t] = [f"Could you tell me the rule here: {masked(h['statement'], h.get('values', []))}?"
                      for h in client.get("held", [])][: int(client.get("turn_quota") or 0)]
    return out


def developer(qs: dict[str, list[str]]) -> str:
    source = f"QUESTIONS = {json.dumps(qs)}\nAGENT = {AGENT!r}\n" + DEVELOPER
    code = base64.b64encode(source.encode()).decode()
    return f"cmd:\"${{FF_PYTHON:-python3}}\" -c \"import base64; exec(base64.b64decode('{code}'))\""


def factforge(*args: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], env=env).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--task", action="append", help="only these tasks (default: every task of the pack)")
    ap.add_argument("--runs", default="starting,notes,elicit", help="comma-separated, of starting,notes,elicit")
    args = ap.parse_args()
    index = json.loads((args.pack / "index.json").read_text(encoding="utf-8"))
    tasks = args.task or [t["id"] for t in index["tasks"]]
    qs = questions(args.pack, tasks)
    devs = {"starting": "starting", "notes": developer({}), "elicit": developer(qs)}
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"{len(tasks)} tasks; {sum(len(v) for v in qs.values())} held facts to ask about in {len(qs)} tasks")
    picked = [r for r in args.runs.split(",") if r]
    for name in picked:
        t0 = time.perf_counter()
        task_args = [a for t in tasks for a in ("--task", t)] if args.task else ["--task", "all"]
        code = factforge("engage", str(args.pack), *task_args, "--developer", devs[name],
                         "--out", str(args.out / name), "--jobs", str(args.jobs))
        print(f"{name}: exit {code}, {time.perf_counter() - t0:.0f} s", flush=True)
    runs = [str(args.out / n) for n in picked]
    code = factforge("results", *runs, "--csv", str(args.out / "results.csv"), "--html",
                     str(args.out / "results.html"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    table = json.loads(subprocess.run([sys.executable, "-m", "pipeline.cli", "results", *runs, "--json"], env=env,
                                      capture_output=True, text=True).stdout or "{}")
    (args.out / "results.json").write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    print(summary(table, picked))
    return code


def summary(table: dict, names: list[str]) -> str:
    """The table in markdown, a column group per run named as here: tasks, conversations passed
    (pass rate with its 95% CI), mean final score, mean owner turns."""
    if not table.get("runs"):
        return "no table"
    head = "| domain | tasks | " + " | ".join(f"{n}: passed (rate [95% CI]) | {n}: final | {n}: owner turns"
                                             for n in names) + " |"
    lines = [head, "|" + "---|" * (2 + 3 * len(names))]
    for d in table["domains"]:
        cells = [d, str(table["runs"][0]["groups"][d]["tasks"])]
        for run in table["runs"]:
            g = run["groups"][d]
            cells += [f"{g['passed']}/{g['conversations']} ({g['pass_rate']:.3f} [{g['ci']['low']:.3f}, "
                      f"{g['ci']['high']:.3f}])", f"{g['final_score']:.3f}", f"{g['owner_turns']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
