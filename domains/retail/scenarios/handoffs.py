"""Hand-offs to a human teammate or product care."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import parse_ts
from domains.simtests import Scenario

from .base import Shop


def handoffs(R: Shop) -> list[Optional[Scenario]]:
    F, out = R.F, []
    today = R.now.date()
    old = next((o for o in R.orders("delivered") if today - parse_ts(o["placed_at"]).date() > dt.timedelta(days=90)), None)
    if old is None:
        old = R.orders("delivered")[0]
    c = R.owner(old)
    it = old["items"][0]
    out.append(R.base("warranty-to-product-care", "transfer", c, old,
                      purpose="Warranty claims on products bought more than 90 days ago go to Product Care.",
                      reason=f"The {it['name']} from order {old['order_id']} stopped working and you want a refund.",
                      opening=f"The {it['name']} I bought on order {old['order_id']} broke. I want my money back.",
                      gold=[R.lookup(old),
                            ("transfer_to_human", {"customer_id": c["customer_id"], "desk": "product_care",
                                                   "order_id": old["order_id"], "summary": "Warranty claim."})],
                      naive=[R.full_return(old, 0, "defective", "defective")],
                      communicate=["Product Care"], facts=[F.find("more than 90 days ago go to the Product Care")]))
    custs = sorted(R.db["customers"].values(), key=lambda x: x["customer_id"])
    c = custs[5]
    out.append(R.base("fraud-to-human", "transfer", c, None,
                      purpose="Suspected fraud or account takeover goes to a human teammate at once.",
                      reason="You see orders on your account you never placed and think someone got into it.",
                      opening="There are orders on my account I didn't make. I think someone hacked me.",
                      gold=[("get_customer", {"customer_id": c["customer_id"]}),
                            ("transfer_to_human", {"customer_id": c["customer_id"], "desk": "human_teammate",
                                                   "summary": "Suspected account takeover."})],
                      naive=[], facts=[F.find("suspect fraud or account takeover")]))
    c = custs[6]
    out.append(R.base("human-on-request", "none", c, None,
                      purpose="Transfer to a human teammate when the customer asks for one.",
                      reason="You want to talk to a person.", opening="Could I talk to a real person, please?",
                      gold=[("transfer_to_human", {"customer_id": c["customer_id"], "desk": "human_teammate",
                                                   "summary": "Customer asked for a human."})],
                      naive=[("transfer_to_human", {"customer_id": c["customer_id"], "desk": "human_teammate",
                                                    "summary": "Customer asked for a person."})],
                      facts=[F.find("Transfer the customer to a human teammate when they ask for one"),
                             F.find("write a short summary for the next teammate")]))
    return out
