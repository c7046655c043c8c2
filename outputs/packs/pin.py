"""`factforge pack pin-ids`: write the `[ids]` table of task specs from the domain's suites.

Task specs list their training, live-experiment and test ids explicitly (a build never
guesses or drops an id). When a domain's simulations change (new scenarios, a new seed
database), an author re-pins them with this command instead of editing ids by hand. It
builds each task's evidence surface (through the shared caches) and picks, by the rule of
`outputs.packs.select` (eligibility and the stable per-task order):

- held-out ids (the `test_seed` suite) whose exercised facts are all learnable: recoverable
  from the task's kit or known to its client; the first `--live` of them in a stable
  per-task order are live experiments, the rest are tests (a fact the domain's own records
  contest, `plan.contested`, is known to an enabled client and learnable by no records-only
  task), and that the sealing gate admits (`outputs.packs.gate`), with as many plain tests
  (the naive agent passes them) as the share of `outputs.packs.select` allows;
- training ids (the build seed's suite) whose facts are all recoverable from the kit and
  none of them held or contested, by the task or by the records (their gold would settle
  what only the client knows);
  the first `--training` in the same stable order.

A spec that selects `"learnable"` ids is pinned with spares: the last `select.SPARE_SHARE` of
its eligible tests in the stable order stay unpinned, so that a later change to the records
that makes a pinned test unlearnable replaces it from them instead of failing the build.

Only the `[ids]` table of each file is rewritten; the rest of the file is kept as written.

`--repair` keeps what a `"learnable"` spec already pins: it writes down the ids a build of the
spec would choose (`select.choose`: every pinned id still eligible, in its place, and a
replacement from the stable order for each one that is not), and only for a spec whose
build would replace an id or fail for want of one; when the eligible tests ran out, the
tests keep `SPARE_SHARE` of them as spares. A spec whose ids all hold is not touched.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from pydantic import ValidationError

from domains import DomainPack
from facts.errors import FactforgeError

from .build import BuildOptions, DomainBuild, surface_of
from .client import client_facts
from .gate import gate_for, task_brand, task_rules
from .select import learnable_test, learnable_training, publishes, spare_count, stable_order
from .spec import LoadedSpec, TaskSpec, load_spec, read_toml, tasks_dir, validation_error


def _load_unpinned(path: Path) -> LoadedSpec:
    """A spec whose ids may still be empty (ids are what is being pinned)."""
    data, text = read_toml(path)
    ids = data.setdefault("ids", {})
    if not ids.get("test"):
        ids["test"] = ["(unpinned)"]
    ids.pop("training", None)
    ids.pop("live", None)
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as e:
        raise validation_error(e, path, text) from None
    return LoadedSpec(spec=spec, path=path, text=text, sha256="")


def _block(test_seed: int, training: list[str], live: list[str], test: list[str], select: str = "pinned") -> str:
    def arr(name: str, ids: list[str]) -> list[str]:
        if not ids:
            return [f"{name} = []"]
        return [f"{name} = [", *[f'  "{i}",' for i in ids], "]"]
    sel = [f'select = "{select}"'] if select != "pinned" else []
    return "\n".join(["[ids]", f"test_seed = {test_seed}", *sel, *arr("training", training), *arr("live", live),
                      *arr("test", test)]) + "\n"


def rewrite_ids(text: str, block: str) -> str:
    """`text` with its `[ids]` table replaced by `block` (appended when absent)."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.strip() == "[ids]"), None)
    if start is None:
        return text.rstrip("\n") + "\n\n" + block
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    tail = lines[end:]
    return "".join(lines[:start]) + block + ("\n" if tail and tail[0].strip() else "") + "".join(tail)


