"""Writers word the content of artifacts.

`BuiltinWriter` is offline and deterministic: phrase banks and small grammars, driven by the
`random.Random` the renderer passes in (seeded per artifact), so two artifacts stating the
same fact do not read alike, and a fact can be stated canonically (close to the policy) or
"voiced" (a paraphrase sharing no 6-word run with the policy, keeping the fact's anchor
terms and values so it stays checkable).

`LLMWriter` (litellm, any provider) drafts statements when switched on; every draft is
validated (it must still carry the fact's values and anchors) and falls back to the
built-in wording when it does not, counting fallbacks. The built-in writer is the only
fake: tests and offline runs use it.

Hedge markers: a distractor or superseded value is always written inside a sentence that
carries one of `HEDGE_MARKERS` (a customer's belief, a draft, an old version), which is how
the audits tell "presented as current" from "mentioned as wrong/old".
"""
from __future__ import annotations

import os
import random
import re
from typing import TYPE_CHECKING, Optional

from facts.models import Fact, FactKind, Slot, SlotType
from facts.surface import surface_forms

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack
    from .base import Distractor

HEDGE_MARKERS = ("i thought", "i was told", "i heard", "i read", "someone said", "my friend said",
                 "isn't it", "wasn't it", "proposal", "proposed", "draft", "superseded", "old rule",
                 "previously", "no longer", "used to be", "outdated", "rumour", "not correct",
                 "was changed", "obsolete", "replaced")

_FIRST = ["Alex", "Priya", "Marcus", "Elena", "Kwame", "Sofia", "Daniel", "Aiko", "Omar", "Grace",
          "Luis", "Hannah", "Ravi", "Chloe", "Mateo", "Nadia", "Ben", "Yara", "Felix", "Amara"]
_LAST = ["Ortega", "Nguyen", "Fischer", "Adeyemi", "Rossi", "Kowalski", "Haddad", "Lindqvist",
         "Tanaka", "Moreau", "Brennan", "Castillo", "Okoro", "Petrov", "Shah", "Walsh"]

_CANON_LEADS = ["", "", "Per policy, ", "As a reminder, ", "Policy: ", "Note: ", "To confirm, "]
_VOICED_LEADS = {
    "friendly": ["Quick heads-up about", "Just so you know, on", "Good question about",
                 "Happy to clarify", "Here's how it works for", "So, regarding"],
    "formal": ["With regard to", "Concerning", "In respect of", "As regards", "On the matter of"],
    "terse": ["Re:", "On", "About", "For"],
}
_VOICED_JOINS = ["it comes to", "the figure is", "what applies is", "you're looking at", "we go with",
                 "the number is"]
_CLOSINGS = {
    "agent": ["Is there anything else I can help with today?", "Thanks for reaching out!",
              "Have a great rest of your day.", "Let me know if anything else comes up.",
              "Glad I could help."],
    "customer": ["Thanks, that helps.", "Great, thank you.", "Okay, got it.", "Perfect, appreciate it.",
                 "Alright, thanks for explaining."],
    "colleague": ["Thanks all.", "Cheers.", "Ping me if questions.", "Thanks!", "Talk soon."],
}
_GREETINGS = {
    "agent": ["Hi {name}, thanks for contacting {company}. How can I help?",
              "Hello {name}! You've reached {company} support.",
              "Good day {name}, this is {agent} from {company}.",
              "Hi there {name}, {agent} here. What can I do for you today?"],
    "customer": ["Hi, I have a question.", "Hello, I need some help please.",
                 "Hey, quick question about my account.", "Hi there, hoping you can help me.",
                 "Good morning, I'm calling about something on my booking."],
    "colleague": ["Hi team,", "Hello everyone,", "Hey folks,", "Morning all,", "Hi all,"],
}
_FILLER = {
    "agent": ["Let me pull up your details.", "One moment while I check that for you.",
              "Thanks for your patience.", "I can see your record here.",
              "Could you confirm the email address on file?", "I've added a note to your file.",
              "Bear with me, the system is a little slow today.", "I understand, that's frustrating."],
    "customer": ["Sure, no problem.", "Okay.", "Yes, that's right.", "Hmm, let me check.",
                 "Sorry, the line is a bit noisy.", "I've been a customer for years.",
                 "My reference should be in the confirmation email.", "That's correct."],
    "colleague": ["Adding this to the tracker.", "Can we sync tomorrow?", "Looping in ops.",
                  "Reminder: the dashboard refresh runs overnight.", "Agreed.",
                  "Let's park that until the review.", "+1", "Noted, thanks."],
}
_QUESTION = ["Can you tell me about {topic}?", "What's the rule on {topic}?",
             "How does {topic} work?", "I wanted to ask about {topic}.",
             "Quick one: {topic}?", "Could you explain {topic} for me?"]
