"""Benchmark: real coding agents as developers, each against a scripted model, end to end.

    python benchmarks/bench_adapters.py [--prefix DIR] [--install] [--only claude-code,codex,...]

For each adapter (Claude Code, Codex, OpenCode and mini-swe-agent), the real program, found under
`--prefix` (an npm prefix; `$FACTFORGE_DEVELOPER_PREFIX`), in the venv or on PATH, takes the
`_mock-client-knows` task of a freshly built `_mock` pack in its bubblewrap boundary. Its model is
the scripted model server, outside the boundary, reached through the loopback relay and the
engagement's provider proxy (which adds a key the program never sees). The scripted turns, in
the program's own tool names, ask the owner, write agent.py, run a live experiment and submit;
then the program says it is done. Printed: program, version, agent turns read back from its
trajectory, the engagement's tools called, the final score, the developer's wall seconds, the
metered tokens against the scripted ones, and how it ended.

`--install` first runs `npm install --prefix DIR` of the three npm packages into `--prefix`
(default /tmp/factforge-agents), from the registry.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from outputs.engage import adapters  # noqa: E402
from outputs.engage.run import EngageConfig, run_engagement  # noqa: E402
from outputs.engage.scripted_model import ScriptedModel  # noqa: E402

TASK = "_mock-client-knows"
KEY = "sk-bench-key-never-inside"
QUESTION = "Do pass holders get a discount on late fees?"
AGENT = textwrap.dedent('''
    class Agent:
        def get_init_state(self):
            return {}

        def generate_next_message(self, message, state):
            return "Thank you for contacting Pedalwise Rentals. The security deposit is $50.00 per bike.", state


    def create_agent():
        return Agent()
''')
WRITE = f"cat > agent.py <<'EOF'\n{AGENT}EOF"
GREETING = "Thank you for contacting Pedalwise Rentals."   # what every model of the task's experiments answers
NPM = ["@anthropic-ai/claude-code", "@openai/codex", "opencode-ai"]


def turn(text: str, calls: list[tuple[str, dict]], i: int, o: int) -> dict:
    return {"text": text, "tool_calls": [{"name": n, "arguments": a} for n, a in calls],
            "input_tokens": i, "output_tokens": o}


def mcp_turns(prefix: str, write: tuple[str, dict], namespace: str = "") -> list[dict]:
    """The scripted session of an MCP program whose tools are named PREFIX + tool (or, for the
    Responses API's namespaced tools, NAMESPACE and the tool)."""
    def ff(tool: str, args: dict) -> dict:
        return {"name": prefix + tool, "arguments": args, **({"namespace": namespace} if namespace else {})}
    return [{**turn("I ask the owner first.", [], 2000, 40), "tool_calls": [ff("ask_owner", {"message": QUESTION})]},
            turn("Now the agent.", [write], 2400, 160),
            {**turn("", [], 2600, 20), "tool_calls": [ff("run_live", {})]},
            {**turn("", [], 2800, 20), "tool_calls": [ff("submit", {"note": "a first agent"})]},
            turn("Submitted.", [], 3000, 10)]


def scripts() -> dict[str, tuple[str, list[dict]]]:
    return {
        "claude-code": ("claude-sonnet-4-5", mcp_turns("mcp__ff__", ("Bash", {"command": WRITE}))),
        "codex": ("gpt-5", mcp_turns("", ("exec_command", {"cmd": WRITE}), namespace="mcp__ff")),
        # OpenCode first asks its model for the session's title
        "opencode": ("gpt-5", [turn("Engagement", [], 300, 5),
                               *mcp_turns("ff_", ("bash", {"command": WRITE, "description": "Write agent.py"}))]),
        "mini-swe-agent": ("openai/gpt-4.1-mini", [
            turn("I ask the owner first.", [("bash", {"command": f'ff ask "{QUESTION}"'})], 2000, 40),
            turn("Now the agent.", [("bash", {"command": f"cat > agent.py <<'EOF'\n{AGENT}EOF"})], 2400, 160),
            turn("", [("bash", {"command": "ff live"})], 2600, 20),
            turn("Done.", [("bash", {"command": 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; ff submit "a first agent"'})],
                 2800, 20)]),
    }


def build_pack(where: Path) -> Path:
    from outputs.packs.build import BuildOptions, build_pack as build  # noqa: PLC0415
    path, _, _ = build(where / "pack", ["_mock"], opts=BuildOptions(seed=0, workspace=where / "ws"))
    return path


def run_one(name: str, pack: Path, where: Path, prefix: Path | None) -> dict:
    model_name, turns = scripts()[name]
    server = ScriptedModel(turns, api_key=KEY, count_tokens=100, models=(model_name,))
    url = server.start()
    os.environ["ANTHROPIC_API_KEY"] = os.environ["OPENAI_API_KEY"] = KEY
    t0 = time.perf_counter()
    try:
        rec = run_engagement(EngageConfig(pack=pack, task=TASK, developer=name, out=where / name,
                                          developer_model=model_name, developer_prefix=prefix,
                                          developer_upstream=url, gateway_mock_response=GREETING))
    finally:
        server.stop()
    (where / f"{name}.requests.json").write_text(json.dumps(server.received, indent=1, default=str))
    m, tr = rec["developer_model"] or {}, rec["trajectory"] or {}
    generating = [r for r in server.received if not r["path"].startswith("/v1/messages/count_tokens")
                  and r["method"] == "POST"]
    scripted_in = sum(t["input_tokens"] for t in turns[:len(generating)])
    scripted_out = sum(t["output_tokens"] for t in turns[:len(generating)])
    used = {k: v for k, v in (("ask_owner", rec["tools"]["owner"]["turns"]), ("run_live", rec["tools"]["live"]["runs"]),
                              ("submit", int(rec["tools"]["submitted"]))) if v}
    return {"program": name, "version": tr.get("agent", {}).get("version") or "-",
            "turns": tr.get("agent_steps", 0), "tools": ", ".join(f"{k} {v}" for k, v in used.items()) or "none",
            "score": rec["score"]["final_score"], "seconds": rec["time"]["wall_seconds"],
            "engagement_seconds": round(time.perf_counter() - t0, 1),
            "tokens": f"{m.get('input_tokens', 0)}+{m.get('output_tokens', 0)}",
            "scripted": f"{scripted_in}+{scripted_out}", "calls": m.get("calls", 0),
            "ended": rec["end"]["reason"], "agent_py": (where / name / "workspace" / "agent.py").read_text() == AGENT}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", type=Path, default=os.environ.get("FACTFORGE_DEVELOPER_PREFIX"))
    ap.add_argument("--install", action="store_true", help="npm install the three npm programs into --prefix")
    ap.add_argument("--only", default=",".join(scripts()), help="comma-separated adapters")
    args = ap.parse_args()
    if args.install:
        args.prefix = args.prefix or Path("/tmp/factforge-agents")
        subprocess.run(["npm", "install", "--prefix", str(args.prefix), "--no-fund", "--no-audit", *NPM], check=True)
    where = Path(tempfile.mkdtemp(prefix="bench-adapters-"))
    pack = build_pack(where)
    rows = []
    for name in args.only.split(","):
        a = adapters.load(name)
        if a.find(args.prefix) is None:
            print(f"{name}: not installed ({a.install_hint()})", file=sys.stderr)
            continue
        rows.append(run_one(name, pack, where, args.prefix))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    cols = ["program", "version", "turns", "tools", "score", "seconds", "tokens", "scripted", "ended", "agent_py"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{r[c]:.4f}" if c == "score" else str(r[c]) for c in cols) + " |")
    print(f"(engagements in {where})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
