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

from facts.hashing import content_hash
from facts.models import Fact, Slot, SlotType
from facts.surface import replace_value, surface_forms

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
             "How does it work with {topic}?", "I wanted to ask about {topic}.",
             "Quick question about {topic}.", "Could you explain {topic} for me?",
             "What do I need to know about {topic}?", "I'm a bit confused about {topic}."]
_DISTRACTOR = {
    "customer": ["I thought {claim}", "I was told {claim}", "I read online that {claim}",
                 "My friend said {claim}", "Isn't it that {claim}"],
    "colleague": ["I heard {claim} - is that still right?", "Someone said {claim}, not correct I think?",
                  "Old rule: {claim}", "I thought {claim}, but let me double check."],
}
_SUPERSEDED = ["Proposal ({date}): {claim}", "Draft ({date}): {claim}",
               "Until {date}, {claim} (no longer the case).",
               "Old rule, superseded: {claim}"]



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
        self.voice = pack.brand.voice if pack.brand.voice in _VOICED_OPEN else "friendly"

    def identity(self) -> dict:
        """What decides this writer's wording besides its code and the facts of an artifact:
        part of every render cache key (transforms.render). A writer with settings (a model,
        a temperature) adds them here."""
        return {"name": self.name, "voice": self.voice, "vocabulary": content_hash(sorted(self._vocabulary()))}

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
        """A short noun phrase for what the fact is about: its section, narrowed by its
        conditions ("checked bag allowance (Premier, Navigator)"); the statement's own head
        noun phrase when it identifies the fact ("security deposit")."""
        lab = self.label(fact)
        if lab:
            cond = ", ".join(c.value for c in fact.conditions)
            lab = self.lower_first(lab)
            return f"{lab} ({cond})" if cond else lab
        sec = fact.section[-1] if fact.section else "this"
        if len(fact.section) > 1 and sec.lower() in {"overview", "general", "rules", "details", "notes"}:
            sec = fact.section[-2]
        sec = re.sub(r"^\d+(\.\d+)*\s*", "", sec).strip() or "this"
        first = sec.split()[0]
        if not (first in self._proper_words() or first.isupper()):
            sec = sec[:1].lower() + sec[1:]
        cond = ", ".join(c.value for c in fact.conditions)
        return f"{sec} ({cond})" if cond else sec

    def lower_first(self, text: str) -> str:
        """Lower-case the first word when it is an ordinary word (seen in lower case in the
        domain's own policy), never a name ("TripGuard", "Pinnacle")."""
        first = text.split(" ", 1)[0]
        if first and first[0].isupper() and first.lower() in self._vocabulary() and first not in self._proper_words():
            return first[0].lower() + text[1:]
        return text

    def _vocabulary(self) -> set[str]:
        if not hasattr(self, "_vocab"):
            words: set[str] = set()
            try:
                for f in self.pack.facts.facts:
                    words |= set(re.findall(r"(?<=\s)([a-z][a-z'-]*)", f.statement))
            except Exception:  # noqa: BLE001 - a pack without facts yet: common words only
                pass
            self._vocab = words | {"the", "a", "an", "this", "that", "each", "every", "all", "any", "if", "when"}
        return self._vocab

    def _proper_words(self) -> set[str]:
        b = self.pack.brand
        words = set(b.company.split()) | set(b.short_name.split())
        for v in b.products.values():
            words |= set(v.split())
        return words

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
        return replace_value(fact.statement, slot.text, text)

    def distractor(self, fact: Fact, d: "Distractor", rng: random.Random, role: str = "customer") -> str:
        claim = self.lower_first(self.with_value(fact, d.slot, d.text)).rstrip(".?! ")
        if d.role == "superseded":
            return rng.choice(_SUPERSEDED).format(date=d.date or "earlier", claim=claim) + "."
        t = rng.choice(_DISTRACTOR.get(role, _DISTRACTOR["customer"]))
        s = t.format(claim=claim)
        return s + ("?" if s.lower().startswith("isn't") else ".")

    def correction(self, fact: Fact, rng: random.Random) -> str:
        """The current value, stated after a distractor/superseded mention."""
        lead = rng.choice(["Actually, the current policy is: ", "Final decision: ", "To correct that: ",
                           "That's outdated. Today: ", "Confirmed, current rule: "])
        return lead + self.lower_first(fact.statement)

    def label(self, fact: Fact) -> str:
        """A short noun phrase naming the fact: the statement's head ("Security deposit"), or
        the words right after its value ("discount on late fees"); "" when neither carries at
        least half of the fact's anchors."""
        def covers(phrase: str) -> bool:
            low = phrase.lower()
            hits = sum(1 for a in fact.anchors if a.lower()[:5] in low)
            return bool(fact.anchors) and hits * 2 >= len(fact.anchors)

        m = re.match(r"^(?:the|a|an|each|every|all|any)?\s*(.+?)\s+(?:is|are|was|must|may|can|cannot|will|has|have|does|do|should|"
                     r"gets?|receives?|pays?|lasts?|costs?|covers?|applies|apply|requires?|includes?)\b",
                     fact.statement, flags=re.I)
        if m and len(m.group(1).split()) <= 8 and covers(m.group(1)):
            head = m.group(1).strip(" ,")
            return head[:1].upper() + head[1:]
        for s in fact.slots:
            i = fact.statement.find(s.text)
            if s.text and i >= 0:
                tail = re.split(r"[,.;:()]| if | when | unless | for each | per ", fact.statement[i + len(s.text):])[0]
                tail = " ".join(tail.split()[:6])
                if tail and covers(tail):
                    return tail[:1].upper() + tail[1:]
        return ""

    def bullet(self, fact: Fact) -> str:
        """Terse "label: value" for tables, cards and slides; falls back to the statement when
        no short label keeps the fact identifiable."""
        vals = ", ".join(s.text for s in fact.slots if s.type not in (SlotType.enum, SlotType.identifier))
        lab = self.label(fact)
        cond = ", ".join(c.value for c in fact.conditions)
        if vals and lab:
            return f"{lab}{f' ({cond})' if cond else ''}: {vals}"
        return fact.statement.rstrip(".")


