"""Task specs: one TOML file per task, `domains/<name>/tasks/<task_id>.toml`.

A task is a configuration of seven levers over a domain (see `TaskSpec`):

1. `evidence`: which bundle (the domain or one of its variants), the modality profile, the
   policy sections and artifact kinds delivered, and a difficulty preset of the evidence plan;
2. `client`: on or off; the facts the client holds (removed from every delivered file), can
   confirm (a proposed reading), or settles (contested: the delivered records disagree);
3. `api`: the API deployment the task runs against (a defect deployment id; `clean` always
   exists), pinned by sha256 in the pack;
4. `workspace`: none, or a seeded implementation (a naive agent with known gaps; the pack
   writes a ledger mapping each gap to fact ids);
5. `models`: the model menu (a versioned file referenced by name and sha256), the models
   allowed and the budget tiers in force (credits per conversation come from the menu);
6. `ids`: training ids (scenarios on the development database, shipped in the kit), live-
   experiment ids and test ids (both on the held-out test database, sealed). The three sets
   are disjoint and every id must resolve; a missing id fails the build, it never shrinks
   the denominator;
7. `phrasing`: response phrasing rules by id (`outputs/packs/phrasing.toml`), declarative
   and checked by the evaluator.

Specs are strict (unknown keys are errors) and schema-versioned. A malformed spec is one
`FactforgeError` naming the file, the line and the problem.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from facts.errors import FactforgeError
from facts.hashing import sha256_hex
from facts.strict import StrictModel

TASK_SCHEMA_VERSION = "1.0"
Profile = Literal["text-only", "text+image", "text+image+audio", "full"]
Difficulty = Literal["easy", "standard", "hard"]
BudgetTier = Literal["easy", "medium", "hard"]
CodeGap = Literal["no_retry_on_rate_limit", "no_idempotency_key", "first_page_only", "no_async_polling",
                  "no_transfer"]
TASK_ID = re.compile(r"^[a-z_][a-z0-9_]*(-[a-z0-9]+)+$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _unique(values: list[str], what: str) -> list[str]:
    dup = sorted({v for v in values if values.count(v) > 1})
    if dup:
        raise ValueError(f"duplicate {what}: {', '.join(dup[:5])}")
    return values


class EvidenceLever(StrictModel):
    """What evidence the developer agent gets."""
    bundle: str                                  # "airline" or "airline@halcyon"
    profile: Profile = "full"
    difficulty: Difficulty = "standard"
    sections: list[str] = Field(default_factory=list)  # top-level policy sections delivered ([]: all)
    kinds: list[str] = Field(default_factory=list)     # "family/kind" delivered ([]: every kind of the profile)

    @field_validator("sections", "kinds")
    @classmethod
    def _no_dup(cls, v: list[str]) -> list[str]:
        return _unique(v, "entries")


OPERATION = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class Capability(StrictModel):
    """An operation the deployment has but the published contract leaves out: the client offers
    it when the developer describes `need`, and switches it on once the offer is accepted."""
    operation: str
    need: str = Field(min_length=3, max_length=200)   # what the developer must say they need, in plain words

    @field_validator("operation")
    @classmethod
    def _name(cls, v: str) -> str:
        if not OPERATION.fullmatch(v):
            raise ValueError(f"operation {v!r} must be an operation name (lowercase letters, digits, _)")
        return v


class ClientLever(StrictModel):
    """Whether a client can be interviewed, and what only it knows or can do."""
    enabled: bool = False
    held: list[str] = Field(default_factory=list)         # removed from every delivered file
    confirmable: list[str] = Field(default_factory=list)  # in the evidence; the client confirms a reading
    contested: list[str] = Field(default_factory=list)    # conflicting versions in the kit; the client settles
    turn_quota: int = Field(20, ge=1, le=200)
    capabilities: list[Capability] = Field(default_factory=list)  # hidden operations the client can switch on
    # indices of the deployment's defects the client has fixed once a report meets their disclosure conditions
    can_deploy_fix: list[int] = Field(default_factory=list)
    # how a held fact is discovered: "pointer" (the client points to it when the talk turns to its
    # section), "caveat" (answered, hedged, to a question about it that does not single it out),
    # "exact" (the default: silent until asked exactly)
    tiers: dict[str, Literal["pointer", "caveat", "exact"]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _coherent(self) -> "ClientLever":
        lists = {"held": self.held, "confirmable": self.confirmable, "contested": self.contested}
        for name, v in lists.items():
            _unique(v, f"{name} fact ids")
        _unique([c.operation for c in self.capabilities], "capability operations")
        _unique([str(i) for i in self.can_deploy_fix], "defect indices in can_deploy_fix")
        if any(i < 0 for i in self.can_deploy_fix):
            raise ValueError("can_deploy_fix lists defect indices (0 is the deployment's first defect)")
        stray = sorted(set(self.tiers) - set(self.held))
        if stray:
            raise ValueError(f"tiers names {stray[0]}, which is not a held fact of the client")
        levers = any(lists.values()) or self.capabilities or self.can_deploy_fix
        if not self.enabled and levers:
            raise ValueError("client is disabled but lists held, confirmable or contested facts, capabilities "
                             "or fixes")
        if self.enabled and not levers:
            raise ValueError("client is enabled but knows no fact (held, confirmable or contested) and has no "
                             "capability or fix")
        seen: dict[str, str] = {}
        for name, v in lists.items():
            for f in v:
                if f in seen:
                    raise ValueError(f"fact {f} is both {seen[f]} and {name}")
                seen[f] = name
        return self


ROLE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


class Stakeholder(StrictModel):
    """Another person of the business the developer may interview, besides the owner
    (`[client]`, role `owner`): what they alone know, the facts they state by habit with
    their own value, the policy sections their word decides, their own turn quota."""
    role: str                                            # how the tools address them
    title: str = Field(min_length=2, max_length=80)       # "Compliance officer"
    persona: str = Field("", max_length=600)              # how they speak (the LLM client's prompt)
    held: list[str] = Field(default_factory=list)         # removed from every delivered file
    confirmable: list[str] = Field(default_factory=list)  # in the evidence; they confirm a reading
    habits: list[str] = Field(default_factory=list)       # held by someone else; they say it with another value
    governs: list[str] = Field(default_factory=list)      # top-level policy sections their word decides
    turn_quota: int = Field(8, ge=1, le=200)
    tiers: dict[str, Literal["pointer", "caveat", "exact"]] = Field(default_factory=dict)  # as the client's

    @model_validator(mode="after")
    def _coherent(self) -> "Stakeholder":
        if not ROLE.fullmatch(self.role) or self.role == "owner":
            raise ValueError(f"role {self.role!r} must be lowercase letters, digits and dashes, and not owner")
        for name in ("held", "confirmable", "habits", "governs"):
            _unique(getattr(self, name), name)
        if not (self.held or self.confirmable or self.habits):
            raise ValueError(f"stakeholder {self.role} knows no fact (held, confirmable or habits)")
        stray = sorted(set(self.tiers) - set(self.held))
        if stray:
            raise ValueError(f"stakeholder {self.role}'s tiers name {stray[0]}, which is not a fact they hold")
        both = sorted(set(self.habits) & (set(self.held) | set(self.confirmable)))
        if both:
            raise ValueError(f"stakeholder {self.role} both knows and misstates {both[0]}")
        return self


class ApiLever(StrictModel):
    deployment: str = "clean"  # domains/<name>/deployments/<id>.toml; "clean" always exists

    @field_validator("deployment")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", v):
            raise ValueError(f"deployment id {v!r} must be lowercase letters, digits and dashes")
        return v


class WorkspaceLever(StrictModel):
    """The starting workspace: nothing, or a seeded naive agent with known gaps."""
    kind: Literal["none", "seeded"] = "none"
    omit_sections: list[str] = Field(default_factory=list)  # policy sections its prompt leaves out
    stale_facts: list[str] = Field(default_factory=list)    # facts its prompt states with a wrong value
    code_gaps: list[CodeGap] = Field(default_factory=list)  # what its code does not handle

    @model_validator(mode="after")
    def _coherent(self) -> "WorkspaceLever":
        if self.kind == "none" and (self.omit_sections or self.stale_facts or self.code_gaps):
            raise ValueError("workspace kind is none but gaps are listed")
        if self.kind == "seeded" and not (self.omit_sections or self.stale_facts or self.code_gaps):
            raise ValueError("a seeded workspace needs at least one known gap")
        _unique(self.omit_sections, "omitted sections")
        _unique(self.stale_facts, "stale facts")
        _unique(list(self.code_gaps), "code gaps")
        return self


class ModelsLever(StrictModel):
    menu: str                                  # menu file stem, e.g. "standard-1"
    menu_sha256: str                           # pins the menu file's bytes
    models: list[str] = Field(default_factory=list)  # allowed models ([]: every model of the menu)
    budget: list[BudgetTier] = Field(default_factory=lambda: ["easy", "medium", "hard"])

    @field_validator("menu_sha256")
    @classmethod
    def _sha(cls, v: str) -> str:
        if not SHA256.fullmatch(v):
            raise ValueError("menu_sha256 must be 64 lowercase hex digits")
        return v

    @field_validator("budget")
    @classmethod
    def _budget(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("at least one budget tier")
        return _unique(v, "budget tiers")


class IdsLever(StrictModel):
    test_seed: int = Field(ge=0)  # the held-out test database (live and test ids come from its suite)
    # "pinned": the lists are the ids; "learnable": they are preferences and fix the counts, an id
    # that no longer resolves or is learnable is replaced by the stable rule of `outputs.packs.select`
    select: Literal["pinned", "learnable"] = "pinned"
    training: list[str] = Field(default_factory=list)
    live: list[str] = Field(default_factory=list)
    test: list[str]

    @model_validator(mode="after")
    def _disjoint(self) -> "IdsLever":
        if not self.test:
            raise ValueError("a task needs at least one test id")
        for name in ("training", "live", "test"):
            _unique(getattr(self, name), f"{name} ids")
        for a, b in (("training", "live"), ("training", "test"), ("live", "test")):
            both = sorted(set(getattr(self, a)) & set(getattr(self, b)))
            if both:
                raise ValueError(f"{a} and {b} ids overlap: {', '.join(both[:3])}")
        return self


class PhrasingLever(StrictModel):
    rules: list[str] = Field(default_factory=list)

    @field_validator("rules")
    @classmethod
    def _no_dup(cls, v: list[str]) -> list[str]:
        return _unique(v, "phrasing rules")


class SandboxLimits(StrictModel):
    hours: float = Field(8, gt=0)
    cpus: int = Field(2, ge=1)
    memory_gb: float = Field(4, gt=0)


class TaskSpec(StrictModel):
    schema_version: Literal["1.0"] = TASK_SCHEMA_VERSION
    id: str
    domain: str
    title: str
    description: str = ""
    evidence: EvidenceLever
    client: ClientLever = Field(default_factory=ClientLever)
    api: ApiLever = Field(default_factory=ApiLever)
    workspace: WorkspaceLever = Field(default_factory=WorkspaceLever)
    models: ModelsLever
    ids: IdsLever
    phrasing: PhrasingLever = Field(default_factory=PhrasingLever)
    sandbox: SandboxLimits = Field(default_factory=SandboxLimits)
    stakeholders: list[Stakeholder] = Field(default_factory=list)

    @model_validator(mode="after")
    def _people(self) -> "TaskSpec":
        if not self.stakeholders:
            return self
        if not self.client.enabled:
            raise ValueError("stakeholders need the owner too: set 'enabled' in [client]")
        _unique([s.role for s in self.stakeholders], "stakeholder roles")
        _unique([g for s in self.stakeholders for g in s.governs], "governed sections (one person's word each)")
        owner = set(self.client.held) | set(self.client.confirmable) | set(self.client.contested)
        known: dict[str, str] = {f: "owner" for f in owner}
        for s in self.stakeholders:
            for f in s.held + s.confirmable:
                if f in known:
                    raise ValueError(f"stakeholder '{s.role}' knows {f}, which {known[f]} knows already: one "
                                     "person knows a fact")
                known[f] = s.role
        held = set(self.client.held) | {f for s in self.stakeholders for f in s.held}
        for s in self.stakeholders:
            for f in s.habits:
                if f not in held:
                    raise ValueError(f"stakeholder '{s.role}' misstates {f}, which nobody holds: a habit is a "
                                     "held fact someone else states rightly")
                if known.get(f) == s.role:
                    raise ValueError(f"stakeholder {s.role} both knows and misstates {f}")
        return self

    @model_validator(mode="after")
    def _ids(self) -> "TaskSpec":
        if not TASK_ID.fullmatch(self.id):
            raise ValueError(f"task id {self.id!r}: lowercase words joined by dashes, e.g. airline-held-bag-fees")
        if not self.id.startswith(f"{self.domain}-"):
            raise ValueError(f"task id {self.id!r} must start with its domain name ({self.domain}-)")
        if self.evidence.bundle.partition("@")[0] != self.domain:
            raise ValueError(f"evidence bundle {self.evidence.bundle!r} is not of domain {self.domain!r}")
        return self

    def sealed_dump(self) -> dict:
        """The spec as the sealed task.json keeps it: the client's capability and fix levers
        and the stakeholders appear only when the spec uses them, so a spec that does not reads
        as it always has."""
        data = self.model_dump(mode="json")
        for key in ("capabilities", "can_deploy_fix", "tiers"):
            if not data["client"][key]:
                del data["client"][key]
        if not data["stakeholders"]:
            del data["stakeholders"]
        return data

    @property
    def held(self) -> list[str]:
        """Every person's held facts: the owner's, then each stakeholder's (none is in a file)."""
        return list(self.client.held) + [f for s in self.stakeholders for f in s.held]

    @property
    def confirmable(self) -> list[str]:
        return list(self.client.confirmable) + [f for s in self.stakeholders for f in s.confirmable]

    @property
    def fact_ids(self) -> set[str]:
        """Every fact id the spec names (all must exist in the bundle's facts)."""
        c, w = self.client, self.workspace
        return set(self.held) | set(self.confirmable) | set(c.contested) | set(w.stale_facts)

    def levers(self) -> dict:
        """A summary of the levers (counts, no sealed content): what `index.json` lists."""
        c, w = self.client, self.workspace
        return {
            "evidence": self.evidence.model_dump(mode="json"),
            "client": {"enabled": c.enabled, "held": len(c.held), "confirmable": len(c.confirmable),
                       "contested": len(c.contested), "turn_quota": c.turn_quota,
                       **({"capabilities": len(c.capabilities)} if c.capabilities else {}),
                       **({"fixes": len(c.can_deploy_fix)} if c.can_deploy_fix else {}),
                       **({"tiers": dict(sorted(c.tiers.items()))} if c.tiers else {})},
            "api": {"deployment": self.api.deployment},
            "workspace": {"kind": w.kind, "gaps": len(w.omit_sections) + len(w.stale_facts) + len(w.code_gaps)},
            "models": {"menu": self.models.menu, "models": list(self.models.models), "budget": list(self.models.budget)},
            "ids": {"test_seed": self.ids.test_seed, "training": len(self.ids.training), "live": len(self.ids.live),
                    "test": len(self.ids.test)},
            "phrasing": {"rules": list(self.phrasing.rules)},
            **({"stakeholders": [{"role": s.role, "held": len(s.held), "confirmable": len(s.confirmable),
                                  "habits": len(s.habits), "governs": len(s.governs), "turn_quota": s.turn_quota}
                                 for s in self.stakeholders]} if self.stakeholders else {}),
        }


