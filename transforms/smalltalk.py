"""Meeting small talk: the lines people say between agenda items ("Can you scroll down a
bit?"), generated from a grammar with the meeting's own names, topics and days, so a domain's
meetings do not repeat one another. Nothing here states a rule or a value."""
from __future__ import annotations

import random
import re
from typing import Mapping

from facts.match import STOP_WORDS

from .grammar import say

_OPENERS = [
    "{Can everyone hear me|Is my audio okay|Can you all hear me} {okay|alright|now}{, <first>|, <other>|}?",
    "{Sorry|Apologies}, I was on mute{ — go on, <first>| the whole time| — what did I miss, <other>|}.",
    "{Hi all|Morning all|Hello everyone}{, can you see my screen| — <first>, you're frozen for me| — <other> says they'll "
    "be a minute}{?|.}",
    "{Morning|Afternoon|Hi} {everyone|all|folks}{, happy <wday>| — <first> says they're running late| — <other>'s "
    "dialling in from home}{!|.}",
    "{Just|We're just} waiting for {one more person|<first>|<first> to join|<other>, I think}{ before we start|}.",
    "{Sorry I'm late|Sorry, last call ran over|Sorry, my <time> ran long}{, <owner_first>|}{ — did I miss anything|}{?|.}",
    "{<first>, are you joining from|Is <first> in} {the office|<room>|home} today{, <other>|}?",
    "{Hi|Hello}, {it's|this is} <first>{ — I'm in <room>| — I'm on my phone, so I'll stay on mute| dialling in from the "
    "car park}.",
]
_CHATTER = [
    "{Let me|I'll|Okay, I'll} share my screen{ with the <topic> notes| — one second| so you can see the <topic> page|, "
    "<first>|}.",
    "{Is that|Is the <topic> page|Is my screen|Is the spreadsheet <first> sent} showing {for everyone|okay|properly}{, "
    "<first>|, <other>|}?",
    "{Give me|Bear with me for} {one second|a moment|two seconds} {to find|while I find|to dig out} the {<topic> "
    "notes|right tab|<topic> doc|spreadsheet <first> sent|link from <wday>|<topic> figures}.",
    "We're {short on|tight for|running low on} time{ today| before the <time> call| — <first> has to drop at <time>|}, so "
    "let's {move quickly|keep moving|be quick}{ through the <topic> item| on the next bit|}.",
    "I'll {drop|put|paste} the link {in the chat|to the <topic> notes in the chat|to <first>'s doc in the chat}{ after "
    "this| now| for <other>|}.",
    "{Let's|Can we} {come back to|park} the <topic> {question|item|point} {until the end|for now|till <wday>}{, <first>|}.",
    "{Can you|Could you} scroll {down|up} {a bit|a little|to the <topic> bit}{, <first>|, <other>|}?",
    "{Okay|Right|Yeah}, {that makes sense|makes sense|that's fair|fair enough}{, <first>|, <other>|}{ — let's note it "
    "for <wday>| — I'll add it to the <topic> notes|}.",
    "{Sorry|Oh sorry|Sorry, you go}{, go ahead|}{, <first>|, <other>|}{ — we talked over each other| — I was on mute| — "
    "I thought you'd finished|}.",
    "I'll take that action{ for <wday>| on the <topic> item|, <owner_first>| and report back on <wday>|}{, <first>|}.",
    "{Does anyone have|Any} questions on {that|the <topic> item}{ before we move on|, <first>|, <other>|}?",
    "{<first>, you're breaking up a bit|Your audio cut out for a second, <first>|<first>, you froze for a moment|We lost "
    "you for a second there, <first>}{ — can you say that again| — could you repeat the last bit|}{.|!|?}",
    "{Can someone|<first>, can you} {take notes|keep the notes} {today|for <wday>|on the <topic> item}{, as <other>'s "
    "out|}?",
    "{<first>, did you want to add anything|Anything from you, <first>|<first>, anything on your side}{ on the <topic> "
    "item| before we move on|}?",
    "{I'll|Let me} {put|add} {that|it} {in|to} the {minutes|notes|action log}{ for <wday>| under the <topic> item|}"
    "{, <first>|}.",
    "{Hang on|One sec|Sorry, one moment}, {my dog's barking|someone's at the door|the delivery's here|my laptop's "
    "updating|the fire alarm test is on}{ — carry on, <first>| — sorry, <other>|}.",
    "{<first>, can you mute|I think someone's not muted|Whoever's typing, can you mute}{ — we're getting {an echo|some "
    "background noise}{, <other>|}|, <other>}?",
    "{Who's|Is anyone} {taking|picking up} the <topic> item{ this week| while <first> is out| on <wday>}?",
    "{Shall we|Should we} {take|have} a {five-minute|quick} break{ after the <topic> item| before <time>|}{, <owner_first>|}?",
    "{Good point|Fair point|Good shout}, <first> — {let's|we should} {add it to|put it on} the agenda for <wday>"
    "{'s huddle|}.",
    "{Sorry, I missed that|Sorry, can you repeat that}{, <first>|, <other>|} — {my connection dropped|the audio went|I "
    "was writing the notes|I was looking at the <topic> page}.",
    "{Are we recording this|Is this being recorded}{, <owner_first>|}{ — <other> can't make the <wday> one| for "
    "<first>|}?",
    "{I've got|I have} a hard stop at <time>{, <owner_first>|}{, just so you know|, sorry| — <other> can cover the "
    "rest|}.",
    "{Let's|We can} {pick this up|continue this} {offline|on <wday>|in the team chat}{, <first>|, <other>|}.",
    "{Quick one|Before I forget}, <owner_first>: {are we still doing|is there still} the <wday> huddle{ at <time>| "
    "this week|}?",
    "{<first>'s|<other>'s} {got a question in the chat|put something in the chat}{ about the <topic> item|} — "
    "{<first>|<other>}, {do you want to|can you} {say it|ask it out loud}?",
]
# Slots a meeting passes: first and other (two participants' first names), owner_first, wday,
# time, room, topic (a noun used before "item", "notes", "page": "personal checking", "rota").
def spoken_topic(section: str) -> str:
    """How people name a policy section when they talk: a short title as it is, a long one
    ("Delays, cancellations and compensation") by its first words ("delays"): nobody reads a
    heading out."""
    section = re.sub(r"\s+(catalog|catalogue|rules|policy|schedule|procedures?)$|\s+by\s.*$", "", section.strip(),
                     flags=re.I)
    words = section.replace(",", " ,").split()
    if len(words) < 4:
        out = section
    else:
        head = []
        for w in words:
            if w in (",", "and", "or", "&", "-", "\u2014"):
                break
            head.append(w)
        if len(head) > 5 or len(head) == len(words):  # a long title by its first words
            head = head[:2]
        while len(head) > 1 and head[-1].lower() in STOP_WORDS:  # never "applying for"
            head.pop()
        out = " ".join(head)
    return out if any(w[:1].isupper() for w in out.split()[1:]) else out[:1].lower() + out[1:]


def meeting_opener(rng: random.Random, slots: Mapping[str, str]) -> str:
    """A line someone says while a meeting starts. `slots`: first (a participant's first
    name), wday, topic, time."""
    return say(rng.choice(_OPENERS), rng, _defaults(slots))


def meeting_chatter(rng: random.Random, slots: Mapping[str, str], n: int = 1) -> list[str]:
    """`n` different lines of small talk between agenda items (same slots)."""
    return [say(t, rng, _defaults(slots)) for t in rng.sample(_CHATTER, min(n, len(_CHATTER)))]


def _defaults(slots: Mapping[str, str]) -> dict[str, str]:
    out = {"other": slots.get("first", "everyone"), "room": "the office", "owner_first": slots.get("first", "everyone"),
           "time": "two", "wday": "Monday", "topic": "queue"}
    out.update(slots)
    return out