def _pick_slot(fact: Fact, name: Optional[str]) -> Optional[Slot]:
    for s in fact.slots:
        if s.name == name:
            return s
    return fact.slots[0] if fact.slots else None


_PHRASES = [  # (pattern, alternatives): function words and verbs, never a fact's anchors
    (r"\bmust not\b", ["may not", "is not allowed to", "can't"]), (r"\bcannot\b", ["can't"]),
    (r"\bmust\b", ["has to", "needs to"]), (r"\bshould\b", ["is expected to", "ought to"]),
    (r"\bwithin\b", ["inside of", "no later than"]), (r"\bprior to\b", ["before"]), (r"\bbefore\b", ["ahead of"]),
    (r"\bafter\b", ["once past", "following"]), (r"\breceive\b", ["get"]), (r"\breceives\b", ["gets"]),
    (r"\bprovide\b", ["give"]), (r"\bprovides\b", ["gives"]),
    (r"\bpurchase\b", ["buy"]), (r"\badditional\b", ["extra"]), (r"\bapproximately\b", ["about"]),
    (r"\bis not\b", ["isn't"]), (r"\bare not\b", ["aren't"]), (r"\bdo not\b", ["don't"]), (r"\bdoes not\b", ["doesn't"]),
    (r"\bwill be\b", ["gets", "is going to be"]), (r"\bmay\b", ["can"]), (r"\bonly\b", ["just"]),
    (r"\bper\b", ["for each", "a"]), (r"\beach\b", ["every"]), (r"\bat least\b", ["no less than", "a minimum of"]),
    (r"\bat most\b", ["no more than", "a maximum of"]), (r"\bup to\b", ["as much as", "a max of"]),
    (r"\bif\b", ["when", "in case"]), (r"\bunless\b", ["except when"]), (r"\bthe following\b", ["these"]),
    (r"\bin order to\b", ["to"]), (r"\bis charged\b", ["gets billed", "applies"]), (r"\bare charged\b", ["get billed"]),
    (r"\brequired\b", ["needed"]), (r"\brequires\b", ["needs"]), (r"\ballowed\b", ["permitted", "OK"]),
    (r"\bcustomers\b", ["clients", "people"]), (r"\bcustomer\b", ["client", "person"]),
    (r"\bthe agent\b", ["the rep", "staff"]), (r"\bagents\b", ["reps", "staff"]),
]
_ASIDES = ["as it happens", "in practice", "mind you", "to be clear", "as far as I know", "basically",
           "for what it's worth", "in our experience"]
