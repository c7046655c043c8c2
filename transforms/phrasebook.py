"""The phrasebook: wording that is not a fact. Greetings, closings and fillers for agents,
customers and colleagues (a grammar with names in it, so lines do not repeat across a
domain), the leads before an answer, the openings of a correction, the hedges and plain
claims around a wrong value, the labels of a superseded one, and how a case note ends once
the customer has been told. The writers (`transforms.writers`) draw from it."""
from __future__ import annotations

import random

from .grammar import finish


FIRST = ["Alex", "Priya", "Marcus", "Elena", "Kwame", "Sofia", "Daniel", "Aiko", "Omar", "Grace",
         "Luis", "Hannah", "Ravi", "Chloe", "Mateo", "Nadia", "Ben", "Yara", "Felix", "Amara"]
LAST = ["Ortega", "Nguyen", "Fischer", "Adeyemi", "Rossi", "Kowalski", "Haddad", "Lindqvist",
        "Tanaka", "Moreau", "Brennan", "Castillo", "Okoro", "Petrov", "Shah", "Walsh"]

# Wording that is not a fact: every line carries a name or several choice points.
RULES: dict[str, list[str]] = {
    "greet_agent": ["{Hi|Hello|Good {morning|afternoon}|Hi there} <first>, {thanks for {contacting|getting in touch "
                    "with|messaging} <company>|you're through to <agent>{ at <short>|}|this is <agent>{ from "
                    "<short>|}|<agent> here}{ — how can I help{ today|}?| — what can I do for you{ today|}?|!|.}",
                    "{Welcome to|Thanks for contacting} <company>{ support|}, <first>{ — {I'm|my name is} <agent>|"
                    "}{, how can I help?|.|!}"],
    "greet_customer": ["{Hi|Hello|Hey|Good {morning|afternoon}}{, it's <first>|, <first> here|}{ — |, }{I've got a "
                       "{question|quick question} about <thing>|I'm hoping you can help with <thing>|I need some help "
                       "with <thing>|something's come up with <thing>}{.|!}"],
    "greet_colleague": ["{Hi|Hello|Hey|Morning} {all|team|everyone|folks}{,|}", "{Hi|Hello} <names>{,|}"],
    "close_agent": ["{Is there anything else I can help with|Anything else{ I can do for you|}} {today|on <thing>|"
                    "while you're here}, <first>?", "{Glad I could help|Happy to help|My pleasure}, <first>{ — "
                    "{have a {good|great|lovely} {day|evening|weekend}|take care|enjoy the rest of your day}|}{!|.}",
                    "{Thanks for {getting in touch|your patience|bearing with me}|Thanks again}, <first>{ — {all the "
                    "best|take care|have a good one}|}{!|.}"],
    "close_customer": ["{Thanks|Thank you|Cheers|Great, thanks}{ {so much|a lot|for explaining|for checking}|}, "
                       "<agentfirst>{ — {that's {clear|all I needed|really helpful}|that helps with <thing>|I'll "
                       "keep that in mind for <thing>}|}{!|.}", "{Okay|Right|Alright|Got it}, {that makes sense|that's "
                       "clear now|good to know}{ for <thing>|, thanks <agentfirst>|, <agentfirst>|}{!|.}"],
    "close_colleague": ["{Thanks|Cheers|Thanks all|Speak soon}{, <names>|}{!|.}{ Shout if anything's unclear{ on "
                        "this| before <wday>|}.| Ping me with questions{ on this| before <wday>|}.|}",
                        "{That's it from me|Hope that helps|Hope that settles it}{, <names>|}{ — {shout|ping me} if "
                        "anything's unclear| — more at <wday>'s huddle|}{.|!}"],
    "filler_agent": ["{Let me {check|pull up|look at} <thing>{ for you|}|One moment while I {check|open} <thing>|I'm "
                     "{checking|looking at} <thing> now}{, <first>|}{.|...}", "{Thanks for your patience|Bear with me|"
                     "Just a moment}, <first>{ — {the system is a little slow {today|this morning}|I'm reading the "
                     "notes on <thing>}|}{.|!}"],
    "filler_customer": ["{Sure|Okay|No problem|Of course}{, take your time|}{ — I'm {at work|on my phone|in the car "
                        "park}|}{.|!}", "{Yes|Yep}, {that's right|that's the one}{ — <thing>|}{.|!}"],
    "filler_colleague": ["{Adding this to the tracker|Looping in <names>|Noted for <wday>'s huddle|Flagging for the "
                         "<wday> review}{, thanks|}{.|!}", "{+1 on that|Agreed|Same question from my queue}{, <names>|}"
                         "{.|!}"],
    "wday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
}

