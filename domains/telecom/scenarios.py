"""Held-out simulations of the telecom domain, drawn from the seed database: overdue bills
paid by phone, suspended accounts restored, top-ups and roaming passes priced from the
tables, plan upgrades prorated by day, downgrades scheduled, lines added, SIMs replaced,
arrangements, troubleshooting tickets; and questions on the handbook's other numbers.
"""
from __future__ import annotations

import datetime as dt
from typing import Optional

from domains.apikit import next_id
from domains.scenariokit import Drafter
from domains.seedkit import money
from domains.simtests import Scenario, ScenarioContext, amount_text, answer

from .rules import PLANS, REGIONS, TOPUP_SIZES, cycle_start, next_cycle, prorated_upgrade, ticket_status

PERSONAS = ["A busy nurse on night shifts; short answers.", "A retired engineer who likes exact numbers.",
            "A student who mostly uses the phone for data.", "A small-business owner with a family plan.",
            "A frequent traveller, polite and organised."]
PLAN_ROW = {"starter": "Hatch", "standard": "Perch", "plus": "Glide", "premium": "Soar", "top": "Summit"}
TOPUP_ROW = {1: "Tailwind Breeze", 3: "Tailwind Gust", 5: "Tailwind Gale", 10: "Tailwind Storm"}


class Tel(Drafter):
    personas = PERSONAS
    customer_key = "id"

    def cust(self, cid: str) -> dict:
        return self.db["customers"][cid]

    def lines(self, cid: str) -> list[dict]:
        return [ln for _, ln in sorted(self.db["lines"].items()) if ln["customer_id"] == cid]

    def customers(self, status: str = "active") -> list[dict]:
        return [c for _, c in sorted(self.db["customers"].items()) if c["status"] == status]

    def cycle(self, c: dict) -> str:
        return cycle_start(self.today, c["cycle_day"]).isoformat()

    def known(self, c: dict, rec: Optional[dict] = None) -> list[str]:
        return [f"You are {c['name']}.", f"Your account number is {c['id']}.", f"Your zip code is {c['zip']}."]

    def answers(self, c: dict, rec: Optional[dict] = None) -> list:
        """Identity: the account number, the zip code, the one-time code just received."""
        return [answer("account", ["account number", "account id"], f"It's {c['id']}."),
                answer("zip", ["zip"], f"My zip code is {c['zip']}."),
                answer("verify", ["pin", "one-time code", "code"], "I just got the code: 482913.")]

    def row(self, table: dict, key, col: str) -> str:
        return self.F.find(f"{table[key]} — {col}")


def scenarios(ctx: ScenarioContext) -> list[Scenario]:
    T = Tel(ctx)
    out: list[Scenario] = []
    for build in (billing, plans_and_lines, topups, roaming, devices_and_sims, support, questions):
        out += [s for s in build(T) if s is not None]
    return out


# ------------------------------------------------------------------------------ billing

