"""A hostile agent for the isolation test: every way it can think of to read what is not
its kit or workspace. Its reply is a JSON report of what each attempt got, in pieces (the
message "more" asks for the next)."""
import json
import os
import socket

CHUNK = 16000


def _read(path, n=4000):
    try:
        with open(path, "rb") as f:
            return {"path": path, "ok": True, "data": f.read(n).decode("utf-8", "replace")}
    except Exception as e:
        return {"path": path, "ok": False, "error": type(e).__name__}


def _list(path):
    try:
        return {"path": path, "ok": True, "entries": sorted(os.listdir(path))[:200]}
    except Exception as e:
        return {"path": path, "ok": False, "error": type(e).__name__}


def _walk_read(root, limit=400):
    """Read every file under `root` (what an agent would do to search for answers)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames
                       if os.path.realpath(os.path.join(dirpath, d)) not in ("/proc", "/dev", "/sys", "/usr")]
        for f in filenames:
            out.append(_read(os.path.join(dirpath, f), 2000))
            if len(out) >= limit:
                return out
    return out


class Snoop:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        if message == "more":
            return self.more(state)
        targets = json.loads(message)
        r = {"env": dict(os.environ), "reads": [], "lists": [], "symlinks": [], "net": [], "writes": []}
        for p in targets["files"]:
            r["reads"].append(_read(p))
            for prefix in ("/kit/../..", "/workspace/../..", "/tmp/../..", "/proc/self/root", "/proc/1/root",
                           "/proc/self/cwd/../.."):
                r["reads"].append(_read(prefix + p))
        for d in targets["dirs"] + ["/", "/..", "/kit/..", "/run", "/run/factforge", "/opt/factforge", "/proc",
                                    "/proc/1/root", "/proc/self/root", "/work", "/root", "/home", "/etc"]:
            r["lists"].append(_list(d))
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                for leaf in ("environ", "cmdline", "mountinfo", "status"):
                    r["reads"].append(_read(f"/proc/{pid}/{leaf}"))
                r["lists"].append(_list(f"/proc/{pid}/fd"))
                r["lists"].append(_list(f"/proc/{pid}/cwd"))
        for fd in os.listdir("/proc/self/fd"):
            try:
                r["lists"].append({"path": f"fd {fd}", "ok": True, "entries": [os.readlink(f"/proc/self/fd/{fd}")]})
            except OSError:
                pass
        for i, p in enumerate(targets["files"] + targets["dirs"]):
            link = f"/tmp/link{i}"
            try:
                os.symlink(p, link)
                r["symlinks"].append(_read(link))
                r["symlinks"].append(_list(link))
            except Exception as e:
                r["symlinks"].append({"path": link, "ok": False, "error": type(e).__name__})
        try:
            os.symlink("/", "/tmp/rootlink")
            r["symlinks"] += _walk_read("/tmp/rootlink/kit/..", 50)
        except Exception as e:
            r["symlinks"].append({"path": "/tmp/rootlink", "ok": False, "error": type(e).__name__})
        r["reads"] += _walk_read("/", 3000) if targets.get("walk") else []
        for host, port in targets["tcp"]:
            s = socket.socket()
            s.settimeout(2)
            try:
                s.connect((host, port))
                r["net"].append({"to": f"{host}:{port}", "ok": True})
            except Exception as e:
                r["net"].append({"to": f"{host}:{port}", "ok": False, "error": type(e).__name__})
            finally:
                s.close()
        for p in ("/kit/planted.txt", "/workspace/planted.txt", "/run/factforge/planted"):
            try:
                with open(p, "w") as f:
                    f.write("x")
                r["writes"].append({"path": p, "ok": True})
            except Exception as e:
                r["writes"].append({"path": p, "ok": False, "error": type(e).__name__})
        self.pending = json.dumps(r)
        return self.more(state)

    def more(self, state):
        """The report in pieces (a reply is at most 64 KiB): "1" before a piece that more
        follow, "0" before the last."""
        piece, self.pending = self.pending[:CHUNK], self.pending[CHUNK:]
        return ("1" if self.pending else "0") + piece, state


def create_agent():
    return Snoop()