# --------------------------------------------------------------------------- loading

def toml_line(text: str, loc: tuple) -> Optional[int]:
    """Best-effort line of a validation error's location in a TOML text: the line of the
    deepest key found (`[table]`, `[table.sub]`, `key = ...`), or of a list item's value."""
    keys = [str(k) for k in loc if not isinstance(k, int)]
    index = next((k for k in loc if isinstance(k, int)), None)
    loc = tuple(loc)
    lines = text.splitlines()
    table: list[str] = []
    best: Optional[int] = None
    items: dict[str, int] = {}
    for i, raw in enumerate(lines, 1):
        s = raw.strip()
        if s.startswith("[["):   # an array of tables: the n-th [[stakeholders]] is stakeholders[n]
            name = s.strip("[]").strip()
            items[name] = items.get(name, -1) + 1
            table = name.split(".")
            at = len(table)
            if tuple(loc[:at]) == tuple(table) and len(loc) > at and loc[at] == items[name]:
                best = i
                if len(loc) == at + 1:
                    return i
            continue
        if s.startswith("[") and not s.startswith("[["):
            table = [p.strip() for p in s.strip("[]").split(".")]
            if table == keys[:len(table)] and (best is None or len(table) >= 1):
                best = i
            continue
        if ".".join(table) in items:   # a key of the current array item
            at = len(table)
            if (tuple(loc[:at]) == tuple(table) and len(loc) > at + 1 and loc[at] == items[".".join(table)]
                    and "=" in s and s.split("=", 1)[0].strip() == str(loc[at + 1])):
                return i
            continue
        key = s.split("=", 1)[0].strip() if "=" in s else None
        if key and table + [key] == keys[:len(table) + 1]:
            best = i
            if index is not None and len(table) + 1 == len(keys):
                return _list_item_line(lines, i, index) or i
    return best


