"""Policy markdown -> atomic facts (the built-in, offline decomposer).

Three passes over a file:

1. blocks (`facts.markdown`): headings, paragraphs, list items, tables, code blocks,
   comments; malformed structure and invalid UTF-8 raise `FactforgeError` naming the line;
2. candidates: each sentence (`facts.sentences`) of a paragraph, each list item (and each
   sentence of a long item), each table cell; a paragraph or parent item ending with ':'
   gives its children context, a short label line ("Cabin:") becomes a sub-section;
3. facts: per-tier statements are split into one fact per value, typed slots are parsed
   (`facts.values`), kind (`facts.kinds`), conditions, anchors, dependencies and stable ids
   are assigned.

Lines that cannot become a fact are reported in `FactSet.unparsed` with a reason; blank
lines, headings, table separators and code-fence markers are structure. A pack's files are
decomposed together by `domains.decompose.decompose_pack`.

Two silent surprises are errors instead: a section heading repeated under the same parent
in one file (compared case-insensitively: its facts would be merged into one section, or
doubled when the text is a copy; the error names both lines), and a pack whose policy
states no facts at all (empty, or every line unparsed; checked by `decompose_pack`), which
would build an empty bundle.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Optional

from .errors import FactforgeError
from .kinds import DEFINE_THERE, classify_kind
from .markdown import Block, Text, clean_lines, decode_text, parse_blocks
from .models import (NUMERIC_TYPES, Condition, Fact, FactSet, Slot, SlotType, SourceSpan, UnparsedLine,
                     make_fact_id)
from .clauses import COND_LEAD, split_alternatives, split_compound, split_tiers, vocab_conditions, vocab_from
from .sentences import inline_enum, sentences
from .surface import WORD_VALUES
from .values import scan_values, clean_inline, parse_slots

NUMERIC = NUMERIC_TYPES

_ANCHOR_STOP = frozenset("""a an the of to in on for and or nor is are was were be been being by with at as from that
this these those it its per each any all every not no must may can could will would should shall than then there
their they them who whom which what when where while if only also but so such into onto over under up down out about
after before between during within without via your you our we us his her he she both either neither other another
more most less least few fewer many much some same own just very too do does did done has have had having get gets
got plus minus times i me my mine yours ours yes etc e.g i.e eg ie how why whether following above below based
using use used make made need needs needed able unless until upon once whose here therefore however thus also
always never cannot can't don't of to in on is be by at as it or an no do if so up we us me my he
am pm vs ok doesn't won't isn't aren't didn't shouldn't must've let lets one ones""".split())
_GENERIC_HEADERS = frozenset("value values detail details description notes note info information setting settings "
                             "answer answers specification spec figure figures".split())
_TOKEN = re.compile(r"[a-z][a-z0-9]*(?:['’-][a-z0-9]+)*")


def content_tokens(text: str, slots: list[Slot]) -> list[str]:
    low = text.lower()
    for s in slots:
        if s.type not in (SlotType.enum,) and s.text:
            low = low.replace(s.text.lower(), " ")
    out, seen = [], set()
    for tok in _TOKEN.findall(low):
        tok = re.sub(r"['’]s$", "", tok)
        if len(tok) < 2 or tok in _ANCHOR_STOP or tok in WORD_VALUES or tok in seen:
            continue
        seen.add(tok)
        out.append(tok)
    return out


# --- pass 2/3 -----------------------------------------------------------------------------------
# A sentence that opens with a bare pronoun and a verb ("This will change the status ...")
# cannot stand alone; it is merged with the sentence (or the parent list item) it refers to.
_CLAIMLESS = re.compile(r"^(?:if|when|whenever|unless|once|in\s+case|for)\b[^.!?]*:\s*$", re.IGNORECASE)
_PRONOUN_LEAD = re.compile(
    r"^(?:this|that|it|these|those|they)\s+(?:is|are|was|were|has|have|had|will|would|can|could|must|should|may|"
    r"might|does|do|did|means|applies|apply|includes|requires|ensures|allows|prevents|changes|covers|costs|lasts|"
    r"takes|gives|makes|helps|keeps|needs|depends|happens|works|counts|also|only|then)\b", re.IGNORECASE)


