"""Audit a built task pack from the outside and print the figures a release is judged by.

Reads only the pack (`outputs.packs.store.Pack`, every read re-checks its sha256) and the
domain code (to replay gold):

- tasks per domain and how many tasks move each of the seven levers;
- `pack verify`: seconds and problems; then one kit file's stored bytes are changed and
  verify must name that file (the bytes are restored afterwards);
- gold: every sealed test and live experiment replayed on a fresh copy of the sealed test
  database, every training scenario on the kit's development database; each must reach its
  expected database hash (mismatches are listed);
- the kit scan: files, characters and needles scanned, hits (must be 0), readers used;
- the tau2 export: every task exported and validated against tau2's Task model.

    python benchmarks/audit_pack.py PACK [--tau2-out DIR]
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _replay(world, db: dict, calls) -> str:
    from domains.apikit import db_hash
    db = pickle.loads(pickle.dumps(db, protocol=pickle.HIGHEST_PROTOCOL))
    world.api().replay(db, calls)
    return db_hash(db)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pack", type=Path)
    ap.add_argument("--tau2-out", type=Path, default=None, help="Where to export tau2 tasks (default: a temp dir).")
    args = ap.parse_args()

    from domains.apikit import Call
    from domains.simtests import SimTest
    from domains.variants import resolve
    from outputs.packs.build import summarise
    from outputs.packs.store import Pack, object_path, verify_pack
    from outputs.packs.tau2 import export_tau2
    from outputs.packs.tau2_schema import validate_tasks

    pack = Pack(args.pack)
    s = summarise(pack.tasks)
    print(f"tasks: {s['tasks']} ({', '.join(f'{k} {v}' for k, v in s['by_domain'].items())})")
    print("tasks moving each lever: " + ", ".join(f"{k} {v}" for k, v in s["tasks_moving_lever"].items()))
    print(f"levers covered: {len(s['levers_covered'])}/{len(s['tasks_moving_lever'])}")

    t0 = time.perf_counter()
    problems = verify_pack(args.pack)
    print(f"verify: {len(problems)} problems, {time.perf_counter() - t0:.1f}s")
    entry = pack.tasks[0]
    ref = next(f for f in pack.manifest(entry.id, "kit").files if f.path.startswith("evidence/"))
    obj = object_path(args.pack, ref.sha256)
    original = obj.read_bytes()
    try:
        obj.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
        tampered = verify_pack(args.pack)
    finally:
        obj.write_bytes(original)
    named = [p for p in tampered if ref.path in p]
    print(f"tampered kit file {entry.id} {ref.path}: verify reports {len(tampered)} problems, "
          f"{len(named)} naming the file; e.g. {named[0] if named else tampered[:1]}")
    print(f"verify after restoring: {len(verify_pack(args.pack))} problems")

    t0 = time.perf_counter()
    worlds, counts, bad = {}, Counter(), []
    for e in pack.tasks:
        w = worlds.setdefault(e.bundle, resolve(e.bundle))
        db = pack.json(e.id, "sealed", "db.json")
        for part in ("tests.json", "live.json"):
            for raw in pack.json(e.id, "sealed", part):
                t = SimTest.model_validate(raw)
                counts[part] += 1
                if _replay(w, db, t.gold_calls()) != t.factforge.expected_db_hash:
                    bad.append(f"{e.id} {part} {t.id}")
        train = pack.json(e.id, "kit", "training/scenarios.json")
        dev = pack.json(e.id, "kit", "data/dev_db.json")
        for sc in train["scenarios"]:
            counts["training"] += 1
            calls = [Call(name=a["name"], arguments=a["arguments"]) for a in sc["task"]["evaluation_criteria"]["actions"]]
            if _replay(w, dev, calls) != sc["expected_db_hash"]:
                bad.append(f"{e.id} training {sc['task']['id']}")
    total = sum(counts.values())
    print(f"gold replays: {total} ({counts['tests.json']} tests, {counts['live.json']} live, "
          f"{counts['training']} training), {len(bad)} to a wrong hash, {time.perf_counter() - t0:.1f}s"
          + (f"; e.g. {bad[:3]}" if bad else ""))

    scans = [pack.json(e.id, "sealed", "kit_scan.json") for e in pack.tasks]
    readers = Counter()
    for sc in scans:
        readers.update(sc.get("readers", {}))
    media = {k: v for k, v in readers.items() if k.split(":")[0] in ("png", "wav", "mp4", "pdf", "xlsx", "docx")}
    print(f"kit scan: {sum(sc['files_scanned'] for sc in scans)} files, "
          f"{sum(sc['chars_scanned'] for sc in scans) / 1e6:.1f} M characters, "
          f"{sum(sum(sc['needles'].values()) for sc in scans)} needles, "
          f"{sum(len(sc['hits']) for sc in scans)} hits; media readers: "
          + ", ".join(f"{k} {v}" for k, v in sorted(media.items())))

    with tempfile.TemporaryDirectory(prefix="audit-tau2-") as tmp:
        out = args.tau2_out or Path(tmp)
        t0 = time.perf_counter()
        folders = export_tau2(pack, out)
        n, probs = 0, []

        for f in folders:
            for tf in (f / "tasks.json", f / "train" / "tasks.json"):
                data = json.loads(tf.read_text(encoding="utf-8"))
                n += len(data)
                probs += validate_tasks(data)
        print(f"tau2 export: {len(folders)} tasks, {n} tau2 tasks validated against tau2's Task model, "
              f"{len(probs)} problems, {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
