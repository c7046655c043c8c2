"""Which simulations a task trains on, runs live and is tested on: one rule for `pack build`
and `pack pin-ids`.

A simulation is *eligible*
- as a held-out id (live or test, from the `test_seed` suite) when every fact it exercises is
  learnable: recoverable from the task's delivered files or known to its client;
- as a training id (from the build seed's suite) when every fact it exercises is recoverable
  from the delivered files and none is held or contested (its gold, shipped in the kit, would
  settle what only the client knows).

Eligible simulations are ranked in a stable per-task order, `content_hash([task id, simulation
id])`, so the same task on the same suites always gets the same ids, and another task of the
domain gets another order.

A spec's `[ids] select` says how its id lists are read:
- `"pinned"`: the lists are the ids; an id that does not resolve or is not eligible fails
  the build (the checks name it);
- `"learnable"`: the lists are preferences and fix the counts. Every pinned id that
  resolves and is eligible is kept, in the spec's order; each one that is not is replaced
  by the first eligible simulation of the stable order that no list uses yet. The pack
  records what was chosen and every replacement (`Choice.replaced`), so a corpus change
  that makes a pinned id unlearnable changes the task's ids visibly instead of breaking
  its build. Only too few eligible simulations fail it, and `pack pin-ids` leaves
  `SPARE_SHARE` of the eligible tests unpinned for that reason (`spare_count`).

Held-out ids pass the sealing gate besides (`outputs.packs.gate`: neither the null agent nor
the policy reciter passes them, the confident guesser passes only what the naive agent
passes, and no trap falls to the naive agent); a refused one is replaced like an
unlearnable one under `"learnable"`, and fails the build under `"pinned"`. At most
`PLAIN_SHARE` of a task's tests (rounded down) are *plain*, tests the naive agent passes
because the customer asks for what the policy allows: a plain test over that share is
replaced by one that is not plain (`"learnable"`) or fails the build (`"pinned"`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from facts.hashing import content_hash

PLAIN_SHARE = 0.10
SPARE_SHARE = 0.10


def plain_cap(n_tests: int) -> int:
    """How many of a task's `n_tests` tests may be plain."""
    return int(n_tests * PLAIN_SHARE + 1e-9)


def spare_count(n_eligible: int) -> int:
    """How many of `n_eligible` held-out tests a `"learnable"` spec leaves unpinned when its ids
    are pinned (`pack pin-ids`): the spares a later corpus change draws on to replace a test it
    made unlearnable, instead of failing the build for want of one."""
    return math.ceil(n_eligible * SPARE_SHARE) if n_eligible > 1 else 0


def stable_order(task_id: str, sims: Iterable) -> list:
    """`sims` in the task's stable order."""
    return sorted(sims, key=lambda t: content_hash([task_id, t.id]))


def learnable_test(t, learnable: set[str]) -> bool:
    return set(t.factforge.fact_ids) <= learnable


def learnable_training(t, recovered: set[str], secret: set[str]) -> bool:
    facts = set(t.factforge.fact_ids)
    return facts <= recovered and not facts & secret


def publishes(t, hidden: Iterable[str]) -> Optional[str]:
    """Why a training scenario may not ship: its gold calls an operation the task's contract
    hides (a capability), which the kit's scenarios would then name; None otherwise."""
    names = sorted({c.name for c in t.gold_calls()} & set(hidden))
    return f"its gold calls {names[0]}, an operation the kit's contract does not publish" if names else None


@dataclass
class Choice:
    """The ids chosen for one task."""
    training: list = field(default_factory=list)
    live: list = field(default_factory=list)
    tests: list = field(default_factory=list)
    replaced: dict[str, list[dict]] = field(default_factory=dict)  # list name -> [{"pinned", "chosen", "why"}]
    problems: list[str] = field(default_factory=list)