@dataclass
class _Piece:
    """A candidate statement: optional context prefix + the candidate text."""

    body: Text
    prefix: Optional[Text]
    section: list[str]
    item: bool = False
    numbered: bool = False
    list_key: Optional[tuple] = None
    step_index: int = -1           # index of the numbered item within its list, else -1
    table: Optional[tuple] = None  # (row label, column header, first column header)
    block: int = -1                # index of the source block
    parent: Optional[int] = None   # block index of the parent list item


_FUNCTION_END = frozenset("""when if to of for that include including includes containing contains are is the a an
with by as following below these those and or any all was were be your our their following: than from in on at
then such e.g i.e has have specifies specify lists requires covers needs offers provides shows""".split())


def _label_like(text: str) -> bool:
    t = text.strip().rstrip(":").strip()
    words = t.split()
    if not words or len(words) > 4 or t.count(".") > 0 and not t.endswith(")"):
        return False
    if words[-1].lower().strip("()") in _FUNCTION_END or words[0].lower() in ("if", "when", "for", "once", "unless"):
        return False
    if scan_values(t, "USD"):
        return False  # a line carrying a value is a statement, not a label
    return bool(re.search(r"[A-Za-z]", t))


def markup_only(t: str) -> bool:
    return not re.search(r"[A-Za-z0-9$€£%]", t)


@dataclass
class _Walk:
    """Where `_Decomposer.collect` is in the blocks: title, heading path and label, open list
    items with their contexts, the list's lead-in, numbered steps, the last block's kind."""
    blocks: list[Block]
    title: Optional[str] = None
    heads: list[tuple[int, str]] = field(default_factory=list)
    label: Optional[str] = None
    seen_heading: bool = False
    stack: list[tuple[int, Optional[Text], int]] = field(default_factory=list)   # (indent, context, block index)
    base_ctx: Optional[Text] = None
    base_key: int = 0
    step_counts: dict[tuple, int] = field(default_factory=dict)
    heading_lines: dict[tuple[str, ...], int] = field(default_factory=dict)
    last_kind: str = ""

    def section(self) -> list[str]:
        sec = [h for _, h in self.heads]
        if self.label:
            sec.append(self.label)
        return sec or ([self.title] if self.title else ["General"])

    def next_block(self, k: int) -> Optional[Block]:
        k += 1
        while k < len(self.blocks) and self.blocks[k].kind == "blank":
            k += 1
        return self.blocks[k] if k < len(self.blocks) else None

    def prev_block(self, k: int) -> Optional[Block]:
        k -= 1
        while k >= 0 and self.blocks[k].kind == "blank":
            k -= 1
        return self.blocks[k] if k >= 0 else None


