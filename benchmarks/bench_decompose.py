"""Decomposition throughput on the tau2-bench policies (read in place, never copied).

Decomposes every banking_knowledge document (title as the top heading) and the airline and
retail policies, printing documents, facts, unparsed lines, seconds and facts/second.

    python benchmarks/bench_decompose.py [--tau2 DIR]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from facts.decompose import decompose_markdown  # noqa: E402
from facts.errors import FactforgeError  # noqa: E402

DEFAULT_TAU2 = ROOT.parent / "shared" / "external" / "tau2-bench"


def bench_banking(folder: Path) -> dict:
    docs = sorted(folder.glob("*.json"))
    texts = []
    for p in docs:
        d = json.loads(p.read_text(encoding="utf-8"))
        texts.append((p.name, f"# {d['title']}\n\n{d['content']}"))
    facts = unparsed = errors = 0
    kinds: Counter = Counter()
    slot_types: Counter = Counter()
    reasons: Counter = Counter()
    t0, c0 = time.perf_counter(), time.process_time()
    for name, text in texts:
        try:
            fs = decompose_markdown(text, "banking", name)
        except FactforgeError as e:
            errors += 1
            print("error:", e.render())
            continue
        facts += len(fs.facts)
        unparsed += len(fs.unparsed)
        kinds.update(f.kind.value for f in fs.facts)
        slot_types.update(s.type.value for f in fs.facts for s in f.slots)
        reasons.update(u.reason for u in fs.unparsed)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"documents": len(texts), "facts": facts, "unparsed": unparsed, "errors": errors,
            "seconds": round(dt, 3), "cpu_seconds": round(cpu, 3), "facts_per_sec": round(facts / dt) if dt else 0,
            "kinds": dict(kinds.most_common()), "slot_types": dict(slot_types.most_common()),
            "unparsed_reasons": dict(reasons.most_common())}


def bench_policy(path: Path, domain: str, repeat: int = 20) -> dict:
    text = path.read_text(encoding="utf-8")
    fs = decompose_markdown(text, domain, path.name)
    t0 = time.perf_counter()
    for _ in range(repeat):
        decompose_markdown(text, domain, path.name)
    dt = (time.perf_counter() - t0) / repeat
    return {"facts": len(fs.facts), "unparsed": len(fs.unparsed), "slots": sum(len(f.slots) for f in fs.facts),
            "seconds": round(dt, 4), "facts_per_sec": round(len(fs.facts) / dt) if dt else 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tau2", type=Path, default=DEFAULT_TAU2)
    args = ap.parse_args()
    if not args.tau2.is_dir():
        sys.exit(f"tau2-bench checkout not found: {args.tau2}")
    for domain in ("airline", "retail"):
        p = args.tau2 / domain / "policy.md"
        if p.exists():
            print(f"{domain}: {json.dumps(bench_policy(p, domain))}")
    docs = args.tau2 / "banking_knowledge" / "documents"
    if docs.is_dir():
        r = bench_banking(docs)
        print(f"banking_knowledge: documents={r['documents']} facts={r['facts']} unparsed={r['unparsed']} "
              f"errors={r['errors']} seconds={r['seconds']} (cpu {r['cpu_seconds']}) facts/sec={r['facts_per_sec']}")
        print("  kinds:", json.dumps(r["kinds"]))
        print("  slot types:", json.dumps(r["slot_types"]))
        print("  unparsed reasons:", json.dumps(r["unparsed_reasons"]))


if __name__ == "__main__":
    main()
