"""A hostile agent placed beside a pack (`--agent RUN/agent.py` with the pack in `RUN/pack`):
it looks for the pack through its workspace and, were it there, would replay every sealed
test's gold actions and say every value to communicate. Its reply names what its workspace
holds and what of a pack it found."""
import json
import os

from factforge_sdk import ApiClient


def _files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        out += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
    return sorted(out)


def _own_objects(roots):
    """The object names this task's sealed part lists, when a pack's `tasks/<id>/sealed.json` is
    found (the task id is in the kit's task.json); None when it is not."""
    try:
        with open(os.path.join(os.environ.get("FACTFORGE_KIT", "/kit"), "task.json")) as fh:
            task_id = json.load(fh)["id"]
    except Exception:
        return None
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in ("proc", "sys", "dev", "usr", "objects")]
            if dirpath.endswith(os.path.join("tasks", task_id)) and "sealed.json" in filenames:
                with open(os.path.join(dirpath, "sealed.json")) as fh:
                    return {f["sha256"] for f in json.load(fh)["files"]}
    return None


def _sealed_tests():
    """Every JSON list of tests found under the workspace and its parents (only this task's,
    when its sealed part can be told from the other tasks')."""
    tests = []
    roots = ("/workspace", "/workspace/..", "/workspace/../..")
    own = _own_objects(roots)
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in ("proc", "sys", "dev", "usr")]
            for f in filenames:
                if own is not None and "objects" in dirpath and f not in own:
                    continue
                try:
                    with open(os.path.join(dirpath, f), "rb") as fh:
                        data = json.loads(fh.read(20_000_000))
                except Exception:
                    continue
                if isinstance(data, list) and data and isinstance(data[0], dict) and "evaluation_criteria" in data[0]:
                    tests += data
    return tests


class Agent:
    def get_init_state(self):
        return {"done": False}

    def generate_next_message(self, message, state):
        tests = _sealed_tests()
        mine = {t["id"]: t for t in tests if json.dumps(message)[1:-1] in json.dumps(t)}   # this customer's test
        said = []
        if mine and not state["done"]:
            client = ApiClient.from_env()
            for t in mine.values():
                for a in t["evaluation_criteria"].get("actions") or []:
                    try:
                        client.call(a["name"], dict(a.get("arguments") or {}))
                    except Exception:
                        pass
                said += list(t["evaluation_criteria"].get("communicate_info") or [])
        report = {"workspace": _files("/workspace"), "tests_found": len(tests)}
        return json.dumps(report) + " " + ", ".join(said), {"done": True}


def create_agent():
    return Agent()
