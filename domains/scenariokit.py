"""What a pack's scenario builders share (`domains/<name>/scenarios/`): a `Drafter` holds the
scenario context (seed database, values, facts, world clock), the records tests already use,
and a rotating persona, and starts each draft with what the customer knows and answers."""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional, Sequence

from .simtests import Scenario, ScenarioContext


class Drafter:
    """Base of a pack's builder state. A pack names its personas and the customer id field,
    and says what a customer knows (`known`) and answers (`answers`) about a record."""

    personas: Sequence[str] = ()
    customer_key: str = "customer_id"
    #: the table of the customers, the read operation that looks a record up and the record's
    #: id field (its argument)
    owner_table: str = "customers"
    lookup_op: str = ""
    record_key: str = ""

    def __init__(self, ctx: ScenarioContext):
        self.ctx, self.db, self.v, self.F = ctx, ctx.db, ctx.values, ctx.facts
        self.now: dt.datetime = ctx.pack.info.now
        self.today: dt.date = self.now.date()
        self.used: set[str] = set()
        self.n = 0

    def persona(self) -> str:
        """The next persona, in turn."""
        self.n += 1
        return self.personas[self.n % len(self.personas)]

    def owner(self, rec: dict) -> dict:
        """The customer record `rec` belongs to."""
        return self.db[self.owner_table][rec[self.customer_key]]

    def take(self, rec: dict) -> dict:
        """Mark record `rec` used by a test, so that other tests draw on other records; its
        customer."""
        self.used.add(rec[self.record_key])
        return self.owner(rec)

    def lookup(self, rec: dict) -> tuple[str, dict[str, Any]]:
        """The call that looks record `rec` up."""
        return self.lookup_op, {self.record_key: rec[self.record_key]}

    def known(self, c: dict, rec: Optional[dict] = None) -> list[str]:
        raise NotImplementedError

    def answers(self, c: dict, rec: Optional[dict] = None) -> list:
        raise NotImplementedError

    def base(self, slug: str, trap: str, c: dict, rec: Optional[dict] = None, **kw: Any) -> Scenario:
        """A draft for customer `c` about record `rec` (or none), with the customer's known
        facts and answers unless `kw` gives them."""
        kw.setdefault("known", self.known(c, rec))
        kw.setdefault("answers", self.answers(c, rec))
        return Scenario(slug=slug, trap=trap, customer_id=c[self.customer_key], persona=self.persona(), **kw)
