"""The client simulator: the business owner a developer agent interviews.

The client knows the task's held facts (in no delivered file), its confirmable facts (in the
records; the client can confirm a reading), its contested facts (the records hold two
versions; the client knows which is in force) and its production API's defects. Two modes:

- `offline` (default): a deterministic responder. For each message, in this order:
  1. past the task's turn quota: no answer (`quota`);
  2. a report about the API that meets a defect's disclosure conditions: the defect is
     confirmed with its actual behaviour and the expected remediation (`defect_confirmed`);
     when the task's client can deploy that defect's fix, the fix is deployed and the reply
     says so (`fixes`);
  3. capabilities (operations the deployment has but the published contract leaves out):
     - a yes to an open offer ("yes, please switch it on") switches the offered operation on
       (`enabled`; a message naming some of the offered operations switches those on);
     - a message that describes a capability's need (every term of its `need`) as something
       the integration lacks or cannot do ("there's no operation to ...", "we can't ...",
       "is there a way to ...") is offered the operation with its method and path (`offer`);
  4. in a task with stakeholders, a question about who decides a rule ("who has the final
     word on ...?"): the role and title of the person whose word decides its top-level section
     (`governs`; the owner's for every section no stakeholder governs);
  5. a question specifically about one fact (`outputs.client.match`: the best-matching fact
     of the whole domain, above the coverage threshold, not tied):
     - held: answered with that fact's statement, and nothing else (`answer`); a held fact
       of the `caveat` tier is answered, hedged, even to a question that does not single it
       out (two of its terms, short of the coverage bar or tied with another rule);
     - confirmable: a proposed reading (the message states values of the fact's types) is
       confirmed when every proposed value is the fact's (`confirm`) or denied (`deny`),
       never corrected; without a proposed reading the client asks for one (`records`);
     - contested: the version in force is stated (`in_force`);
     - a fact another person of the task knows: pointed to them by role (`refer`);
     - a fact the records hold: pointed back to the records (`records`);
  6. a report about the API meeting no defect's conditions: no confirmation, the client asks
     for the operation, what was sent and what came back (`defect_unconfirmed`);
  7. anything else (vague, ambiguous between facts, small talk): nothing is revealed and the
     client asks for one specific rule at a time (`vague`).
- `llm`: litellm (imported lazily, `LITELLM_LOCAL_MODEL_COST_MAP=True`) with the rendered
  system prompt and the conversation so far. Steps 2 and 3 when they change the deployment
  (a fix deployed, an offer, an operation switched on) are the offline responder's in this
  mode too, so what a scored deployment holds never depends on a model's wording.

A task may have stakeholders besides the owner (`[[stakeholders]]` of its spec): each is a
simulator of its own (`ClientSimulator.cast`, by role) with its own knowledge and turn quota,
and no defect briefs. A fact a stakeholder states by habit is held by them with their own
value, so they answer it as precisely, and wrongly; whose word decides is the governance
(step 4).

Discovery tiers (`tiers` of the client's knowledge): a held fact is `exact` (the default:
silent until asked exactly), `caveat` (above) or `pointer`: once the talk turns to its
top-level section (a message names the section or asks about one of its rules), whatever the
reply, the client adds that a rule on it is not written down, what it is about (its statement
with the values masked) and to ask for it; once, and never after it is revealed.

Every exchange is logged (`ClientLog`) with the fact ids the message asked about, the fact
ids the reply revealed (detected in the reply's text, whatever the mode) and `flagged`: held
facts revealed without being asked about (`leaks`). The prompt is rendered deterministically
(`prompt`). Nothing here imports Dagster or the media stack.
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import Field

from facts.errors import FactforgeError
from facts.llm import litellm_module
from facts.match import NUMERIC
from facts.models import FactSet
from facts.strict import StrictModel
from facts.values import find_values, slot_matches
from outputs.packs.store import Pack

from .defects import DefectBrief, about_api, brief, names
from .knowledge import ClientKnowledge, Knowledge
from .match import MIN_SHARED_TERMS, terms, tied
from .prompt import render_prompt

LOG_SCHEMA_VERSION = "1.0"
Mode = Literal["offline", "llm"]
ReplyKind = Literal["answer", "confirm", "deny", "in_force", "records", "defect_confirmed", "defect_unconfirmed",
                    "offer", "enabled", "governs", "refer", "vague", "quota", "llm"]
# a message states a need of the integration: something it lacks or cannot do
NEED_SIGNAL = re.compile(r"\b(?:no (?:operation|endpoint|route|call|way|api)|has no|there(?:'s| is) no|"
                         r"isn't (?:there|any)|is there (?:a|an|any)|can't|cannot|can not|unable to|missing|lacks?|"
                         r"not (?:in|part of) the (?:api|contract|docs|documentation)|"
                         r"(?:doesn't|does not|don't|do not) (?:have|support|offer|let)|not possible)\b", re.I)
# a question about whose word decides a rule
WHO_DECIDES = re.compile(r"\bwho(?:'s| is)?\b.{0,80}?\b(?:decides?|governs?|final (?:word|say)|last (?:word|say)|"
                         r"signs? off|owns?|in charge|responsible|authority|calls? the shots|sets?)\b|"
                         r"\bwhose (?:word|call|decision|rule)\b", re.I)
ACCEPT = re.compile(r"\b(?:yes|yeah|yep|please do|please|go ahead|do it|enable|switch (?:it |that )?on|"
                    r"turn (?:it |that )?on|accept|sure|okay|ok)\b", re.I)
DECLINE = re.compile(r"\b(?:no|not now|don't|do not|never mind|no thanks)\b", re.I)

TEXT = {
    "confirm": "Yes, that's right.",
    "deny": "No, that's not how it works.",
    "records_confirmable": "That one is in the records. Tell me how you read it and I'll tell you whether that's right.",
    "records": "That's written down; you'll find it in the records.",
    "vague": "That's too general for me. Ask me about one specific rule at a time; everything else is in the records.",
    "ambiguous": "I'm not sure which rule you mean. Ask me about one of them at a time.",
    "defect_unconfirmed": ("I can't confirm that from what you've told me. Which operation did you call, what did you "
                           "send, and what exactly came back?"),
    "quota": "I'm out of time for questions. Please work from the records.",
}


class Reply(StrictModel):
    turn: int
    text: str
    kind: ReplyKind
    asked: list[str] = Field(default_factory=list)      # fact ids the message was about
    revealed: list[str] = Field(default_factory=list)   # client fact ids the reply states
    defects: list[int] = Field(default_factory=list)    # deployment defect indices confirmed
    fixes: list[int] = Field(default_factory=list)      # defect indices whose fix this reply deployed
    offered: list[str] = Field(default_factory=list)    # capabilities this reply offered
    pointed: list[str] = Field(default_factory=list)    # held facts this reply pointed to (pointer tier)
    enabled: list[str] = Field(default_factory=list)    # capabilities this reply switched on
    flagged: list[str] = Field(default_factory=list)    # held facts revealed but not asked about


class Exchange(Reply):
    message: str


class ClientLog(StrictModel):
    schema_version: str = LOG_SCHEMA_VERSION
    task_id: Optional[str] = None
    role: str = "owner"
    mode: Mode = "offline"
    model: Optional[str] = None
    turn_quota: int = 0
    exchanges: list[Exchange] = Field(default_factory=list)

    def flagged(self) -> list[Exchange]:
        return [e for e in self.exchanges if e.flagged]

    def revealed(self) -> list[str]:
        return sorted({f for e in self.exchanges for f in e.revealed})

    def enabled(self) -> list[str]:
        """The capabilities switched on so far, in the order they were."""
        return list(dict.fromkeys(c for e in self.exchanges for c in e.enabled))

    def fixes(self) -> list[int]:
        """The defects whose fix was deployed so far."""
        return sorted({i for e in self.exchanges for i in e.fixes})


class ClientSimulator:
    def __init__(self, knowledge: ClientKnowledge | dict, *, facts: Optional[FactSet] = None, deployment: Any = None,
                 company: str = "the company", task_id: Optional[str] = None, mode: Mode = "offline",
                 model: Optional[str] = None, paths: Optional[dict[str, str]] = None,
                 llm_params: Optional[dict] = None, role: str = "owner", title: str = "the owner",
                 persona: str = "", governance: Optional[dict[str, tuple[str, str]]] = None,
                 directory: Optional[dict[str, tuple[str, str]]] = None):
        data = knowledge if isinstance(knowledge, ClientKnowledge) else ClientKnowledge.model_validate(knowledge)
        if not data.enabled:
            raise FactforgeError(f"task {task_id or '?'} has no client to interview (client.enabled is false)")
        if mode not in ("offline", "llm"):
            raise FactforgeError(f"unknown client mode {mode!r} (offline or llm)")
        if mode == "llm" and not model:
            raise FactforgeError("the llm client mode needs a model (litellm model name)")
        self.k = Knowledge(data, facts)
        self.capabilities = {c.operation: c for c in data.capabilities}
        self.fixable = set(data.can_deploy_fix)
        self.briefs: list[DefectBrief] = brief(deployment)
        self.company, self.task_id, self.mode, self.model = company, task_id, mode, model
        self.paths = dict(paths or {})
        self.llm_params = dict(llm_params or {})
        self.role, self.title = role, title
        # top-level section -> (role, title) whose word decides it; None: a task of one person
        self.governance = governance if governance is not None else (data.governance() if data.stakeholders
                                                                      else None)
        # fact id -> (role, title) of whoever knows it (a task with stakeholders)
        self.directory = directory if directory is not None else data.directory()
        self.sections = {f.id: f.section[0] for f in (facts.facts if facts is not None else []) if f.section}
        self.sections.update({fid: f.section[0] for fid, f in self.k.facts.items() if f.section})
        self.prompt = render_prompt(data, self.briefs, company, role=role, title=title, persona=persona,
                                    governance=self.governance)
        self.log = ClientLog(task_id=task_id, role=role, mode=mode, model=model, turn_quota=data.turn_quota)

    @classmethod
    def cast(cls, pack_dir: Path | str, task_id: str, **kw) -> dict[str, "ClientSimulator"]:
        """Everyone a pack's task lets the developer ask, by role: the owner, then each
        stakeholder in the spec's order (the sealed part read once for all of them)."""
        sealed = _sealed_client(pack_dir, task_id)
        roles = ["owner", *(p.role for p in sealed["data"].stakeholders)]
        return {r: cls._person(sealed, task_id, r, **kw) for r in roles}

    @classmethod
    def from_pack(cls, pack_dir: Path | str, task_id: str, *, mode: Mode = "offline", model: Optional[str] = None,
                  llm_params: Optional[dict] = None, role: str = "owner") -> "ClientSimulator":
        """The client of a pack's task (the owner, or the stakeholder `role`): sealed
        client.json, facts.json, deployment.toml and task.json (company), and the kit's OpenAPI
        document (operation paths). A stakeholder knows nothing of the API's defects."""
        return cls._person(_sealed_client(pack_dir, task_id), task_id, role, mode=mode, model=model,
                           llm_params=llm_params)

    @classmethod
    def _person(cls, sealed: dict, task_id: str, role: str, *, mode: Mode = "offline", model: Optional[str] = None,
                llm_params: Optional[dict] = None) -> "ClientSimulator":
        data, common = sealed["data"], {"facts": sealed["facts"], "company": sealed["company"], "task_id": task_id,
                                        "mode": mode, "model": model, "llm_params": llm_params}
        if role == "owner":
            return cls(data, deployment=sealed["deployment"], paths=sealed["paths"], **common)
        person = next((p for p in data.stakeholders if p.role == role), None)
        if person is None:
            raise FactforgeError(f"task {task_id} has nobody called {role[:40]!r} to ask; people: "
                                 f"{', '.join(['owner', *(p.role for p in data.stakeholders)])}")
        return cls(person.knowledge(), role=role, title=person.title, persona=person.persona,
                   governance=data.governance(), directory=data.directory(), **common)

    # ---- the conversation -------------------------------------------------------------
    @property
    def turns(self) -> int:
        return len(self.log.exchanges)

    @property
    def remaining(self) -> int:
        return max(0, self.k.data.turn_quota - self.turns)

    def reply(self, message: str) -> Reply:
        turn = self.turns + 1
        asked = [s.key for s in self.k.index.about(message)]
        if turn > self.k.data.turn_quota:
            r = Reply(turn=turn, text=TEXT["quota"], kind="quota")
        elif self.mode == "llm":
            r = self._levers(turn, message) or Reply(turn=turn, text=self._llm(message), kind="llm")
        else:
            r = self._offline(turn, message)
        if r.kind != "quota":
            r = self._point(r, message)
        revealed = self.k.revealed(r.text, ("held", "contested"))
        asked = list(dict.fromkeys([*asked, *r.asked]))
        r = r.model_copy(update={"asked": asked, "revealed": revealed,
                                 "flagged": [f for f in revealed if self.k.role(f) == "held" and f not in asked]})
        self.log.exchanges.append(Exchange(message=message, **r.model_dump()))
        return r

    # ---- what changes the deployment: fixes and capabilities --------------------------------
    def _levers(self, turn: int, message: str) -> Optional[Reply]:
        """A reply that deploys a fix, switches a capability on or offers one (steps 2 and 3 of
        the module docstring, as far as they concern fixes and capabilities); None otherwise."""
        met = [b for b in self.briefs if b.met_by(message, self.paths)]
        if any(b.index in self.fixable for b in met):
            done = set(self.log.fixes())
            fixes = [b.index for b in met if b.index in self.fixable and b.index not in done]
            text = " ".join(f"Yes, that's a known problem: {b.behaviour}. " + (
                f"We have a fix for that one and I've had it deployed: {', '.join(b.operations)} now "
                f"{'behaves' if len(b.operations) == 1 else 'behave'} as documented." if b.index in self.fixable else f"What works: {b.remediation}.") for b in met)
            return Reply(turn=turn, text=text, kind="defect_confirmed", defects=[b.index for b in met], fixes=fixes)
        if not self.capabilities or met:
            return None
        enabled = set(self.log.enabled())
        offered = [c for e in self.log.exchanges for c in e.offered]
        pending = [c for c in dict.fromkeys(offered) if c not in enabled]
        if pending and ACCEPT.search(message) and not DECLINE.search(message):
            named = [c for c in pending if names(message.lower(), c)]
            on = named or pending
            text = " ".join(f"Done: {self._describe(c)} is switched on for you, in production too." for c in on)
            return Reply(turn=turn, text=text, kind="enabled", enabled=on)
        if not NEED_SIGNAL.search(message):
            return None
        said = set(terms(message))
        for op, cap in self.capabilities.items():
            if set(terms(cap.need)) <= said:
                if op in enabled:
                    return Reply(turn=turn, text=f"That's switched on already: {self._describe(op)}.", kind="offer")
                return Reply(turn=turn, kind="offer", offered=[op],
                             text=(f"We can do that: there's an operation for it that isn't in the published "
                                   f"contract, {self._describe(op)}. Do you want me to switch it on for you?"))
        return None

    def _describe(self, op: str) -> str:
        c = self.capabilities[op]
        return f"{op} ({c.method} {c.path}" + (f": {c.summary.rstrip('.')}" if c.summary else "") + ")"

    def _governs(self, turn: int, message: str) -> Optional[Reply]:
        """Whose word decides the rule a message asks about (a task with stakeholders)."""
        if self.governance is None or not WHO_DECIDES.search(message):
            return None
        best, about = self.k.index.best(message)
        key = best.key if best is not None else (about[0].key if about else None)
        section = self.sections.get(key) if key else None
        if section is None:
            return None
        role, title = self.governance.get(section, ("owner", "the owner"))
        text = (f"On {section}, my word goes." if role == self.role else
                f"On {section}, it's {title}'s call: ask {role}.")
        return Reply(turn=turn, text=text, kind="governs")

    # ---- discovery tiers ---------------------------------------------------------------------
    def _point(self, r: Reply, message: str) -> Reply:
        """A pointer-tier held fact of the section the talk turned to (the message names the
        section, or is about a rule of it), once and never once revealed: the reply goes on to
        say such a rule exists, what it is about, and to ask for it; never its value."""
        tiers = self.k.data.tiers
        if not tiers:
            return r
        done = {f for e in self.log.exchanges for f in (*e.pointed, *e.revealed)}
        said = set(terms(message))
        touched = {self.sections.get(s.key) for s in self.k.index.about(message)}
        for fid in self.k.held:
            section = self.sections.get(fid)
            if tiers.get(fid) != "pointer" or fid in done or section is None or fid in self.k.revealed(r.text):
                continue
            if section in touched or (set(terms(section)) and set(terms(section)) <= said):
                topic = re.sub(r"\{[a-z_]+\}", "…", self.k.facts[fid].template()).rstrip(".")
                text = (f"{r.text} One more thing on {section}, which isn't written down anywhere: "
                        f"\"{topic}\". Ask me for that one.")
                return r.model_copy(update={"text": text, "pointed": [*r.pointed, fid]})
        return r

    def _caveat(self, turn: int, message: str) -> Optional[Reply]:
        """A caveat-tier held fact a message touches without singling it out (two of its terms,
        short of the exact bar, or tied with another rule): answered, hedged."""
        keys = [f for f in self.k.held if self.k.data.tiers.get(f) == "caveat"]
        if not keys:
            return None
        for sc in self.k.index.score(message, keys):
            if sc.n_shared >= min(MIN_SHARED_TERMS, sc.n_terms):
                return Reply(turn=turn, kind="answer", asked=[sc.key],   # the tier answers it: asked, not leaked
                             text=f"If you mean this one, and check it before you rely on it: "
                                  f"{self.k.facts[sc.key].statement}")
        return None

    def _offline(self, turn: int, message: str) -> Reply:
        lever = self._levers(turn, message) or self._governs(turn, message)
        if lever is not None:
            return lever
        met = [b for b in self.briefs if b.met_by(message, self.paths)]
        if met:
            text = " ".join(f"Yes, that's a known problem: {b.behaviour}. What works: {b.remediation}." for b in met)
            return Reply(turn=turn, text=text, kind="defect_confirmed", defects=[b.index for b in met])
        best, about = self.k.index.best(message)
        hedged = self._caveat(turn, message) if best is None else None
        if hedged is not None:
            return hedged
        if best is None:
            if about_api(message, self.briefs):
                return Reply(turn=turn, text=TEXT["defect_unconfirmed"], kind="defect_unconfirmed")
            tied_keys = [s.key for s in about if s is about[0] or tied(about[0], s)]
            if about and not any(self.k.role(f) for f in tied_keys):  # only rules the records hold
                return Reply(turn=turn, text=TEXT["records"], kind="records")
            return Reply(turn=turn, text=TEXT["ambiguous" if about else "vague"], kind="vague")
        role = self.k.role(best.key)
        fact = self.k.facts.get(best.key)
        knower = self.directory.get(best.key)
        if role is None and knower is not None and knower[0] != self.role:
            return Reply(turn=turn, text=f"That one isn't mine to answer: ask {knower[0]} ({knower[1]}).",
                         kind="refer")
        if role == "held":
            return Reply(turn=turn, text=fact.statement, kind="answer")
        if role == "contested":
            return Reply(turn=turn, text=f"The version in force is this one: {fact.statement}", kind="in_force")
        if role == "confirmable":
            verdict = proposed_reading(message, fact)
            if verdict is None:
                return Reply(turn=turn, text=TEXT["records_confirmable"], kind="records")
            return Reply(turn=turn, text=TEXT["confirm" if verdict else "deny"], kind="confirm" if verdict else "deny")
        if about_api(message, self.briefs):
            return Reply(turn=turn, text=TEXT["defect_unconfirmed"], kind="defect_unconfirmed")
        return Reply(turn=turn, text=TEXT["records"], kind="records")

    def _llm(self, message: str) -> str:
        litellm = litellm_module()

        messages = [{"role": "system", "content": self.prompt}]
        for e in self.log.exchanges:
            messages += [{"role": "user", "content": e.message}, {"role": "assistant", "content": e.text}]
        messages.append({"role": "user", "content": message})
        params = {"temperature": 0, **self.llm_params}
        try:
            resp = litellm.completion(model=self.model, messages=messages, **params)
        except Exception as e:  # noqa: BLE001 - any provider failure is one clear line
            raise FactforgeError(f"the client model {self.model} failed: {type(e).__name__}: {e}") from None
        return (resp.choices[0].message.content or "").strip()

    def save_log(self, path: Path | str) -> None:
        Path(path).write_text(json.dumps(self.log.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n")


def _sealed_client(pack_dir: Path | str, task_id: str) -> dict:
    """What every person of a pack's task is made from: the sealed client.json (validated),
    facts.json, deployment.toml and company, and the kit's operation paths."""
    pack = Pack(Path(pack_dir))
    task = pack.json(task_id, "sealed", "task.json")
    facts_json = pack.json(task_id, "sealed", "facts.json")
    facts_json.pop("hash", None)  # the pack stores the FactSet with its hash beside it
    deployment = None
    if pack.has(task_id, "sealed", "deployment.toml"):
        deployment = tomllib.loads(pack.read(task_id, "sealed", "deployment.toml").decode("utf-8"))
    doc = pack.json(task_id, "kit", "api/openapi.json")
    return {"data": ClientKnowledge.model_validate(pack.json(task_id, "sealed", "client.json")),
            "facts": FactSet.model_validate(facts_json), "deployment": deployment,
            "paths": {op["operationId"]: path for path, methods in doc.get("paths", {}).items()
                      for op in methods.values() if isinstance(op, dict) and "operationId" in op},
            "company": (task.get("brand") or {}).get("company") or task.get("company") or "the company"}


def proposed_reading(message: str, fact) -> Optional[bool]:
    """True when the message proposes values of the fact's types and every one is the
    fact's; False when one is not; None when it proposes none."""
    types = {s.type for s in fact.slots if s.type in NUMERIC}
    found = [v for v in find_values(message) if v[0] in types]
    if not found:
        return None
    spans = [slot_matches(s, message) for s in fact.slots if s.type in NUMERIC]
    for _t, _v, _vmax, _unit, a, b in found:
        if not any(sp and sp[0] < b and a < sp[1] for sp in spans):
            return False
    return True
