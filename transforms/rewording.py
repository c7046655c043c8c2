"""Rewrites of a draft sentence that keep its meaning: a question asked another way, persons
turned round, lists and genitives re-ordered, contractions made or expanded, subject-verb
agreement repaired, a schedule's column label said as people say it. The realiser
(`transforms.realise`) applies them to break a run of words a draft shares with the policy."""
from __future__ import annotations

import random
import re
from typing import Optional

from facts.match import content_words

from .grammar import SUBORDINATORS, base_form, capitalise, fix_articles
from .lexicon import keep_case
from .reading import QUOTED, Clause, outside_quotes
from .registers import Register


# An FAQ question put another way (its words are the policy's: a voiced rendition must not copy
# them); each rule: a pattern and its re-wordings, the first that matches is used.
_ASK_OTHERWISE: list[tuple[re.Pattern, list[str]]] = [
    (re.compile(r"^Is there (an?|any) (.+?)( if | for | when | to | on | with |\?)(.*)$", re.S),
     ["Does {a} {b} apply{c}{d}", "Would {a} {b} apply{c}{d}"]),
    (re.compile(r"^Are there (.+?)( if | for | when | to | on | with |\?)(.*)$", re.S),
     ["Do {a} apply{b}{c}", "Would {a} apply{b}{c}"]),
    (re.compile(r"^Do I need to (.*)$", re.S), ["Do I have to {a}", "Is it necessary for me to {a}", "Must I {a}"]),
    (re.compile(r"^Do I have to (.*)$", re.S), ["Do I need to {a}", "Is it necessary for me to {a}"]),
    (re.compile(r"^Can I (.*)$", re.S), ["Am I able to {a}", "Is it possible for me to {a}", "Could I {a}"]),
    (re.compile(r"^How long (does|do|will) (.*)$", re.S), ["How much time {a} {b}", "What is the wait for {b}"]),
    (re.compile(r"^What is (.*)$", re.S), ["What's {a}", "Could you tell me {a}"]),
    (re.compile(r"^When will I (.*)$", re.S), ["How soon will I {a}", "When should I expect to {a}"]),
    (re.compile(r"^When (does|do|is|are) (.*)$", re.S), ["At what point {a} {b}"]),
]


# the asker's persons turned round, in order ("are you" before "you"), never inside quotes
TO_ME = [(r"\byou are\b", "I am"), (r"\bare you\b", "am I"), (r"\byour\b", "my"), (r"\byou\b", "I")]
TO_YOU = [(r"\bI am\b", "you are"), (r"\b[Aa]m I\b", "are you"), (r"\bmy\b", "your"), (r"\bI\b", "you")]


def turn_persons(text: str, swaps: list[tuple[str, str]]) -> str:
    def one(t: str) -> str:
        for p, r in swaps:
            t = re.sub(p, r, t)
        return t
    return outside_quotes(text, one)


def ask_otherwise(question: str, rng: random.Random) -> str:
    """`question` re-worded at its start ("Is there a fee if ...?" -> "Does a fee apply if
    ...?"), or as it is when no rule fits."""
    for rx, alts in _ASK_OTHERWISE:
        m = rx.match(question)
        if m:
            g = m.groups()
            out = rng.choice(alts).format(**dict(zip("abcd", g)))
            return out if out.endswith("?") else out.rstrip(".") + "?"
    return question


NO_VERB = re.compile(r"\b(?:do|does|did|to|can|could|will|would|should|may|might|must)(?: (?:I|you|we|they|it|not))? "
                      r"(?:must|can|may|should|shall|fee|fees|sum|figure|article|articles)\b", re.I)
MANGLED = re.compile(r"(?<!\bfree )\bof charge\b", re.I)


def doubles(before: str, rep: str, after: str) -> bool:
    """Whether a replacement would write a word twice in a row: its last word again as the
    next word ("ask for" before "for") or its first word as the word before it."""
    words = rep.lower().split()
    if not words:
        return False
    nxt = re.match(r"\s+([\w']+)", after)
    prev = re.search(r"([\w']+)\s+$", before)
    return bool(nxt and nxt.group(1).lower() == words[-1]) or bool(prev and prev.group(1).lower() == words[0])


