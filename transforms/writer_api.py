"""The writer interface (`Writer`): what every writer gives the renderers (people's names,
greetings, closings and fillers, a fact's topic, label, question and statements, values in
words) and what the built-in writer (`transforms.writers.BuiltinWriter`) implements as the
reference; `register_of` turns a register name into a `Register`."""
from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Optional

from facts.bounds import bounded_text
from facts.hashing import content_hash
from facts.models import Fact, Slot, SlotType, replace_value
from facts.surface import surface_forms
from facts.values import find_values

from .grammar import expand, finish
from .headings import condition_values, fact_label, topic_of
from .phrasebook import FIRST, LAST, RULES
from .realise import Context
from .registers import REGISTERS, Register

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack

    from .situations import Customer, Rec


def register_of(reg: Optional["Register | str"], role: str = "agent") -> Register:
    if isinstance(reg, Register):
        return reg
    if isinstance(reg, str) and reg in REGISTERS:
        return REGISTERS[reg]
    return REGISTERS["staff_email"] if role in ("colleague", "manager") else REGISTERS["chat"]


def holds_value(label: str, currency: str) -> bool:
    """Whether a label holds a figure ("passenger under 14 years old", "lb costs an extra
    $100", "of spending in the last 12"): such a label asked about, or put in a subject line,
    gives the answer away and reads as nobody's question."""

    return bool(find_values(label, currency=currency))


def pick_slot(fact: Fact, name: Optional[str]) -> Optional[Slot]:
    for s in fact.slots:
        if s.name == name:
            return s
    return fact.slots[0] if fact.slots else None


