"""Hand-offs to staff: what the agent passes to a human colleague and when."""
from __future__ import annotations

from typing import Optional

from domains.simtests import Scenario

from .base import Air


def transfers(A: Air) -> list[Optional[Scenario]]:
    F, out = A.F, []
    users = sorted(A.db["users"].values(), key=lambda u: u["user_id"])
    done = [r for _, r in sorted(A.db["reservations"].items()) if r["status"] == "completed"]
    if done:
        r = done[0]
        u = A.owner(r)
        out.append(A.base("lost-bag-claim", "transfer", u, r,
                          purpose="Lost-baggage claims go to Baggage Services; agents do not settle them.",
                          reason=f"Your checked bag from {r['reservation_id']} never arrived and you want $500 for it.",
                          opening=f"My suitcase from reservation {r['reservation_id']} never showed up. I want the $500 "
                                  "TripGuard pays for lost bags.",
                          gold=[A.lookup(r),
                                ("transfer_to_human", {"user_id": u["user_id"], "desk": "baggage_services",
                                                       "reservation_id": r["reservation_id"],
                                                       "summary": "Lost checked bag claim."})],
                          naive=[("issue_certificate", {"user_id": u["user_id"], "reservation_id": r["reservation_id"],
                                                        "amount": 500, "kind": "goodwill"})],
                          communicate=["Baggage Services"],
                          facts=[F.find("Lost-baggage claims are handled by the Baggage Services desk"),
                                 F.find("reimburses up to $500 per passenger")]))
    u = users[1]
    out.append(A.base("human-on-request", "none", u, None,
                      purpose="Transfer to a human agent when the customer explicitly asks for one.",
                      reason="You want to talk to a person about a complaint.",
                      opening="I want to speak with a human agent, please.",
                      gold=[("get_user", {"user_id": u["user_id"]}),
                            ("transfer_to_human", {"user_id": u["user_id"], "desk": "human_agent",
                                                   "summary": "Customer asked for a human agent."})],
                      naive=[("transfer_to_human", {"user_id": u["user_id"], "desk": "human_agent",
                                                    "summary": "Customer asked for a human."})],
                      facts=[F.find("when the customer explicitly asks for one")]))
    u = users[2]
    out.append(A.base("outside-policy-transfer", "transfer", u, None,
                      purpose="A request the policy does not cover goes to a human agent, with a callback offer "
                              "when the wait is long.",
                      reason="You want to fly with your small dog in the cabin and ask how long the wait for a person is.",
                      opening="Can I bring my small dog in the cabin on my next flight? If you don't know, how long "
                              "will I wait for someone who does?",
                      gold=[("get_user", {"user_id": u["user_id"]}),
                            ("transfer_to_human", {"user_id": u["user_id"], "desk": "human_agent",
                                                   "summary": "Question about travelling with a pet."})],
                      naive=[], communicate=["20"],
                      facts=[F.find("when the request falls outside this policy"),
                             F.find("exceeds 20 minutes"), F.find("tells the customer that a transfer is taking place")]))
    return out
