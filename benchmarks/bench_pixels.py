"""Pixels that take reading: render and read back the two OCR kinds whose values only an image
carries, over many real facts, and print seconds and recall.

- **visuals/chart**: every fact of each domain the chart can draw (`Chart.carries`), a section's
  facts together in dashboards of at most `max_facts` (as the planner hands them out);
- **documents/scanned_letter**: facts of each domain in letters of five (every `--stride`-th
  chunk of the fact list, so the letters span the policy), each letter with the customer's wrong
  figure for its first value fact quoted and corrected.

Each file is rendered (seconds), extracted by the kind's own extractor (seconds: OCR by
panel; pdftoppm, deskew and tesseract), and every planned fact is matched with the audits'
matcher (`facts.match`) on the extracted text: recovered/total. Misses are listed.

    python benchmarks/bench_pixels.py [--domains airline retail telecom banking] [--letters 8] [--stride 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


def chunks_by_section(facts, size):
    out, cur, sec = [], [], None
    for f in facts:
        if cur and (tuple(f.section) != sec or len(cur) >= size):
            out.append(cur)
            cur = []
        cur.append(f)
        sec = tuple(f.section)
    if cur:
        out.append(cur)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--domains", nargs="+", default=["airline", "retail", "telecom", "banking"])
    ap.add_argument("--letters", type=int, default=8, help="scanned letters per domain")
    ap.add_argument("--stride", type=int, default=3, help="take every n-th chunk of five facts for letters")
    ap.add_argument("--max-charts", type=int, default=40, help="dashboards per domain at most")
    ap.add_argument("--kinds", nargs="+", default=["chart", "letter"], choices=["chart", "letter"])
    args = ap.parse_args()

    from domains import get_pack
    from facts.match import TextIndex, match_fact
    from facts.models import SlotType
    from transforms import registry
    from transforms.base import ExtractContext, RenderContext
    from transforms.plan import ArtifactSpec, Distractor, FactMention
    from transforms.plan_roles import wrong_value
    from transforms.voicing import voiceable
    from transforms.writers import BuiltinWriter

    chart, letter = registry.get("visuals/chart"), registry.get("documents/scanned_letter")
    totals = {k: [0, 0, 0.0, 0.0, 0] for k in ("chart", "letter")}  # recovered, total, render s, extract s, files
    misses: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-pixels-") as tmp:
        for dom in args.domains:
            pack = get_pack(dom)
            fs = pack.factset()
            ctx = RenderContext(pack=pack, facts=fs.by_id(), writer=BuiltinWriter(pack), db=pack.database(0),
                                workdir=Path(tmp))
            work = []
            drawable = [f for f in fs.facts if chart.carries(f)]
            for i, group in enumerate(chunks_by_section(drawable, chart.max_facts)[: args.max_charts]
                                      if "chart" in args.kinds else []):
                work.append(("chart", chart, group, []))
            fives = [fs.facts[i:i + 5] for i in range(0, len(fs.facts), 5)][:: max(1, args.stride)][: args.letters]
            for group in (fives if "letter" in args.kinds else []):
                wrong = []
                for f in group:
                    s = next((s for s in f.slots if s.type in (SlotType.money, SlotType.percent, SlotType.duration)
                              and isinstance(s.value, (int, float))), None)
                    wv = wrong_value(s, __import__("random").Random(f.id)) if s is not None else None
                    if wv:
                        wrong = [Distractor(fact_id=f.id, slot=s.name, text=wv, role="distractor",
                                            resolution="correction")]
                        break
                work.append(("letter", letter, group, wrong))
            per = {k: [0, 0, 0.0, 0.0, 0] for k in ("chart", "letter")}
            for n, (name, kind, group, wrong) in enumerate(work):
                spec = ArtifactSpec(id=f"{kind.kind}-{n + 1:04d}", kind=kind.key(), path=f"x{kind.ext}", seed=n + 1,
                                    date="2026-04-14", title=" / ".join(group[0].section),
                                    facts=[FactMention(fact_id=f.id, rendition="voiced" if kind.voices and i % 2 == 0
                                                       and voiceable(f) else "canonical")
                                           for i, f in enumerate(group)],
                                    distractors=wrong)
                out = Path(tmp) / f"{dom}-{n}{kind.ext}"
                t0 = time.perf_counter()
                kind.render(spec, ctx, out)
                t1 = time.perf_counter()
                text = kind.extract(out, ExtractContext()).text
                t2 = time.perf_counter()
                idx = TextIndex(text, pack.info.currency)
                ok = [f for f in group if match_fact(f, idx).recovered]
                for f in group:
                    if f not in ok:
                        misses.append(f"{dom} {name} {out.name}: {f.statement}")
                for acc in (per[name], totals[name]):
                    acc[0] += len(ok)
                    acc[1] += len(group)
                    acc[2] += t1 - t0
                    acc[3] += t2 - t1
                    acc[4] += 1
            for name, (r, tot, rs, es, files) in per.items():
                if files:
                    print(f"{dom:8s} {name:6s} files {files:3d}  facts {r}/{tot}  render {rs / files:.2f} s/file  "
                          f"extract {es / files:.2f} s/file", flush=True)
    print("-" * 78)
    for name, (r, tot, rs, es, files) in totals.items():
        if files:
            print(f"{'all':8s} {name:6s} files {files:3d}  facts {r}/{tot} ({100 * r / max(tot, 1):.1f}%)  "
                  f"render {rs:.1f} s ({rs / files:.2f}/file)  extract {es:.1f} s ({es / files:.2f}/file)")
    for m in misses:
        print("missed:", m)
    return 0 if not misses else 1


if __name__ == "__main__":
    raise SystemExit(main())
