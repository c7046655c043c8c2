"""Questions the policy answers without a write."""
from __future__ import annotations

from typing import Optional

from domains.simtests import Scenario, amount_text, answer

from .base import Air


def questions(A: Air) -> list[Optional[Scenario]]:
    v, F, out = A.v, A.F, []
    users = sorted(A.db["users"].values(), key=lambda u: u["user_id"])

    def q(slug, trap, u, purpose, opening, say, facts, keys=(), gold=None, naive=None, **kw):
        return A.base(slug, trap, u, None, purpose=purpose, reason=opening, opening=opening,
                      gold=gold or [("get_user", {"user_id": u["user_id"]})], naive=naive or [],
                      communicate=say, facts=facts, value_keys=list(keys), **kw)

    out.append(q("tier-thresholds", "none", users[3],
                 "Explain the Larkspur Loop tiers, their mileage thresholds and how long a tier lasts.",
                 "How many qualifying miles do I need for Navigator and for Pinnacle, and how long does a tier last "
                 "once I earn it?",
                 [str(int(v["tier_miles_navigator"])), str(int(v["tier_miles_pinnacle"])), "13"],
                 [F.value("tier_miles_voyager"), F.value("tier_miles_navigator"), F.value("tier_miles_pinnacle"),
                  F.find("remains valid for 13 months"), F.find("has four tiers"), F.find("starts at the Wayfarer tier")],
                 ["tier_miles_navigator", "tier_miles_pinnacle"]))
    out.append(q("lite-inclusions", "none", users[4],
                 "Explain the cabins and what a Lite fare includes, with the carry-on size limit.",
                 "What do I get with a Lite fare? Can I bring a carry-on, and how big can it be?",
                 ["45"], [F.find("sells three cabins"), F.find("one personal item and one carry-on bag"),
                          F.find("carry-on bag may measure at most 45")]))
    out.append(q("tripguard-delay-cover", "none", users[5],
                 "Explain what TripGuard pays for a long delay.",
                 "If my flight is delayed a long time, what does TripGuard reimburse for meals and a hotel?",
                 ["150", "6"], [F.find("reimburses up to $150 per passenger")]))
    out.append(q("booking-window", "none", users[6],
                 "Explain how far ahead a flight can be booked and when booking closes.",
                 "How far in advance can I book a flight, and how late before departure can I still book?",
                 [str(int(v["booking_horizon_days"])), str(int(v["booking_close_minutes"]))],
                 [F.value("booking_horizon_days"), F.value("booking_close_minutes")],
                 ["booking_horizon_days", "booking_close_minutes"]))
    out.append(q("refund-timing", "none", users[7],
                 "Explain when refunds arrive by payment method and how long a reissued certificate is valid.",
                 "If I get a refund, how long until it's back on my credit card or my gift card? And a refunded "
                 "certificate, how long is it good for?",
                 ["5 to 7", "24", "12"],
                 [F.value("card_refund_max_business_days"), F.value("gift_card_refund_hours"),
                  F.value("reissued_certificate_months"), F.find("never refunds in cash")],
                 ["card_refund_max_business_days", "gift_card_refund_hours", "reissued_certificate_months"]))
    u = users[8]
    card = A.card(u)
    if card:
        out.append(q("full-card-number-refused", "refuse", u,
                     "Agents never read out a full card number, only the last 4 digits.",
                     "Can you read me the full number of the credit card on my profile? I lost the card.",
                     [u["payment_methods"][card]["last_four"]],
                     [F.find("never read out a full card number")]))
    u = users[9]
    out.append(q("verification-lockout", "none", u,
                 "Explain identity verification and the lock after failed attempts.",
                 "I got my date of birth wrong a couple of times on the phone. How many tries do I get before I'm "
                 "locked out, and for how long? And if I don't know my Loop number?",
                 ["3", "30"], [F.find("After 3 failed verification attempts"),
                               F.find("last 4 digits of a stored credit card")],
                 answers=A.answers(u) + [answer("email", ["email"], f"My email is {u['email']}.")]))
    u = next(x for x in users[11:] if A.tier(x) in ("wayfarer", "voyager"))
    out.append(q("same-day-fee-question", "none", u,
                 "State the flat same-day change fee (free for Navigator and Pinnacle).",
                 "If on the day I fly I want to hop on an earlier flight on the same route, what does that cost me?",
                 [amount_text(v["same_day_fee"])], [F.value("same_day_fee")], ["same_day_fee"]))
    u = users[12]
    out.append(q("four-flights-refused", "refuse", u,
                 "Each direction of a trip may include at most 3 flights.",
                 "I want a cheap trip with four connections on the way out, can you book something like that?",
                 [str(int(v["max_flights_per_direction"]))], [F.value("max_flights_per_direction")],
                 ["max_flights_per_direction"]))
    friend = next((r for r in A.open_reservations(6) if r["user_id"] != users[10]["user_id"]), None)
    if friend is not None:
        u = users[10]
        fu = A.owner(friend)
        out.append(A.base("friends-reservation-refused", "refuse", u, None,
                          purpose="An agent serves one verified customer per conversation and only the booking "
                                  "customer may change a reservation.",
                          reason=f"Your friend {fu['name']} asked you to cancel their reservation {friend['reservation_id']}.",
                          opening=f"Hi, I'm calling for my friend {fu['name']}, please cancel {friend['reservation_id']} "
                                  "for them.",
                          gold=[("get_user", {"user_id": u["user_id"]})],
                          naive=[("cancel_reservation", {"reservation_id": friend["reservation_id"],
                                                         "reason": "change_of_plans", "refunds": []})],
                          communicate=[fu["name"].split()[0]],
                          facts=[F.find("only one verified customer per conversation"),
                                 F.find("only the booking customer may change or cancel")]))
    return out
