"""Speech recognition on the built-in domains' audio: seconds per clip and recall.

Renders every call, voicemail and screen recording the default plan (seed 0) gives each
built-in domain (and `_mock`), then extracts each clip the way a build does (its kind's
extractor with the file's scoped vocabulary, audits.extraction) and prints:

- CPU seconds per clip (this process and its children: ffmpeg, tesseract for video frames)
  and wall seconds;
- recall: the planned facts recovered from the speech transcript alone, and from the whole
  extraction (for a screen recording, OCR of its frames too: what the gate sees);
- wrong values heard: distractor and superseded values the file speaks, found in the
  transcript (the recogniser must hear a wrong value as what it is);
- a control: each call or voicemail recognised with the vocabulary of another clip of its
  domain; facts of that other clip "recovered" from it would mean the vocabulary, not the
  audio, decided.

    python benchmarks/bench_asr.py [--domains airline retail] [--cache DIR] [--workers N]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

DOMAINS = ["_mock", "airline", "retail", "telecom", "banking"]


def _cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def main() -> None:
    from audits.extraction import speech_candidates
    from audits.match import TextIndex, match_fact
    from domains import get_pack
    from facts.values import parse_slots
    from transforms import registry
    from transforms.base import ExtractContext, RenderContext
    from transforms.planner import plan_evidence
    from transforms.pool import get_pool
    from transforms.render import render_artifacts
    from transforms.writers import BuiltinWriter

    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", nargs="*", default=DOMAINS)
    ap.add_argument("--cache", type=Path, default=None, help="render cache to reuse (default: a temporary one)")
    ap.add_argument("--workers", type=int, default=0, help="processes rendering the clips (default: every core)")
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="ffasr-")
    cache = a.cache or Path(tmp.name)
    (cache / "tmp").mkdir(parents=True, exist_ok=True)
    tot: dict[str, float] = defaultdict(float)
    print(f"{'domain':8} {'clip':26} {'cpu s':>6} {'wall s':>6}  recall(speech) recall(gate) wrong-values-heard")
    for d in a.domains:
        pack = get_pack(d)
        fs = pack.facts
        by_id = fs.by_id()
        plan = plan_evidence(fs, 0, now=pack.info.now)
        specs = [s for s in plan.artifacts if registry.get(s.kind).modality in ("wav", "mp4")]
        ctx = RenderContext(pack=pack, facts=by_id, writer=BuiltinWriter(pack), db=pack.database(0),
                            workdir=cache / "tmp")
        rendered = render_artifacts(specs, ctx, cache / "render", pool=get_pool("local", a.workers))
        for spec, r in zip(specs, rendered):
            t = registry.get(spec.kind)
            ectx = ExtractContext(candidates=speech_candidates(spec, by_id), workdir=cache / "tmp")
            c0, w0 = _cpu(), time.perf_counter()
            ex = t.extract(Path(r.file), ectx)
            dc, dw = _cpu() - c0, time.perf_counter() - w0
            speech = TextIndex(ex.parts.get("audio", ex.text))
            whole = TextIndex(ex.text)
            rec = sum(match_fact(by_id[m.fact_id], speech, speech=True).recovered for m in spec.facts)
            gate = sum(match_fact(by_id[m.fact_id], whole, speech=t.modality == "wav").recovered for m in spec.facts)
            wrong = [s for dd in spec.distractors for s in parse_slots(dd.text)]
            heard = sum(bool(speech.occurrences(s)) for s in wrong)
            for k, v in (("cpu", dc), ("wall", dw), ("facts", len(spec.facts)), ("rec", rec), ("gate", gate),
                         ("wrong", len(wrong)), ("heard", heard), ("clips", 1), (f"cpu {t.modality}", dc),
                         (f"clips {t.modality}", 1)):
                tot[k] += v
            print(f"{d:8} {spec.id:26} {dc:6.2f} {dw:6.2f}  {rec}/{len(spec.facts):<13} {gate}/{len(spec.facts):<11} "
                  f"{heard}/{len(wrong)}", flush=True)
        wavs = [(s, r) for s, r in zip(specs, rendered) if registry.get(s.kind).modality == "wav"]
        for i, (si, ri) in enumerate(wavs):
            sj = wavs[(i + 1) % len(wavs)][0]
            foreign = [m.fact_id for m in sj.facts if m.fact_id not in set(si.fact_ids)]
            if sj.id == si.id or not foreign:
                continue
            ex = registry.get(si.kind).extract(Path(ri.file), ExtractContext(candidates=speech_candidates(sj, by_id),
                                                                             workdir=cache / "tmp"))
            idx = TextIndex(ex.text)
            tot["control"] += len(foreign)
            tot["control_false"] += sum(match_fact(by_id[f], idx, speech=True).recovered for f in foreign)
    n = tot["clips"] or 1
    print(f"\n{int(tot['clips'])} clips: {tot['cpu'] / n:.2f} s CPU and {tot['wall'] / n:.2f} s wall per clip "
          f"(wav {tot['cpu wav'] / max(tot['clips wav'], 1):.2f} s, mp4 {tot['cpu mp4'] / max(tot['clips mp4'], 1):.2f} s "
          f"CPU, mp4 including OCR of its frames)")
    print(f"facts recovered from the speech transcript: {int(tot['rec'])}/{int(tot['facts'])}; "
          f"by the gate's extraction: {int(tot['gate'])}/{int(tot['facts'])}")
    print(f"wrong values heard: {int(tot['heard'])}/{int(tot['wrong'])}")
    print(f"control (another clip's vocabulary): {int(tot['control_false'])}/{int(tot['control'])} "
          f"of its facts falsely recovered")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