_DISTRACTOR = {
    "customer": ["I thought {claim}", "I was told {claim}", "I read online that {claim}",
                 "My friend said {claim}", "Isn't it that {claim}"],
    "colleague": ["I heard {claim} - is that still right?", "Someone said {claim}, not correct I think?",
                  "Old rule: {claim}", "I thought {claim}, but let me double check."],
}
_SUPERSEDED = ["Proposal ({date}): {claim}", "Draft ({date}): {claim}",
               "Previously ({date}) {claim} - this was changed.",
               "Old rule, superseded: {claim}"]

# Word swaps for voicing rules that carry no typed value.
_SWAPS = [(r"\bmust not\b", "is not allowed to"), (r"\bcannot\b", "is unable to"), (r"\bmust\b", "has to"),
          (r"\bcustomers?\b", "the client"), (r"\busers?\b", "the account holder"), (r"\bagents?\b", "our staff"),
          (r"\bshould\b", "is expected to"), (r"\bwithin\b", "inside"), (r"\bonly\b", "solely"),
          (r"\brequest\b", "ask for"), (r"\bprovide\b", "give"), (r"\bverify\b", "check"),
          (r"\bbefore\b", "prior to"), (r"\bafter\b", "once"), (r"\bif\b", "when")]
_STOP = set("a an the of to in on for and or is are be by with at as from that this it its per each any all "
            "not no must may can will should than then there their they them who which what when".split())


def ngrams(text: str, n: int = 6) -> set[tuple[str, ...]]:
    toks = re.findall(r"[a-z0-9$%]+", text.lower())
    return {tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)}


def shares_run(a: str, b: str, n: int = 6) -> bool:
    return bool(ngrams(a, n) & ngrams(b, n))


