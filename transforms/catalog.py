"""Catalog cells as the tables a business prints: a fee schedule per catalog, attributes down
the side, products across the top.

A policy's catalog tables are decomposed one fact per cell ("Essential Checking — Monthly
maintenance fee: $6."). Writing each cell back as its own line ("Product - Attribute:
value") is what no bank does; a rate sheet or a schedule in a manual shows the catalog as a
grid with footnotes. `grids` regroups the cells a file carries into such grids (one per
catalog section and product dimension), in the policy's own order of products and
attributes; cells the file does not carry stay blank. Renderers lay a grid out in their
medium (`transforms.tables.rate_sheet`: one sheet per catalog; `transforms.documents.
pdf_manual`: schedules of at most a few products per table).

Attributes run down the side because that is how fee schedules read (one line per fee,
one column per account) and because it keeps each value on the line that names what it is:
a reader (or the recoverability audit) finds "Monthly maintenance fee ... $6" on one line.

Footnotes are facts about the table, never new rules: which attributes carry their own
unit, what the abbreviations stand for, that a blank cell is set out elsewhere, and which
values changed in this version (the earlier figure appears, hedged, only in the revision
history).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from facts.models import Fact, Slot, SlotType

from .reading import grid_slot, read, read_cell

_ABBREVIATIONS = {"APR": "annual percentage rate", "APY": "annual percentage yield", "ATM": "automated teller machine",
                  "ACH": "Automated Clearing House", "PIN": "personal identification number"}


@dataclass
class Cell:
    fact: Fact
    slot: Slot           # the value shown
    product: str
    attribute: str
    changed: bool = False  # the value changed in this version (an older one exists)


@dataclass
class Grid:
    section: str
    dimension: str       # what a column is: "Checking product", "Card", "Transfer type"
    products: list[str] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)

    def cell(self, attribute: str, product: str) -> Optional[Cell]:
        return self.cells.get((attribute, product))

    def group(self, attribute: str) -> str:
        """What kind of line an attribute is: fees (money), rates (percent), else limits and
        terms."""
        types = {c.slot.type for (a, _p), c in self.cells.items() if a == attribute}
        if SlotType.money in types:
            return "Fees and amounts"
        if SlotType.percent in types:
            return "Rates"
        return "Limits and terms"

    def blocks(self, width: int = 4, height: int = 6) -> list[tuple[str, "Grid"]]:
        """(caption, block): the grid printed the way a schedule is, in blocks of at most
        `width` products and `height` lines of one group (fees, rates, limits), each with its
        own header row, so a value is never far from the names of its row and column. Each
        block keeps only the lines it has a value for."""
        out = []
        for i in range(0, len(self.products), width):
            prods = self.products[i:i + width]
            by_group: dict[str, list[str]] = {}
            for a in self.attributes:
                if any((a, p) in self.cells for p in prods):
                    by_group.setdefault(self.group(a), []).append(a)
            for name in ("Fees and amounts", "Rates", "Limits and terms"):
                attrs = by_group.get(name, [])
                for j in range(0, len(attrs), height):
                    part = attrs[j:j + height]
                    cells = {k: c for k, c in self.cells.items() if k[1] in prods and k[0] in part}
                    out.append((name, Grid(self.section, self.dimension, prods, part, cells)))
        return out

    def footnotes(self, rng: Optional[random.Random] = None) -> list[str]:
        """The grid's notes: abbreviations, blank cells, changes. With `rng` (a help page among
        many) the abbreviations and the blank-cell note are worded one of several ways, as
        different authors word a legend; a document series keeps one legend."""
        notes = []
        used = {ab for ab in _ABBREVIATIONS for a in self.attributes if re.search(rf"\b{ab}\b", a)}
        if used:
            form = rng.choice(_ABBR_FORMS) if rng else "{ab}: {full}"
            notes.append("; ".join(form.format(ab=ab, full=_ABBREVIATIONS[ab]) for ab in sorted(used)) + ".")
        if any((a, p) not in self.cells for a in self.attributes for p in self.products):
            notes.append(rng.choice(_BLANK_NOTES) if rng else
                         "A blank cell: the value is set out elsewhere in this document or in the product terms.")
        changed = [c for c in self.cells.values() if c.changed]
        if changed:
            names = sorted({c.attribute for c in changed})
            notes.append(f"Changed in this version: {', '.join(names[:4])}{' and others' if len(names) > 4 else ''}; "
                         "earlier figures are listed in the revision history only.")
        return notes


# (forms that differ only by punctuation read as one sentence: each form has its own words)
_ABBR_FORMS = ["{ab}: {full}", "{ab} stands for {full}", "{ab} means {full}", "{full} ({ab})", "{ab} is short for {full}",
               "{ab} refers to the {full}", "In this table {ab} means {full}", "Here {ab} is the {full}",
               "{ab} is used for the {full}", "Note that {ab} stands for {full}"]
_BLANK_NOTES = ["A blank cell: the value is set out elsewhere in this document or in the product terms.",
                "Where a cell is empty, see the product's own terms.",
                "Empty cells are covered in the product terms, not on this page.",
                "No figure shown? It is in the full product terms.",
                "A gap in the table means the figure is published with the product terms.",
                "Figures left blank here are listed in each product's terms and conditions.",
                "Blank entries: ask us or check the product terms for that figure."]


def is_cell(fact: Fact) -> bool:
    """Whether a grid can show the fact as one cell: a catalog cell ("Row — Column:
    value") whose value part holds exactly one of its slots and little else ("$35 per
    item"), with no figure in its row name. A cell of prose ("How to confirm: Check the Fee
    Summary ... $2,500 ..."), of two figures ("2.5% of the amount, minimum $4.00") or keyed
    by a figure ("$40 — Percentage fee at 1%: $0.40", a worked example) is printed as
    a line: a grid would show one figure under names that do not say which (the tau2
    banking_knowledge documents hold 79 such cells among 461). Nor is a two-column table's
    value cell (`transforms.realise.VALUE_COLUMNS`)."""
    return cell_slot(fact) is not None


def cell_slot(fact: Fact) -> Optional[Slot]:
    """The slot a grid cell shows (`is_cell`, `transforms.realise.grid_slot`), else None."""
    return grid_slot(fact, read_cell(fact))


def title(section: str, width: int = 0) -> str:
    """A grid's short name ("Personal checking catalog" -> "Personal checking"); `width`
    truncates (a spreadsheet tab holds 31 characters)."""
    t = re.sub(r"\s+(catalog|catalogue)$", "", section.split(" / ")[-1], flags=re.I).strip() or section
    t = re.sub(r"[\[\]:*?/\\]", "-", t)
    return t[:width].rstrip() if width else t


def grids(cells: Iterable[tuple[Fact, Slot, bool]], min_cells: int = 4) -> tuple[list[Grid], list[Fact]]:
    """(grids, facts left over): catalog cells (fact, slot shown, changed) grouped by section
    and product dimension; groups with fewer than `min_cells` cells are left over (a
    two-cell grid reads worse than two sentences)."""
    groups: dict[tuple[str, str], Grid] = {}
    order: dict[tuple[str, str], list[tuple[int, Cell]]] = {}
    for fact, slot, changed in cells:
        c = read(fact).cell
        if c is None:
            continue
        dim = c.get("row_attr") or "Product"
        dim = dim[:1].upper() + dim[1:]
        key = (" / ".join(fact.section) or "Catalog", dim)
        g = groups.setdefault(key, Grid(key[0], dim))
        order.setdefault(key, []).append((fact.source.start_line, Cell(fact, slot, c["row"], c["col"], changed)))
    out, left = [], []
    for key, g in groups.items():
        members = sorted(order[key], key=lambda x: x[0])
        if len(members) < min_cells:
            left += [c.fact for _, c in members]
            continue
        for _, c in members:
            if c.product not in g.products:
                g.products.append(c.product)
            if c.attribute not in g.attributes:
                g.attributes.append(c.attribute)
            g.cells[(c.attribute, c.product)] = c
        out.append(g)
    return out, left