def billing(T: Tel) -> list[Optional[Scenario]]:
    v, F, out = T.v, T.F, []
    fee = float(v["agent_payment_fee"])
    for c in T.customers("active") + T.customers("suspended"):
        overdue = sorted((b for b in T.db["bills"].values() if b["customer_id"] == c["id"] and b["status"] == "overdue"),
                         key=lambda b: b["bill_date"])
        if not overdue:
            continue
        susp = c["status"] == "suspended"
        gold = [("list_bills", {"customer_id": c["id"]})] + [
            ("pay_bill", {"bill_id": b["id"], "method": "agent_phone", "amount": b["total"], "fee": fee}) for b in overdue]
        naive = [("pay_bill", {"bill_id": b["id"], "method": "agent_phone", "amount": b["total"], "fee": 0})
                 for b in overdue]
        total = money(sum(b["total"] for b in overdue))
        n = len(T.lines(c["id"]))
        facts = [F.value("agent_payment_fee"), F.find("Payments made in the Kestrel app, online or through EasyPay are free")]
        say = [amount_text(total), amount_text(fee)]
        if susp:
            facts += [F.value("reconnection_fee"), F.find("restored within 2 hours"), F.value("suspend_days"),
                      F.find("A suspended line can still call 911")]
            say.append(amount_text(v["reconnection_fee"] * n))
        else:
            facts += [F.value("late_fee_grace_days"), F.find("we text the account holder a payment reminder"),
                      F.find("At 15 days past due")]
        out.append(T.base("pay-overdue-by-phone", "fee", c,
                          purpose="Take an overdue payment over the phone: the agent-assisted fee applies"
                                  + ("; a suspended account is restored and a reconnection fee follows." if susp else "."),
                          reason=f"You want to pay your overdue Kestrel balance now, over the phone"
                                 f"{' (your lines are suspended)' if susp else ''}.",
                          instructions=["Pay with the card you have ready when the agent asks; agree to any fee."],
                          opening="Hi, I'd like to pay what I owe on my account right now, over the phone.",
                          gold=gold, naive=naive, communicate=say, facts=facts,
                          value_keys=["agent_payment_fee"] + (["reconnection_fee"] if susp else [])))
    arr = next((c for c in T.customers("active") if 0 < sum(b["total"] for b in T.db["bills"].values()
                                                           if b["customer_id"] == c["id"] and b["status"] == "overdue")
                <= v["arrangement_max_balance"]), None)
    if arr is not None:
        bills = [b for b in T.db["bills"].values() if b["customer_id"] == arr["id"] and b["status"] == "overdue"]
        due = money(sum(b["total"] for b in bills))
        first = money(round(due / 2, 2))
        inst = [{"due_on": (T.today + dt.timedelta(days=14)).isoformat(), "amount": first},
                {"due_on": (T.today + dt.timedelta(days=int(v["arrangement_days"]))).isoformat(),
                 "amount": money(due - first)}]
        args = {"customer_id": arr["id"], "bill_ids": [b["id"] for b in bills], "installments": inst}
        naive_inst = [{"due_on": (T.today + dt.timedelta(days=20 * k)).isoformat(), "amount": money(due / 3)}
                      for k in (1, 2, 3)]
        naive_inst[-1]["amount"] = money(due - 2 * money(due / 3))
        out.append(T.base("payment-arrangement", "refuse", arr,
                          purpose="A payment arrangement: at most 2 installments, the last within 30 days, for "
                                  "overdue balances up to $300.",
                          reason=f"You can't pay the overdue {amount_text(due)} at once and want to spread it over three "
                                 "payments, 20 days apart.",
                          instructions=["Accept the plan the agent proposes: half in 14 days, the rest on the last day "
                                        "allowed."],
                          opening="I'm behind on my bill. Can I pay it in three parts over the next two months?",
                          gold=[("list_bills", {"customer_id": arr["id"]}), ("create_payment_arrangement", args)],
                          naive=[("create_payment_arrangement", {**args, "installments": naive_inst})],
                          communicate=[str(int(v["arrangement_max_installments"])), str(int(v["arrangement_days"]))],
                          facts=[F.value("arrangement_max_installments"), F.value("arrangement_days"),
                                 F.value("arrangement_max_balance"),
                                 F.find("not suspended for the balance it covers")],
                          value_keys=["arrangement_max_installments", "arrangement_days"]))
    big = next((c for c in T.customers("active") if sum(b["total"] for b in T.db["bills"].values()
                                                       if b["customer_id"] == c["id"] and b["status"] == "overdue")
                > v["arrangement_max_balance"]), None)
    if big is not None:
        bills = [b for b in T.db["bills"].values() if b["customer_id"] == big["id"] and b["status"] == "overdue"]
        due = money(sum(b["total"] for b in bills))
        out.append(T.base("arrangement-over-limit", "refuse", big,
                          purpose="Payment arrangements are only for overdue balances up to $300.",
                          reason=f"You owe {amount_text(due)} overdue and want to pay it in two halves.",
                          opening="Can I split my overdue balance into two payments?",
                          gold=[("list_bills", {"customer_id": big["id"]})],
                          naive=[("create_payment_arrangement", {"customer_id": big["id"], "bill_ids": [b["id"] for b in bills],
                                                                 "installments": [
                                                                     {"due_on": (T.today + dt.timedelta(days=15)).isoformat(),
                                                                      "amount": money(due / 2)},
                                                                     {"due_on": (T.today + dt.timedelta(days=30)).isoformat(),
                                                                      "amount": money(due - money(due / 2))}]})],
                          communicate=[amount_text(v["arrangement_max_balance"])],
                          facts=[F.value("arrangement_max_balance")], value_keys=["arrangement_max_balance"]))
    late = [(b, it) for _, b in sorted(T.db["bills"].items()) for it in b["items"] if it["type"] == "late_fee"]
    twice = [c for c in sorted({b["customer_id"] for b, _ in late}) if sum(b["customer_id"] == c for b, _ in late) > 1]
    for cid in twice[:1]:
        c = T.cust(cid)
        (b1, i1), (b2, i2) = [(b, it) for b, it in late if b["customer_id"] == cid][:2]
        out.append(T.base("waive-one-late-fee", "fee", c,
                          purpose="Agents may waive one late fee per account every 12 months: asked for two, the "
                                  "agent waives one and the other stays charged.",
                          reason=f"Your bills {b1['id']} and {b2['id']} each carry a late fee and you want both waived.",
                          instructions=[f"If the agent can waive only one, you want the one on bill {b1['id']}."],
                          opening=f"Could you waive the late fees on my bills {b1['id']} and {b2['id']}?",
                          gold=[("list_bills", {"customer_id": c["id"]}),
                                ("waive_late_fee", {"bill_id": b1["id"], "amount": i1["amount"]})],
                          naive=[("waive_late_fee", {"bill_id": b1["id"], "amount": i1["amount"]}),
                                 ("waive_late_fee", {"bill_id": b2["id"], "amount": i2["amount"]})],
                          facts=[F.find("Agents may waive 1 late fee per account every 12 months")]))
    cancelled = T.customers("cancelled")
    for c in cancelled[:1]:
        bills = [b for b in T.db["bills"].values() if b["customer_id"] == c["id"] and b["status"] == "collections"]
        due = money(sum(b["total"] for b in bills))
        out.append(T.base("cancelled-account", "refuse", c,
                          purpose="An account 60 days past due is cancelled and sent to collections; its numbers are "
                                  "held for 30 days.",
                          reason="Your phone stopped working weeks ago and you want to top up some data to use it.",
                          opening="My line hasn't worked for ages. Can I just buy a data top-up to get it going?",
                          gold=[("get_customer", {"customer_id": c["id"]}), ("list_bills", {"customer_id": c["id"]})],
                          naive=[("buy_top_up", {"line_id": T.lines(c["id"])[0]["id"], "size_gb": 1, "price": 0})],
                          communicate=[amount_text(due)],
                          facts=[F.value("cancel_days"), F.find("are held for 30 days")], value_keys=["cancel_days"]))
    return out


