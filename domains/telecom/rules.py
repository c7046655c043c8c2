"""The Kestrel Mobile policy as code: the values the seed depends on (a variant may override
any of them), each linked to the policy sentence that states it; the plan, region, top-up
and credit-class tables; and the rules the seed, the check, the API and the scenarios share
(billing cycles, the overdue timeline of an account, the plan in force on a day, prorated
upgrades, ticket escalation).
"""
from __future__ import annotations

import calendar
import datetime as dt

from domains import seedkit
from domains.seedkit import date_of

PLANS = ["starter", "standard", "plus", "premium", "top"]
REGIONS = {
    "canada_mexico": "Canada and Mexico",
    "caribbean": "Caribbean",
    "europe": "Europe",
    "asia_pacific": "Asia Pacific",
    "latin_america": "South and Central America",
    "middle_east_africa": "Middle East and Africa",
}
TOPUP_SIZES = [1, 3, 5, 10]
CREDIT_CLASSES = ["a", "b", "c"]
ISSUES = ["no_service", "slow_data", "mms"]

VALUES: dict[str, float | int] = {
    "plan_price_starter": 20, "plan_price_standard": 35, "plan_price_plus": 50,
    "plan_price_premium": 65, "plan_price_top": 80,
    "extra_line_price_starter": 15, "extra_line_price_standard": 25, "extra_line_price_plus": 35,
    "extra_line_price_premium": 45, "extra_line_price_top": 55,
    "data_gb_starter": 4, "data_gb_standard": 15, "data_gb_plus": 40, "data_gb_premium": 80, "data_gb_top": 150,
    "hotspot_gb_starter": 1, "hotspot_gb_standard": 5, "hotspot_gb_plus": 10, "hotspot_gb_premium": 25,
    "hotspot_gb_top": 50,
    "max_lines_starter": 2, "max_lines_standard": 4, "max_lines_plus": 5, "max_lines_premium": 6, "max_lines_top": 8,
    "included_passes_starter": 0, "included_passes_standard": 0, "included_passes_plus": 2,
    "included_passes_premium": 5, "included_passes_top": 10,
    "network_access_fee": 2.5,
    "due_days": 20,
    "easypay_discount_per_line": 5,
    "easypay_discount_cap": 20,
    "late_fee_grace_days": 5,
    "late_fee_minimum": 8,
    "late_fee_percent": 5,
    "agent_payment_fee": 4,
    "suspend_days": 30,
    "cancel_days": 60,
    "reconnection_fee": 15,
    "roaming_pass_canada_mexico": 5, "roaming_pass_caribbean": 9, "roaming_pass_europe": 10,
    "roaming_pass_asia_pacific": 12, "roaming_pass_latin_america": 11, "roaming_pass_middle_east_africa": 15,
    "roaming_min_active_days": 60,
    "roaming_max_paid_passes": 20,
    "topup_price_1gb": 10, "topup_price_3gb": 20, "topup_price_5gb": 30, "topup_price_10gb": 45,
    "topup_max_1gb": 4, "topup_max_3gb": 3, "topup_max_5gb": 2, "topup_max_10gb": 1,
    "topup_cap_per_cycle": 90,
    "installment_months": 24,
    "max_financed_per_line": 2,
    "max_financed_per_account": 5,
    "down_payment_pct_a": 0, "down_payment_pct_b": 15, "down_payment_pct_c": 30,
    "unlock_after_days": 60,
    "protection_fee": 11,
    "escalate_attempts": 3,
    "escalate_attempts_slow_data": 2,
    "max_plan_changes": 2,
    "parental_controls_age": 13,
    "sim_replacement_fee": 10,
    "arrangement_max_installments": 2,
    "arrangement_max_balance": 300,
    "arrangement_days": 30,
}

