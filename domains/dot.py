"""Graphviz DOT workflow graphs -> policy markdown (for `factforge import-tau2`).

tau2-bench domains may draw their troubleshooting workflows as Graphviz files. The importer
keeps each `.dot` file verbatim in the pack (`workflows/`) and writes it as a policy
document the decomposer reads: one numbered step per node in the order the flow visits
them from its start, a decision node's branches as sub-items ("Yes: Reseat the SIM card")
and a jump back or ahead as "go to step N". Those facts are procedure steps, so the
planner can route them to flowcharts like any other process.

The parser reads the DOT language subset workflow graphs use: `graph`/`digraph` (optionally
`strict`), node, edge and graph attribute statements, `id = value` graph attributes, node
statements, edge chains (`a -> b -> c [label=...]`), flattened subgraphs, quoted strings
with escapes, and //, /* */ and # comments. Anything else raises `FactforgeError` naming the
file and line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from facts.errors import FactforgeError

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+|\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/|^\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<html><[^<>]*(?:<[^<>]*>[^<>]*)*>)
  | (?P<arrow>->|--)
  | (?P<punct>[{}\[\];,=:])
  | (?P<id>-?(?:\.\d+|\d+(?:\.\d*)?)|[A-Za-z_\x80-\uffff][\w\x80-\uffff]*)
""", re.VERBOSE | re.DOTALL | re.MULTILINE)


@dataclass
class Graph:
    name: str
    label: str = ""
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)   # id -> attributes (in order seen)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)

    def text(self, node: str) -> str:
        return _clean(self.nodes.get(node, {}).get("label") or node.replace("_", " "))


def _clean(label: str) -> str:
    return " ".join(re.sub(r"\\[nlr]", " ", label).replace('\\"', '"').split())


def _tokens(text: str, file: str) -> list[tuple[str, str, int]]:
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise FactforgeError(f"DOT syntax: unexpected {text[pos]!r}", file, line)
        kind, value = m.lastgroup, m.group(0)
        if kind == "string":
            out.append(("id", value[1:-1], line))
        elif kind == "html":
            out.append(("id", re.sub(r"<[^>]*>", " ", value), line))
        elif kind not in ("ws", "comment"):
            out.append((kind, value, line))
        line += value.count("\n")
        pos = m.end()
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str, int]], file: str):
        self.t, self.i, self.file = tokens, 0, file

    def peek(self, k: int = 0) -> tuple[str, str, int]:
        j = self.i + k
        return self.t[j] if j < len(self.t) else ("eof", "", self.t[-1][2] if self.t else 1)

    def take(self, kind: Optional[str] = None, value: Optional[str] = None) -> tuple[str, str, int]:
        tok = self.peek()
        if (kind and tok[0] != kind) or (value and tok[1] != value):
            want = value or kind
            raise FactforgeError(f"DOT syntax: expected {want!r}, found {tok[1] or 'end of file'!r}", self.file, tok[2])
        self.i += 1
        return tok

    def attrs(self) -> dict[str, str]:
        out: dict[str, str] = {}
        while self.peek()[1] == "[":
            self.take(value="[")
            while self.peek()[1] != "]":
                key = self.take("id")[1]
                self.take(value="=")
                out[key] = self.take("id")[1]
                if self.peek()[1] in (",", ";"):
                    self.i += 1
            self.take(value="]")
        return out

    def graph(self) -> Graph:
        if self.peek()[1].lower() == "strict":
            self.i += 1
        kw = self.take("id")
        if kw[1].lower() not in ("graph", "digraph"):
            raise FactforgeError(f"DOT syntax: a graph starts with 'graph' or 'digraph', not {kw[1]!r}",
                                 self.file, kw[2])
        name = self.take("id")[1] if self.peek()[0] == "id" else "workflow"
        g = Graph(name=name)
        self.take(value="{")
        self.body(g)
        self.take(value="}")
        if self.peek()[0] != "eof":
            raise FactforgeError("DOT syntax: text after the closing '}'", self.file, self.peek()[2])
        return g

    def body(self, g: Graph) -> None:
        while self.peek()[1] not in ("}", ""):
            tok = self.peek()
            low = tok[1].lower()
            if tok[1] == ";":
                self.i += 1
            elif tok[0] == "id" and low in ("node", "edge", "graph") and self.peek(1)[1] == "[":
                self.i += 1
                a = self.attrs()
                if low == "graph" and "label" in a:
                    g.label = g.label or _clean(a["label"])
            elif tok[0] == "id" and low == "subgraph" or tok[1] == "{":
                if low == "subgraph":
                    self.i += 1
                    if self.peek()[0] == "id":
                        self.i += 1
                self.take(value="{")
                self.body(g)
                self.take(value="}")
            elif tok[0] == "id" and self.peek(1)[1] == "=":
                key = self.take("id")[1]
                self.i += 1
                value = self.take("id")[1]
                if key == "label":
                    g.label = g.label or _clean(value)
            elif tok[0] == "id":
                self.statement(g)
            else:
                raise FactforgeError(f"DOT syntax: unexpected {tok[1]!r}", self.file, tok[2])

    def _node_id(self) -> str:
        node = self.take("id")[1]
        if self.peek()[1] == ":":  # a port: node:port[:compass]
            self.i += 1
            self.take("id")
            if self.peek()[1] == ":":
                self.i += 1
                self.take("id")
        return node

    def statement(self, g: Graph) -> None:
        chain = [self._node_id()]
        while self.peek()[0] == "arrow":
            self.i += 1
            chain.append(self._node_id())
        a = self.attrs()
        for n in chain:
            g.nodes.setdefault(n, {})
        if len(chain) == 1:
            g.nodes[chain[0]].update(a)
        else:
            g.edges += [(x, y, dict(a)) for x, y in zip(chain, chain[1:])]