# ------------------------------------------------------------------------------ plans and lines

def _new_line(c: dict, user: str, born: str, imei: str, model: str, parental_controls: bool = False) -> dict:
    """The arguments of `add_line` for a line of customer `c` with an eSIM in the user's own
    device."""
    return {"customer_id": c["id"], "user_name": user, "user_date_of_birth": born,
            "parental_controls": parental_controls, "sim_type": "esim", "device_imei": imei, "device_model": model}


def plans_and_lines(T: Tel) -> list[Optional[Scenario]]:
    v, F, out = T.v, T.F, []
    order = PLANS
    ups = 0
    for c in T.customers("active"):
        n = len(T.lines(c["id"]))
        i = order.index(c["plan"])
        if i + 1 < len(order) and n <= v[f"max_lines_{order[i + 1]}"] and ups < 2:
            new = order[i + 1]
            charge = prorated_upgrade(v, c, n, new, T.today)
            ups += 1
            out.append(T.base("plan-upgrade", "fee", c,
                              purpose="An upgrade applies at once; the price difference for the rest of the cycle is "
                                      "prorated by day.",
                              reason=f"You want to move your account to the {PLAN_ROW[new]} plan today.",
                              opening=f"I'd like to upgrade to {PLAN_ROW[new]} right away. What will it cost me this month?",
                              gold=[("get_customer", {"customer_id": c["id"]}),
                                    ("change_plan", {"customer_id": c["id"], "new_plan": new, "prorated_charge": charge})],
                              naive=[("change_plan", {"customer_id": c["id"], "new_plan": new, "prorated_charge": 0})],
                              communicate=[amount_text(charge)],
                              facts=[F.find("A plan upgrade takes effect immediately"), F.value(f"plan_price_{new}"),
                                     F.value(f"extra_line_price_{new}") if n > 1 else F.value(f"plan_price_{c['plan']}"),
                                     F.value("max_plan_changes")],
                              value_keys=[f"plan_price_{new}"]))
    down = next((c for c in T.customers("active") if order.index(c["plan"]) > 0
                 and len(T.lines(c["id"])) <= v[f"max_lines_{order[order.index(c['plan']) - 1]}"]), None)
    if down is not None:
        new = order[order.index(down["plan"]) - 1]
        args = {"customer_id": down["id"], "new_plan": new, "prorated_charge": 0}
        nxt = next_cycle(cycle_start(T.today, down["cycle_day"]), down["cycle_day"]).isoformat()
        out.append(T.base("plan-downgrade", "none", down,
                          purpose="A downgrade takes effect at the start of the next billing cycle.",
                          reason=f"You want a cheaper plan, {PLAN_ROW[new]}.",
                          opening=f"Please switch me to the {PLAN_ROW[new]} plan, I don't need this much.",
                          gold=[("get_customer", {"customer_id": down["id"]}), ("change_plan", args)],
                          naive=[("change_plan", args)], communicate=[nxt],
                          facts=[F.find("A plan downgrade takes effect at the start of the next billing cycle")]))
    crowded = next((c for c in T.customers("active") if order.index(c["plan"]) > 0
                    and len(T.lines(c["id"])) > v[f"max_lines_{order[order.index(c['plan']) - 1]}"]), None)
    if crowded is not None:
        new = order[order.index(crowded["plan"]) - 1]
        out.append(T.base("downgrade-too-many-lines", "refuse", crowded,
                          purpose="A downgrade is refused when the account has more lines than the new plan allows.",
                          reason=f"You want to save money with the {PLAN_ROW[new]} plan.",
                          opening=f"Move my account to {PLAN_ROW[new]}, please.",
                          gold=[("list_lines", {"customer_id": crowded["id"]})],
                          naive=[("change_plan", {"customer_id": crowded["id"], "new_plan": new, "prorated_charge": 0})],
                          communicate=[str(int(v[f"max_lines_{new}"]))],
                          facts=[F.find("A downgrade is refused when the account has more lines"),
                                 F.value(f"max_lines_{new}")], value_keys=[f"max_lines_{new}"]))
    room = next((c for c in T.customers("active") if len(T.lines(c["id"])) < v[f"max_lines_{c['plan']}"]), None)
    full = next((c for c in T.customers("active") if len(T.lines(c["id"])) >= v[f"max_lines_{c['plan']}"]), None)
    if room is not None:
        last = room["name"].split()[-1]
        kid = _new_line(room, f"Mia {last}", dt.date(T.today.year - 10, 3, 4).isoformat(), "356789012345678",
                        "Pebble A5", parental_controls=True)
        out.append(T.base("add-line-child", "none", room,
                          purpose="A line for a user under 13 must have parental controls turned on.",
                          reason=f"You want to add a line for your 10-year-old daughter Mia (born {kid['user_date_of_birth']}), "
                                 "on her own phone (IMEI 356789012345678, a Pebble A5), with an eSIM.",
                          opening="I'd like to add a line for my daughter, she's 10. She has a Pebble A5 already.",
                          answers=T.answers(room) + [
                              answer("imei", ["imei"], "The IMEI is 356789012345678."),
                              answer("birth", ["birth", "born", "how old", "her age"],
                                     f"She was born on {kid['user_date_of_birth']}."),
                              answer("sim", ["sim", "esim"], "An eSIM please.")],
                          gold=[("get_customer", {"customer_id": room["id"]}), ("add_line", kid)],
                          naive=[("add_line", {**kid, "parental_controls": False})],
                          facts=[F.value("parental_controls_age"), F.find("must be at least 18 years old")],
                          value_keys=["parental_controls_age"]))
    if full is not None:
        out.append(T.base("add-line-over-max", "refuse", full,
                          purpose="An account cannot have more lines than its plan's maximum.",
                          reason="You want one more line for your partner.",
                          opening="Can I add another line for my partner on my account?",
                          gold=[("list_lines", {"customer_id": full["id"]})],
                          naive=[("add_line", _new_line(full, "Alex Partner", "1988-06-01", "356789012345679",
                                                        "Nimbus 8"))],
                          communicate=[str(int(v[f"max_lines_{full['plan']}"]))],
                          facts=[F.value(f"max_lines_{full['plan']}"), F.find("All lines on an account must be on the same plan")],
                          value_keys=[f"max_lines_{full['plan']}"]))
    for c in T.customers("suspended")[:1]:
        out.append(T.base("suspended-cannot-add-line", "refuse", c,
                          purpose="A suspended account cannot change plans, add lines or finance a device.",
                          reason="You want to add a line for your son.",
                          opening="I want to add a new line for my son today.",
                          gold=[("get_customer", {"customer_id": c["id"]})],
                          naive=[("add_line", _new_line(c, "Sam Junior", "2005-02-02", "356789012345670", "Vela Mini"))],
                          communicate=["suspended"],
                          facts=[F.find("cannot change plans, add lines or finance a new device")]))
    return out