VALUE_FACTS: dict[str, str] = {
    "plan_price_starter": "| Hatch | …",
    "plan_price_standard": "| Perch | …",
    "plan_price_plus": "| Glide | …",
    "plan_price_premium": "| Soar | …",
    "plan_price_top": "| Summit | …",
    "extra_line_price_starter": "| Hatch | … | …",
    "extra_line_price_standard": "| Perch | … | …",
    "extra_line_price_plus": "| Glide | … | …",
    "extra_line_price_premium": "| Soar | … | …",
    "extra_line_price_top": "| Summit | … | …",
    "data_gb_starter": "| Hatch | … | … | …",
    "data_gb_standard": "| Perch | … | … | …",
    "data_gb_plus": "| Glide | … | … | …",
    "data_gb_premium": "| Soar | … | … | …",
    "data_gb_top": "| Summit | … | … | …",
    "hotspot_gb_starter": "| Hatch | … | … | … | …",
    "hotspot_gb_standard": "| Perch | … | … | … | …",
    "hotspot_gb_plus": "| Glide | … | … | … | …",
    "hotspot_gb_premium": "| Soar | … | … | … | …",
    "hotspot_gb_top": "| Summit | … | … | … | …",
    "max_lines_starter": "| Hatch | … | … | … | … | … lines",
    "max_lines_standard": "| Perch | … | … | … | … | … lines",
    "max_lines_plus": "| Glide | … | … | … | … | … lines",
    "max_lines_premium": "| Soar | … | … | … | … | … lines",
    "max_lines_top": "| Summit | … | … | … | … | … lines",
    "included_passes_starter": "| Hatch | … | … | … | … | … lines | … | … passes",
    "included_passes_standard": "| Perch | … | … | … | … | … lines | … | … passes",
    "included_passes_plus": "| Glide | … | … | … | … | … lines | … | … passes",
    "included_passes_premium": "| Soar | … | … | … | … | … lines | … | … passes",
    "included_passes_top": "| Summit | … | … | … | … | … lines | … | … passes",
    "network_access_fee": "network access fee of … per billing cycle",
    "due_days": "A bill is due … after the bill date",
    "easypay_discount_per_line": "The EasyPay discount is … per line",
    "easypay_discount_cap": "EasyPay discount is capped at …",
    "late_fee_grace_days": "still unpaid … after its due date",
    "late_fee_minimum": "The late fee is …",
    "late_fee_percent": "… of the unpaid bill",
    "agent_payment_fee": "… agent-assisted payment fee",
    "suspend_days": "At … past due, every line on the account is suspended",
    "cancel_days": "At … past due, the account is cancelled",
    "reconnection_fee": "A reconnection fee of … per line",
    "roaming_pass_canada_mexico": "| Canada and Mexico | …",
    "roaming_pass_caribbean": "| Caribbean | …",
    "roaming_pass_europe": "| Europe | …",
    "roaming_pass_asia_pacific": "| Asia Pacific | …",
    "roaming_pass_latin_america": "| South and Central America | …",
    "roaming_pass_middle_east_africa": "| Middle East and Africa | …",
    "roaming_min_active_days": "active for at least …",
    "roaming_max_paid_passes": "at most … paid day passes",
    "topup_price_1gb": "| Tailwind Breeze | … | …",
    "topup_price_3gb": "| Tailwind Gust | … | …",
    "topup_price_5gb": "| Tailwind Gale | … | …",
    "topup_price_10gb": "| Tailwind Storm | … | …",
    "topup_max_1gb": "| Tailwind Breeze | … | … | … purchases",
    "topup_max_3gb": "| Tailwind Gust | … | … | … purchases",
    "topup_max_5gb": "| Tailwind Gale | … | … | … purchases",
    "topup_max_10gb": "| Tailwind Storm | … | … | … purchase",
    "topup_cap_per_cycle": "capped at … per line",
    "installment_months": "paid in … monthly installments",
    "max_financed_per_line": "A line can have at most … financed devices",
    "max_financed_per_account": "An account can have at most … financed devices",
    "down_payment_pct_a": "… for credit class A",
    "down_payment_pct_b": "… for credit class B",
    "down_payment_pct_c": "… for credit class C",
    "unlock_after_days": "unlocked automatically … after",
    "protection_fee": "ShellGuard costs … per device",
    "escalate_attempts": "after … failed troubleshooting attempts",
    "escalate_attempts_slow_data": "after … failed attempts",
    "max_plan_changes": "change plans at most …",
    "parental_controls_age": "under … years old",
    "sim_replacement_fee": "A replacement physical SIM costs …",
    "arrangement_max_installments": "at most … installments",
    "arrangement_max_balance": "balances of up to …",
    "arrangement_days": "within … of setting it up",
}


def values_with(values: dict | None) -> dict[str, float | int]:
    """VALUES with a variant's `values` over them."""
    return seedkit.merged_values(VALUES, values, "telecom")


# ---------------------------------------------------------------------------------- dates

def cycle_date(year: int, month: int, day: int) -> dt.date:
    """The cycle day `day` of a month (its last day when the month is shorter)."""
    return dt.date(year, month, min(day, calendar.monthrange(year, month)[1]))


def cycle_start(day: dt.date, cycle_day: int) -> dt.date:
    """The most recent cycle day on or before `day`."""
    c = cycle_date(day.year, day.month, cycle_day)
    if c <= day:
        return c
    y, m = (day.year, day.month - 1) if day.month > 1 else (day.year - 1, 12)
    return cycle_date(y, m, cycle_day)


