"""What a client's capabilities, fixes and stakeholders change, on the built-in tasks that have them.

    python benchmarks/bench_client_levers.py --pack PACK --out DIR [--task ID ...]

For a task whose client can switch a hidden operation on (and deploy a fix), two scripted
developers through `factforge engage` (the `ff` face): one tells the owner the integration
lacks the operation, accepts the offer and, where the owner can fix a defect, reports it as
its disclosure conditions ask; the other submits without asking. Each engagement's scored
deployment is then given to the oracle (`factforge eval --agent oracle` with the engagement's
`--enable` and `--fixed`), which is what a developer who built the perfect agent would score
under it. For a task with stakeholders, a scripted developer asks the person with the habit
about the disputed rule, asks who decides, then asks the person whose word decides. The
questions are the facts' statements with their values masked, read from the sealed part:
these are reference developers, not developers. Prints a markdown table per kind.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPLY = "Thank you for contacting us. Let me look into that for you."
REPORTS = {   # a report that meets the disclosure conditions of each fixable defect kind
    "post_commit_timeout": "{op} answered 504 Gateway Timeout, but the change went through anyway.",
    "rate_limit": "{op} answers 429 Too Many Requests after a few calls: is that a rate limit on your side?",
    "async_completion": "{op} answers 202 with a status URL and the change is still pending.",
    "projection_lag": "{op} still shows the old value right after a write: the read is stale.",
}


def masked(statement: str, values: list[str]) -> str:
    out = statement
    for v in sorted(values, key=len, reverse=True):
        out = re.sub(re.escape(v), "what", out, flags=re.IGNORECASE)
    return out.rstrip(". ")


def engage(pack: Path, task: str, steps: list[dict], out: Path) -> dict:
    from outputs.engage.run import EngageConfig, run_engagement

    script = out.parent / f"{out.name}.json"
    script.write_text(json.dumps({"face": "ff", "steps": steps}), encoding="utf-8")
    return run_engagement(EngageConfig(pack=pack, task=task, developer=f"scripted:{script}", out=out,
                                       gateway_mock_response=REPLY))


def oracle(pack: Path, task: str, scored: dict) -> tuple[float, int]:
    from outputs.evaluator.engine import EvalConfig, run_eval

    r = run_eval(EvalConfig(pack=pack, task=task, agent="oracle", trials=1, capabilities=scored["enabled"] or None,
                            fixes=[str(i) for i in scored["fixed"]] or None))
    return r.summary.final_score, r.summary.agent_errors


def capability_row(pack: Path, task: str, out: Path) -> dict:
    from outputs.api.deployment import parse_deployment
    from outputs.packs.store import Pack

    p = Pack(pack)
    client = p.json(task, "sealed", "client.json")
    sealed = p.json(task, "sealed", "task.json")
    tests = p.json(task, "sealed", "tests.json")
    cap = client["capabilities"][0]
    needing = sum(1 for t in tests if any(a["name"] == cap["operation"] for a in t["evaluation_criteria"]["actions"]))
    steps = [{"tool": "ask_owner", "args": {"message": f"Our agent needs to {cap['need']}, but the API has no "
                                                       "operation for that. Is there one?"}},
             {"tool": "ask_owner", "args": {"message": "Yes please, switch it on."}}]
    if client.get("can_deploy_fix"):
        from domains.variants import resolve

        text = p.read(task, "sealed", "deployment.toml").decode("utf-8")
        dep = parse_deployment(text, Path(f"{sealed['deployment']['id']}.toml"), resolve(sealed["bundle"]).api())
        for i in client["can_deploy_fix"]:
            d = dep.defects[i]
            steps.append({"tool": "ask_owner", "args": {"message": REPORTS[d.kind].format(op=d.operations[0])}})
    steps.append({"tool": "submit"})
    row = {"task": task, "tests": len(tests), "needing": needing, "operation": cap["operation"]}
    for name, s in (("asked", steps), ("silent", [{"tool": "submit"}])):
        t0 = time.perf_counter()
        rec = engage(pack, task, s, out / f"{task}-{name}")
        sd = rec["scored_deployment"]
        score, errors = oracle(pack, task, sd)
        row[name] = {"enabled": sd["enabled"], "fixed": sd["fixed"], "owner_turns": rec["tools"]["owner"]["turns"],
                     "oracle": score, "oracle_agent_errors": errors, "seconds": round(time.perf_counter() - t0, 1)}
    return row


def people_row(pack: Path, task: str, out: Path) -> dict:
    from outputs.packs.store import Pack

    client = Pack(pack).json(task, "sealed", "client.json")
    people = client["stakeholders"]
    habit_holder = next(p for p in people if p["habits"])
    fact = habit_holder["habits"][0]
    governor = next(p for p in people if any(h["fact_id"] == fact["fact_id"] for h in p["held"]))
    truth = next(h for h in governor["held"] if h["fact_id"] == fact["fact_id"])
    question = f"Could you tell me the rule here: {masked(truth['statement'], truth['values'])}?"
    steps = [{"tool": "ask_owner", "args": {"message": question, "role": habit_holder["role"]}},
             {"tool": "ask_owner", "args": {"message": f"Who has the final word on this: {question}"}},
             {"tool": "ask_owner", "args": {"message": question, "role": governor["role"]}},
             {"tool": "submit"}]
    rec = engage(pack, task, steps, out / f"{task}-people")
    tl = rec["timeline"]
    return {"task": task, "fact": fact["fact_id"], "habit": (habit_holder["role"], tl[0]["summary"]),
            "who": tl[1].get("kind"), "governor": (governor["role"], tl[2]["summary"]),
            "habit_value_heard": fact["values"], "truth": truth["values"],
            "people": {r: {k: v[k] for k in ("turns", "held_elicited", "habits_voiced", "cross_revealed")}
                       for r, v in rec["tools"]["people"].items()}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--task", action="append")
    args = ap.parse_args()
    from outputs.packs.store import Pack

    p = Pack(args.pack)
    args.out.mkdir(parents=True, exist_ok=True)
    caps, people = [], []
    for entry in p.tasks:
        if args.task and entry.id not in args.task:
            continue
        sealed = p.json(entry.id, "sealed", "task.json")
        if sealed.get("capabilities"):
            caps.append(capability_row(args.pack, entry.id, args.out))
            print(json.dumps(caps[-1]), flush=True)
        if sealed["spec"].get("stakeholders"):
            people.append(people_row(args.pack, entry.id, args.out))
            print(json.dumps(people[-1]), flush=True)
    print("\n| task | tests (need the operation) | asked: enabled, fixed | oracle under it | silent: oracle "
          "(agent errors) |\n|---|---|---|---|---|")
    for r in caps:
        a, s = r["asked"], r["silent"]
        print(f"| {r['task']} | {r['tests']} ({r['needing']} call {r['operation']}) | {', '.join(a['enabled'])}; "
              f"{a['fixed'] or 'none'} | {a['oracle']:.4f} | {s['oracle']:.4f} ({s['oracle_agent_errors']}) |")
    print("\n| task | disputed fact | habit holder says | who decides | governor says | cross reveals |\n"
          "|---|---|---|---|---|---|")
    for r in people:
        print(f"| {r['task']} | {r['fact']} | {r['habit'][0]}: {r['habit_value_heard']} | {r['who']} | "
              f"{r['governor'][0]}: {r['truth']} | {sum(len(v['cross_revealed']) for v in r['people'].values())} |")
    (args.out / "client_levers.json").write_text(json.dumps({"capabilities": caps, "people": people}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