class Writer:
    """Interface every writer implements (the built-in one is the reference)."""

    name = "abstract"

    def __init__(self, pack: "DomainPack"):
        self.pack = pack
        self.voice = pack.brand.voice if pack.brand.voice in _VOICED_LEADS else "friendly"

    # --- names and framing -------------------------------------------------------------
    def person(self, rng: random.Random, role: str = "customer") -> str:
        b = self.pack.brand
        pool = {"agent": b.agents, "manager": b.managers, "customer": b.customers}.get(role) or []
        if pool and rng.random() < 0.8:
            return rng.choice(pool)
        return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"

    def email(self, name: str, internal: bool = True) -> str:
        local = ".".join(re.findall(r"[a-z]+", name.lower())) or "info"
        dom = self.pack.brand.email_domain if internal else "mail.example.net"
        return f"{local}@{dom}"

    def greeting(self, rng: random.Random, role: str, name: str = "", agent: str = "") -> str:
        t = rng.choice(_GREETINGS[role])
        return t.format(name=name.split()[0] if name else "there", company=self.pack.brand.company,
                        agent=agent or self.person(rng, "agent"))

    def closing(self, rng: random.Random, role: str) -> str:
        return rng.choice(_CLOSINGS[role])

    def filler(self, rng: random.Random, role: str, n: int = 1) -> list[str]:
        return [rng.choice(_FILLER[role]) for _ in range(n)]

    def topic(self, fact: Fact) -> str:
        terms = [a for a in fact.anchors if not any(a == c.value.lower() for c in fact.conditions)]
        t = " ".join(terms[:3]) if terms else (fact.section[-1] if fact.section else "this")
        cond = ", ".join(c.value for c in fact.conditions if c.attribute != "attribute")
        return f"{t} ({cond})" if cond else t

    def question(self, fact: Fact, rng: random.Random) -> str:
        return rng.choice(_QUESTION).format(topic=self.topic(fact))

    def subject(self, facts: list[Fact], rng: random.Random) -> str:
        if not facts:
            return rng.choice(["Weekly sync notes", "Office move", "Re: schedule", "Team lunch Friday",
                               "Q3 dashboard access", "Printer on 4th floor"])
        sec = facts[0].section[-1] if facts[0].section else "policy"
        return rng.choice(["Update: {s}", "Re: {s} question", "{s} - clarification", "Fwd: {s}",
                           "{s} changes"]).format(s=sec)

    # --- fact wording -----------------------------------------------------------------
    def value_text(self, slot: Slot, rng: Optional[random.Random] = None) -> str:
        forms = surface_forms(slot)
        if rng is None or len(forms) == 1:
            return forms[0]
        return rng.choice(forms)

    def statement(self, fact: Fact, rendition: str, rng: random.Random) -> str:
        raise NotImplementedError

    def with_value(self, fact: Fact, slot_name: Optional[str], text: str) -> str:
        """The fact's statement with one slot's surface replaced (for distractors)."""
        slot = _pick_slot(fact, slot_name)
        if slot is None:
            return fact.statement
        return fact.statement.replace(slot.text, text, 1)

    def distractor(self, fact: Fact, d: "Distractor", rng: random.Random, role: str = "customer") -> str:
        claim = _lower_first(self.with_value(fact, d.slot, d.text)).rstrip(".")
        if d.role == "superseded":
            return rng.choice(_SUPERSEDED).format(date=d.date or "earlier", claim=claim) + "."
        t = rng.choice(_DISTRACTOR.get(role, _DISTRACTOR["customer"]))
        s = t.format(claim=claim)
        return s + ("?" if s.lower().startswith("isn't") else ".")

    def correction(self, fact: Fact, rng: random.Random) -> str:
        """The current value, stated after a distractor/superseded mention."""
        lead = rng.choice(["Actually, the current policy is: ", "Final decision: ", "To correct that: ",
                           "That's outdated. Today: ", "Confirmed, current rule: "])
        return lead + self.statement(fact, "canonical", rng)

    def bullet(self, fact: Fact) -> str:
        """Terse label + value for tables, slides and cards."""
        vals = ", ".join(s.text for s in fact.slots) if fact.slots else ""
        t = self.topic(fact)
        return f"{t[:1].upper() + t[1:]}: {vals}" if vals else fact.statement


def _lower_first(s: str) -> str:
    if len(s) > 1 and s[0].isupper() and not s[1].isupper():
        return s[0].lower() + s[1:]
    return s


def _pick_slot(fact: Fact, name: Optional[str]) -> Optional[Slot]:
    for s in fact.slots:
        if s.name == name:
            return s
    return fact.slots[0] if fact.slots else None