def pin_ids(pack: DomainPack, opts: BuildOptions, task_ids: Optional[list[str]] = None, n_training: int = 10,
            n_live: int = 8, test_seed: Optional[int] = None,
            done: Optional[Callable[[Path, int, int, int], None]] = None, repair: bool = False
            ) -> tuple[list[tuple[Path, int, int, int]], list[FactforgeError]]:
    """Re-pin the ids of the domain's task specs: (file, training, live, test) counts of the
    files rewritten, and the errors of the specs that could not be pinned (each names its
    file; the other specs are still pinned). `done` is called after each file is written.
    `repair`: only mend the ids of `"learnable"` specs whose build would replace one."""
    d = DomainBuild(pack, opts)
    out: list[tuple[Path, int, int, int]] = []
    failed: list[FactforgeError] = []
    paths = sorted(tasks_dir(pack).glob("*.toml"))
    if task_ids:
        missing = set(task_ids) - {p.stem for p in paths}
        if missing:
            raise FactforgeError(f"no task spec {sorted(missing)[0]!r} in {tasks_dir(pack)}")
    for path in paths:
        if task_ids and path.stem not in task_ids:
            continue
        try:
            row = _repair_one(path, d, opts) if repair else _pin_one(path, d, opts, n_training, n_live, test_seed)
        except FactforgeError as e:
            failed.append(e)
            continue
        if row is None:
            continue
        out.append(row)
        if done is not None:
            done(*row)
    return out, failed


def tests_with_plain_share(ranked: list, plain) -> list:
    """The tests of a pinned list: every eligible test that is not plain, and as many plain ones
    (in the stable order) as their share allows (`select.plain_cap` of the whole list)."""
    rest = [t for t in ranked if not plain(t)]
    extra = [t for t in ranked if plain(t)][:len(rest) // 9]   # p plain of n + p: p <= (n + p) / 10
    chosen = {t.id for t in rest + extra}
    return [t for t in ranked if t.id in chosen]


def _pin_one(path: Path, d: DomainBuild, opts: BuildOptions, n_training: int, n_live: int,
             test_seed: Optional[int]) -> tuple[Path, int, int, int]:
    ls = _load_unpinned(path)
    spec = ls.spec
    seed = spec.ids.test_seed if test_seed is None else test_seed
    surf = surface_of(ls, d)
    client_known, secret = client_facts(spec, surf.report.get("records_contested", {}))
    learnable = surf.recovered | client_known
    gate = gate_for(d, spec.evidence.bundle, seed, task_rules(spec), task_brand(d.world(spec.evidence.bundle)), spec.id)
    hidden = [c.operation for c in spec.client.capabilities]
    dev = stable_order(spec.id, (t for t in d.suite(spec.evidence.bundle, opts.seed).tests
                                 if learnable_training(t, surf.recovered, secret) and not publishes(t, hidden)))
    training = [t.id for t in dev[:n_training]]
    # the two suites can share a simulation (same scenario, same draw): it trains or it tests
    held_out = stable_order(spec.id, (t for t in d.suite(spec.evidence.bundle, seed).tests
                                      if t.id not in training and learnable_test(t, learnable)
                                      and gate.why(t) is None))
    if len(held_out) <= n_live:
        raise ls.error(f"only {len(held_out)} learnable simulations in the seed-{seed} suite "
                       f"outside training; {n_live} live ids would leave no test", "ids")
    live = [t.id for t in held_out[:n_live]]
    pool = held_out[n_live:]
    if spec.ids.select == "learnable":  # spares, for a corpus change to draw on
        pool = pool[:len(pool) - spare_count(len(pool))]
    test = [t.id for t in tests_with_plain_share(pool, gate.plain)]
    new = rewrite_ids(ls.text, _block(seed, training, live, test, spec.ids.select))
    path.write_text(new, encoding="utf-8")
    return path, len(training), len(live), len(test)


def _repair_one(path: Path, d: DomainBuild, opts: BuildOptions) -> Optional[tuple[Path, int, int, int]]:
    ls = load_spec(path)
    spec = ls.spec
    if spec.ids.select != "learnable":
        raise ls.error('--repair mends the ids of a spec that selects "learnable" ids; this one pins them', "ids")
    key = spec.evidence.bundle
    surf = surface_of(ls, d)
    gate = gate_for(d, key, spec.ids.test_seed, task_rules(spec), task_brand(d.world(key)), spec.id)
    ch = d.choose_ids(ls, surf.recovered, surf.report.get("records_contested", {}), gate)
    if not ch.replaced and not ch.problems:
        return None
    tests = [t.id for t in ch.tests]
    if ch.problems:  # the eligible tests ran out: keep spares of what is left
        tests = tests[:len(tests) - spare_count(len(tests))]
    training, live = [t.id for t in ch.training], [t.id for t in ch.live]
    path.write_text(rewrite_ids(ls.text, _block(spec.ids.test_seed, training, live, tests, spec.ids.select)),
                    encoding="utf-8")
    return path, len(training), len(live), len(tests)