def _list_item_line(lines: list[str], start: int, index: int) -> Optional[int]:
    """Line of item `index` of a TOML array that starts at line `start` (one item per line or
    all on one line)."""
    first = lines[start - 1]
    if "[" in first and "]" in first.split("=", 1)[1]:
        return start
    n = -1
    for j in range(start, len(lines)):
        s = lines[j].strip()
        if s.startswith("]"):
            return None
        if s and not s.startswith("#"):
            n += 1
            if n == index:
                return j + 1
    return None


def read_toml(path: Path) -> tuple[dict, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise FactforgeError(f"not UTF-8 text (byte {e.start})", path) from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as e:
        raise FactforgeError(f"invalid TOML: {str(e).split(' (at line')[0]}", path, getattr(e, "lineno", None)) from None


def validation_error(e: ValidationError, path: Path, text: str) -> FactforgeError:
    err = e.errors()[0]
    loc = tuple(err["loc"])
    where = ".".join(str(x) for x in loc) or "spec"
    msg = err["msg"].removeprefix("Value error, ")
    return FactforgeError(f"{where}: {msg}", path, toml_line(text, loc) if loc else named_line(text, msg))


def named_line(text: str, problem: str) -> Optional[int]:
    """For a problem of the whole spec (no location): the last line holding the first name it
    quotes, as a quoted string or a key of the spec ("duplicate stakeholder roles: finance" ->
    the second `role = "finance"`), so the error still points at the line to change."""
    names = re.findall(r"'([^']+)'|([a-z_][\w.-]*\.[0-9a-f]{10})|(?<=: )([a-z][\w-]*)$", problem)
    lines = text.splitlines()
    for groups in names:
        name = next(g for g in groups if g)
        hits = [i for i, ln in enumerate(lines, 1) if not ln.lstrip().startswith("#")
                and (f'"{name}"' in ln or ln.split("=")[0].strip() == name)]
        if hits:
            return hits[-1]
    return None


class LoadedSpec(BaseModel):
    """A spec with where it came from (for error messages) and its bytes' hash."""
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    spec: TaskSpec
    path: Path
    text: str
    sha256: str

    def line_of(self, *loc) -> Optional[int]:
        return toml_line(self.text, tuple(loc))

    def error(self, problem: str, *loc) -> FactforgeError:
        return FactforgeError(problem, self.path, self.line_of(*loc) if loc else None)


def load_spec(path: Path) -> LoadedSpec:
    path = Path(path)
    data, text = read_toml(path)
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as e:
        raise validation_error(e, path, text) from None
    if spec.id != path.stem:
        raise FactforgeError(f"task id {spec.id!r} differs from the file name ({path.stem})", path,
                             toml_line(text, ("id",)))
    return LoadedSpec(spec=spec, path=path, text=text, sha256=sha256_hex(path.read_bytes()))


def tasks_dir(pack) -> Path:
    return pack.tasks_dir()


def load_domain_specs(pack, only: Optional[set[str]] = None) -> list[LoadedSpec]:
    """The task specs of a domain pack (all, or those whose file stem is in `only`), sorted by
    id; each must name this domain."""
    d = tasks_dir(pack)
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.glob("*.toml")):
        if only and p.stem not in only:
            continue
        ls = load_spec(p)
        if ls.spec.domain != pack.name:
            raise ls.error(f"domain {ls.spec.domain!r} differs from the pack's ({pack.name})", "domain")
        out.append(ls)
    return out