_VOICED_OPEN = {
    "friendly": ["So basically, ", "Just so you know, ", "Good news on that one: ", "Here's the deal: ", "Okay so, "],
    "formal": ["In summary, ", "For clarity, ", "To put it plainly, ", "In practical terms, "],
    "terse": ["FYI: ", "Short version: ", "TL;DR: ", "Note - "],
}


class BuiltinWriter(Writer):
    name = "builtin"

    def statement(self, fact: Fact, rendition: str, rng: random.Random) -> str:
        if rendition == "voiced":
            return self._voiced(fact, rng)
        lead = rng.choice(_CANON_LEADS)
        return lead + (self.lower_first(fact.statement) if lead else fact.statement)

    def _voiced(self, fact: Fact, rng: random.Random) -> str:
        """Paraphrase: other surface forms for values, other function words, clause order
        swapped, and a spoken aside inside any run of six words still shared with the policy.
        Anchor terms are kept (they identify the fact)."""
        text = fact.statement.rstrip(". ")
        protected = []
        for s in sorted(fact.slots, key=lambda s: -len(s.text)):
            if s.text and s.text in text:
                alt = [f for f in surface_forms(s)[1:] if f != s.text] or [s.text]
                token = f"\x00{chr(65 + len(protected))}\x00"
                protected.append(rng.choice(alt))
                text = replace_value(text, s.text, token)
        anchors = {a.lower() for a in fact.anchors}
        for pat, alts in _PHRASES:
            if any(re.fullmatch(pat, a) for a in anchors):
                continue
            text = re.sub(pat, lambda m: _keep_case(m.group(0), rng.choice(alts)), text, flags=re.I)
        m = re.match(r"^(If|When|Unless|Once|After|Before)\b([^,]{4,}),\s*(.+)$", text, flags=re.I)
        if m and rng.random() < 0.8:
            text = f"{m.group(3)} {m.group(1).lower()}{m.group(2)}"
        for i, v in enumerate(protected):
            text = text.replace(f"\x00{chr(65 + i)}\x00", v)
        run = _first_shared_run(text, fact.statement)
        if run is not None and " — " not in text:  # (catalog cells stay terse)  # one spoken aside at most; longer sentences may keep a shared run
            words = text.split(" ")
            words.insert(min(len(words) - 1, run + 3), f"- {rng.choice(_ASIDES)} -")
            text = " ".join(words)
        lead = rng.choice(_VOICED_OPEN[self.voice])
        return lead + self.lower_first(text) + "."


def _keep_case(src: str, rep: str) -> str:
    return rep[:1].upper() + rep[1:] if src[:1].isupper() else rep


def _first_shared_run(text: str, original: str, n: int = 6):
    """Index (in text.split(' ')) of the first word of a run of n words shared with original."""
    ref = ngrams(original, n)
    words = text.split(" ")
    toks = [re.findall(r"[a-z0-9$%]+", w.lower()) for w in words]
    flat, owner = [], []
    for i, t in enumerate(toks):
        for x in t:
            flat.append(x)
            owner.append(i)
    for i in range(len(flat) - n + 1):
        if tuple(flat[i:i + n]) in ref:
            return owner[i]
    return None


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

    def identity(self) -> dict:
        return {**super().identity(), "model": self.model, "temperature": self.temperature,
                "mock_response": self.mock_response}

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

    def correction(self, fact: Fact, rng: random.Random) -> str:
        lead = rng.choice(["Actually, the current policy is: ", "Final decision: ", "To correct that: "])
        return lead + self.lower_first(self.statement(fact, "canonical", rng))

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