class BuiltinWriter(Writer):
    name = "builtin"

    def statement(self, fact: Fact, rendition: str, rng: random.Random) -> str:
        if rendition == "voiced":
            return self._voiced(fact, rng)
        return rng.choice(_CANON_LEADS) + fact.statement

    def _voiced(self, fact: Fact, rng: random.Random) -> str:
        numeric = [s for s in fact.slots if s.type not in (SlotType.enum, SlotType.identifier)]
        if numeric:
            lead = rng.choice(_VOICED_LEADS[self.voice])
            conds = [c.value for c in fact.conditions if c.attribute != "attribute"]
            terms = [a for a in fact.anchors if a.lower() not in {c.lower() for c in conds}]
            subject = " ".join(terms) or self.topic(fact)
            if conds:
                subject += " (" + ", ".join(conds) + ")"
            vals = " and ".join(self.value_text(s, rng) for s in numeric)
            out = f"{lead} {subject}: {rng.choice(_VOICED_JOINS)} {vals}."
            if fact.kind == FactKind.prohibition:
                out += " That's a hard limit, no exceptions."
            if not shares_run(out, fact.statement):
                return out[0].upper() + out[1:]
        text = fact.statement
        for pat, rep in _SWAPS:
            text = re.sub(pat, rep, text, flags=re.I)
        if shares_run(text, fact.statement):
            # Break long runs by reordering clauses around the first comma.
            parts = [p.strip() for p in re.split(r",\s*", text.rstrip(".")) if p.strip()]
            if len(parts) > 1:
                text = "; ".join(parts[1:] + parts[:1]) + "."
        if shares_run(text, fact.statement):
            terms = ", ".join(fact.anchors) or self.topic(fact)
            vals = ", ".join(self.value_text(s, rng) for s in fact.slots)
            text = f"In short ({terms}){': ' + vals if vals else ''}."
        lead = rng.choice(["Basically, ", "Put simply, ", "Long story short: ", "In plain terms, "])
        return lead + _lower_first(text)


class LLMWriter(BuiltinWriter):
    """Drafts statements with an LLM through litellm (lazily imported). Each draft must keep
    the fact's values (any equivalent surface form) and anchors, else the built-in wording is
    used and counted in `fallbacks`."""

    name = "llm"

    def __init__(self, pack: "DomainPack", model: Optional[str] = None, mock_response: Optional[str] = None,
                 temperature: float = 0.0):
        super().__init__(pack)
        self.model = model or os.environ.get("FACTFORGE_LLM_MODEL", "gpt-4o-mini")
        self.mock_response = mock_response
        self.temperature = temperature
        self.fallbacks = 0
        self.calls = 0

    def _complete(self, prompt: str, seed: int) -> str:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm  # noqa: PLC0415  (slow import, only when switched on)

        kwargs = dict(model=self.model, messages=[{"role": "user", "content": prompt}],
                      temperature=self.temperature, seed=seed)
        if self.mock_response is not None:
            kwargs["mock_response"] = self.mock_response
        self.calls += 1
        resp = litellm.completion(**kwargs)
        return (resp.choices[0].message.content or "").strip()

    def statement(self, fact: Fact, rendition: str, rng: random.Random) -> str:
        style = ("Restate it faithfully, close to the original wording." if rendition == "canonical"
                 else "Paraphrase it in your own words, as a staff member would say it; do not reuse "
                      "any run of six words from the original.")
        prompt = (f"You write records for {self.pack.brand.company} ({self.pack.info.business}), "
                  f"voice: {self.pack.brand.voice}. One sentence stating this policy fact. {style} "
                  f"Keep every number and amount.\nFact: {fact.statement}")
        draft = self._complete(prompt, rng.randrange(1 << 30))
        if self.valid(fact, draft, rendition):
            return draft
        self.fallbacks += 1
        return super().statement(fact, rendition, rng)

    @staticmethod
    def valid(fact: Fact, text: str, rendition: str) -> bool:
        from facts.values import slot_matches  # noqa: PLC0415

        if not text or len(text) > 600:
            return False
        if any(slot_matches(s, text) is None for s in fact.slots):
            return False
        low = text.lower()
        hits = sum(1 for a in fact.anchors if a.lower() in low)
        if fact.anchors and hits < max(1, (len(fact.anchors) + 1) // 2):
            return False
        return not (rendition == "voiced" and shares_run(text, fact.statement))


def make_writer(pack: "DomainPack", name: str = "builtin", **kw) -> Writer:
    if name == "builtin":
        return BuiltinWriter(pack)
    if name == "llm":
        return LLMWriter(pack, **kw)
    from facts.errors import FactforgeError  # noqa: PLC0415
    raise FactforgeError(f"unknown writer {name!r}; available: builtin, llm")