def _why(tid: str, pool: dict, ok, gate: Optional[Callable] = None,
         hidden: Iterable[str] = ()) -> Optional[str]:
    if tid not in pool:
        return "does not resolve"
    if not ok(pool[tid]):
        return "not learnable"
    if hidden and publishes(pool[tid], hidden):
        return publishes(pool[tid], hidden)
    if gate is not None:
        why = gate(pool[tid])
        if why is not None:
            return f"refused by the sealing gate: {why}"
    return None


def _fill(name: str, pinned: list[str], pool: dict, ok, ranked: list, used: set[str], choice: Choice,
          gate: Optional[Callable] = None, plain: Optional[Callable] = None, hidden: Iterable[str] = ()) -> list:
    """The pinned ids that are good, then a replacement for each that is not. `used` holds every
    good pinned id of every list (reserved for its own list) and grows with each replacement.
    `gate` (held-out lists) refuses a test with a reason; it is asked lazily, in ranked order.
    `plain` (the test list) tells a plain test: at most `plain_cap(len(pinned))` are kept."""
    cap = plain_cap(len(pinned)) if plain is not None else None
    n_plain = 0
    out, dropped = [], []
    for tid in pinned:
        why = _why(tid, pool, ok, gate, hidden)
        if why is None and cap is not None and plain(pool[tid]):
            if n_plain >= cap:
                why = f"a plain test over the task's share (the naive agent passes it; at most {cap})"
            else:
                n_plain += 1
        if why is None:
            out.append(pool[tid])
        else:
            dropped.append((tid, why))
    spare = (t for t in ranked if t.id not in used and (gate is None or gate(t) is None)
             and not (hidden and publishes(t, hidden)))
    for tid, why in dropped:
        t = next((t for t in spare if cap is None or n_plain < cap or not plain(t)), None)
        if t is None:
            choice.problems.append(f"only {len(out)} eligible simulations for the {len(pinned)} {name} ids "
                                   f"(pinned {tid} {why}; nothing left to take its place)")
            break
        n_plain += bool(cap is not None and plain(t))
        used.add(t.id)
        out.append(t)
        choice.replaced.setdefault(name, []).append({"pinned": tid, "chosen": t.id, "why": why})
    return out


def choose(task_id: str, pinned: dict[str, list[str]], dev: dict, held_out: dict, learnable: set[str],
           recovered: set[str], secret: set[str], gate: Optional[Callable] = None,
           plain: Optional[Callable] = None, hidden: Iterable[str] = ()) -> Choice:
    """Ids under `select = "learnable"`: `pinned` maps "training", "live", "test" to the spec's
    lists; `dev` and `held_out` map simulation ids of the build-seed and test-seed suites.
    `gate(test) -> reason or None` is the sealing gate (`outputs.packs.gate`): a held-out
    test it refuses is replaced like an unlearnable one; `plain(test) -> bool` tells the plain
    tests, of which the test list keeps at most its share. `hidden`: the task's capabilities,
    which no training scenario's gold may call (`publishes`)."""
    choice = Choice()

    def ok_test(t) -> bool:
        return learnable_test(t, learnable)

    def ok_training(t) -> bool:
        return learnable_training(t, recovered, secret)

    ranked_dev = stable_order(task_id, (t for t in dev.values() if ok_training(t)))
    ranked_held = stable_order(task_id, (t for t in held_out.values() if ok_test(t)))
    used_dev = {tid for tid in pinned["training"] if _why(tid, dev, ok_training, hidden=hidden) is None}
    used_held = {tid for tid in (*pinned["live"], *pinned["test"]) if _why(tid, held_out, ok_test, gate) is None}
    choice.training = _fill("training", pinned["training"], dev, ok_training, ranked_dev, used_dev, choice,
                            hidden=hidden)
    choice.live = _fill("live", pinned["live"], held_out, ok_test, ranked_held, used_held, choice, gate)
    choice.tests = _fill("test", pinned["test"], held_out, ok_test, ranked_held, used_held, choice, gate, plain)
    return choice
