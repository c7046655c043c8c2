"""Optional LLM decomposer (litellm, any provider), switched on with `decomposer="llm"`.

The policy is cut into one chunk per section; the model returns JSON facts for each chunk
(statement, kind, slots, conditions, lines). Every answer is validated with the pydantic
models: slot texts must occur in the statement, kinds and slot types must be known, lines
must lie inside the chunk. Ids are rebuilt with `make_fact_id`, so they are comparable with
the built-in decomposer's. Invalid output raises `FactforgeError` naming the file and the
chunk's first line. Tests only ever use litellm's `mock_response`.
"""
from __future__ import annotations

import json
import os
import re
import warnings
from typing import Any, Optional

from pydantic import ValidationError

from .decompose import content_tokens
from .errors import FactforgeError
from .models import Condition, Fact, FactKind, FactSet, Slot, SourceSpan, UnparsedLine, make_fact_id

DEFAULT_MODEL = "gpt-4o-mini"
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")

PROMPT = """You split a business policy into atomic, checkable facts.
Section: {section}
Currency: {currency}
Policy lines (number: text):
{lines}

Return only JSON: {{"facts": [{{"statement": "...",
"kind": "value|rule|eligibility|procedure_step|prohibition|definition", "lines": [first, last],
"slots": [{{"name": "fee", "type": "money|duration|count|percent|date|enum|identifier",
"text": "<exact substring of statement>", "value": 75, "value_max": null, "unit": "USD", "qualifier": null}}],
"conditions": [{{"attribute": "membership level", "value": "gold"}}], "anchors": ["baggage", "fee"]}}]}}
One fact per checkable statement; one fact per value when a sentence lists values per tier.
Statements must read standalone. Durations use units minute, hour, day, business_day, week, month, year."""


def section_chunks(text: str) -> list[tuple[list[str], int, int, list[tuple[int, str]]]]:
    """(section path, first line, last line, [(lineno, text)]) per heading-delimited chunk."""
    lines = text.split("\n")
    title: Optional[str] = None
    heads: list[tuple[int, str]] = []
    out: list[tuple[list[str], int, int, list[tuple[int, str]]]] = []
    cur: list[tuple[int, str]] = []
    in_code = False

    def section() -> list[str]:
        return [h for _, h in heads] or ([title] if title else ["General"])

    def flush(sec: list[str]) -> None:
        body = [(n, t) for n, t in cur if t.strip()]
        if body:
            out.append((sec, body[0][0], body[-1][0], body))
        cur.clear()

    sec = section()
    for no, line in enumerate(lines, 1):
        if _FENCE.match(line):
            in_code = not in_code
        m = None if in_code else _HEADING.match(line)
        if m:
            flush(sec)
            level, htext = len(m.group(1)), m.group(2).strip().strip("*").rstrip(":").strip()
            if level == 1 and title is None and not heads and not out:
                title = htext
            else:
                while heads and heads[-1][0] >= level:
                    heads.pop()
                heads.append((level, htext))
            sec = section()
            continue
        cur.append((no, line))
    flush(sec)
    return out


def _parse_json(raw: str) -> Any:
    s = raw.strip()
    fence = re.match(r"^```(?:json)?\s*(.*?)\s*```$", s, re.DOTALL)
    if fence:
        s = fence.group(1)
    return json.loads(s)


