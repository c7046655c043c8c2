"""Checked bags: allowances by tier and cabin, extra-bag, overweight and hard limits."""
from __future__ import annotations

from typing import Optional

from domains.seedkit import money
from domains.simtests import Scenario, amount_text

from ..rules import bag_fee_each
from .base import Air


def bags(A: Air) -> list[Optional[Scenario]]:
    opens = [r for r in A.open_reservations(6) if r["reservation_id"] not in A.used]
    out = _allowances(A, opens)
    return out + _limits(A, A.spare(opens))


def _allowances(A: Air, opens: list[dict]) -> list[Optional[Scenario]]:
    """Add bags once per tier x cabin: the allowance of the cell decides the fee."""
    v, F, out = A.v, A.F, []
    done_combo: set[tuple[str, str]] = set()
    for r in opens:
        u = A.owner(r)
        tier, cabin = A.tier(u), A.cabin(r)
        if (tier, cabin) in done_combo or A.card(u) is None:
            continue
        npax = len(r["passengers"])
        room = int(v["max_bags_per_passenger"]) * npax - r["total_bags"]
        if room < 1:
            continue
        done_combo.add((tier, cabin))
        A.used.add(r["reservation_id"])
        free = r["free_bags"]
        add = 1 if r["total_bags"] < free else min(2, room)
        each = bag_fee_each(v, cabin)
        fee = money((max(0, r["total_bags"] + add - free) - max(0, r["total_bags"] - free)) * each)
        key = f"free_bags_{tier}_{cabin}"
        facts = [F.value(key)]
        vals = [key]
        if fee:
            fk = "extra_bag_fee_premier" if cabin == "premier" else "extra_bag_fee"
            facts.append(F.value(fk))
            vals.append(fk)
        card = A.card(u)
        gold = [A.lookup(r), ("get_user", {"user_id": u["user_id"]}),
                ("add_bags", {"reservation_id": r["reservation_id"], "bags": add, "bag_fee": fee,
                              **({"payment_method_id": card} if fee else {})})]
        naive = [("add_bags", {"reservation_id": r["reservation_id"], "bags": add, "bag_fee": 0})]
        out.append(A.base("add-bags-paid" if fee else "add-bags-free", "fee" if fee else "none", u, r,
                          purpose=f"Add {add} checked bag(s) to a {r['cabin']} reservation of a "
                                  f"{u['membership']['tier']} member: the allowance decides the fee.",
                          reason=f"You want to add {add} checked bag{'s' if add > 1 else ''} to {r['reservation_id']}.",
                          instructions=["Pay any fee with your credit card."],
                          opening=f"Hi, can I add {add} checked bag{'s' if add > 1 else ''} to reservation "
                                  f"{r['reservation_id']}?",
                          gold=gold, naive=naive, communicate=[amount_text(fee)] if fee else [],
                          facts=facts, value_keys=vals))
    return out


