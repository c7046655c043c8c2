"""Canned business small talk for conversation filler and noise artifacts: short exchanges
about things every company handles (contact details, receipts, app log-ins, opening hours)
that carry no policy value. Placeholders: {company}, {product}, {ref}, {email}, {website},
{phone}, {first}."""
from __future__ import annotations

import random

# (customer line, agent line, customer line, agent line)
SUPPORT_EXCHANGES = [
    ("I need to update the email address on my account, I changed jobs.",
     "No problem, {first}. I've sent a verification link to the new address; it expires in an hour.",
     "Got it, clicking it now.",
     "Perfect, the change is showing on my side. You'll get confirmations there from now on."),
    ("I never got a receipt for {ref}.",
     "Sorry about that. I've re-sent it to {email}; it can take a few minutes and sometimes lands in spam.",
     "Found it, thanks.",
     "Great. You can also download receipts any time under Account > History on {website}."),
    ("Your app keeps logging me out every time I switch screens.",
     "Thanks for flagging it. Could you tell me which app version you have? It's under Settings > About.",
     "It says 4.12.1.",
     "Version 4.12.2 fixes a session bug like that. Updating from the store should sort it out."),
    ("What are your opening hours this weekend?",
     "We're open 9 to 5 on Saturday and 10 to 4 on Sunday. Hours for each location are listed on {website}.",
     "Okay, good to know.",
     "If you need us outside those hours, {phone} has a recorded menu and you can leave a callback request."),
    ("Can I add my partner as a second contact on my {product}?",
     "Yes. They'll need to confirm from their own email before it becomes active.",
     "Makes sense.",
     "I've sent the invite. Once it's accepted they'll show under Contacts."),
    ("I got a survey email, is that really from {company}?",
     "Good question to ask. Our surveys only come from the {company} domain and never ask for card details.",
     "It looked fine but I wanted to check.",
     "It's genuine then. Feel free to delete it if you'd rather not answer."),
    ("I'd like to change the name on my profile, it's misspelled.",
     "I can fix that. Could you type the correct spelling exactly as it should appear?",
     "{first} - with the accent dropped, please.",
     "Done. The new spelling will show on your next confirmation."),
]

# (subject, opening message, plausible replies)
INTERNAL_THREADS = [
    ("Ops review moved", "Reminder: the weekly ops review moved to Thursday 2pm.", ["Thanks!", "Updated my calendar.", "Noted."]),
    ("Storage room key", "Who has the spare key to the storage room? Need it for the audit count.",
     ["Front desk has it, top drawer.", "I returned it yesterday, should be on the hook.", "Not me, sorry."]),
    ("Shared drive migration", "The shared drive is read-only until IT finishes the migration tonight.",
     ["Good to know, I'll save locally for now.", "Thanks for the heads-up.", "Is the team folder moving too?"]),
    ("New starter Monday", "New hire starts Monday, please say hi when you see them.", ["Will do!", "Welcome in advance!", "I can do the tour."]),
    ("Phone system restart", "Heads-up: the phone system restarts at 6am for an update.", ["Noted.", "Does that affect the callback queue?",
                                                                  "Thanks, I'll tell the early shift."]),
    ("Training lunch order", "Lunch order for the training session goes in by 11, reply with your pick.",
     ["Veggie wrap please.", "Whatever is easiest, thanks!", "Skip me, I brought lunch."]),
    ("Quarterly survey results", "Quarterly survey results are in the dashboard now.", ["Nice, scores went up.", "Will have a look after my shift.",
                                                            "Thanks for pulling it together."]),
    ("Friday late shift", "Can someone cover the late shift on Friday? Happy to swap for next week.",
     ["I can take it.", "I could do half.", "Check with the lead first, Friday is busy."]),
    ("Ticket volume this week", "Ticket volume is up this week, mostly login questions.", ["Same here.", "Is there an incident open?",
                                                                "I'll add a macro for the reset steps."]),
    ("2nd floor printer", "Printer on the second floor is fixed, thanks facilities.", ["Finally!", "Great.", "+1"]),
    ("Out-of-office reminder", "Please update your out-of-office in the calendar before the holidays.", ["Done.", "Will do.", "Done, thanks."]),
    ("Address change macro", "The macro for address changes had a typo, fixed now.", ["Thanks for catching it.", "+1", "Appreciate it."]),
    ("Training hours", "Reminder to log your training hours by end of month.", ["Done.", "Where do we log them again?", "On it."]),
    ("New headsets", "Does anyone know if the new headsets arrived?", ["They're in the storage room.", "Not yet, maybe next week.",
                                                       "Facilities said tomorrow."]),
    ("Dashboard refresh", "Dashboard refresh failed overnight, rerunning it now.", ["Thanks.", "Let us know when it's back.", "Checked, all good now."]),
]

MEETING_OPENERS = ["Can everyone hear me okay?", "Sorry, I was on mute.", "Hi all, can you see my screen?",
                   "Morning everyone.", "Just waiting for one more person, I think."]

MEETING_SMALLTALK = [
    "Let me share my screen.", "Is that showing for everyone?", "Give me one second to find the document.",
    "We're short on time, so let's move quickly.",
    "I'll drop the link in the chat.", "Let's come back to that at the end.",
    "Can you scroll down a bit?", "Okay, that makes sense.", "Right.", "Yeah, agreed.",
    "Sorry, go ahead.", "I'll take that action.", "Does anyone have questions on that?",
]


def fill(template: str, **kw: str) -> str:
    return template.format(**kw)


def pick(seq: list, rng: random.Random, n: int) -> list:
    n = min(n, len(seq))
    return rng.sample(seq, n)