# ------------------------------------------------------------------------------ top-ups

def topups(T: Tel) -> list[Optional[Scenario]]:
    v, F, out = T.v, T.F, []
    active = [ln for c in T.customers("active") for ln in T.lines(c["id"])]
    for size in TOPUP_SIZES:
        for ln in active:
            c = T.cust(ln["customer_id"])
            cyc = T.cycle(c)
            mine = [t for t in T.db["top_ups"].values() if t["line_id"] == ln["id"] and t["date"] >= cyc]
            spent = sum(t["price"] for t in mine)
            if ln["id"] in T.used or sum(t["size_gb"] == size for t in mine) >= v[f"topup_max_{size}gb"] \
                    or spent + v[f"topup_price_{size}gb"] > v["topup_cap_per_cycle"]:
                continue
            T.used.add(ln["id"])
            price = float(v[f"topup_price_{size}gb"])
            args = {"line_id": ln["id"], "size_gb": size, "price": price}
            out.append(T.base("buy-top-up", "fee", c,
                              purpose="A Tailwind top-up at the table price, within the per-cycle purchase limits and "
                                      "spending cap.",
                              reason=f"Your line {ln['number']} is slow and you want {size} GB more this cycle.",
                              opening=f"My data on {ln['number']} is crawling, can I get {size} GB more?",
                              gold=[("find_line_by_number", {"number": ln["number"]}), ("get_usage", {"line_id": ln["id"]}),
                                    ("buy_top_up", args)],
                              naive=[("buy_top_up", {**args, "price": 0})],
                              communicate=[amount_text(price)],
                              facts=[T.row(TOPUP_ROW, size, "Price"), T.row(TOPUP_ROW, size, "High-speed data added"),
                                     T.row(TOPUP_ROW, size, "Purchases allowed per billing cycle"),
                                     T.row(TOPUP_ROW, size, "Time to activate"), F.value("topup_cap_per_cycle"),
                                     F.find("Top-up data expires at the end of the billing cycle")],
                              value_keys=[f"topup_price_{size}gb", f"topup_max_{size}gb"]))
            break
    capped = None
    for ln in active:
        c = T.cust(ln["customer_id"])
        mine = [t for t in T.db["top_ups"].values() if t["line_id"] == ln["id"] and t["date"] >= T.cycle(c)]
        if any(sum(t["size_gb"] == s for t in mine) >= v[f"topup_max_{s}gb"] for s in TOPUP_SIZES):
            capped = (ln, c, next(s for s in TOPUP_SIZES if sum(t["size_gb"] == s for t in mine) >= v[f"topup_max_{s}gb"]))
            break
    if capped is not None:
        ln, c, size = capped
        out.append(T.base("top-up-limit-refused", "refuse", c,
                          purpose="Each top-up size can be bought only a limited number of times per cycle.",
                          reason=f"You want another {size} GB top-up on {ln['number']}.",
                          opening=f"One more {size} GB top-up on {ln['number']}, please.",
                          gold=[("find_line_by_number", {"number": ln["number"]})],
                          naive=[("buy_top_up", {"line_id": ln["id"], "size_gb": size, "price": 0})],
                          communicate=[str(int(v[f"topup_max_{size}gb"]))], facts=[F.value(f"topup_max_{size}gb")],
                          value_keys=[f"topup_max_{size}gb"]))
    for c in T.customers("suspended")[:1]:
        ln = T.lines(c["id"])[0]
        out.append(T.base("suspended-top-up-refused", "refuse", c,
                          purpose="A suspended account cannot buy top-ups or day passes.",
                          reason=f"Your line {ln['number']} has no data and you want a 3 GB top-up.",
                          opening=f"Can I buy 3 GB for {ln['number']}? Nothing works.",
                          gold=[("get_customer", {"customer_id": c["id"]})],
                          naive=[("buy_top_up", {"line_id": ln["id"], "size_gb": 3, "price": 0})],
                          communicate=["suspended"], facts=[F.find("cannot buy Tailwind top-ups or Wingspan Day Passes"),
                                                            F.find("A suspended line cannot make other calls")]))
    return out


