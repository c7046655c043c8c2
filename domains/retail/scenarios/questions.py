"""Questions the policy answers without a write."""
from __future__ import annotations

from typing import Optional

from domains.simtests import Scenario, amount_text

from .base import Shop


def questions(R: Shop) -> list[Optional[Scenario]]:
    v, F, out = R.v, R.F, []
    custs = sorted(R.db["customers"].values(), key=lambda x: x["customer_id"])

    def q(i, slug, purpose, opening, say, facts, keys=(), trap="none", gold=None, naive=None):
        c = custs[i % len(custs)]
        return R.base(slug, trap, c, None, purpose=purpose, reason=opening, opening=opening,
                      gold=gold or [("get_customer", {"customer_id": c["customer_id"]})], naive=naive or [],
                      communicate=say, facts=facts, value_keys=list(keys))

    out.append(q(10, "tiers-question", "Explain the Row Rewards tiers and their spending thresholds.",
                 "What do I have to spend to reach Grove and Canopy?",
                 [str(int(v["tier_spend_grove"])), str(int(v["tier_spend_canopy"]))],
                 [F.value("tier_spend_grove"), F.value("tier_spend_canopy"), F.find("it has three tiers")],
                 ["tier_spend_grove", "tier_spend_canopy"]))
    out.append(q(11, "points-question", "Explain points per dollar by tier, whole dollars only, redemption and expiry.",
                 "How many points do I earn per dollar at each tier, how do I redeem them, and do they expire?",
                 ["1", "2", "3", "500", "18"],
                 [F.value("points_per_dollar_sprout"), F.value("points_per_dollar_grove"),
                  F.value("points_per_dollar_canopy"), F.find("earned on whole dollars only"),
                  F.find("Every 500 points can be redeemed"), F.find("Points expire 18 months")],
                 ["points_per_dollar_sprout", "points_per_dollar_grove", "points_per_dollar_canopy"]))
    out.append(q(12, "birthday-question", "State the birthday rewards of Grove and Canopy members.",
                 "Do I get anything on my birthday as a Grove or Canopy member?",
                 [amount_text(v["birthday_credit_grove"]), amount_text(v["birthday_credit_canopy"])],
                 [F.value("birthday_credit_grove"), F.value("birthday_credit_canopy")],
                 ["birthday_credit_grove", "birthday_credit_canopy"]))
    out.append(q(13, "gift-card-question", "Explain gift card amounts and the balance limit.",
                 "What amounts do your gift cards come in, and how much can one card hold?",
                 ["25", "500", "2000"], [F.find("sold in amounts from $25 to $500"), F.value("gift_card_max_balance")],
                 ["gift_card_max_balance"]))
    out.append(q(14, "split-payment-question", "Explain how an order can be split across payment methods.",
                 "Can I split one order over my card and three gift cards?",
                 [str(int(v["max_gift_cards"])), str(int(v["max_payment_methods"]))],
                 [F.value("max_payment_methods"), F.value("max_card_or_paypal"), F.value("max_gift_cards"),
                  F.value("row_credit_months")], ["max_gift_cards", "max_payment_methods"], trap="refuse"))
    out.append(q(15, "refund-timing-question", "State when refunds arrive for each payment method.",
                 "When would a refund show up on my card, on PayPal, on a gift card, or as Row Credit?",
                 ["3 to 5", "24", "1 hour"],
                 [F.value("card_refund_max_business_days"), F.value("paypal_refund_business_days"),
                  F.value("gift_card_refund_hours"), F.value("row_credit_refund_hours")],
                 ["card_refund_max_business_days", "gift_card_refund_hours"]))
    out.append(q(16, "order-status-question", "Explain the order statuses, the pending time and shipping times.",
                 "I just ordered. How long can I still change it, when does it ship and how long does delivery take?",
                 [str(int(v["pending_hours"])), "3 to 7"],
                 [F.value("pending_hours"), F.value("ship_within_business_days"), F.find("exactly one of five statuses"),
                  F.value("standard_delivery_min_business_days"), F.value("express_delivery_min_business_days")],
                 ["pending_hours", "ship_within_business_days"]))
    out.append(q(17, "return-logistics-question", "Explain return label validity, furniture pickup and inspection.",
                 "If I return a bench, how long is the label good for, when is it picked up, and when is it inspected?",
                 ["14", "5 business days", "3 business days"],
                 [F.find("Return labels stay valid for 14 days"), F.find("picked up by a freight carrier within 5"),
                  F.value("inspection_business_days"), F.find("only after the items arrive at our warehouse")],
                 ["inspection_business_days"]))
    out.append(q(18, "big-refund-question", "A single return refund above $1,000 needs a supervisor's approval.",
                 "If I return my whole patio set, around $1,400, is the refund immediate?",
                 ["supervisor"], [F.value("supervisor_refund_above")], ["supervisor_refund_above"]))
    out.append(q(22, "item-change-limit-question", "Items in a pending order can be changed at most 2 times.",
                 "I keep changing my mind on colors. How many times can I swap items on an order before it ships?",
                 [str(int(v["max_item_changes"]))], [F.value("max_item_changes")], ["max_item_changes"]))
    out.append(q(23, "small-drop-question", "Price drops smaller than $1 are not adjusted.",
                 "A lamp I bought is 60 cents cheaper today. Do you refund small drops like that?",
                 [amount_text(v["price_adjust_min"])], [F.value("price_adjust_min")], ["price_adjust_min"],
                 trap="refuse"))
    out.append(q(24, "return-requests-question", "An order can have at most 2 return requests.",
                 "Can I send things back from one order in three separate returns, as I finish using them?",
                 [str(int(v["max_return_requests"]))], [F.value("max_return_requests")], ["max_return_requests"],
                 trap="refuse"))
    delivered = R.orders("delivered")
    old = next((o for o in delivered if (R.now.date() - R.delivered(o).date()).days > 10), None)
    if old is not None:
        c = R.owner(old)
        out.append(R.base("missing-package-too-late", "refuse", c, old,
                          purpose="A package marked delivered but not received must be reported within 10 days.",
                          reason=f"Order {old['order_id']} shows delivered, but you never received it.",
                          opening=f"Order {old['order_id']} says delivered but it never came. Please send a new one.",
                          gold=[R.lookup(old)],
                          naive=[],
                          communicate=["10"], facts=[F.find("must be reported within 10 days"),
                                                     F.find("carrier closes its search")]))
    c = custs[19]
    card = next((k for k in sorted(c["payment_methods"]) if c["payment_methods"][k]["type"] == "card"), None)
    if card:
        out.append(q(19, "card-number-refused", "Only the last 4 digits of a card may be read back.",
                     "Can you read me the full card number you have on file? I need it for my records.",
                     [c["payment_methods"][card]["last_four"]], [F.find("Only the last 4 digits of a card")],
                     trap="refuse"))
    c = custs[20]
    out.append(q(20, "verification-question", "Explain verification and the failed-attempts rule.",
                 "I don't have access to my email anymore. How else can you verify me, and what if I get it wrong?",
                 ["zip", "3"], [F.find("After 3 failed verification attempts"),
                                F.find("full name and the zip code of their default address")]))
    friend = next(o for o in delivered if o["customer_id"] != custs[21]["customer_id"])
    fc = R.owner(friend)
    c = custs[21]
    out.append(R.base("friends-order-refused", "refuse", c, None,
                      purpose="One customer per conversation; never share another customer's order details.",
                      reason=f"Your friend {fc['name']} asked you to check on their order {friend['order_id']}.",
                      opening=f"Can you tell me where my friend {fc['name']}'s order {friend['order_id']} is?",
                      gold=[], naive=[R.lookup(friend)],
                      communicate=[fc["name"].split()[0]],
                      facts=[F.find("Help only one customer per conversation"),
                             F.find("Never share another customer's name")]))
    return out
