"""Benchmark: requests per second of the API server, clean and under defect deployments, and
replies per second of the offline client simulator.

    python benchmarks/bench_api.py [--seconds 5] [--clients 1,4] [--world airline] [--client-domains airline,banking]

The server runs in its own process (uvicorn, one worker, virtual clock), as in evaluation;
the load comes from this process over keep-alive HTTP connections (httpx), one thread per
client. The request mix is the world's reads (a user, a reservation, a user's reservations)
and, for the defect deployments, the operations their defects target. Each line prints the
deployment, the clients, requests per second, the status mix and the mean and p95 latency.
`legacy-responses` rewrites every answer (renamed fields, mapped values, datetimes),
`paged-and-async` pages a listing; `throttled-search` answers mostly 429s once its window
opens, so its figure is the cost of a refusal.

The client simulator part builds a client holding five facts of each domain (its index
covers the domain's whole fact set) and times 200 specific questions, one per fact.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEPLOYMENTS = ["clean", "legacy-responses", "paged-and-async", "throttled-search"]


def serve(world: str, deployment: str) -> None:
    """Child process: serve `world` under `deployment` and print the URL."""
    from domains import get_pack  # noqa: PLC0415
    from outputs.api.deployment import deployment_path, load_deployment  # noqa: PLC0415
    from outputs.api.server import ApiServer  # noqa: PLC0415

    path = deployment_path(get_pack(world.split("@")[0]).path, deployment)
    dep = load_deployment(path)[0] if path else None
    srv = ApiServer.from_world(world, dep, task_id=f"{world}-bench", clock="virtual")
    srv.serve_forever(ready=lambda: (print(srv.url), sys.stdout.flush()))


def paths(world: str) -> list[str]:
    from domains.variants import resolve  # noqa: PLC0415

    db = resolve(world).database(0)
    users = list(db["users"])[:20]
    res = list(db["reservations"])[:20]
    out = []
    for i in range(20):
        out += [f"/users/{users[i % len(users)]}", f"/reservations/{res[i % len(res)]}",
                f"/users/{users[i % len(users)]}/reservations"]
    for f in list(db["flights"].values())[:10]:
        out.append(f"/flights/search?origin={f['origin']}&destination={f['destination']}&date={next(iter(f['dates']))}")
    return out


def load(url: str, reqs: list[str], clients: int, seconds: float) -> dict:
    import httpx  # noqa: PLC0415

    stop = time.perf_counter() + seconds
    lat: list[float] = []
    status: Counter = Counter()
    lock = threading.Lock()

    def worker(k: int) -> None:
        mine, codes = [], Counter()
        with httpx.Client(base_url=url, timeout=30) as c:
            i = k
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                r = c.get(reqs[i % len(reqs)])
                mine.append(time.perf_counter() - t0)
                codes[r.status_code] += 1
                i += 1
        with lock:
            lat.extend(mine)
            status.update(codes)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    lat.sort()
    return {"rps": len(lat) / wall, "n": len(lat), "status": dict(sorted(status.items())),
            "mean_ms": 1000 * statistics.fmean(lat) if lat else 0.0,
            "p95_ms": 1000 * lat[int(0.95 * (len(lat) - 1))] if lat else 0.0}


def bench_client(domain: str) -> str:
    from domains.variants import resolve  # noqa: PLC0415
    from outputs.client.simulator import ClientSimulator  # noqa: PLC0415

    fs = resolve(domain).factset()
    held = [f for f in fs.facts if f.slots][:5]
    knowledge = {"turn_quota": 10_000, "held": [{"fact_id": f.id, "section": list(f.section), "statement": f.statement,
                                                  "values": [x.text for x in f.slots]} for f in held]}
    t0 = time.perf_counter()
    sim = ClientSimulator(knowledge, facts=fs)
    build = time.perf_counter() - t0
    questions = [f"Could you tell me this: {f.template()}?" for f in fs.facts[:200]]
    t0 = time.perf_counter()
    kinds = Counter(sim.reply(q).kind for q in questions)
    dt = time.perf_counter() - t0
    return (f"{domain:<9} {len(fs.facts):>6} {build:>8.2f} {len(questions) / dt:>10.0f} {1000 * dt / len(questions):>9.1f}  "
            f"{json.dumps(dict(sorted(kinds.items())))}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", default="1,4")
    ap.add_argument("--world", default="airline")
    ap.add_argument("--deployments", default=",".join(DEPLOYMENTS))
    ap.add_argument("--client-domains", default="airline,banking")
    ap.add_argument("--serve", nargs=2, metavar=("WORLD", "DEPLOYMENT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(*args.serve)
        return 0
    reqs = paths(args.world)
    print(f"{'deployment':<18} {'clients':>7} {'req/s':>8} {'requests':>9} {'mean ms':>8} {'p95 ms':>7}  statuses")
    for dep in args.deployments.split(","):
        proc = subprocess.Popen([sys.executable, __file__, "--serve", args.world, dep], stdout=subprocess.PIPE,
                                text=True, cwd=ROOT)
        try:
            url = proc.stdout.readline().strip()
            load(url, reqs, 1, 0.5)  # warm-up
            for n in (int(x) for x in args.clients.split(",")):
                r = load(url, reqs, n, args.seconds)
                print(f"{dep:<18} {n:>7} {r['rps']:>8.0f} {r['n']:>9} {r['mean_ms']:>8.2f} {r['p95_ms']:>7.2f}  "
                      f"{json.dumps(r['status'])}", flush=True)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print()
    print(f"{'client':<9} {'facts':>6} {'build s':>8} {'replies/s':>10} {'ms/reply':>9}  reply kinds")
    for d in filter(None, args.client_domains.split(",")):
        print(bench_client(d), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
