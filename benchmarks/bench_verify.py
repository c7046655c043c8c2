"""`factforge verify` on a huge bundle: time and peak memory for a manifest of N entries.

    python benchmarks/bench_verify.py [--entries 1000000] [--files] [--keep DIR]

Writes a valid bundle manifest with N file entries (each file 1 fact, 100 files per fact,
content hash computed as the writer does) in a temporary folder, optionally with the N
small files themselves (`--files`: 1,000 folders of 1,000), then runs `factforge verify` on
it in a child process and prints wall time and the child's peak RSS. Without `--files`
every entry is reported missing (N lines, sent to /dev/null), which exercises the manifest
stream and the problem path; with `--files` every file is opened and hashed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from outputs.bundle import BUNDLE_SCHEMA_VERSION, SEMVER, FileEntry, ManifestHasher  # noqa: E402


def _path(i: int) -> str:
    return f"evidence/d{i // 1000:04d}/f{i % 1000:04d}.txt"


def _content(i: int) -> bytes:
    return f"file {i}\n".encode()


def write_big_manifest(bundle: Path, n: int, with_files: bool = False) -> str:
    """A valid manifest of `n` entries in `bundle` (and the files when `with_files`);
    returns the bundle version."""
    bundle.mkdir(parents=True, exist_ok=True)
    header = {"schema_version": BUNDLE_SCHEMA_VERSION, "domain": "bench", "variant": None, "base_domain": None,
              "variant_spec_hash": None, "seed": 0, "generator_version": "bench", "facts_hash": "f",
              "plan_hash": "p", "bundle_version": f"{SEMVER}+"}
    h = ManifestHasher()
    entries = []
    for i in range(n):
        data = _content(i)
        e = FileEntry(path=_path(i), sha256=hashlib.sha256(data).hexdigest(), size=len(data),
                      family="conversations", kind="conversations/chat_transcript", artifact_id=f"a{i:07d}",
                      fact_ids=[f"bench.s.f{i // 100:05d}"])
        h.file(e)
        entries.append(json.dumps(e.model_dump(mode="json"), sort_keys=True))
        if with_files:
            p = bundle / e.path
            if i % 1000 == 0:
                p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
    index = []
    for g in range((n + 99) // 100):
        fid = f"bench.s.f{g:05d}"
        paths = [_path(i) for i in range(g * 100, min(n, g * 100 + 100))]
        h.index(fid, paths)
        index.append(f"{json.dumps(fid)}: {json.dumps(paths)}")
    digest = h.hexdigest(header)
    version = f"{SEMVER}+{digest[:12]}"
    with open(bundle / "manifest.json", "w", encoding="utf-8") as f:
        f.write("{\n")
        for k, v in sorted({**header, "bundle_version": version, "content_hash": digest}.items()):
            f.write(f"  {json.dumps(k)}: {json.dumps(v)},\n")
        f.write('  "fact_index": {\n    ' + ",\n    ".join(index) + "\n  },\n")
        f.write('  "files": [\n    ' + ",\n    ".join(entries) + "\n  ]\n}\n")
    return version


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=1_000_000)
    ap.add_argument("--files", action="store_true", help="also write the files (verify hashes all of them)")
    ap.add_argument("--keep", type=Path, help="build the bundle here and keep it")
    a = ap.parse_args()
    base = a.keep or Path(tempfile.mkdtemp(prefix="bench-verify-"))
    try:
        b = base / "bundle"
        t = time.perf_counter()
        write_big_manifest(b, a.entries, a.files)
        size = (b / "manifest.json").stat().st_size
        print(f"wrote {a.entries:,} entries ({size / 1e6:.0f} MB manifest{', with files' if a.files else ''}) "
              f"in {time.perf_counter() - t:.1f} s")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        t = time.perf_counter()
        with open(os.devnull, "w") as sink:
            r = subprocess.run([sys.executable, "-m", "pipeline.cli", "verify", str(b)], stdout=subprocess.PIPE,
                               stderr=sink, text=True, env=env, cwd=ROOT)
        wall = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"verify: exit {r.returncode}, {wall:.1f} s wall, peak RSS {peak:.0f} MB; {r.stdout.strip()[:120]}")
    finally:
        if a.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