class Writer:
    """Interface every writer implements (the built-in one is the reference)."""

    name = "abstract"

    def __init__(self, pack: "DomainPack"):
        self.pack = pack
        self.voice = pack.brand.voice

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
        return f"{rng.choice(FIRST)} {rng.choice(LAST)}"

    def email(self, name: str, internal: bool = True) -> str:
        local = ".".join(re.findall(r"[a-z]+", name.lower())) or "info"
        dom = self.pack.brand.email_domain if internal else "mail.example.net"
        return f"{local}@{dom}"

    def _say(self, rule: str, rng: random.Random, **slots: str) -> str:
        b = self.pack.brand
        base = {"company": b.company, "short": b.short_name or b.company.split()[0], "first": "there",
                "agent": self.person(rng, "agent"), "agentfirst": "", "thing": "my account", "names": "all",
                "owner": self.person(rng, "manager")}
        base["agentfirst"] = base["agent"].split()[0]
        base.update({k: v for k, v in slots.items() if v})
        return finish(expand(f"<{rule}>", rng, base, RULES))

    def greeting(self, rng: random.Random, role: str, name: str = "", agent: str = "", thing: str = "") -> str:
        first = name.split()[0] if name else "there"
        return self._say(f"greet_{role if role in ('agent', 'customer') else 'colleague'}", rng, first=first,
                         agent=agent, agentfirst=agent.split()[0] if agent else "", thing=thing, names=first)

    def closing(self, rng: random.Random, role: str, name: str = "", agent: str = "", thing: str = "") -> str:
        first = name.split()[0] if name else ""
        return self._say(f"close_{role if role in ('agent', 'customer') else 'colleague'}", rng,
                         first=first or "there", agent=agent, agentfirst=agent.split()[0] if agent else "",
                         thing=thing, names=first)

    def filler(self, rng: random.Random, role: str, n: int = 1, name: str = "", thing: str = "") -> list[str]:
        key = f"filler_{role if role in ('agent', 'customer') else 'colleague'}"
        first = name.split()[0] if name else ""
        return [self._say(key, rng, first=first, thing=thing or "your details", names=first) for _ in range(n)]

    def topic(self, fact: Fact) -> str:
        """A short noun phrase for what the fact is about: its label, narrowed by its
        conditions ("checked bag allowance (Premier, Navigator)"), else its section as people name
        it (`common.topic_of`: never a question heading such as "What can be changed")."""
        lab = self.label(fact) or next((c.value for c in fact.conditions if c.attribute == "attribute"), "")
        cond = ", ".join(self.condition_values(fact))
        if lab:
            lab = self.lower_first(lab)
            return f"{lab} ({cond})" if cond else lab
        sec = topic_of(fact) if fact.section else "this"
        sec = self.lower_first(sec)
        return f"{sec} ({cond})" if cond else sec

    condition_values = staticmethod(condition_values)

    def lower_first(self, text: str) -> str:
        """Lower-case the first word when it is an ordinary word (seen in lower case in the
        domain's own policy), never a name ("TripGuard", "Pinnacle"), and never in a heading
        written in title case ("Domestic Out-of-Network ATM Usage", "Contact Us"): lowering its
        first word alone would make a casing the policy never writes."""
        first = text.split(" ", 1)[0]
        long = [w for w in text.split() if len(w) > 3 and w[:1].isalpha()]
        if len(long) >= 2 and all(w[:1].isupper() for w in long):
            return text
        words = [w for w in text.split() if w[:1].isalpha()]
        if len(words) >= 2 and all(w[:1].isupper() for w in words):  # "Contact Us", never "contact Us"
            return text
        if first and first[0].isupper() and first.lower() in self._vocabulary() and first not in self._proper_words() \
                and not any(text.startswith(n) for n in self.names() if " " in n):
            return first[0].lower() + text[1:]
        return text

    def _vocabulary(self) -> set[str]:
        if not hasattr(self, "_vocab"):
            words: set[str] = set()
            for f in self._facts():
                words |= set(re.findall(r"(?<=\s)([a-z][a-z'-]*)", f.statement))
            self._vocab = words | {"the", "a", "an", "this", "that", "each", "every", "all", "any", "if", "when"}
        return self._vocab

    def _facts(self) -> list[Fact]:
        try:
            return list(self.pack.facts.facts)
        except Exception:  # noqa: BLE001 - a pack without facts yet: names from the brand only
            return []

    def _proper_words(self) -> set[str]:
        b = self.pack.brand
        words = set(b.company.split()) | set(b.short_name.split())
        for v in b.products.values():
            words |= set(v.split())
        return words

    def names(self) -> set[str]:
        """Names whose capitalisation is fixed: the company, product names, and capitalised
        phrases the policy uses mid-sentence (catalog rows, tiers, plans)."""
        if not hasattr(self, "_names"):
            b = self.pack.brand
            out = {b.company, *(b.short_name and [b.short_name] or []), *b.products.values()}
            vocab = self._vocabulary()
            for f in self._facts():
                for c in f.conditions:
                    v = c.value.strip()
                    if c.attribute != "attribute" and v[:1].isupper() and (" " in v or v.lower() not in vocab):
                        out.add(v)
                for m in re.finditer(r"(?<=[a-z,;] )((?:[A-Z][\w'-]*)(?: [A-Z][\w'-]*)+)", f.statement):
                    out.add(m.group(1))
                for m in re.finditer(r"(?<=[a-z,;] )([A-Z][a-z]*[A-Z][\w-]*|[A-Z][a-z]+)(?=[\s,.;:])", f.statement):
                    if m.group(1).lower() not in vocab:
                        out.add(m.group(1))
            self._names = {n for n in out if n}
        return self._names

    def label(self, fact: Fact) -> str:
        """A short noun phrase naming the fact (`fact_label`)."""
        return fact_label(fact)

    def question(self, fact: Fact, rng: random.Random, customer: Optional["Customer"] = None,
                 record: Optional["Rec"] = None, register: Optional["Register | str"] = None) -> str:
        raise NotImplementedError

    def subject(self, facts: list[Fact], rng: random.Random) -> str:
        if not facts:
            return rng.choice(["Weekly sync notes", "Office move", "Re: schedule", "Team lunch Friday",
                               "Q3 dashboard access", "Printer on 4th floor"])
        sec = topic_of(facts[0]) if facts[0].section else "policy"  # a subject, never "How to confirm what"
        lab = self.label(facts[0])
        lab = sec if not lab or holds_value(lab, self.pack.info.currency) else lab
        if len(re.findall(r"[A-Za-z0-9']+", lab)) > 4:  # a subject line names the topic in a few words
            # (counted as the lints count them: "out-of-network" is three), not the rule's wording:
            # a label's name before its colon ("Out-of-network usage", never "... usage: Any transaction")
            head = lab.split(": ", 1)[0]
            lab = (head if ": " in lab and len(head.split()) <= 4 else sec if len(sec.split()) <= 5
                   else " ".join(head.split()[:4]).rstrip(",;:"))
        lab = self.lower_first(lab)
        t = rng.choice(["{Question|Check} on <s>", "<s>: {what do we tell customers|which version is right|need a "
                        "ruling}", "{Clarifying|Confirming} <s>", "<s> — {follow-up|macro update|quick check}"])
        return finish(expand(t, rng, {"s": lab}, {}))

    # --- fact wording -----------------------------------------------------------------
    def value_text(self, slot: Slot, rng: Optional[random.Random] = None) -> str:
        forms = surface_forms(slot)
        if rng is None or len(forms) == 1:
            return forms[0]
        return rng.choice(forms)

    def statement(self, fact: Fact, rendition: str, rng: random.Random, register: Optional["Register | str"] = None,
                  context: Optional[Context] = None) -> str:
        raise NotImplementedError

    def with_value(self, fact: Fact, slot_name: Optional[str], text: str) -> str:
        """The fact's statement with one slot's surface replaced."""
        slot = pick_slot(fact, slot_name)
        if slot is None:
            return fact.statement
        return replace_value(fact.statement, slot.text, text)

    def bullet(self, fact: Fact) -> str:
        """Terse "label: value" for tables, cards and slides; falls back to the statement when
        no short label keeps the fact identifiable."""
        lab = self.label(fact)
        vals = ", ".join(bounded_text(fact, s, lab) for s in fact.slots
                         if s.type not in (SlotType.enum, SlotType.identifier))
        cond = ", ".join(self.condition_values(fact))
        if vals and lab:
            return f"{lab}{f' ({cond})' if cond else ''}: {vals}"
        return fact.statement.rstrip(".")
