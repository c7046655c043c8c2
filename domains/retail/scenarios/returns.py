"""Returns: windows by category and tier, restocking and label fees, Row Credit, refusals."""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.seedkit import cents
from domains.simtests import Scenario, amount_text, answer

from ..rules import CATEGORIES, CATEGORY_LABEL, return_amounts, return_window_days
from .base import Shop


def _return(R: Shop, slug: str, o: dict, lines: list[int], *, condition: str = "unused", to_credit: bool = False,
            purpose: str, facts: list[str], keys: list[str], trap: Optional[str] = None,
            reason: str = "changed my mind") -> Scenario:
    c = R.owner(o)
    items = [o["items"][i] for i in lines]
    amt = return_amounts(R.v, items, R.tier(c), condition != "unused", to_credit)
    names = " and ".join(it["name"] for it in items)
    args = {"order_id": o["order_id"], "line_indexes": lines, "reason": reason, "condition": condition,
            "refund_to": "row_credit" if to_credit else "original", **amt}
    full = cents(sum(it["price"] for it in items))
    naive = {**args, "restocking_fee": 0, "label_fee": 0, "refund_amount": full, "bonus": 0}
    fees = amt["restocking_fee"] + amt["label_fee"]
    trap = trap or ("fee" if fees > 0 else "none")
    say = [amount_text(cents(amt["refund_amount"] + amt["bonus"]))] if (fees or to_credit) else []
    return R.base(slug, trap, c, o, purpose=purpose,
                  reason=f"You want to return the {names} from order {o['order_id']} ({reason}).",
                  instructions=[f"The item{'s are' if len(items) > 1 else ' is'} {condition}"
                                f"{' and in the original packaging' if condition == 'unused' else ''}.",
                                "You want the refund as Row Credit." if to_credit else
                                "You want the refund to your original payment method."],
                  opening=f"Hi, I'd like to return the {names} from order {o['order_id']}.",
                  gold=[R.lookup(o), ("request_return", args)],
                  naive=[("request_return", naive)], communicate=say, facts=facts, value_keys=keys,
                  answers=R.answers(c, o) + _return_answers(reason, condition, len(items), to_credit),
                  pushback="Do I really have to pay those fees?")


def _return_answers(reason: str, condition: str, n: int, to_credit: bool) -> list:
    """What the customer says when asked why, in what state the items are, and where the refund goes."""
    state = ("unused and in the original packaging" if condition == "unused" else condition)
    return [answer("return_reason", ["reason", "why"], f"{reason[0].upper()}{reason[1:]}."),
            answer("condition", ["condition", "unused", "packaging", "damaged", "defective", "state", "opened"],
                   f"{'They are' if n > 1 else 'It is'} {state}."),
            answer("refund_destination", ["refund", "row credit", "store credit", "original payment"],
                   "As Row Credit, please." if to_credit else "To my original payment method, please.")]


def returns(R: Shop) -> list[Optional[Scenario]]:
    delivered = R.orders("delivered")
    out = _windows(R, delivered)
    out += _credit_damage_and_several(R, delivered)
    return out + _refused(R, delivered)


def _open_lines(R: Shop, o: dict, tier_ok=lambda t: True) -> list[int]:
    """The lines of a delivered order that may still be returned (window, final sale, requests)."""
    c = R.owner(o)
    if len(o["returns"]) >= R.v["max_return_requests"] or not tier_ok(R.tier(c)):
        return []
    d = R.delivered(o).date()
    return [i for i, it in enumerate(o["items"]) if i not in R.taken(o) and not it["final_sale"]
            and R.now.date() <= d + dt.timedelta(days=return_window_days(R.v, it["category_key"], R.tier(c)))]


def _windows(R: Shop, delivered: list[dict]) -> list[Optional[Scenario]]:
    """A return in each category's window (its restocking and label fee), and outside it."""
    v, F, out = R.v, R.F, []
    today = R.now.date()
    for cat in CATEGORIES:
        o, line = next(((o, i) for o in delivered if o["order_id"] not in R.used
                        for i in _open_lines(R, o, lambda t: t != "canopy") if o["items"][i]["category_key"] == cat),
                       (None, None))
        if o is None:
            continue
        R.used.add(o["order_id"])
        out.append(_return(R, "return-item", o, [line],
                           purpose=f"Return an unused {CATEGORY_LABEL[cat]} item in its window: the category's "
                                   "restocking fee and return label fee come out of the refund.",
                           facts=[F.value(f"return_window_days_{cat}"), F.value(f"restocking_pct_{cat}"),
                                  F.value(f"label_fee_{cat}")],
                           keys=[f"return_window_days_{cat}", f"restocking_pct_{cat}", f"label_fee_{cat}"]))
    # outside the window
    late = [(o, i) for o in delivered for i, it in enumerate(o["items"]) if i not in R.taken(o) and not it["final_sale"]
            and R.tier(R.owner(o)) != "canopy"
            and today > R.delivered(o).date() + dt.timedelta(days=return_window_days(v, it["category_key"], "sprout"))]
    for o, i in late[:2]:
        c, it = R.owner(o), o["items"][i]
        days = return_window_days(v, it["category_key"], R.tier(c))
        out.append(R.base("return-too-late", "refuse", c, o,
                          purpose="A return outside the category's return window is refused.",
                          reason=f"You want to return the {it['name']} from order {o['order_id']}.",
                          opening=f"I'd like to send back the {it['name']} from order {o['order_id']}, it's unused.",
                          gold=[R.lookup(o)],
                          naive=[R.full_return(o, i)],
                          communicate=[str(days)], facts=[F.value(f"return_window_days_{it['category_key']}")],
                          value_keys=[f"return_window_days_{it['category_key']}"],
                          pushback="It's only a little late, can't you accept it?"))
    return out