class _Decomposer:
    def __init__(self, text: str, domain: str, file: str, currency: str, occurrences: Optional[dict] = None):
        self.domain, self.file, self.currency = domain, file, currency
        self.lines = [ln.expandtabs(4) for ln in text.split("\n")]
        self.unparsed: list[UnparsedLine] = []
        self.pieces: list[_Piece] = []
        self.occ = occurrences if occurrences is not None else {}
        self.sections_seen: list[list[str]] = []

    # pass 2 -------------------------------------------------------------------------------
    def _unparsed(self, lineno: int, reason: str) -> None:
        text = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        if text:
            self.unparsed.append(UnparsedLine(file=self.file, line=lineno, text=text, reason=reason))

    def collect(self) -> None:
        w = _Walk(parse_blocks(self.lines, self.file))
        for bi, blk in enumerate(w.blocks):
            if blk.kind == "blank":
                continue
            if blk.kind == "heading":
                self._heading(w, blk)
            elif blk.kind == "unparsed":
                self._unparsed(blk.start, blk.reason)
            elif blk.kind == "code":
                for lineno, raw in blk.raw:
                    if raw.strip():
                        self._unparsed(lineno, "inside a code block")
                w.last_kind = "code"
            elif blk.kind == "table":
                w.stack, w.base_ctx = [], None
                self._table(blk, w.section())
                w.last_kind = "table"
            else:
                t = clean_lines(blk.raw)
                if not t.text.strip() or markup_only(t.text):
                    for lineno, _ in blk.raw:
                        self._unparsed(lineno, "markup only")
                elif blk.kind == "para":
                    self._para(w, bi, blk, t)
                else:
                    self._item(w, bi, blk, t)

    def _heading(self, w: "_Walk", blk: Block) -> None:
        """A heading: the title (the first level-1 heading), else a level of the section path."""
        htext = clean_lines(blk.raw).text.strip().rstrip(":").strip()
        if not htext or markup_only(htext):
            self._unparsed(blk.start, "empty heading")
            return
        if blk.level == 1 and w.title is None and not w.seen_heading:
            w.title = htext
        else:
            while w.heads and w.heads[-1][0] >= blk.level:
                w.heads.pop()
            w.heads.append((blk.level, htext))
            path = tuple(h.casefold() for _, h in w.heads)
            first = w.heading_lines.setdefault(path, blk.start)
            if first != blk.start:
                raise FactforgeError(f"duplicate section heading {htext!r} (first at line {first}); "
                                     "merge the two sections or give them distinct headings",
                                     self.file, blk.start)
        w.seen_heading = True
        w.label, w.stack, w.base_ctx = None, [], None
        self.sections_seen.append(w.section())
        w.last_kind = "heading"

    def _para(self, w: "_Walk", bi: int, blk: Block, t: Text) -> None:
        """A paragraph: inside a list, a continuation of its item; else a sub-heading label,
        a lead-in to a list (the context of its items) or statements of its own."""
        in_list = w.stack and blk.indent >= 2 and w.last_kind in ("item", "para-in-list")
        if in_list:
            ctxs = [c for _, c, _ in w.stack[:-1] if c is not None]
            prefix = _join_ctx(([w.base_ctx] if w.base_ctx else []) + ctxs)
            for s in sentences(t):
                self._add(s, prefix, w.section(), item=False, block=bi, parent=w.stack[-1][2])
            w.last_kind = "para-in-list"
            return
        w.stack, w.base_ctx = [], None
        w.last_kind = "para"
        nb = w.next_block(bi)
        if len(blk.raw) == 1 and t.bold and t.bold[0] == (0, len(t.text.rstrip(":"))) and nb is not None \
                and len(t.text.split()) <= 8:
            w.label = t.text.strip().rstrip(":").strip()  # "**Step 1: Data Saver**": a sub-heading
            self.sections_seen.append(w.section())
            return
        if (len(blk.raw) == 1 and nb is not None and nb.kind == "item" and nb.start == blk.end + 1
                and not re.search(r"[.!?:;,]$", t.text.strip()) and _label_like(t.text)):
            w.label = t.text.strip()
            self.sections_seen.append(w.section())
            return
        if t.text.rstrip().endswith(":") or (t.text.rstrip().endswith("?") and nb is not None
                                             and nb.kind == "item"):
            if len(blk.raw) == 1 and t.text.rstrip().endswith(":") and _label_like(t.text):
                w.label = t.text.strip().rstrip(":").strip()
                self.sections_seen.append(w.section())
                return
            sents = sentences(t)
            lead = sents[-1]
            for s in sents[:-1]:
                self._add(s, None, w.section(), block=bi)
            nb = w.next_block(bi)
            if nb is not None and nb.kind == "item":
                w.base_ctx = lead
                w.base_key += 1
            elif nb is not None and nb.kind == "code":
                for ln in range(lead.first_line, lead.last_line + 1):
                    self._unparsed(ln, "introduces a code block")
            else:
                self._add(lead, None, w.section(), block=bi)
            return
        for s in sentences(t):
            self._add(s, None, w.section(), block=bi)

    def _item(self, w: "_Walk", bi: int, blk: Block, t: Text) -> None:
        """A list item: statements with the context of the items and lead-in above it."""
        while w.stack and w.stack[-1][0] >= blk.indent:
            w.stack.pop()
        nb = w.next_block(bi)
        has_children = nb is not None and nb.kind == "item" and nb.indent > blk.indent
        ctxs = [c for _, c, _ in w.stack if c is not None]
        prefix = _join_ctx(([w.base_ctx] if w.base_ctx else []) + ctxs)
        if prefix is None and len(t.text.split()) < 3 and not has_children:
            sec = w.section()
            if w.heads and re.fullmatch(r"(?:table\s+of\s+)?contents|toc|index", sec[-1].lower()):
                for lineno, _ in blk.raw:
                    self._unparsed(lineno, "table of contents entry")
                return
            pb = w.prev_block(bi)
            in_list = any(b is not None and b.kind == "item" and b.indent == blk.indent for b in (pb, nb))
            if (w.heads or w.label) and in_list:
                prefix = Text(sec[-1] + ":", (), (0,), (blk.start,))
        parent_id = w.stack[-1][2] if w.stack else -w.base_key - 1
        key = (parent_id, blk.indent)
        w.last_kind = "item"
        if has_children and t.text.rstrip().endswith((":", "?")):
            w.stack.append((blk.indent, t, bi))
            return
        w.stack.append((blk.indent, None, bi))
        step = -1
        if blk.numbered:
            step = w.step_counts.get(key, 0)
            w.step_counts[key] = step + 1
        sents = sentences(t)
        lab = re.match(r"^([^:]{1,60}):\s", sents[0].text) if len(sents) > 1 else None
        sub_prefix = None
        if lab and len(lab.group(1).split()) <= 6 and len(lab.group(1)) >= 3 \
                and lab.group(1).lower() not in ("note", "tip", "example", "answer", "question"):
            sub_prefix = sents[0].cut(0, lab.end())
        for si, s in enumerate(sents):
            pre = prefix
            if si > 0 and sub_prefix is not None:
                pre = _join_ctx(([prefix] if prefix else []) + [sub_prefix])
            self._add(s, pre, w.section(), item=True, numbered=blk.numbered, list_key=key,
                      step_index=step if si == 0 else -1, block=bi,
                      parent=w.stack[-2][2] if len(w.stack) > 1 else None)

    def _add(self, body: Text, prefix: Optional[Text], section: list[str], **kw) -> None:
        last = self.pieces[-1] if self.pieces else None
        related = last is not None and last.block >= 0 and last.section == section and last.table is None and (
            kw.get("block") == last.block or kw.get("parent") == last.block
            or (kw.get("item") and last.item and kw.get("list_key") == last.list_key and prefix is None
                and last.prefix is None))
        if related and _PRONOUN_LEAD.match(body.text):
            # "This has to be done even when ...": merged with the sentence it refers to
            head = last.body.cut(0, len(last.body.text) - 1) if last.body.text.endswith(".") else last.body
            tail = Text(body.text[:1].lower() + body.text[1:], body.bold, body.starts, body.lines)
            last.body = head.plus(tail, sep="; ")
            return
        enum = inline_enum(body)
        if enum is not None:
            lead, items = enum
            pre = prefix
            if lead.text:
                lead_t = lead if lead.text.endswith(":") else Text(lead.text + ":", lead.bold, lead.starts, lead.lines)
                pre = _join_ctx(([prefix] if prefix else []) + [lead_t])
            key = ("inline", body.first_line, body.text[:20])
            for k, it in enumerate(items):
                self.pieces.append(_Piece(it, pre, section, item=True, numbered=True, list_key=key, step_index=k))
            return
        self.pieces.append(_Piece(body, prefix, section, **kw))

    def _table(self, blk: Block, section: list[str]) -> None:
        header = [clean_inline(h)[0].strip() for h in blk.header]
        first_h = header[0] or "item"
        for lineno, cells in blk.rows:
            label = clean_inline(cells[0])[0].strip() or f"row {lineno}"
            made = False
            if len(cells) == 1:
                t = Text(label, (), (0,), (lineno,))
                self.pieces.append(_Piece(t, None, section, table=(label, first_h, first_h)))
                continue
            for col, cell in enumerate(cells[1:], 1):
                ctext, cbold = clean_inline(cell)
                if not ctext.strip() or markup_only(ctext):
                    continue
                t = Text(ctext.strip(), tuple(cbold), (0,), (lineno,))
                self.pieces.append(_Piece(t, None, section, table=(label, header[col] or f"column {col + 1}", first_h)))
                made = True
            if not made:
                self._unparsed(lineno, "table row has no values")

    # pass 3 -------------------------------------------------------------------------------
    def build(self) -> list[Fact]:
        vocab: dict[str, str] = {}
        attrs_of: dict[str, list[str]] = {}   # a term several vocabularies share ("suspended")
        for p in self.pieces:
            for attr, term in vocab_from(p.body):
                vocab.setdefault(term, attr)
                if attr not in attrs_of.setdefault(term, []):
                    attrs_of[term].append(attr)
        vocab_rx = [(attrs_of[term], term, re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])", re.IGNORECASE))
                    for term in sorted(vocab, key=lambda t: (-len(t), t))]
        drafts = []  # (piece, statement Text, conditions, child text)
        for p in self.pieces:
            if p.table is not None:
                row, col, first_h = p.table
                body = p.body.text.rstrip()
                stmt_text = f"{row} — {col}: {body}" + ("" if body.endswith((".", "!", "?")) else ".")
                shift = len(stmt_text) - len(body) - (0 if body.endswith((".", "!", "?")) else 1)
                st = Text(stmt_text, tuple((x + shift, y + shift) for x, y in p.body.bold), (0,), p.body.lines)
                conds = [Condition(attribute=first_h, value=row), Condition(attribute="attribute", value=col)]
                drafts.append((p, st, conds, body))
                continue
            tiers = split_tiers(p.body, self.currency, vocab) if len(p.body.text) < 400 else None
            if tiers:
                for text, cond in tiers:
                    bt = Text(text, (), (0,), (p.body.first_line,))
                    st = _finish(p.prefix.plus(bt) if p.prefix else bt)
                    drafts.append((p, st, [cond], text))
                continue
            prefix = p.prefix
            if prefix is None and p.section and p.section[-1].endswith("?") and len(p.body.text.split()) <= 8:
                prefix = Text(p.section[-1], (), (0,), p.body.lines)
            parts = split_alternatives(p.body.text, self.currency) or split_compound(p.body.text, self.currency)
            for body in ([Text(x, (), (0,), (p.body.first_line,)) for x in parts] if parts else [p.body]):
                st = _finish(prefix.plus(body) if prefix else body)
                drafts.append((p, st, [], body.text))
        facts: list[Fact] = []
        meta: list[_Piece] = []
        for p, st, conds, child in drafts:
            slots = parse_slots(st.text, self.currency, bold=list(st.bold))
            if p.table is not None and slots:
                base = re.sub(r"[^a-z0-9]+", "_", p.table[0].lower()).strip("_")[:32].strip("_") or "value"
                for k, sl in enumerate(slots):
                    sl.name = base if k == 0 else f"{base}_{k + 1}"
            words = re.findall(r"[A-Za-z0-9$€£%]+", st.text)
            if (len(words) < (2 if p.item else 3) and not slots) or (
                    p.table is None and len(st.text.split()) - len(child.split()) < 1
                    and len(child.split()) < 2 and not slots):
                self._unparsed(p.body.first_line, f"too short to be a statement: {child!r}")
                continue
            if p.table is None and _CLAIMLESS.match(child):
                self._unparsed(p.body.first_line, "a condition without a claim (nothing follows it)")
                continue
            prefix_text = p.prefix.text if p.prefix is not None else ""
            if vocab_rx and p.table is None and not DEFINE_THERE.match(child) and not vocab_from(p.body):
                taken = [(st.text.find(s.text), st.text.find(s.text) + len(s.text)) for s in slots
                         if s.type != SlotType.enum and s.text in st.text]
                body_at = len(prefix_text) + 1 if prefix_text and st.text.startswith(prefix_text) else 0
                lead = bool(prefix_text and prefix_text.rstrip().endswith(":") and COND_LEAD.search(prefix_text)
                            and re.search(r"\bof\s+the\s+following\b", prefix_text, re.IGNORECASE))
                conds = conds + vocab_conditions(st.text, body_at, lead, vocab_rx, taken, {c.attribute for c in conds})
            kind = classify_kind(st.text, child, prefix=prefix_text, numbered=p.numbered, item=p.item,
                                 section=p.section, slots=slots, table=p.table is not None)
            end = max(p.body.last_line, p.body.first_line)
            fact = Fact(id="pending", domain=self.domain, section=list(p.section), kind=kind, statement=st.text,
                        slots=slots, conditions=conds,
                        source=SourceSpan(file=self.file, start_line=p.body.first_line, end_line=end))
            key = (tuple(s.lower() for s in p.section), " ".join(fact.template().lower().split()),
                   tuple(sorted((c.attribute.lower(), c.value.lower()) for c in conds)))
            occ = self.occ.get(key, 0)
            self.occ[key] = occ + 1
            fact.id = make_fact_id(self.domain, fact.section, fact.template(), conds, occ)
            facts.append(fact)
            meta.append(p)
        self._anchors(facts, meta)
        self._depends(facts, meta)
        return facts

    def _anchors(self, facts: list[Fact], meta: list[_Piece]) -> None:
        toks = [content_tokens(f.statement, f.slots) for f in facts]
        df: dict[str, int] = {}
        for ts in toks:
            for t in ts:
                df[t] = df.get(t, 0) + 1
        n = max(1, len(facts))
        for f, ts, p in zip(facts, toks, meta):
            terms: list[str] = []
            for c in f.conditions:
                if p.table is not None and c.attribute == "attribute":
                    continue
                v = " ".join(c.value.lower().split())
                if v and v not in terms and len(terms) < 3 and not re.fullmatch(r"[\d\W]+", v) \
                        and len(v.split()) <= 2:
                    terms.append(v)
            cover = set(" ".join(terms).split())
            if p.table is not None and p.table[1].lower() in _GENERIC_HEADERS:
                cover |= set(p.table[1].lower().split())
            rest = [t for t in ts if t not in cover]
            ranked = sorted(range(len(rest)), key=lambda i: (-math.log(n / df[rest[i]]) if df[rest[i]] else 0, i))
            k = max(0, 6 - len(terms))
            pick = sorted(ranked[:k])
            f.anchors = terms + [rest[i] for i in pick]

    def _depends(self, facts: list[Fact], meta: list[_Piece]) -> None:
        by_section: dict[tuple, list[Fact]] = {}
        for f in facts:
            by_section.setdefault(tuple(f.section), []).append(f)
        titles: dict[str, tuple] = {}
        for sec in self.sections_seen:
            if sec:
                t = sec[-1].lower()
                if len(t) >= 6:
                    titles.setdefault(t, tuple(sec))
        last_step: dict[tuple, tuple[int, str]] = {}
        ref_rx = re.compile(r"\b(?:above|below|previous|preceding|aforementioned|earlier|as\s+described|"
                            r"as\s+outlined|listed|see)\b", re.IGNORECASE)
        prev_in_section: dict[tuple, list[Fact]] = {}
        for f, p in zip(facts, meta):
            deps: list[str] = []
            sec = tuple(f.section)
            if p.numbered and p.step_index >= 0 and p.list_key is not None:
                prev = last_step.get(p.list_key)
                if prev is not None and prev[0] == p.step_index - 1:
                    deps.append(prev[1])
                if prev is None or prev[0] != p.step_index:
                    last_step[p.list_key] = (p.step_index, f.id)
            if ref_rx.search(f.statement):
                low = f.statement.lower()
                hit = None
                for t, tsec in titles.items():
                    if tsec != sec and t in low and re.search(rf"(?<![\w]){re.escape(t)}(?![\w])", low):
                        hit = tsec
                        break
                if hit is not None:
                    deps.extend(x.id for x in by_section.get(hit, [])[:8])
                elif _ABOVE_REF.search(low):
                    earlier = prev_in_section.get(sec, [])
                    with_val = [x for x in earlier if any(s.type in NUMERIC for s in x.slots)]
                    if with_val or earlier:
                        deps.append((with_val or earlier)[-1].id)
            seen = set()
            f.depends_on = [d for d in deps if d != f.id and not (d in seen or seen.add(d))]
            prev_in_section.setdefault(sec, []).append(f)