# ------------------------------------------------------------------------------ roaming

ROAM_ROW = {k: REGIONS[k] for k in REGIONS}


def roaming(T: Tel) -> list[Optional[Scenario]]:
    v, F, out = T.v, T.F, []
    active = [ln for c in T.customers("active") for ln in T.lines(c["id"])
              if (T.today - dt.date.fromisoformat(ln["activated_on"])).days >= v["roaming_min_active_days"]]
    for region in REGIONS:
        ln = next((x for x in active if x["id"] not in T.used), None)
        if ln is None:
            continue
        T.used.add(ln["id"])
        c = T.cust(ln["customer_id"])
        cyc = T.cycle(c)
        used = sum(1 for p in T.db["roaming_passes"].values() if p["line_id"] == ln["id"] and p["date"] >= cyc)
        included = used < v[f"included_passes_{c['plan']}"]
        price = 0.0 if included else float(v[f"roaming_pass_{region}"])
        args = {"line_id": ln["id"], "region": region, "price": price}
        facts = [T.row(ROAM_ROW, region, "Day pass price"), T.row(ROAM_ROW, region, "High-speed data per day"),
                 T.row(ROAM_ROW, region, "Call minutes per day"), T.row(ROAM_ROW, region, "Texts per day"),
                 T.row(ROAM_ROW, region, "Pay-per-use data without a pass"),
                 T.row(ROAM_ROW, region, "Pay-per-use calls without a pass"), F.value("roaming_min_active_days")]
        if included:
            facts.append(F.value(f"included_passes_{c['plan']}"))
        out.append(T.base("roaming-pass", "fee" if price else "none", c,
                          purpose="A Wingspan Day Pass for the region: included passes of the plan first, then the "
                                  "region's price.",
                          reason=f"You travel to {REGIONS[region]} tomorrow and want a day pass on {ln['number']}.",
                          instructions=["Ask what the pass includes."],
                          opening=f"I'm off to {REGIONS[region]}; can you add a day pass to {ln['number']}? What does it "
                                  "include?",
                          gold=[("find_line_by_number", {"number": ln["number"]}),
                                ("get_customer", {"customer_id": c["id"]}), ("buy_roaming_pass", args)],
                          naive=[("buy_roaming_pass", {**args, "price": 0})] if price else [("buy_roaming_pass", args)],
                          communicate=[amount_text(price)] if price else [],
                          facts=facts, value_keys=[f"roaming_pass_{region}"]))
    young = next((ln for c in T.customers("active") for ln in T.lines(c["id"])
                  if (T.today - dt.date.fromisoformat(ln["activated_on"])).days < v["roaming_min_active_days"]), None)
    if young is not None:
        c = T.cust(young["customer_id"])
        out.append(T.base("roaming-new-line-refused", "refuse", c,
                          purpose="International roaming needs a line active for at least 60 days.",
                          reason=f"You want a Europe day pass on your new line {young['number']}.",
                          opening=f"Please add a Europe day pass to {young['number']}.",
                          gold=[("find_line_by_number", {"number": young["number"]})],
                          naive=[("buy_roaming_pass", {"line_id": young["id"], "region": "europe", "price": 0})],
                          communicate=[str(int(v["roaming_min_active_days"]))],
                          facts=[F.value("roaming_min_active_days")], value_keys=["roaming_min_active_days"]))
    return out


# ------------------------------------------------------------------------------ devices, SIMs