LEAD_CUSTOMER = ["{Sure|Right|Okay|Yes|Good question}, <first>{ —|:|,} ", "Looking at <thing>, ",
                  "{So|Right}, for <thing>, ", "<first>, ", "From what I can see on <thing>, ", "In your case, <first>, ",
                  "{I've checked|I checked} <thing>{ for you|}, and ", "{Okay|Right}, here's how it works{ for <thing>|}: ",
                  "Happy to explain{, <first>|}: "]
LEAD_STAFF = ["To answer <question>, ", "{For the record|For everyone's notes}, ", "Confirmed with <owner>: ",
               "{Quick answer|Short answer}{, <names>|}: ", "{Per|As per} the <wday> review, ", "<names>, ",
               "{Checked|Double-checked} the policy doc{ on <wday>|}: ", "{So|Right}, {to be clear|for clarity}, "]
CORRECT_CUSTOMER = ["{Not quite|That's not right|Close, but not quite}{, <first>|}{ —|:} ", "{No|Ah, no}{, <first>|}{ —"
                     "|,} ", "{Let me correct that|I'll correct that}{, <first>|}: ", "{I can see why you'd think "
                     "that|I understand the confusion}{, <first>|}, but ", "The figure I have {is different|differs}: "]
CORRECT_STAFF = ["{Not quite|Not right}{, <names>|}{ —|:} ", "{No|Nope}{, <names>|}{ —|,} ", "Correction{ for <names>|}: ",
                  "{The signed-off version|What {<owner>|the owner} signed off} reads: ", "{Checked|Double-checked} with "
                  "<owner>{ on <wday>|}: "]
HEDGED_CLAIMS = {
    "customer": ["I thought {claim}", "I was told {claim}", "I read {somewhere|online|on a forum} that {claim}",
                 "my friend said {claim}", "isn't it the case that {claim}?", "I heard {claim}",
                 "I was told on the phone {last time|last month|by someone else} that {claim}",
                 "I thought {claim} — at least that's what I remember from <thing>"],
    "colleague": ["I heard {claim} — is that still right?", "someone said {claim}; not correct, I think?",
                  "I thought {claim}, but let me double-check", "wasn't it that {claim}?",
                  "old rule from {my training|the old macro|the last review}: {claim}",
                  "I was told {claim} {on my first week|by a customer|in training}, is that right?"],
}
# A wrong value someone states as fact (no hedge): the correction later in the file settles it.
PLAIN_CLAIMS = {
    "customer": ["{claim}", "the website says {claim}", "last time {claim}", "my booking confirmation says {claim}",
                 "{claim} — that's what the app showed me", "your agent told me {claim}", "{claim}, so that's the plan"],
    "colleague": ["{claim}", "{claim} — that's what I've been telling customers", "per the macro, {claim}",
                  "going by the old sheet, {claim}", "{claim}, I've quoted that all week"],
}
SUPERSEDED = ["Proposal ({date}): {claim}", "Draft ({date}): {claim}", "Until {date}, {claim} (no longer the case)",
               "Old rule, superseded: {claim}", "Previously, until {date}, {claim}",
               "Draft for the {date} review, proposed: {claim}"]


def told_line(first: str, rng: random.Random) -> str:
    """How a case note ends once the customer has been told ("Told Priya by phone.")."""
    who = first or "the customer"
    how = rng.choice(["", " by phone", " by email", " on chat", " on the call", " in branch", " the same day"])
    return finish(rng.choice([f"{who} informed{how}.", f"told {who}{how}.", f"explained to {who}{how}.",
                                  f"{who} {rng.choice(['OK', 'happy', 'fine'])} with that.",
                                  f"customer informed{how}."]))
