"""Shared fixtures. The `_mock` domain is the default test domain; facts here are real Fact
objects built from its policy lines (not fakes of the product)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "external" / "tau2-bench"


# --------------------------------------------------------------------------- lanes and scheduling
#
# Two markers. `slow`: a test that takes more than about 1.5 s, or runs on the full `_mock`
# build; the fast lane (`-m "not slow"`) leaves it out. `end_to_end`: a long end-to-end test
# (a build, a guard over a built-in domain's tasks), slow too.
#
# Under xdist (`-n 3`, the README's command), the default `--dist load` runs here as "long
# first, by module": every `end_to_end` test is a work unit of its own and those units are
# handed out first, so the workers start with the long tests and finish together; every other
# test goes with the rest of its module as one unit (its module fixtures are set up once). The
# workers name the end-to-end tests to the controller (which collects nothing) in a file of the
# run's temporary folder.


def _end_to_end_list(base: Path) -> Path:
    return base / "end-to-end-tests.txt"


# A test on the full `_mock` build (every kind, audio and video) waits for that build: slow.
_BUILD_FIXTURES = {"mock_full_build", "mock_full_rebuild"}


def pytest_collection_modifyitems(config, items):
    for i in items:
        on_build = bool(_BUILD_FIXTURES & set(getattr(i, "fixturenames", ())))
        if (on_build or i.get_closest_marker("end_to_end")) and not i.get_closest_marker("slow"):
            i.add_marker(pytest.mark.slow)
    long = [i for i in items if i.get_closest_marker("end_to_end")]
    if long:
        ids = {i.nodeid for i in long}
        items[:] = long + [i for i in items if i.nodeid not in ids]
    if os.environ.get("PYTEST_XDIST_WORKER"):
        path = _end_to_end_list(config._tmp_path_factory.getbasetemp().parent)
        tmp = path.with_name(f"{path.name}.{os.environ['PYTEST_XDIST_WORKER']}")
        tmp.write_text("".join(f"{i.nodeid}\n" for i in long))
        tmp.replace(path)  # every worker writes the same list


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LongFirst(LoadScopeScheduling):
        _alone: set | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._alone is None:
                path = _end_to_end_list(config._tmp_path_factory.getbasetemp())
                self._alone = set(path.read_text().splitlines()) if path.exists() else set()
            return nodeid if nodeid in self._alone else nodeid.split("::", 1)[0]

    config.option.loadscopereorder = False  # units in collection order: the end-to-end tests first
    return LongFirst(config, log)


def tau2_data(*parts: str) -> Path:
    """A path in the optional tau2-bench data beside the checkout; the calling test is skipped,
    naming what is missing, when it is not there."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"optional tau2-bench data not found: {p} (see CONTRIBUTING.md)")
    return p


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every path below `roots` (links not followed) with its mode, size and mtime: what a
    test compares to prove a command wrote nothing outside its output folder."""
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            for n in dirnames + filenames:
                p = os.path.join(dirpath, n)
                s = os.lstat(p)
                out[p] = (s.st_mode, s.st_size, s.st_mtime_ns)
    return out


def _shared_dir(tmp_path_factory, name: str) -> Path:
    """A folder every xdist worker of this run sees (the base temp folder's parent under xdist)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    shared.mkdir(parents=True, exist_ok=True)
    return shared


# What a build, a pack or a simulation suite of this checkout is made from: the library's
# packages (the domain folders among them). A shared result is keyed by their content.
SOURCE_PACKAGES = ("facts", "domains", "transforms", "audits", "outputs", "pipeline")
_KEYS: dict[tuple, str] = {}


def content_key(*params, packages: tuple[str, ...] = SOURCE_PACKAGES) -> str:
    """sha256 (16 hex digits) of every file of `packages` (path and bytes; caches left out)
    and of `params`: the name under which a shared result of these inputs is kept."""
    import hashlib
    import json

    k = (packages, json.dumps(params, sort_keys=True, default=str))
    if k not in _KEYS:
        h = hashlib.sha256(k[1].encode())
        for pkg in packages:
            for p in sorted((ROOT / pkg).rglob("*")):
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                    h.update(p.relative_to(ROOT).as_posix().encode() + b"\0")
                    h.update(hashlib.sha256(p.read_bytes()).digest())
        _KEYS[k] = h.hexdigest()[:16]
    return _KEYS[k]


def shared_result(tmp_path_factory, name: str, key: str, make) -> Path:
    """`<run's shared folder>/<name>/<key>`, filled by `make(folder)` once per test run: the
    xdist workers share it (the first to take its lock makes it, the others wait and reuse
    it). It lives in the run's temporary folder: nothing is carried from one run to the next.
    A `make` that raised leaves nothing behind; the next test to ask makes it again (and fails
    the same way)."""
    import fcntl
    import shutil

    folder = _shared_dir(tmp_path_factory, name) / key
    # the folder is made, emptied and filled only under the lock: a worker that made it
    # outside (before waiting) could put it back between another's removal and its mkdir
    with open(folder.parent / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder.parent / f"{key}.done"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.write_text("ok")
    return folder


@pytest.fixture(scope="session")
def mock_task_pack(tmp_path_factory):
    """The `_mock` task pack (both of its tasks, seed 0), built once per test run: the xdist
    workers share it (the first to take the lock builds, the others wait and reuse it). Read
    it, never change it: a test that edits a pack takes `mock_task_pack_copy`."""
    from outputs.packs.build import BuildOptions, build_pack

    def make(d: Path) -> None:
        build_pack(d / "pack", ["_mock"], opts=BuildOptions(seed=0, workspace=d / "ws"))

    return shared_result(tmp_path_factory, "mock-task-pack", content_key("_mock", 0), make) / "pack"


@pytest.fixture(scope="session")
def suite_workspace(tmp_path_factory) -> Path:
    """A workspace the run shares for simulation suites: its suite cache (`cache/suites/`,
    keyed by the domain's files, the code, the world, the seed and the database) is filled
    once per (world, seed) by `sim_suite`, and read by the guard of `test_shipped_tasks.py`."""
    return _shared_dir(tmp_path_factory, "suites") / content_key(packages=("facts", "domains")) / "ws"


@pytest.fixture(scope="session")
def sim_suite(suite_workspace):
    """`sim_suite(key, seed)`: the held-out simulations of a world (`World.test_suite(seed)`
    on its seed database), generated once per test run and shared by the xdist workers through
    the suite cache of `suite_workspace` (the first worker to take a (world, seed)'s lock
    generates it, the others wait and read it)."""
    import fcntl

    from domains import get_pack
    from outputs.packs.build import BuildOptions, DomainBuild

    builds: dict = {}

    def get(key: str, seed: int = 0):
        name = key.partition("@")[0]
        if name not in builds:
            builds[name] = DomainBuild(get_pack(name), BuildOptions(seed=0, workspace=suite_workspace, workers=1))
        suite_workspace.mkdir(parents=True, exist_ok=True)
        with open(suite_workspace / f"{key}-{seed}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return builds[name].suite(key, seed)

    return get


@pytest.fixture(scope="module")
def mock_task_ws_copy(mock_task_pack, tmp_path_factory):
    """A module's own copy of the workspace that built `mock_task_pack` (its render and
    extraction caches warm): a later `_mock` build through it renders nothing it already has."""
    import shutil

    out = tmp_path_factory.mktemp("mock-ws-copy") / "ws"
    shutil.copytree(mock_task_pack.parent / "ws", out, symlinks=True)
    return out


@pytest.fixture(scope="module")
def mock_full_ws_copy(mock_task_pack, mock_full_build, tmp_path_factory):
    """A module's own workspace warm with both of the run's `_mock` builds: a copy of the one
    that built `mock_task_pack` (its suites, its text renders), and the render and extraction
    caches of `mock_full_build` (every kind, audio and video). Both caches are content-addressed
    (a file is filed under the hash of what it was rendered from and read back under the hash of
    its bytes), so a full-profile `_mock` build through it renders and reads again only what
    differs from those builds, exactly as a cold workspace would render and read it."""
    import shutil

    out = tmp_path_factory.mktemp("mock-full-ws-copy") / "ws"
    shutil.copytree(mock_task_pack.parent / "ws", out, symlinks=True)
    _bundle, full_cache = mock_full_build
    for sub in ("render", "extract"):
        shutil.copytree(full_cache / sub, out / "cache" / sub, symlinks=True, dirs_exist_ok=True)
    return out


@pytest.fixture(scope="module")
def mock_task_pack_copy(mock_task_pack, tmp_path_factory):
    """A module's own copy of the `_mock` task pack: byte for byte what a fresh `build_pack`
    of `_mock` at seed 0 writes (builds are deterministic), without building it again."""
    import shutil

    out = tmp_path_factory.mktemp("mock-pack-copy") / "pack"
    shutil.copytree(mock_task_pack, out, symlinks=True)
    return out


@pytest.fixture(scope="session")
def mock_pack():
    from domains import get_pack
    return get_pack("_mock")


def _hand_facts():
    from facts.models import Condition, Fact, FactKind, Slot, SlotType, SourceSpan, make_fact_id

    rows = [
        (["Rentals"], FactKind.eligibility, "A customer must be at least 16 years old to rent a bike.",
         [Slot(name="age", type=SlotType.count, text="16", value=16, qualifier="at_least")], [], ["customer", "old", "rent", "bike"], 7),
        (["Rentals"], FactKind.value, "The security deposit is $50 per bike.",
         [Slot(name="deposit", type=SlotType.money, text="$50", value=50, unit="USD")], [], ["security", "deposit", "bike"], 9),
        (["Late returns"], FactKind.value, "The late fee is $12 for each started hour after the rental ends.",
         [Slot(name="fee", type=SlotType.money, text="$12", value=12, unit="USD")], [], ["late", "fee", "hour"], 14),
        (["Late returns"], FactKind.value, "Pass holders get a 20% discount on late fees.",
         [Slot(name="discount", type=SlotType.percent, text="20%", value=20, unit="%")],
         [Condition(attribute="membership", value="Pass holder")], ["pass", "holders", "discount", "late", "fees"], 15),
        (["Refunds"], FactKind.procedure_step, "Refund the deposit to the original payment method within 5 business days.",
         [Slot(name="days", type=SlotType.duration, text="5 business days", value=5, unit="business_day")], [],
         ["refund", "deposit", "original", "payment"], 23),
    ]
    out = []
    for section, kind, text, slots, conds, anchors, line in rows:
        f = Fact(id="tmp", domain="_mock", section=section, kind=kind, statement=text, slots=slots,
                 conditions=conds, source=SourceSpan(file="policy.md", start_line=line, end_line=line),
                 anchors=anchors)
        f.id = make_fact_id("_mock", section, f.template(), conds)
        out.append(f)
    return out


@pytest.fixture()
def hand_facts():
    """Five facts of the _mock policy, one per slot type, built by hand so that transform
    tests do not depend on the decomposer."""
    return _hand_facts()


@pytest.fixture()
def render_ctx(mock_pack, hand_facts, tmp_path):
    from transforms.base import RenderContext
    from transforms.writers import BuiltinWriter
    return RenderContext(pack=mock_pack, facts={f.id: f for f in hand_facts}, writer=BuiltinWriter(mock_pack),
                         db=mock_pack.database(0), workdir=tmp_path)


def _cli_build(tmp_path_factory, name: str, *args: str) -> Path:
    """`factforge build --domain _mock --seed 0 ARGS` through the real CLI (a process pool on
    every core) into `out` and `ws` of a folder made once per run and shared by the xdist
    workers (`shared_result`); that folder."""
    import subprocess
    import sys

    def make(d: Path) -> None:
        r = subprocess.run([sys.executable, "-m", "pipeline.cli", "build", "--domain", "_mock", "--seed", "0",
                            "--out", str(d / "out"), "--workspace", str(d / "ws"), *args],
                           capture_output=True, text=True, cwd=ROOT, timeout=1200,
                           env={k: v for k, v in os.environ.items() if k != "FACTFORGE_AUDIT_DB"})
        assert r.returncode == 0, r.stdout + r.stderr
        (d / "stdout.txt").write_text(r.stdout)

    return shared_result(tmp_path_factory, name, content_key("_mock", 0, *args), make)


def _the_bundle(d: Path) -> Path:
    (bundle,) = [p for p in (d / "out" / "bundles" / "_mock").iterdir() if not p.name.startswith(".")]
    return bundle


@pytest.fixture(scope="session")
def mock_full_build(tmp_path_factory):
    """`_mock` built once per test run with the full profile (all 19 kinds, audio and video
    included) through the real CLI (a process pool on every core): (bundle dir, workspace
    cache dir). The xdist workers of one run share it: the first to get the lock builds, the
    others wait and reuse it."""
    d = _cli_build(tmp_path_factory, "mock-full-build")
    return _the_bundle(d), d / "ws" / "cache"


@pytest.fixture(scope="session")
def mock_text_build(tmp_path_factory):
    """`_mock` built once per test run with the text-only profile (seed 0) through the real CLI,
    in a fresh workspace: (bundle dir, workspace dir, the CLI's standard output). Shared by the
    xdist workers like `mock_full_build`. Read it, never change it: a test that builds on in
    its workspace copies it."""
    d = _cli_build(tmp_path_factory, "mock-text-build", "--profile", "text-only")
    return _the_bundle(d), d / "ws", (d / "stdout.txt").read_text()


@pytest.fixture()
def mock_text_build_copy(mock_text_build, tmp_path):
    """This test's own copy of `mock_text_build`'s output folder and workspace (`tmp_path/out`,
    `tmp_path/ws`): (the bundle in the copy, out, ws). A `factforge build --domain _mock
    --profile text-only --out OUT --workspace WS` through it builds on what seed 0 built, as a
    user's next build does."""
    import shutil

    bundle, ws, _ = mock_text_build
    out = tmp_path / "out"
    shutil.copytree(bundle.parents[2], out, symlinks=True)
    shutil.copytree(ws, tmp_path / "ws", symlinks=True)
    return out / bundle.relative_to(bundle.parents[2]), out, tmp_path / "ws"


@pytest.fixture(scope="session")
def mock_full_rebuild(tmp_path_factory):
    """`_mock` built again, seed 0 and full profile, in a fresh workspace (nothing cached) by
    one inline worker: what `tests/test_engines.py` and `tests/test_pipeline.py` compare (byte
    for byte) with `mock_full_build`. Built once per run, shared by the xdist workers: a dict
    of the `BuildResult`'s bundle (a path), version, metadata and counts of rendered and
    extracted files, and what SIGTERM did in this process before and after the build."""
    import json
    import signal

    def make(d: Path) -> None:
        from pipeline.build import build_partition
        from pipeline.resources import BuildSettings, Execution, Workspace

        sigterm = signal.getsignal(signal.SIGTERM)
        res = build_partition("_mock", Workspace(root=str(d / "ws")), BuildSettings(seed=0, profile="full"),
                              execution=Execution(workers=1))
        (d / "result.json").write_text(json.dumps({
            "bundle": str(res.bundle), "version": res.version, "metadata": res.metadata,
            "rendered": res.rendered, "extracted": res.extracted,
            "sigterm": [repr(sigterm), repr(signal.getsignal(signal.SIGTERM))]}, default=str))

    d = shared_result(tmp_path_factory, "mock-full-rebuild", content_key("_mock", 0, "full", "one worker"), make)
    out = json.loads((d / "result.json").read_text())
    out["bundle"] = Path(out["bundle"])
    return out


@pytest.fixture(scope="module")
def airline_ctx(tmp_path_factory):
    """(pack, factset, render context) of the built-in airline domain, seed-0 database."""
    from domains import get_pack
    from transforms.base import RenderContext
    from transforms.writers import BuiltinWriter

    pack = get_pack("airline")
    fs = pack.factset()
    ctx = RenderContext(pack=pack, facts=fs.by_id(), writer=BuiltinWriter(pack), db=pack.database(0),
                        workdir=tmp_path_factory.mktemp("airline"))
    return pack, fs, ctx