def _limits(A: Air, opens: list[dict]) -> list[Optional[Scenario]]:
    """Premier extra bags, the per-passenger limit, overweight, heavy and oversized bags."""
    v, F, out = A.v, A.F, []
    prem = next((x for x in opens if x["reservation_id"] not in A.used and A.cabin(x) == "premier"
                 and A.card(A.owner(x))
                 and x["free_bags"] - x["total_bags"] + 1 <= int(v["max_bags_per_passenger"]) * len(x["passengers"])
                 - x["total_bags"]), None)
    if prem is not None:
        u = A.take(prem)
        add = max(1, prem["free_bags"] - prem["total_bags"] + 1)
        fee = money((max(0, prem["total_bags"] + add - prem["free_bags"]) - max(0, prem["total_bags"] - prem["free_bags"]))
                    * v["extra_bag_fee_premier"])
        out.append(A.base("add-bags-premier-extra", "fee", u, prem,
                          purpose="Premier bags beyond the allowance cost the Premier extra-bag fee.",
                          reason=f"You want to add {add} checked bags to {prem['reservation_id']}.",
                          instructions=["Pay any fee with your credit card."],
                          opening=f"Please add {add} checked bags to {prem['reservation_id']}.",
                          gold=[A.lookup(prem),
                                ("add_bags", {"reservation_id": prem["reservation_id"], "bags": add, "bag_fee": fee,
                                              "payment_method_id": A.card(u)})],
                          naive=[("add_bags", {"reservation_id": prem["reservation_id"], "bags": add, "bag_fee": 0})],
                          communicate=[amount_text(fee)], facts=[F.value("extra_bag_fee_premier")],
                          value_keys=["extra_bag_fee_premier"]))
    # too many bags
    r = next((x for x in opens if x["reservation_id"] not in A.used and len(x["passengers"]) == 1), None)
    if r is not None:
        u = A.take(r)
        want = int(v["max_bags_per_passenger"]) + 1 - r["total_bags"]
        out.append(A.base("add-bags-over-limit", "refuse", u, r,
                          purpose="A passenger may check at most 5 bags in total.",
                          reason=f"You are moving and want {want} more checked bags on {r['reservation_id']}.",
                          opening=f"I need to add {want} checked bags to {r['reservation_id']}, I'm moving house.",
                          gold=[A.lookup(r)],
                          naive=[("add_bags", {"reservation_id": r["reservation_id"], "bags": want, "bag_fee": 0})],
                          communicate=[str(int(v["max_bags_per_passenger"]))],
                          facts=[F.value("max_bags_per_passenger")], value_keys=["max_bags_per_passenger"]))
    # overweight bag on Main / Lite, heavy bag on Premier, bag over the hard limits
    heavy = next((x for x in opens if x["reservation_id"] not in A.used and A.cabin(x) == "main"
                  and A.card(A.owner(x)) and x["total_bags"] + 1 <= x["free_bags"]), None)
    if heavy is not None:
        u = A.take(heavy)
        out.append(A.base("overweight-bag", "fee", u, heavy,
                          purpose="A 60 lb bag in Main is within the allowance but overweight: the overweight fee.",
                          reason=f"You want to add one checked bag weighing 60 lb to {heavy['reservation_id']}.",
                          known=A.known(u, heavy) + ["The bag weighs 60 lb and measures 58 linear inches."],
                          instructions=["Pay with your credit card."],
                          opening=f"Can I add a checked bag to {heavy['reservation_id']}? It's about 60 pounds.",
                          gold=[A.lookup(heavy),
                                ("add_bags", {"reservation_id": heavy["reservation_id"], "bags": 1,
                                              "overweight_bags": 1, "bag_fee": 0,
                                              "overweight_fee": v["overweight_fee"],
                                              "payment_method_id": A.card(u)})],
                          naive=[("add_bags", {"reservation_id": heavy["reservation_id"], "bags": 1, "bag_fee": 0})],
                          communicate=[amount_text(v["overweight_fee"])],
                          facts=[F.value("overweight_fee"), F.find("may weigh at most 50 lb")],
                          value_keys=["overweight_fee"]))
    prem = next((x for x in opens if x["reservation_id"] not in A.used and A.cabin(x) == "premier"
                 and x["total_bags"] + 1 <= x["free_bags"]), None)
    if prem is not None:
        u = A.take(prem)
        out.append(A.base("heavy-bag-premier", "none", u, prem,
                          purpose="A 65 lb bag in Premier is within the Premier weight limit and the allowance: free.",
                          reason=f"You want to add one 65 lb checked bag to {prem['reservation_id']}.",
                          known=A.known(u, prem) + ["The bag weighs 65 lb and measures 60 linear inches."],
                          opening=f"Please add one checked bag to {prem['reservation_id']}, it weighs 65 pounds.",
                          gold=[A.lookup(prem),
                                ("add_bags", {"reservation_id": prem["reservation_id"], "bags": 1, "bag_fee": 0})],
                          naive=[("add_bags", {"reservation_id": prem["reservation_id"], "bags": 1, "bag_fee": 0})],
                          facts=[F.find("in Premier may weigh at most 70 lb")]))
    for slug, what, say, fact in (("bag-too-heavy", "weighs 110 lb", "100", "heavier than 100 lb"),
                                  ("bag-too-large", "measures 70 linear inches", "62", "at most 62 linear inches")):
        r = next((x for x in opens if x["reservation_id"] not in A.used), None)
        if r is None:
            continue
        u = A.take(r)
        out.append(A.base(slug, "refuse", u, r,
                          purpose=f"A checked bag that {what} is not accepted.",
                          reason=f"You want to check a crate that {what} on {r['reservation_id']}.",
                          known=A.known(u, r) + [f"The crate {what}."],
                          opening=f"I want to check a crate on {r['reservation_id']}; it {what}.",
                          gold=[A.lookup(r)],
                          naive=[("add_bags", {"reservation_id": r["reservation_id"], "bags": 1, "bag_fee": 0})],
                          communicate=[say], facts=[F.find(fact)]))
    return out