def devices_and_sims(T: Tel) -> list[Optional[Scenario]]:
    v, F, out = T.v, T.F, []
    lines = [ln for c in T.customers("active") for ln in T.lines(c["id"])]
    phys_old = next((ln for ln in lines if ln["sim"]["type"] == "physical"
                     and (T.today - dt.date.fromisoformat(ln["activated_on"])).days > 365), None)
    phys_new = next((ln for ln in lines if ln["sim"]["type"] == "physical"
                     and (T.today - dt.date.fromisoformat(ln["activated_on"])).days <= 365), None)
    esim = next((ln for ln in lines if ln["sim"]["type"] == "esim"), None)
    for slug, ln, reason, sim, trap, fee, facts in (
            ("replace-lost-sim", phys_old, "lost", "physical", "fee", float(v["sim_replacement_fee"]),
             [F.value("sim_replacement_fee")]),
            ("replace-failed-sim", phys_new, "failed", "physical", "none", 0.0,
             [F.find("fails within 12 months of activation is replaced free")]),
            ("reissue-esim", esim, "damaged", "esim", "none", 0.0, [F.find("Reissuing an eSIM is free")])):
        if ln is None:
            continue
        c = T.cust(ln["customer_id"])
        args = {"line_id": ln["id"], "sim_type": sim, "reason": reason, "fee": fee}
        what = {"lost": "I lost my SIM card", "failed": "my SIM card stopped working, it says no SIM",
                "damaged": "I got a new phone and need my eSIM moved"}[reason]
        out.append(T.base(slug, trap, c, purpose="SIM replacement fees: a physical SIM costs the fee, free when it failed "
                                                  "within 12 months, an eSIM reissue is free.",
                          reason=f"For your line {ln['number']}: {what}.",
                          opening=f"Hi, {what} on {ln['number']}.",
                          gold=[("find_line_by_number", {"number": ln["number"]}), ("replace_sim", args)],
                          naive=[("replace_sim", {**args, "fee": 0})], communicate=[amount_text(fee)] if fee else [],
                          facts=facts, value_keys=["sim_replacement_fee"] if fee else []))
    devs = [(d, T.db["lines"][d["line_id"]]) for _, d in sorted(T.db["devices"].items())
            if T.db["lines"][d["line_id"]]["status"] == "active"]
    paid = next(((d, ln) for d, ln in devs if not d["financed"] and not d["unlocked"]), None)
    owed = next(((d, ln) for d, ln in devs if d["financed"] and d["installments_billed"] < v["installment_months"]), None)
    if paid is not None:
        d, ln = paid
        c = T.cust(ln["customer_id"])
        out.append(T.base("unlock-paid-device", "none", c,
                          purpose="A fully paid device can be unlocked; requests are processed within 2 business days.",
                          reason=f"You want your {d['model']} on {ln['number']} unlocked to use abroad.",
                          opening=f"Can you unlock my {d['model']}? The number is {ln['number']}.",
                          gold=[("get_device", {"device_id": d["id"]}), ("request_unlock", {"device_id": d["id"]})],
                          naive=[("request_unlock", {"device_id": d["id"]})],
                          facts=[F.find("An unlock request is processed within 2 business days"),
                                 F.find("at most 2 device unlocks every 12 months")]))
    if owed is not None:
        d, ln = owed
        c = T.cust(ln["customer_id"])
        out.append(T.base("unlock-financed-refused", "refuse", c,
                          purpose="A financed device that is not paid off is not unlocked.",
                          reason=f"You want your financed {d['model']} on {ln['number']} unlocked.",
                          opening=f"Please unlock my {d['model']} on {ln['number']}, I'm switching SIMs for a trip.",
                          gold=[("get_device", {"device_id": d["id"]})],
                          naive=[("request_unlock", {"device_id": d["id"]})],
                          communicate=[amount_text(d["balance_remaining"])],
                          facts=[F.value("unlock_after_days"), F.value("installment_months")],
                          value_keys=["unlock_after_days", "installment_months"]))
    return out


# ------------------------------------------------------------------------------ support

def support(T: Tel) -> list[Optional[Scenario]]:
    v, F, out = T.v, T.F, []
    lines = [ln for c in T.customers("active") for ln in T.lines(c["id"])]
    for t in sorted(T.db["tickets"].values(), key=lambda t: t["id"]):
        if t["status"] != "open" or T.db["lines"][t["line_id"]]["status"] != "active":
            continue
        ln = T.db["lines"][t["line_id"]]
        c = T.cust(ln["customer_id"])
        limit = v["escalate_attempts_slow_data"] if t["issue"] == "slow_data" else v["escalate_attempts"]
        attempts = t["attempts"] + [{"date": T.today.isoformat(), "result": "failed"}]
        esc = ticket_status(attempts, limit)["status"] == "escalated"
        args = {"ticket_id": t["id"], "result": "failed", "escalate": esc}
        issue = t["issue"].replace("_", " ")
        out.append(T.base("ticket-attempt", "transfer" if esc else "refuse", c,
                          purpose="Log a failed troubleshooting attempt; escalate to Tier 2 only when the attempts "
                                  "rule says so (2 for slow data, 3 otherwise, within 7 days).",
                          reason=f"Your {issue} problem on {ln['number']} (ticket {t['id']}) is still there after the "
                                 "steps the agent walks you through; you want it escalated to a specialist.",
                          instructions=["Follow the agent's steps; the problem does not go away."],
                          opening=f"Still having the {issue} problem on {ln['number']}, ticket {t['id']}. Can you escalate it?",
                          gold=[("get_ticket", {"ticket_id": t["id"]}), ("log_troubleshooting_attempt", args)],
                          naive=[("log_troubleshooting_attempt", {**args, "escalate": True})] if not esc else
                          [("log_troubleshooting_attempt", {**args, "escalate": False})],
                          communicate=[str(int(limit))] if not esc else ["24"],
                          facts=[F.value("escalate_attempts_slow_data" if t["issue"] == "slow_data" else "escalate_attempts"),
                                 F.find("Tier 2 contacts the customer within 24 hours")],
                          value_keys=["escalate_attempts"]))
    for ln in [x for c in T.customers("active") for x in T.lines(c["id"])][5:7]:
        c = T.cust(ln["customer_id"])
        tid = _next_ticket_id(T)
        out.append(T.base("slow-data-escalation", "transfer", c,
                          purpose="Slow data still failing after 2 full troubleshooting attempts within 7 days is "
                                  "escalated to Tier 2 right away.",
                          reason=f"Mobile data on {ln['number']} has been very slow for two days although you have "
                                 "full bars; nothing the agent suggests helps.",
                          instructions=["Do every step the agent asks; after each full pass the data is still slow."],
                          opening=f"My data on {ln['number']} is painfully slow even with full bars.",
                          gold=[("get_usage", {"line_id": ln["id"]}),
                                ("open_ticket", {"line_id": ln["id"], "issue": "slow_data"}),
                                ("log_troubleshooting_attempt", {"ticket_id": tid, "result": "failed", "escalate": False}),
                                ("log_troubleshooting_attempt", {"ticket_id": tid, "result": "failed", "escalate": True})],
                          naive=[("open_ticket", {"line_id": ln["id"], "issue": "slow_data"}),
                                 ("log_troubleshooting_attempt", {"ticket_id": tid, "result": "failed", "escalate": False}),
                                 ("log_troubleshooting_attempt", {"ticket_id": tid, "result": "failed", "escalate": False})],
                          communicate=["24"],
                          facts=[F.value("escalate_attempts_slow_data"), F.find("Tier 2 contacts the customer within 24 hours"),
                                 F.find("Make sure Low Data Mode or Data Saver is turned off")],
                          value_keys=["escalate_attempts_slow_data"]))
    c = T.customers("active")[3]
    out.append(T.base("human-on-request", "none", c,
                      purpose="Hand over to a human agent when asked.", reason="You want to talk to a person.",
                      opening="Can you put me through to a real person?",
                      gold=[("transfer_to_human", {"customer_id": c["id"], "desk": "human_agent",
                                                   "summary": "Customer asked for a person."})],
                      naive=[("transfer_to_human", {"customer_id": c["id"], "desk": "human_agent",
                                                    "summary": "Customer asked for a human."})],
                      facts=[F.find("say so kindly and offer what it does allow")]))
    del lines
    return out