_PLAIN_VERBS = frozenset("""costs cost reimburses reimburse includes include covers cover receives receive gets get has
have applies apply lasts last starts start remains remain requires require pays pay earns earn expires expire takes
take posts post allows allow charges charge carries carry gives give needs need holds hold runs run ends end""".split())


def plain_subject(c: Optional[Clause]) -> str:
    """The clause's subject when "it" or "they" can stand for it once it has been named: a
    noun phrase without a figure or a quantifier ("TripGuard", "refunds to a credit card",
    not "every new member"), before a modal or a common verb (a reading that split "Lite
    fares include" after "Lite" is not one); "" otherwise."""
    if c is None or c.imperative or not c.subj or len(c.subj.split()) > 6 or re.search(r"\d", c.subj):
        return ""
    if re.match(r"^(?:this|that|these|those|every|each|any|all|no|some|our|your)\b", c.subj, re.I):
        return ""
    if not c.aux and (c.pred.split() or [""])[0].lower() not in _PLAIN_VERBS:
        return ""
    return c.subj


def named_in(subj: str, given: str) -> bool:
    """Whether every content word of a subject (no figure in it) occurs in `given`."""
    if re.search(r"\d", subj) or len(subj.split()) > 6:
        return False
    words = content_words(subj)
    have = set(re.findall(r"[a-z][a-z'-]+", given.lower()))
    return bool(words) and all(w.lower() in have for w in words)


def tidy(text: str) -> str:
    text = re.sub(r"\s{2,}", " ", text)
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    return fix_articles(text.strip())


_FUNC = set("""the a an in on for to of with by at from that which who when if is are was were and or but per each
every as than into under over before after within without unless until while so""".split())
_ITEM = r"[A-Za-z][\w'-]*"


def _next_ok(text: str, end: int) -> bool:
    rest = text[end:].lstrip()
    if not rest or rest[0] in ",.;:?!)\u2014-":
        return True
    nxt = re.match(r"[\w'-]+", rest)
    return bool(nxt) and nxt.group(0).lower() in _FUNC


