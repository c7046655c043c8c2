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
  audio, decided;
- with `--reference REV`: the speech recogniser of that git revision (its
  transforms/extract/asr.py, loaded beside the current one) on the same clips with the
  vocabulary it used (every spoken value of the domain plus the file's words): CPU seconds
  and recall from speech, side by side, in the same run and under the same load.

    python benchmarks/bench_asr.py [--domains airline retail] [--cache DIR] [--workers N] [--reference REV]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import subprocess
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


def reference_recogniser(rev: str, tmp: Path):
    """transforms/extract/asr.py as of git revision `rev`, imported as a sibling module (its
    relative imports resolve to the current package)."""
    src = subprocess.run(["git", "show", f"{rev}:transforms/extract/asr.py"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True).stdout
    path = tmp / "asr_reference.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("transforms.extract._asr_reference", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    from audits.extraction import SPOKEN_TYPES, speech_candidates
    from facts.surface import spoken_form
    from facts.match import TextIndex, match_fact
    from domains import get_pack
    from facts.values import parse_slots
    from transforms import registry
    from transforms.base import ExtractContext, RenderContext
    from transforms.extract import asr
    from transforms.planner import plan_evidence
    from transforms.pool import get_pool
    from transforms.render import render_artifacts
    from transforms.writers import BuiltinWriter

    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", nargs="*", default=DOMAINS)
    ap.add_argument("--cache", type=Path, default=None, help="render cache to reuse (default: a temporary one)")
    ap.add_argument("--workers", type=int, default=0, help="processes rendering the clips (default: every core)")
    ap.add_argument("--reference", default=None, help="git revision whose speech recogniser to compare with")
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="ffasr-")
    ref = reference_recogniser(a.reference, Path(tmp.name)) if a.reference else None
    cache = a.cache or Path(tmp.name)
    (cache / "tmp").mkdir(parents=True, exist_ok=True)
    tot: dict[str, float] = defaultdict(float)
    print(f"{'domain':8} {'clip':26} {'cpu s':>6} {'wall s':>6}  recall(speech) recall(gate) wrong-values-heard")
    for d in a.domains:
        pack = get_pack(d)
        fs = pack.facts
        by_id = fs.by_id()
        domain_values = sorted({spoken_form(s) for f in fs.facts for s in f.slots if s.type in SPOKEN_TYPES})
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
            line = (f"{d:8} {spec.id:26} {dc:6.2f} {dw:6.2f}  {rec}/{len(spec.facts):<13} {gate}/{len(spec.facts):<11} "
                    f"{heard}/{len(wrong)}")
            if ref is not None:  # speech recognition alone, current and reference, on this clip
                c0 = _cpu()
                asr.transcribe(r.file, list(ectx.candidates))
                nc = _cpu() - c0
                c0 = _cpu()
                old = TextIndex(ref.transcribe(r.file, sorted(set(domain_values) | set(ectx.candidates))))
                rc = _cpu() - c0
                rrec = sum(match_fact(by_id[m.fact_id], old, speech=True).recovered for m in spec.facts)
                for k, v in (("ref cpu", rc), ("ref rec", rrec), ("asr cpu", nc)):
                    tot[k] += v
                line += f"   ASR alone {nc:6.2f} s CPU; reference {rc:6.2f} s CPU, recall(speech) {rrec}/{len(spec.facts)}"
            print(line, flush=True)
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
    if ref is not None:
        print(f"speech recognition alone, CPU per clip: {tot['asr cpu'] / n:.2f} s now, {tot['ref cpu'] / n:.2f} s with "
              f"the recogniser of {a.reference} ({tot['ref cpu'] / max(tot['asr cpu'], 1e-9):.1f}x); reference recall "
              f"from speech {int(tot['ref rec'])}/{int(tot['facts'])}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
