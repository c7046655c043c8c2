"""Export a pack's tasks in tau2-bench's format (`factforge pack export-tau2 PACK --out DIR`).

Per task, a tau2 domain data folder for the held-out database and one for the development
database (tau2 runs a tasks file against one database):

    DIR/<task_id>/tasks.json         live-experiment and test simulations (tau2 Task schema)
    DIR/<task_id>/split_tasks.json   {"live": [...], "test": [...], "live+test": [...]}
    DIR/<task_id>/db.json            the held-out test database they start from
    DIR/<task_id>/train/tasks.json, train/split_tasks.json ({"train": [...]}), train/db.json
                                     the training scenarios and the development database

Every task is tau2's `Task` as is (`user_scenario` with structured instructions,
`initial_state` null: the simulation starts from `db.json`, `evaluation_criteria` with
`actions`, `communicate_info`, `nl_assertions`, `reward_basis`); what tau2 does not know
sits under one key, `factforge`: the task pack id, the split, the database hashes, the trap
kind, the fact ids exercised, the scripted user, the naive reference actions, the
phrasing rules in force, and where the task has them its capabilities, the defects its client
can fix and its stakeholders (`client_levers`). Every file written is validated with `tau2_schema` first.
"""
from __future__ import annotations

from pathlib import Path

from domains.simtests import SimTest
from facts.errors import FactforgeError

from .store import Pack, json_bytes
from .tau2_schema import unknown_keys, validate_splits, validate_tasks


def client_levers(resolved: dict) -> dict:
    """What tau2 has no field for and a runner must know: the operations the deployment hides
    until the client switches them on, the defects it can fix, the people to ask (only when
    the task has them)."""
    out: dict = {}
    if resolved.get("capabilities"):
        out["capabilities"] = [c["operation"] for c in resolved["capabilities"]]
    if resolved.get("fixable"):
        out["fixable_defects"] = list(resolved["fixable"])
    people = resolved["spec"].get("stakeholders")
    if people:
        out["stakeholders"] = [{"role": p["role"], "governs": list(p["governs"])} for p in people]
    return out


def tau2_task(test: SimTest, extra: dict) -> dict:
    d = test.tau2()
    d["factforge"] = {**test.factforge.model_dump(mode="json"), **extra}
    return d


def _write(folder: Path, tasks: list[dict], splits: dict[str, list[str]], db: bytes) -> None:
    problems = validate_tasks(tasks) + validate_splits(splits, {t["id"] for t in tasks})
    for t in tasks:
        problems += [f"{t['id']}: key {k!r} outside tau2's schema" for k in unknown_keys(t) if k != "factforge"]
    if problems:
        raise FactforgeError(f"export does not validate against tau2's Task model: {problems[0]}", folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tasks.json").write_bytes(json_bytes(tasks))
    (folder / "split_tasks.json").write_bytes(json_bytes(splits))
    (folder / "db.json").write_bytes(db)


def export_tau2(pack: Pack, out: Path, task_ids: list[str] | None = None) -> list[Path]:
    out = Path(out)
    written = []
    for entry in pack.tasks:
        if task_ids and entry.id not in task_ids:
            continue
        resolved = pack.json(entry.id, "sealed", "task.json")
        common = {"task_pack_id": entry.id, "phrasing_rules": [r["id"] for r in resolved["phrasing"]["rules"]],
                  "deployment": resolved["deployment"]["id"], **client_levers(resolved)}
        tests = [SimTest.model_validate(t) for t in pack.json(entry.id, "sealed", "tests.json")]
        live = [SimTest.model_validate(t) for t in pack.json(entry.id, "sealed", "live.json")]
        held = [tau2_task(t, {**common, "split": "test", "db_hash": resolved["test_db_hash"]}) for t in tests]
        held += [tau2_task(t, {**common, "split": "live", "db_hash": resolved["test_db_hash"]}) for t in live]
        splits = {"live": [t.id for t in live], "test": [t.id for t in tests],
                  "live+test": [t.id for t in live] + [t.id for t in tests]}
        folder = out / entry.id
        _write(folder, held, splits, pack.read(entry.id, "sealed", "db.json"))
        train = pack.json(entry.id, "kit", "training/scenarios.json")
        ttasks = [{**s["task"], "factforge": {**common, "split": "train", "db_hash": train["initial_db_hash"],
                                              "expected_db_hash": s["expected_db_hash"]}}
                  for s in train["scenarios"]]
        _write(folder / "train", ttasks, {"train": [t["id"] for t in ttasks]},
               pack.read(entry.id, "kit", "data/dev_db.json"))
        written.append(folder)
    if task_ids:
        missing = set(task_ids) - {p.name for p in written}
        if missing:
            raise FactforgeError(f"no task {sorted(missing)[0]!r} in this pack")
    return written
