"""Meeting small talk: the lines people say between agenda items ("Can you scroll down a
bit?"), generated from a grammar with the meeting's own names, topics and days, so a domain's
meetings do not repeat one another. Nothing here states a rule or a value."""
from __future__ import annotations

import random
import re
from typing import Mapping

from .grammar import say

_OPENERS = [
    "{Can everyone hear me|Is my audio okay|Can you all hear me} {okay|alright|now}{, <first>|}?",
    "{Sorry|Apologies}, I was on mute{ — go on, <first>| the whole time|}.",
    "{Hi all|Morning all|Hello everyone}{, can you see my screen| — <first>, you're frozen for me|}{?|.}",
    "{Morning|Afternoon|Hi} {everyone|all|folks}{, happy <wday>| — <first> says they're running late|}{!|.}",
    "{Just|We're just} waiting for {one more person|<first>|<first> to join}{, I think|}.",
    "{Sorry I'm late|Sorry, last call ran over}{, <first>|}{ — did I miss anything|}{?|.}",
]
_CHATTER = [
    "{Let me|I'll} share my screen{ with the <topic> notes| — one second|}.",
    "{Is that|Is the <topic> page} showing for everyone{, <first>|}?",
    "Give me {one second|a moment} to find the {document|<topic> notes|right tab}.",
    "We're {short on|tight for} time{ today| before the <time> call|}, so let's move {quickly|along}.",
    "I'll drop the link {in the chat|to the <topic> notes in the chat}{ after this|}.",
    "{Let's|Can we} come back to {that|<topic>} at the end{, <first>|}.",
    "{Can you|Could you} scroll {down|up} a bit{, <first>|}?",
    "{Okay|Right|Yeah}, {that makes sense|makes sense|that's fair}{, <first>|}.",
    "{Sorry|Oh sorry}, go ahead{, <first>|}.",
    "I'll take that action{ for <wday>| on <topic>|}.",
    "{Does anyone have|Any} questions on {that|<topic>}{ before we move on|}?",
    "{<first>, you're breaking up a bit|Your audio cut out for a second, <first>}{.|!}",
    "{Can someone|<first>, can you} {take notes|keep the notes} {today|for <wday>|on <topic>}?",
]


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
            if w in (",", "and", "or", "&", "-", "\u2014") or len(head) >= 2:
                break
            head.append(w)
        out = " ".join(head)
    return out if any(w[:1].isupper() for w in out.split()[1:]) else out[:1].lower() + out[1:]


def meeting_opener(rng: random.Random, slots: Mapping[str, str]) -> str:
    """A line someone says while a meeting starts. `slots`: first (a participant's first
    name), wday, topic, time."""
    return say(rng.choice(_OPENERS), rng, slots)


def meeting_chatter(rng: random.Random, slots: Mapping[str, str], n: int = 1) -> list[str]:
    """`n` different lines of small talk between agenda items (same slots)."""
    return [say(t, rng, slots) for t in rng.sample(_CHATTER, min(n, len(_CHATTER)))]