def next_cycle(start: dt.date, cycle_day: int) -> dt.date:
    """The start of the cycle after the one starting on `start`."""
    y, m = (start.year, start.month + 1) if start.month < 12 else (start.year + 1, 1)
    return cycle_date(y, m, cycle_day)


def today_of(pack) -> dt.date:
    """The world clock's day."""
    return pack.info.now.date()


def rounded(x: float) -> float:
    """An amount rounded to cents (a half cent up), as a float."""
    return round(x + 1e-9, 2)


# ------------------------------------------------------------------------- derivations

def timeline(bills: list[dict], V: dict, today: dt.date) -> dict:
    """Suspension periods and cancellation of one account from its bills' dates.

    A bill that is unpaid `suspend_days` after its due date suspends the account until
    it is paid; one unpaid `cancel_days` after its due date cancels the account."""
    periods: list[list] = []
    cancelled_on = None
    for b in sorted(bills, key=lambda b: b["bill_date"]):
        due = date_of(b["due_date"])
        paid = date_of(b["paid_date"]) if b.get("paid_date") else None
        start = due + dt.timedelta(days=V["suspend_days"])
        if start <= today and (paid is None or paid > start):
            periods.append([start, paid])
        cancel = due + dt.timedelta(days=V["cancel_days"])
        if cancel <= today and (paid is None or paid > cancel):
            cancelled_on = cancel if cancelled_on is None else min(cancelled_on, cancel)
    periods.sort(key=lambda p: p[0])
    merged: list[list] = []
    for s, e in periods:
        if merged and (merged[-1][1] is None or s <= merged[-1][1]):
            if merged[-1][1] is not None:
                merged[-1][1] = None if e is None else max(merged[-1][1], e)
        else:
            merged.append([s, e])
    if cancelled_on is not None:
        merged = [[s, e] for s, e in merged if s < cancelled_on]
        if merged and (merged[-1][1] is None or merged[-1][1] > cancelled_on):
            merged[-1][1] = cancelled_on
    status = "active"
    if cancelled_on is not None:
        status = "cancelled"
    elif merged and merged[-1][1] is None:
        status = "suspended"
    return {"suspensions": merged, "cancelled_on": cancelled_on, "status": status}


def suspended_on(day: dt.date, tl: dict) -> bool:
    """Whether the account of timeline `tl` was suspended (or cancelled) on `day`."""
    if tl["cancelled_on"] is not None and day >= tl["cancelled_on"]:
        return True
    return any(s <= day and (e is None or day < e) for s, e in tl["suspensions"])


def first_bill_after(day: dt.date, bills: list[dict]) -> dict | None:
    """The first of `bills` (in bill order) issued after `day`, where a charge of `day` is billed."""
    for b in bills:
        if date_of(b["bill_date"]) > day:
            return b
    return None


def plan_on(cust: dict, day: dt.date) -> str:
    """The plan in force on `day`: the account's plan, or the plan it had before a change
    that took effect after `day` (pending changes, effective in the future, do not count)."""
    plan = cust["plan"]
    for ch in sorted(cust.get("plan_changes", []), key=lambda c: c["effective_on"], reverse=True):
        if ch["status"] == "applied" and date_of(ch["effective_on"]) > day:
            plan = ch["from_plan"]
    return plan


def prorated_upgrade(V: dict, cust: dict, n_lines: int, new_plan: str, today: dt.date) -> float:
    """The price difference of an upgrade for the rest of the current cycle, prorated by day."""
    start = cycle_start(today, cust["cycle_day"])
    end = next_cycle(start, cust["cycle_day"])
    old = plan_on(cust, today)

    def monthly(plan):
        return V[f"plan_price_{plan}"] + V[f"extra_line_price_{plan}"] * (n_lines - 1)
    return rounded((monthly(new_plan) - monthly(old)) * (end - today).days / (end - start).days)


def ticket_status(attempts: list[dict], limit: int) -> dict:
    """A ticket's status and tier from its attempts: resolved by the last one, escalated to tier 2
    after `limit` failed attempts within 7 days, else open."""
    if attempts and attempts[-1]["result"] == "resolved":
        return {"status": "resolved", "tier": 1}
    failed = [a for a in attempts if a["result"] == "failed"]
    if len(failed) >= limit and (date_of(failed[-1]["date"]) - date_of(failed[-limit]["date"])).days <= 7:
        return {"status": "escalated", "tier": 2}
    return {"status": "open", "tier": 1}