def parse_dot(text: str, file: str | Path) -> Graph:
    """The graph of a DOT text; `FactforgeError(file, line)` on what it cannot read."""
    tokens = _tokens(text, str(file))
    if not tokens:
        raise FactforgeError("DOT file is empty", file, 1)
    g = _Parser(tokens, str(file)).graph()
    if not g.nodes:
        raise FactforgeError("DOT graph has no nodes", file, 1)
    return g


def _order(g: Graph) -> list[str]:
    """Nodes in the order the flow visits them: from the nodes nothing points to (in the
    order declared), depth first along edges in declaration order; unreachable nodes last."""
    targets = {b for _, b, _ in g.edges}
    starts = [n for n in g.nodes if n not in targets] or list(g.nodes)[:1]
    out: list[str] = []
    seen: set[str] = set()

    def visit(n: str) -> None:
        stack = [n]
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            out.append(x)
            stack += [b for a, b, _ in reversed(g.edges) if a == x and b not in seen]
    for s in starts:
        visit(s)
    for n in g.nodes:
        visit(n)
    return out


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "?", "!", ":")) else text + "."


def workflow_markdown(g: Graph) -> str:
    """The workflow as a policy document: numbered steps; each branch of a decision, and
    each labelled or non-sequential edge, as a sub-item ("If yes, reseat the SIM card (step
    5).", "If no, go to step 4.")."""
    order = _order(g)
    step = {n: i for i, n in enumerate(order, 1)}
    title = g.label or g.name.replace("_", " ").strip().capitalize()
    lines = [f"## Workflow: {title}", ""]

    def is_question(n: str) -> bool:
        return g.nodes[n].get("shape") == "diamond" or g.text(n).endswith("?")

    for n in order:
        out = [(b, _clean(a.get("label", ""))) for x, b, a in g.edges if x == n]
        decision = len(out) > 1 or is_question(n)
        lines.append(f"{step[n]}. {_sentence(g.text(n))}")
        for b, label in out:
            if not decision and not label and step[b] == step[n] + 1:
                continue  # the next step: nothing to say
            lead = f"If {label}, " if label else ("Otherwise, " if decision else "Then ")
            t = g.text(b)
            action = f"go to step {step[b]}" if is_question(b) or not t else f"{t[:1].lower()}{t[1:]} (step {step[b]})"
            lines.append(f"   - {lead}{action}.")
    return "\n".join(lines) + "\n"