def litellm_module():
    """litellm, imported the one way every part of factforge imports it: offline price map (no
    download at import), pydantic's `ReadOnly` warnings that its types raise on import silenced,
    and no banners ("Give Feedback / Get Help", "Provider List") printed when a provider call
    fails: the caller records the failure, the terminal does not need them. A slow import (a
    few seconds), so every caller makes it only when a model is really used."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    warnings.filterwarnings("ignore", message=".*`ReadOnly` qualifier.*", category=UserWarning)
    import litellm  # noqa: PLC0415  (deferred: litellm takes about a second to import)

    litellm.suppress_debug_info = True
    return litellm


def _complete(prompt: str, model: str, mock_response: Optional[str]) -> str:
    litellm = litellm_module()

    kwargs: dict[str, Any] = dict(model=model, messages=[{"role": "user", "content": prompt}], temperature=0)
    if mock_response is not None:
        kwargs["mock_response"] = mock_response
    resp = litellm.completion(**kwargs)
    return resp.choices[0].message.content or ""


def decompose_markdown_llm(text: str, domain: str, file: str = "policy.md", currency: str = "USD",
                           model: Optional[str] = None, mock_response: Optional[str] = None,
                           _occurrences: Optional[dict] = None) -> FactSet:
    """Decompose a policy with an LLM; same FactSet contract as the built-in decomposer."""
    model = model or os.environ.get("FACTFORGE_LLM_MODEL", DEFAULT_MODEL)
    occ = _occurrences if _occurrences is not None else {}
    facts: list[Fact] = []
    unparsed: list[UnparsedLine] = []
    for sec, first, last, body in section_chunks(text):
        where = f"section {' / '.join(sec)!r}"
        prompt = PROMPT.format(section=" / ".join(sec), currency=currency,
                               lines="\n".join(f"{n}: {t}" for n, t in body))
        raw = _complete(prompt, model, mock_response)
        try:
            data = _parse_json(raw)
        except json.JSONDecodeError as e:
            raise FactforgeError(f"LLM returned invalid JSON for {where}: {e.msg}", file, first) from None
        items = data.get("facts") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise FactforgeError(f"LLM output for {where} has no 'facts' list", file, first)
        covered: set[int] = set()
        for k, item in enumerate(items):
            fact = _fact(item, k, domain, sec, file, first, last, currency, where)
            key = (tuple(s.lower() for s in sec), " ".join(fact.template().lower().split()),
                   tuple(sorted((c.attribute.lower(), c.value.lower()) for c in fact.conditions)))
            n = occ.get(key, 0)
            occ[key] = n + 1
            fact.id = make_fact_id(domain, fact.section, fact.template(), fact.conditions, n)
            if not fact.anchors:
                fact.anchors = content_tokens(fact.statement, fact.slots)[:6]
            covered.update(range(fact.source.start_line, fact.source.end_line + 1))
            facts.append(fact)
        for n, t in body:
            if n not in covered:
                unparsed.append(UnparsedLine(file=file, line=n, text=t.strip(),
                                             reason="not covered by the LLM decomposition"))
    return FactSet(domain=domain, source_file=file, facts=facts, unparsed=unparsed, decomposer="llm")


def _fact(item: Any, k: int, domain: str, sec: list[str], file: str, first: int, last: int,
          currency: str, where: str) -> Fact:
    def bad(msg: str) -> FactforgeError:
        return FactforgeError(f"LLM fact #{k + 1} for {where} is invalid: {msg}", file, first)

    if not isinstance(item, dict):
        raise bad("not an object")
    statement = " ".join(str(item.get("statement") or "").split())
    if not statement:
        raise bad("empty statement")
    try:
        kind = FactKind(str(item.get("kind", "rule")))
        slots = [Slot.model_validate(s) for s in item.get("slots") or []]
        conds = [Condition.model_validate(c) for c in item.get("conditions") or []]
    except (ValueError, ValidationError) as e:
        msg = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
        raise bad(msg) from None
    for s in slots:
        if s.text not in statement:
            raise bad(f"slot {s.name!r} text {s.text!r} does not occur in the statement")
        if s.type.value == "money" and not s.unit:
            s.unit = currency
    lines = item.get("lines", item.get("line"))
    start, end = first, last
    if isinstance(lines, int):
        lines = [lines, lines]
    if isinstance(lines, list) and len(lines) == 2 and all(isinstance(x, int) for x in lines):
        if not (first <= lines[0] <= lines[1] <= last):
            raise bad(f"lines {lines} are outside the section (lines {first}-{last})")
        start, end = lines
    anchors = [str(a).lower() for a in item.get("anchors") or [] if str(a).strip()][:6]
    return Fact(id="pending", domain=domain, section=list(sec), kind=kind, statement=statement, slots=slots,
                conditions=conds, source=SourceSpan(file=file, start_line=start, end_line=end), anchors=anchors)
