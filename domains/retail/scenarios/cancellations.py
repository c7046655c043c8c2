"""Cancellations of orders not yet shipped, and of those that cannot be cancelled."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import parse_ts
from domains.simtests import Scenario, answer

from .base import Shop


def cancellations(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []

    def cancel(slug, trap, o, *, purpose, facts, reason="ordered by mistake", say=(), keys=(), naive_reason=None,
               **kw):
        c = R.owner(o)
        args = {"order_id": o["order_id"], "reason": reason, "refunds": R.refunds(o, o["total"])}
        return R.base(slug, trap, c, o, purpose=purpose,
                      reason=kw.pop("user_reason", f"You want to cancel order {o['order_id']}."),
                      opening=kw.pop("opening", f"Please cancel my order {o['order_id']}, I {reason}."
                                     if reason != "no longer needed" else f"Please cancel order {o['order_id']}."),
                      gold=kw.pop("gold", [R.lookup(o), ("cancel_order", args)]),
                      naive=[("cancel_order", {**args, "reason": naive_reason or reason})],
                      communicate=list(say), facts=facts, value_keys=list(keys), **kw)

    for o in R.orders("pending")[:2]:
        R.used.add(o["order_id"])
        out.append(cancel("cancel-pending", "none", o,
                          purpose="A pending order can be cancelled; the whole total goes back to the payment methods.",
                          facts=[F.value("pending_hours"), F.find("A pending order can be cancelled at any time"),
                                 F.find("refunded in full, shipping included")], keys=["pending_hours"]))
    processed = R.orders("processed")
    young = [o for o in processed if R.now - parse_ts(o["placed_at"]) < dt.timedelta(hours=v["processed_cancel_hours"])]
    old = [o for o in processed if o not in young]
    for o in young[:1]:
        out.append(cancel("cancel-processed-in-time", "none", o,
                          purpose="A processed order placed less than 12 hours ago can still be cancelled.",
                          facts=[F.value("processed_cancel_hours")], keys=["processed_cancel_hours"]))
    for o in old[:2]:
        c = R.owner(o)
        out.append(cancel("cancel-processed-too-late", "refuse", o,
                          purpose="A processed order placed 12 hours ago or more cannot be cancelled.",
                          facts=[F.value("processed_cancel_hours")], keys=["processed_cancel_hours"],
                          gold=[R.lookup(o)],
                          say=[str(int(v["processed_cancel_hours"]))],
                          pushback="But it hasn't even shipped yet!"))
        del c
    shipped = R.orders("shipped")
    for o in shipped[:1]:
        out.append(cancel("cancel-shipped-refused", "refuse", o,
                          purpose="A shipped order cannot be cancelled; it can be returned once delivered.",
                          facts=[F.find("A shipped order can't be cancelled or changed")],
                          gold=[R.lookup(o)], say=["delivered"]))
    pend = R.orders("pending")
    if len(pend) > 2:
        o = pend[2]
        c = R.owner(o)
        args = {"order_id": o["order_id"], "reason": "found a better price", "refunds": R.refunds(o, o["total"])}
        out.append(R.base("cancel-needs-reason", "missing_info", c, o,
                          purpose="Cancelling needs one of the accepted reasons: the agent asks for it.",
                          reason=f"You want to cancel order {o['order_id']}; you saw the same things cheaper elsewhere "
                                 "but only say so when asked why.",
                          opening=f"Cancel order {o['order_id']}, please.",
                          answers=R.answers(c, o) + [answer("reason", ["reason", "why"],
                                                            "I found a better price somewhere else.")],
                          gold=[R.lookup(o), ("cancel_order", args)],
                          naive=[("cancel_order", {**args, "reason": "no longer needed"})],
                          facts=[F.find("must give one of these reasons")]))
    return out