def _credit_damage_and_several(R: Shop, delivered: list[dict]) -> list[Optional[Scenario]]:
    """Row Credit with its bonus, Canopy's extra days, damaged on arrival, several categories."""
    v, F, out = R.v, R.F, []
    today = R.now.date()
    # Row Credit with bonus
    o, line = next(((o, i) for o in delivered if o["order_id"] not in R.used for i in _open_lines(R, o)), (None, None))
    if o is not None:
        R.used.add(o["order_id"])
        cat = o["items"][line]["category_key"]
        out.append(_return(R, "return-to-row-credit", o, [line], to_credit=True,
                           purpose="A return refunded as Row Credit gets the Row Credit bonus on top (fees still apply).",
                           facts=[F.value("row_credit_bonus_pct"), F.value(f"restocking_pct_{cat}")],
                           keys=["row_credit_bonus_pct"], trap="fee"))
    # Canopy: extra days and no label fee
    canopy = [(o, i) for o in delivered if R.tier(R.owner(o)) == "canopy" and o["order_id"] not in R.used
              for i in _open_lines(R, o) if today > R.delivered(o).date() + dt.timedelta(
                  days=return_window_days(v, o["items"][i]["category_key"], "sprout"))]
    for o, i in canopy[:1]:
        R.used.add(o["order_id"])
        out.append(_return(R, "return-canopy-extended", o, [i],
                           purpose="A Canopy member returns after the base window but within the extra 30 days; "
                                   "no label fee for Canopy.",
                           facts=[F.value("canopy_extra_return_days"), F.find("Canopy members never pay a return label")],
                           keys=["canopy_extra_return_days"]))
    # damaged within 7 days
    fresh = [(o, i) for o in delivered if o["order_id"] not in R.used for i in _open_lines(R, o)
             if today - R.delivered(o).date() <= dt.timedelta(days=v["damage_report_days"])]
    for o, i in fresh[:1]:
        R.used.add(o["order_id"])
        out.append(_return(R, "return-damaged", o, [i], condition="damaged", reason="arrived damaged",
                           purpose="An item reported damaged within 7 days of delivery: no restocking or label fee.",
                           facts=[F.value("damage_report_days"), F.find("carry no restocking fee and no return label fee")],
                           keys=["damage_report_days"]))
    multi = next((o for o in delivered if o["order_id"] not in R.used and R.tier(R.owner(o)) != "canopy"
                  and len({o["items"][i]["category_key"] for i in _open_lines(R, o)}) >= 2), None)
    if multi is not None:
        R.used.add(multi["order_id"])
        lines = _open_lines(R, multi)
        first = {}
        for i in lines:
            first.setdefault(multi["items"][i]["category_key"], i)
        picks = sorted(first.values())[:2]
        cats = [multi["items"][i]["category_key"] for i in picks]
        out.append(_return(R, "return-several-categories", multi, picks,
                           purpose="Items from several categories returned together: each item's restocking fee, and "
                                   "one label fee, the highest of the categories.",
                           facts=[F.find("the highest label fee applies")] + [F.value(f"label_fee_{c}") for c in cats],
                           keys=[f"label_fee_{c}" for c in cats]))
    return out


def _refused(R: Shop, delivered: list[dict]) -> list[Optional[Scenario]]:
    """Final-sale items and a third return request."""
    v, F, out = R.v, R.F, []
    final = next(((o, i) for o in delivered for i, it in enumerate(o["items"]) if it["final_sale"]
                  and i not in R.taken(o)), None)
    if final is not None:
        o, i = final
        c, it = R.owner(o), o["items"][i]
        out.append(R.base("return-final-sale", "refuse", c, o,
                          purpose="Items marked final sale cannot be returned or exchanged.",
                          reason=f"You want to return the {it['name']} from order {o['order_id']}.",
                          opening=f"Can I return the {it['name']} from order {o['order_id']}?",
                          gold=[R.lookup(o)],
                          naive=[R.full_return(o, i)],
                          communicate=["final sale"], facts=[F.find("Items marked final sale can't be returned")]))
    full = next((o for o in delivered if len(o["returns"]) >= v["max_return_requests"]
                 and [i for i in range(len(o["items"])) if i not in R.taken(o)]), None)
    if full is not None:
        c = R.owner(full)
        i = next(i for i in range(len(full["items"])) if i not in R.taken(full))
        it = full["items"][i]
        out.append(R.base("third-return-refused", "refuse", c, full,
                          purpose="An order can have at most 2 return requests.",
                          reason=f"You already returned things from order {full['order_id']} twice and now want to "
                                 f"return the {it['name']} too.",
                          opening=f"One more return on order {full['order_id']}: the {it['name']}.",
                          gold=[R.lookup(full)],
                          naive=[R.full_return(full, i)],
                          communicate=[str(int(v["max_return_requests"]))], facts=[F.value("max_return_requests")],
                          value_keys=["max_return_requests"]))
    return out
