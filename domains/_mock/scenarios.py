"""Held-out simulations of the test domain: a handful, one per kind of outcome, and rentals
whose deposit or bike limit decides what is written (the ones a pack may seal: neither
the naive agent nor an adversary passes them)."""
from __future__ import annotations

from domains.simtests import Scenario, ScenarioContext, amount_text, answer


def scenarios(ctx: ScenarioContext) -> list[Scenario]:
    db, v, F = ctx.db, ctx.values, ctx.facts
    customers = db["customers"]
    regular = next(c for _, c in sorted(customers.items()) if not c["pass_holder"])
    holder_rental = next(r for _, r in sorted(db["rentals"].items())
                         if r["late_hours"] and customers[r["customer_id"]]["pass_holder"])
    holder = customers[holder_rental["customer_id"]]
    out: list[Scenario] = []

    def who(c):
        return [f"You are {c['name']}, customer id {c['id']}."]

    def asked(c, rental=None, *extra):
        """What the customer answers: the customer id, the rental id, and what a scenario adds."""
        out = [answer("customer_id", ["customer id", "account"], f"My customer id is {c['id']}.")]
        if rental is not None:
            out.append(answer("rental_id", ["rental id", "rental number", "which rental"], f"It's rental {rental['id']}."))
        return out + list(extra)

    out.append(Scenario(
        slug="rent-one-bike", trap="none", customer_id=regular["id"],
        purpose="Start a one-bike rental with the security deposit the policy sets.",
        reason="You want to rent one city bike today.", known=who(regular),
        instructions=["Agree to the deposit the agent quotes."],
        opening="Hi, I'd like to rent a bike today, just one.",
        answers=asked(regular, None, answer("age", ["how old", "your age", "years old", "16"], f"I'm {regular['age']}.")),
        gold=[("get_customer", {"customer_id": regular["id"]}),
              ("start_rental", {"customer_id": regular["id"], "bikes": 1, "deposit": v["deposit"]})],
        naive=[("start_rental", {"customer_id": regular["id"], "bikes": 1, "deposit": 0})],
        communicate=[amount_text(v["deposit"])], facts=[F.value("deposit"), F.value("min_age")],
        value_keys=["deposit"]))

    out.append(Scenario(
        slug="too-many-bikes", trap="refuse", customer_id=holder["id"],
        purpose="Refuse a rental of more bikes than the policy allows at once.",
        reason=f"You want to rent {int(v['max_bikes']) + 1} bikes for a family outing.", known=who(holder),
        instructions=["If the agent refuses, ask once whether an exception is possible, then accept."],
        opening=f"Hello! Can I rent {int(v['max_bikes']) + 1} bikes for this afternoon?",
        gold=[], naive=[("start_rental", {"customer_id": holder["id"], "bikes": int(v["max_bikes"]) + 1,
                                          "deposit": 0})],
        communicate=[str(int(v["max_bikes"]))], facts=[F.value("max_bikes")], value_keys=["max_bikes"],
        answers=asked(holder),
        pushback="Couldn't you make an exception just this once?"))

    fee_each = v["late_fee_per_hour"]
    out.append(Scenario(
        slug="explain-late-fee", trap="none", customer_id=holder["id"],
        purpose="Explain a pass holder's late fee: hourly fee with the pass discount.",
        reason=f"Rental {holder_rental['id']} came back {holder_rental['late_hours']} hours late and you want "
               "the fee explained.", known=who(holder) + [f"Your rental id is {holder_rental['id']}."],
        instructions=["You only want an explanation; do not ask for a waiver."],
        opening=f"Why was I charged {amount_text(holder_rental['late_fee'])} on rental {holder_rental['id']}?",
        gold=[("get_rental", {"rental_id": holder_rental["id"]})], naive=[], answers=asked(holder, holder_rental),
        communicate=[amount_text(fee_each), f"{amount_text(v['pass_discount_pct'])}%"],
        facts=[F.value("late_fee_per_hour"), F.value("pass_discount_pct"), F.find("lasts 24 hours")],
        value_keys=["late_fee_per_hour", "pass_discount_pct"]))

    out.append(Scenario(
        slug="deposit-refund-timing", trap="none", customer_id=regular["id"],
        purpose="Tell the customer how the deposit refund works.",
        reason="You returned your bike undamaged and want to know when the deposit comes back.",
        known=who(regular), opening="When do I get my deposit back? The bike is back without a scratch.",
        gold=[], naive=[], communicate=["5 business days"],
        answers=asked(regular, None, answer("condition", ["damage", "scratch", "condition"],
                                            "It came back without a scratch.")),
        facts=[F.find("within 5 business days")]))

    fee = holder_rental["late_fee"]
    out.append(Scenario(
        slug="waive-small-fee", trap="none", customer_id=holder["id"],
        purpose="Waive a late fee the agent may waive without a manager (at most the waiver limit).",
        reason=f"The shop was closed when you brought back rental {holder_rental['id']}, so it was logged late; "
               "you want the late fee waived.", known=who(holder) + [f"Your rental id is {holder_rental['id']}."],
        opening=f"The shop was shut when I returned rental {holder_rental['id']}, can you waive the late fee?",
        answers=asked(holder, holder_rental),
        gold=[("get_rental", {"rental_id": holder_rental["id"]}),
              ("waive_late_fee", {"rental_id": holder_rental["id"], "amount": fee})],
        naive=[("waive_late_fee", {"rental_id": holder_rental["id"], "amount": fee})],
        facts=[F.value("max_waiver")], value_keys=["max_waiver"]))

    most = int(v["max_bikes"])
    out.append(Scenario(
        slug="rent-the-maximum", trap="refuse", customer_id=regular["id"],
        purpose="Refuse the bikes above the limit and rent the most the policy allows, with its deposit.",
        reason=f"You want {most + 1} bikes for a group ride; if that is too many you take as many as allowed.",
        known=who(regular), instructions=["If the agent says you cannot have that many, take as many as allowed."],
        opening=f"Hi, I need {most + 1} bikes for a group ride tomorrow.",
        answers=[answer("customer_id", ["customer id", "account"], f"My customer id is {regular['id']}.")],
        gold=[("get_customer", {"customer_id": regular["id"]}),
              ("start_rental", {"customer_id": regular["id"], "bikes": most, "deposit": v["deposit"]})],
        naive=[("start_rental", {"customer_id": regular["id"], "bikes": most + 1, "deposit": 0})],
        communicate=[str(most)], facts=[F.value("max_bikes"), F.value("deposit")],
        value_keys=["max_bikes", "deposit"], pushback="Couldn't you make an exception just this once?"))

    for n, c in ((2, holder), (2, regular), (most, regular)):
        out.append(Scenario(
            slug=f"rent-{n}-bikes", trap="fee", customer_id=c["id"],
            purpose="Start a rental of several bikes, taking the security deposit the policy sets.",
            reason=f"You want to rent {n} bikes today.", known=who(c),
            instructions=["Agree to the deposit the agent quotes."],
            opening=f"Hello, can I rent {n} bikes for today?",
            answers=[answer("customer_id", ["customer id", "account"], f"My customer id is {c['id']}.")],
            gold=[("get_customer", {"customer_id": c["id"]}),
                  ("start_rental", {"customer_id": c["id"], "bikes": n, "deposit": v["deposit"]})],
            naive=[("start_rental", {"customer_id": c["id"], "bikes": n, "deposit": 0})],
            communicate=[amount_text(v["deposit"])], facts=[F.value("deposit")], value_keys=["deposit"]))
    return out