def _prev_ok(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    if not before or before[-1] in ",;:(\u2014":
        return True
    prv = re.search(r"([\w'-]+)$", before)
    return bool(prv) and prv.group(1).lower() in _FUNC | {"include", "includes", "cover", "covers", "are", "is"}


# verbs that take their object through a preposition ("wait for", "ask for", "apply to"): after
# "and" they start a clause, they do not end a list
_PREP_VERBS = {"wait", "ask", "apply", "reply", "respond", "refer", "opt", "listen", "look", "hold", "call", "write"}


def _lists(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """Items of a list inside [s, e) in another order ("meals and lodging" -> "lodging and
    meals"; "illness, injury or death" -> "death, illness or injury")."""
    name = r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)+"
    rx = re.compile(rf"\b({name}(?:, {name})*),? (and|or) ({name})\b|\b({_ITEM}(?:, {_ITEM})*),? (and|or) ({_ITEM})\b")
    for m in rx.finditer(text):
        if m.end() < s or m.start() > e:
            continue
        g = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
        items = g[0].split(", ") + [g[2]]
        if any(i.lower() in _FUNC for i in items) or len(set(items)) < len(items):
            continue
        names = all(i[:1].isupper() for i in items)
        if not (_prev_ok(text, m.start()) and (names or _next_ok(text, m.end()))):
            continue
        if re.match(r"\s*(the|a|an|each|every|this|that|its|their|your)\b", text[m.end():], re.I):
            continue  # the last word takes an object: a verb, not a list item ("the applicant and confirm the")
        if items[-1].lower() in _PREP_VERBS and re.match(r"\s*(for|to|on|with|until|back)\b", text[m.end():], re.I):
            continue  # a verb and its preposition ("summarise the action and wait for the customer's ...")
        new = items[1:] + items[:1]
        if not names and re.search(r"(^|[.!?:]\s+)$", text[:m.start()]):  # the list opens a sentence
            new = [new[0][:1].upper() + new[0][1:]] + [x[:1].lower() + x[1:] for x in new[1:]]
        joined = ", ".join(new[:-1]) + f" {g[1]} " + new[-1]
        return text[:m.start()] + joined + text[m.end():]
    return None


def _genitive(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """"the balance of a dormant account" <-> "a dormant account's balance"."""
    rx = re.compile(r"\b[Tt]he ((?:[a-z][\w-]* )?[a-z][\w-]*) of (the|a|an) ((?:[a-z][\w-]* )?[a-z][\w-]*)\b")
    for m in rx.finditer(text):
        if m.end() < s or m.start() > e or not _next_ok(text, m.end()):
            continue
        if m.group(1).split()[-1] in _FUNC or m.group(3).split()[-1] in _FUNC:
            continue
        det = m.group(2)
        det = keep_case(m.group(0), det)
        return text[:m.start()] + f"{det} {m.group(3)}'s {m.group(1)}" + text[m.end():]
    rx2 = re.compile(r"\b(the|a|an) ([a-z][\w-]*)'s ((?:[a-z][\w-]* )?[a-z][\w-]*)\b")
    for m in rx2.finditer(text):
        if m.end() < s or m.start() > e or not _next_ok(text, m.end()):
            continue
        the = keep_case(m.group(0), "the")
        return text[:m.start()] + f"{the} {m.group(3)} of {m.group(1).lower()} {m.group(2)}" + text[m.end():]
    return None


def _generic_any(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """A rule's generic subject: "A reservation ..." -> "Any reservation ..."."""
    m = re.match(r"^(A|An)\s", text)
    if m and s <= 2:
        return "Any " + text[m.end():]
    return None


def _then(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """"If X, Y" -> "If X, then Y"."""
    m = re.match(r"^((?:If|When|Once|Whenever)\b[^,]{3,}),\s(?!then\b)", text)
    if m and m.end() >= s and m.end() <= e + 2:
        return text[:m.end()] + "then " + text[m.end():]
    return None


def _per_unit(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """A rate by its unit: "the per-GB price" -> "the price per GB" (a run may end inside it)."""
    for m in re.finditer(r"(?<![\w-])per-([A-Za-z]+) (price|rate|fee|charge|cost)\b", text):
        if m.end() < s or m.start() > e:
            continue
        return text[:m.start()] + f"{m.group(2)} per {m.group(1)}" + text[m.end():]
    return None


STRUCTURAL = (_lists, _genitive, _generic_any, _then, _per_unit)


_SUBORDINATE = re.compile(r"\b(?:" + "|".join((*SUBORDINATORS, "that", "whether", "because")) + r")\b", re.I)


def _subordinate(before: str) -> bool:
    """Whether a copula after `before` is a subordinate clause's ("verify that instant issuance
    is enabled"): a note drops the main clause's copula only, never "that instant issuance enabled"."""
    return _SUBORDINATE.search(re.split(r"[,;:.]", before)[-1]) is not None


def telegraph(text: str, reg: Register) -> str:
    """Note style: articles and copulas dropped, "per" as a slash, "and" as "&" (never inside
    quoted words)."""
    def jot(t: str) -> str:
        # articles dropped, but the one a set phrase needs: "the posting date of the charge",
        # never "of charge" (the idiom "free of charge")
        t = re.sub(r"(?<![\w'-])(?<!\bof )(?:the|a|an)\s+(?=[a-z0-9$])|(?<=\bof )(?:the|a|an)\s+(?=[a-z0-9$])(?!charge\b)",
                   "", t)
        t = re.sub(r"\s+per\s+(?=[a-z])", "/", t)
        t = re.sub(r"(?<!who )(?<!that )(?<!which )(?<!\byou )(?<!\bwe )(?<!\bthey )(?<!\bit )\b(is|are) (not )?"
                   r"(?=[a-z]+(?:ed|en)\b)(?!(?:allowed|required|expected|permitted|supposed|entitled|obliged) to\b)",
                   lambda m: m.group(0) if _subordinate(t[:m.start()]) else (m.group(2) or ""), t)
        t = t.replace(" and ", " & ").replace(" without ", " w/o ").replace(" with ", " w/ ")
        if not reg.controlled:
            t = t.replace(" because ", " b/c ").replace(" approximately ", " approx. ")
        return t
    t = re.sub(r"^(?:The|A|An)\s+", "", outside_quotes(text, jot))
    t = re.sub(r"\s{2,}", " ", t).strip()
    return capitalise(t)


# How people name a schedule's column in a sentence (one change is enough: the exact label is
# what the schedule prints, a person says "the maintenance fee per month" or "the overdraft
# charge"). Each rule: a pattern on the label and its rewrite; rules that do not match are skipped.
_LABEL_RULES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^(daily|monthly) (.+? )?limit$", re.I), lambda m: f"{(m[2] or '')}limit per {'day' if m[1].lower() == 'daily' else 'month'}"),
    (re.compile(r"^daily ((?:(?! for ).)+)$", re.I), lambda m: f"{m[1]} per day"),
    (re.compile(r"^monthly (.+ fee)$", re.I), lambda m: f"{m[1]} per month"),
    (re.compile(r"^annual (.+)$", re.I), lambda m: f"yearly {m[1]}"),
    (re.compile(r"^(.+) fee$", re.I), lambda m: f"{m[1]} charge"),
    (re.compile(r"^(.+) fees (.+)$", re.I), lambda m: f"{m[1]} charges {m[2]}"),
    (re.compile(r"^minimum balance requirement$", re.I), lambda m: "required minimum balance"),
    (re.compile(r"^minimum (opening deposit|amount|down payment.*|balance.*|daily balance.*|cash advance fee|credit limit)$",
                re.I), lambda m: f"smallest {m[1]}"),
    (re.compile(r"^minimum (credit score|annual income|annual business revenue|account age|time in business|term)$", re.I),
     lambda m: f"lowest {m[1]}"),
    (re.compile(r"^maximum (term|vehicle age)$", re.I), lambda m: f"longest {m[1]}" if m[1].lower() == "term" else "oldest vehicle age"),
    (re.compile(r"^maximum (?!term$|vehicle age$)(.+)$", re.I), lambda m: f"highest {m[1]}"),
    (re.compile(r"^(.+) per statement cycle$", re.I), lambda m: f"{m[1]} each statement cycle"),
    (re.compile(r"^(.+) allowed per term$", re.I), lambda m: f"{m[1]} permitted per term"),
    (re.compile(r"^(.+) period$", re.I), lambda m: f"{m[1]} window"),
    (re.compile(r"^(.+) limit$", re.I), lambda m: f"{m[1]} cap"),
]


def label_variants(label: str) -> list[str]:
    """Other ways to name a column `label` in a sentence ("Monthly maintenance fee" ->
    "maintenance fee per month", "monthly maintenance charge"); [] when no rule applies. The
    first word keeps the label's case (an acronym stays upper case)."""
    out = []
    for rx, rewrite in _LABEL_RULES:
        m = rx.match(label.strip())
        if m:
            alt = rewrite(m).strip()
            alt = alt[:1].upper() + alt[1:] if label[:1].isupper() and not alt[:2].isupper() else alt
            if alt and alt.lower() != label.lower() and alt not in out:
                out.append(alt)
    return out


def property_like(col: str) -> bool:
    return bool(re.search(r"\b(fee|fees|rate|apr|apy|window|limit|minimum|maximum|period|bonus|score|amount|price|term|"
                          r"balance|deposit|charge|cost|allowance|per|value|ratio|percentage|discount|rebate|rebates|"
                          r"required|included|added|data|passes|days|months|years|lines|length|cap|tier|speed|"
                          r"spend|reward|rewards|interest|payment|loan-to-value|penalty|age|count)\b", col, re.I))


def addressed(text: str) -> bool:
    """Whether words outside quotes speak to the reader ("your balance", "for you")."""
    bare = " ".join(QUOTED.split(text))
    return bool(re.search(r"\b(?:you|your|yours)\b", bare, re.I))


def to_them(text: str, subject: bool = False) -> str:
    """The reader said in the third person, outside quotes: "your" -> "their", "you" -> "them"
    (as a subject, "they": "when you are below" -> "when they are below")."""
    def plain(t: str) -> str:
        t = re.sub(r"\byours\b", "theirs", re.sub(r"\byour\b", "their", t))
        return re.sub(r"\byou\b", "they" if subject else "them", t)
    return outside_quotes(text, plain)


def you_object(text: str) -> str:
    return outside_quotes(text, _you_object_plain)


def _you_object_plain(text: str) -> str:
    text = re.sub(r"\bthe (?:booking )?customer's\b", "your", text)
    text = re.sub(r"\b(?:the|a) (?:booking )?(?:customer|passenger|member|cardholder|account holder)\b", "you", text)
    # a subject this missed ("Whether the customer has provided ..." -> "Whether you has")
    return re.sub(r"\byou (has|is|was|does)\b", lambda m: "you " + {"has": "have", "is": "are", "was": "were",
                                                                  "does": "do"}[m.group(1)], text)


def you_subject(text: str) -> str:
    return outside_quotes(text, _you_subject_plain)


def _you_subject_plain(text: str) -> str:
    text = re.sub(r"\b(?:the|a|an) (?:booking )?(?:customer|passenger|member|cardholder|applicant|account holder) "
                  r"(has|is|was|does)\b", lambda m: "you " + {"has": "have", "is": "are", "was": "were",
                                                              "does": "do"}[m.group(1)], text)
    text = re.sub(r"\b(?:the|a|an) (?:booking )?(?:customer|passenger|member|cardholder|applicant|account holder) "
                  r"([a-z]+s)\b", lambda m: "you " + base_form(m.group(1)), text)
    return _you_object_plain(text)


_CONTRACT = [(r"\bdo not\b", "don't"), (r"\bdoes not\b", "doesn't"), (r"\bis not\b", "isn't"), (r"\bare not\b",
                                                                                                   "aren't"),
             (r"\bcannot\b", "can't"), (r"\bwill not\b", "won't"), (r"\bwe will\b", "we'll"), (r"\byou are\b",
                                                                                              "you're"),
             (r"\bit is\b", "it's"), (r"\bthat is\b", "that's"), (r"\bwe are\b", "we're"), (r"\bI will\b", "I'll")]


def contract(text: str) -> str:
    def one(text: str) -> str:
        for p, r in _CONTRACT:
            text = re.sub(p, lambda m, r=r: keep_case(m.group(0), r), text)
        return text
    return outside_quotes(text, one)


def expand_contractions(text: str) -> str:
    def one(text: str) -> str:
        for p, r in _CONTRACT:
            text = re.sub(r"\b" + re.escape(r) + r"\b", lambda m, p=p: keep_case(m.group(0), p.replace("\\b", "")),
                          text)
        return text.replace("I'll", "I will").replace("what's", "what is").replace("What's", "What is")
    return outside_quotes(text, one)


_AUX = {"does", "did", "do", "will", "would", "can", "could", "may", "might", "must", "should", "shall", "to",
        "let", "make", "makes", "made", "help", "helps", "saw", "see", "hear", "heard", "have", "has", "had"}
_AGREE = [(re.compile(r"\b(you|we|they) (has|is|was|does|needs|gets|receives|pays)\b"),
           lambda m: f"{m.group(1)} " + {"has": "have", "is": "are", "was": "were", "does": "do"}.get(
               m.group(2), base_form(m.group(2)))),
          (re.compile(r"\b(agents|customers|passengers|staff members|members|clients|reps) (has|is|does)\b"),
           lambda m: f"{m.group(1)} " + {"has": "have", "is": "are", "does": "do"}[m.group(2)]),
          # a frame's plural modal after a singular pronoun ("for vehicle loans it are not allowed
          # to"), unless an auxiliary governs the verb ("does it have")
          (re.compile(r"\b(\w+ )?(it|he|she) (are|were|have|do)\b", re.I),
           lambda m: m.group(0) if (m.group(1) or "").strip().lower() in _AUX else
           f"{m.group(1) or ''}{m.group(2)} " + {"are": "is", "were": "was", "have": "has", "do": "does"}[
               m.group(3).lower()])]


def fix_agreement(text: str) -> str:
    for rx, fn in _AGREE:
        text = rx.sub(fn, text)
    return text