def _next_ticket_id(T: Tel) -> str:
    """The id the ticket system gives the next ticket (ids follow the largest in use)."""
    return next_id(T.db["tickets"], T.ctx.pack.brand.id_prefixes.get("ticket", "TK"), 800001)


# ------------------------------------------------------------------------------ questions

def questions(T: Tel) -> list[Optional[Scenario]]:
    v, F, out = T.v, T.F, []
    custs = T.customers("active")

    def q(i, slug, purpose, opening, say, facts, keys=(), trap="none"):
        c = custs[i % len(custs)]
        return T.base(slug, trap, c, purpose=purpose, reason=opening, opening=opening,
                      gold=[("get_customer", {"customer_id": c["id"]})], naive=[], communicate=list(say),
                      facts=facts, value_keys=list(keys))

    for i, (plan, row) in enumerate(PLAN_ROW.items()):
        out.append(q(i, "plan-question", f"Describe the {row} plan from the plan table.",
                     f"What does the {row} plan cost for one line and for each extra line, and how much data and "
                     "hotspot do I get? What happens after the data runs out, and do I get roaming passes?",
                     [amount_text(v[f"plan_price_{plan}"]), amount_text(v[f"extra_line_price_{plan}"]),
                      f"{v[f'data_gb_{plan}']} GB"],
                     [F.value(f"plan_price_{plan}"), F.value(f"extra_line_price_{plan}"), F.value(f"data_gb_{plan}"),
                      F.value(f"hotspot_gb_{plan}"), F.value(f"max_lines_{plan}"), F.value(f"included_passes_{plan}"),
                      F.find(f"{row} — Speed after high-speed data")],
                     [f"plan_price_{plan}", f"data_gb_{plan}"]))
    rows = [
        ("billing-basics", "Explain the bill date, due date, network access fee and EasyPay discount.",
         "When is my bill due after it's issued, what's the network access fee, and how much does EasyPay save?",
         ["20", "2.50", "5"], ["due_days", "network_access_fee", "easypay_discount_per_line", "easypay_discount_cap"],
         ["EasyPay payments charged to a credit card do not earn the discount", "fails 2 times in a row",
          "We bill each account once a month"]),
        ("late-fee-question", "Explain when a late fee applies and how much it is.",
         "If I pay late, when do you charge a late fee and how much?", ["5", "8"],
         ["late_fee_grace_days", "late_fee_minimum", "late_fee_percent"], ["Only 1 late fee is charged per bill"]),
        ("bank-payment-returned", "A returned or declined bank payment costs $20.",
         "What happens if my bank payment bounces?", ["20"], [], ["returned or declined bank payment costs $20"]),
        ("billing-dispute-window", "Billing disputes within 60 days; credits on the next bill, refunds in 10 business days.",
         "I think a bill from two months ago is wrong. How long do I have to dispute it, and how fast are refunds?",
         ["60", "10"], [], ["Billing disputes must be raised within 60 days", "within 10 business days"]),
        ("overdue-timeline", "Explain what happens at 30 and 60 days past due.",
         "If I just stop paying for a while, when do you suspend me and when is the account cancelled?",
         ["30", "60"], ["suspend_days", "cancel_days"], ["Monthly plan charges continue while a line is suspended"]),
        ("arrangement-frequency", "One payment arrangement every 6 months; a missed installment blocks one for 12 months.",
         "How often can I set up a payment plan, and what if I miss an installment?", ["6", "12"], [],
         ["at most 1 payment arrangement every 6 months", "cannot get another arrangement for 12 months"]),
        ("voluntary-pause", "A line can be paused up to 90 days a year for $10 per cycle.",
         "I'm going abroad for two months. Can I pause my line and what does that cost?", ["90", "10"], [],
         ["up to 90 days in any 12 months", "costs $10 per billing cycle instead"]),
        ("roaming-rules", "Day pass length, paid pass limit, speed after the daily data, pay-per-use cap.",
         "How long does a day pass last, how many can I buy, and what happens if I don't buy one?",
         ["24", "20", "100"], ["roaming_max_paid_passes"],
         ["lasts 24 hours", "data slows to 128 kbps until the pass ends", "reach $100 in a billing cycle",
          "The day passes included with Glide, Soar and Summit are used first"]),
        ("cruise-roaming", "Calls and data on cruise ships and planes are not covered by a pass.",
         "Will my day pass work on a cruise ship?", ["3.00", "6.00"], [], ["cruise ships and planes"]),
        ("roaming-credit", "Agents may credit pay-per-use roaming up to $50 once every 12 months.",
         "I got a roaming bill of $80 by mistake. Can you take it off?", ["50"], [],
         ["credit pay-per-use roaming charges of up to $50"]),
        ("top-up-rules", "Top-up refunds within 48 hours unused, auto top-up at most 3 times, hotspot use.",
         "If I buy a top-up and don't use it, can I get a refund? And how does auto top-up work?", ["48", "3"], [],
         ["refunded within 48 hours", "at most 3 times per billing cycle", "Top-up data can also be used for hotspot"]),
        ("device-financing", "Device financing: 24 installments, limits per line and account, down payment by class.",
         "If I finance a new phone, how many months, how many can I finance, and what down payment?",
         ["24", "0%", "15%", "30%"], ["installment_months", "max_financed_per_line", "max_financed_per_account",
                                     "down_payment_pct_a", "down_payment_pct_b", "down_payment_pct_c"], []),
        ("device-return", "Devices can be returned within 14 days for a $40 restocking fee, not if damaged.",
         "I don't like my new phone. Can I return it, and does it cost anything?", ["14", "40"], [],
         ["returned within 14 days of delivery", "$40 restocking fee", "water or screen damage"]),
        ("sim-lock", "PIN lock after 3 wrong entries, 8-digit PUK, blocked after 10 PUK tries.",
         "My SIM says PIN locked. What now?", ["8"], [],
         ["locks after 3 wrong PIN entries", "permanently blocked after 10 wrong PUK", "transfer its eSIM at most 3 times",
          "blocked for 24 hours after the account password is reset"]),
        ("port-out", "A port-out PIN has 6 digits and expires after 7 days.",
         "I'm moving my number to another carrier. How does the port-out PIN work?", ["6", "7"], [],
         ["port-out PIN has 6 digits", "can still be ported out"]),
        ("shellguard", "ShellGuard price, enrolment window, deductibles, claims, lost or stolen devices.",
         "Tell me about ShellGuard: price, deductibles, and can I still add it to a phone I got 3 weeks ago?",
         ["11", "49", "149"], ["protection_fee"],
         ["enrolled in ShellGuard within 30 days", "at most 3 claims per device", "blocked by IMEI",
          "$49 for a screen repair", "$149 for a replacement device"]),
        ("unlock-question", "Unlocks: automatic after 60 days when paid off, processed in 2 business days, 2 a year.",
         "How does unlocking work, how long does it take, and how many times can I ask?", ["60", "2"],
         ["unlock_after_days"], ["An unlock request is processed within 2 business days",
                                 "at most 2 device unlocks every 12 months"]),
        ("no-service-steps", "The no-service workflow: airplane mode, signal bars, restart.",
         "My phone shows SOS and no bars. What should I try?", ["30"], [],
         ["wait 30 seconds", "0 bars or \"SOS\"", "powered off for at least 30 seconds"]),
        ("slow-data-steps", "The slow-data workflow: bars, speed test threshold.",
         "My data is slow even with full bars. What do you check?", ["3 Mbps"], ["escalate_attempts_slow_data"],
         ["fewer than 2 bars", "below 3 Mbps with 3 or more bars"]),
        ("mms-steps", "MMS troubleshooting: attachment size and group size.",
         "My picture messages to the family group won't send. Why?", ["1 MB", "20"], [],
         ["larger than 1 MB", "at most 20 recipients", "the MMS proxy port must be 8080"]),
        ("outage-credit", "Outage credits: $5 per line per full day beyond 24 hours, capped at $50; technician in 72 hours.",
         "There was a 3-day outage in my area. Do I get a credit?", ["5", "50"], [],
         ["credit of $5 per line for each full day", "capped at $50 per account", "scheduled within 72 hours",
          "replaced under warranty within 12 months"]),
        ("account-rules", "One account per SSN; the account holder must be 18.",
         "Can my 17-year-old open her own account, and can I open a second account for my business under my SSN?",
         ["18", "1"], [], ["must be at least 18 years old", "at most 1 Kestrel account under the same Social Security"]),
    ]
    for i, (slug, purpose, opening, say, keys, texts) in enumerate(rows):
        facts = [F.value(k) for k in keys] + [F.find(t) for t in texts]
        trap = "refuse" if slug in ("roaming-credit", "account-rules", "device-financing", "cruise-roaming") else "none"
        out.append(q(i + 5, slug, purpose, opening, say, facts, keys, trap=trap))
    return out