_ABOVE_REF = re.compile(r"\b(?:listed|mentioned|described|outlined|shown|stated|noted|specified|defined|given)"
                        r"\s+above\b"
                        r"|\babove\b(?=\s*[.,;:)!]|\s*$)|\bthe\s+above\b")


def _join_ctx(parts: list[Text]) -> Optional[Text]:
    out: Optional[Text] = None
    for p in parts:
        if p is None or not p.text:
            continue
        out = p if out is None else out.plus(p)
    return out


def _finish(t: Text) -> Text:
    text = t.text.rstrip()
    first = re.match(r"[a-z][a-z]*(?=[\s,.;:]|$)", text)
    if first:
        text = text[:1].upper() + text[1:]
    if not text.endswith((".", "!", "?", ":", ".)", ".”", ".\"")):
        return Text(text + ".", t.bold, t.starts, t.lines)
    return Text(text, t.bold, t.starts, t.lines)


def decompose_markdown(text: str | bytes, domain: str, file: str = "policy.md", currency: str = "USD",
                       _occurrences: Optional[dict] = None) -> FactSet:
    """Decompose one policy markdown text into a FactSet (document order, deterministic)."""
    d = _Decomposer(decode_text(text, file), domain, file, currency, _occurrences)
    d.collect()
    facts = d.build()
    unparsed = sorted(d.unparsed, key=lambda u: (u.line, u.reason))
    return FactSet(domain=domain, source_file=file, facts=facts, unparsed=unparsed, decomposer="builtin")
