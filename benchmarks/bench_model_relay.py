"""Benchmark: what the loopback relay and the provider proxy add to a developer's model call.

    python benchmarks/bench_model_relay.py [--calls 300] [--concurrency 8]

A scripted model server and the provider proxy run in one process (as they would in the
engagement's process: the scripted server stands in for the provider), the loopback relay in
its own, and this process is the developer's program. For each wire format, streamed and not,
`--calls` sequential calls over one keep-alive connection go straight to the scripted server
and then through relay and proxy; printed are the median and 95th percentile latency of each
and the median added. Then `--concurrency` threads each make calls through relay and proxy for
a fixed count and the calls per second are printed, with the proxy's metered total checked
against the scripted token counts.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
TURN = {"text": "The refund window is thirty days, per the owner; I will write that into the policy.",
        "tool_calls": [{"name": "ask_owner", "arguments": {"message": "Is the refund window 30 days?"}}],
        "input_tokens": 1500, "output_tokens": 80}

SERVE = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from outputs.engage.modelproxy import ModelProxy, Upstream
from outputs.engage.scripted_model import ScriptedModel
turn = json.loads(sys.argv[3])
up = ScriptedModel([turn], loop=True, api_key="bench-key")
url = up.start()
proxy = ModelProxy({"anthropic": Upstream("anthropic", url, "bench-key"), "openai": Upstream("openai", url, "bench-key")},
                   Path(sys.argv[2]) / "record").start(Path(sys.argv[2]) / "model.sock")
print(url, flush=True)
sys.stdin.readline()
proxy.settle()
print(json.dumps(proxy.summary()), flush=True)
proxy.stop()
up.stop()
"""

CALLS = {
    "anthropic messages": ("/v1/messages", {"model": "claude-sonnet-4-5", "max_tokens": 512,
                                             "messages": [{"role": "user", "content": "refund window?"}]}),
    "openai responses": ("/v1/responses", {"model": "gpt-4.1-mini", "input": "refund window?"}),
    "openai chat": ("/v1/chat/completions", {"model": "gpt-4.1-mini",
                                             "messages": [{"role": "user", "content": "refund window?"}]}),
}
HEADERS = {"x-api-key": "bench-key", "authorization": "Bearer bench-key", "anthropic-version": "2023-06-01"}


def timed_calls(base: str, path: str, body: dict, n: int) -> list[float]:
    out = []
    with httpx.Client(base_url=base, headers=HEADERS, timeout=30) as c:
        c.post(path, json=body).raise_for_status()   # the connection, not timed
        for _ in range(n):
            t = time.perf_counter()
            r = c.post(path, json=body)
            r.read()
            out.append(time.perf_counter() - t)
            assert r.status_code == 200, r.text
    return out


def ms(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        srv = subprocess.Popen([sys.executable, "-c", SERVE, str(ROOT), tmp, json.dumps(TURN)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
        direct = srv.stdout.readline().strip()
        relay = subprocess.Popen([sys.executable, str(ROOT / "outputs/engage/looprelay.py"), "--socket",
                                  f"{tmp}/model.sock", "--port", "0"], stdout=subprocess.PIPE, text=True)
        proxied = "http://" + relay.stdout.readline().split()[1]
        made = 0   # calls through the proxy, each metered
        try:
            print(f"{'call':32} {'direct p50/p95 ms':>18} {'relay+proxy p50/p95 ms':>23} {'added p50 ms':>13}")
            for name, (path, body) in CALLS.items():
                for stream in (False, True):
                    b = {**body, "stream": stream}
                    d = timed_calls(direct, path, b, args.calls)
                    p = timed_calls(proxied, path, b, args.calls)
                    made += args.calls + 1
                    label = f"{name} {'(SSE)' if stream else '(JSON)'}"
                    print(f"{label:32} {ms(d, .5):8.2f} / {ms(d, .95):6.2f}   {ms(p, .5):11.2f} / {ms(p, .95):7.2f}"
                          f"   {statistics.median(p) * 1000 - statistics.median(d) * 1000:11.2f}")
            per = max(1, args.calls // args.concurrency)
            path, body = CALLS["anthropic messages"]
            threads = [threading.Thread(target=timed_calls, args=(proxied, path, {**body, "stream": True}, per))
                       for _ in range(args.concurrency)]
            t = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            wall = time.perf_counter() - t
            made += args.concurrency * (per + 1)
            print(f"throughput: {args.concurrency} clients x {per} streamed Messages calls through relay+proxy: "
                  f"{args.concurrency * per / wall:.0f} calls/s")
        finally:
            relay.terminate()
            srv.stdin.write("\n")
            srv.stdin.flush()
            summary = json.loads(srv.stdout.readline())
            srv.wait(timeout=30)
        expect_in = made * TURN["input_tokens"]
        print(f"metered: {summary['calls']} calls (made {made}), {summary['input_tokens']} input tokens "
              f"(scripted {expect_in}), ${summary['cost_usd']:.4f}, {summary['failed']} failed")


if __name__ == "__main__":
    main()
