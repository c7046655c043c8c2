"""The lexicon: alternatives for words and phrases of policy language, by the first word of
each entry (`LEX_BY_WORD`). The realiser (`transforms.realise`) swaps one inside a run of
words a draft shares with the policy; an alternative never replaces a value or a word the
recovery rule needs, and keeps the meaning in context."""
from __future__ import annotations

import re


# Alternatives for words and phrases of policy language. They never replace a value or a word
# the recovery rule needs (the caller protects those); each keeps the meaning in context.
_LEX: list[tuple[str, list[str]]] = [
    # phrases
    (r"prior to", ["before", "ahead of"]), (r"in order to", ["to"]), (r"as long as", ["provided", "so long as"]),
    (r"provided that", ["as long as", "on condition that"]), (r"at least", ["no less than", "a minimum of"]),
    (r"at most", ["no more than", "a maximum of"]), (r"up to", ["as much as", "a maximum of"]),
    (r"at or above", ["no lower than", "not below"]), (r"at or below", ["no higher than", "not above"]),
    (r"end-of-day", ["closing"]), (r"avoid", ["steer clear of", "prevent"]), (r"avoids", ["prevents"]),
    (r"complete and accurate", ["accurate and complete", "correct and complete"]), (r"accurate", ["correct"]),
    (r"more than(?= [$\d]| (?:one|two|three|four|five|six|seven|eight|nine|ten)\b)", ["over", "above"]),
    (r"less than(?= [$\d]| (?:one|two|three|four|five|six|seven|eight|nine|ten)\b)", ["under", "below"]),
    (r"fewer than(?= [$\d]| (?:one|two|three|four|five|six|seven|eight|nine|ten)\b)", ["under", "below"]),
    (r"or more", ["or longer", "plus"]), (r"or older", ["plus", "or over"]), (r"as soon as", ["the moment", "once"]),
    (r"in full", ["entirely", "completely"]), (r"free of charge", ["at no cost", "without a fee"]),
    (r"each time", ["every time", "whenever"]), (r"on top of", ["in addition to", "over and above"]),
    (r"instead", ["in its place", "rather"]), (r"because of", ["due to", "owing to"]), (r"due to", ["because of"]),
    (r"caused by", ["due to", "resulting from"]), (r"in a calendar year", ["per calendar year", "within one calendar year"]),
    (r"in any (\d+|one|twelve) months", [r"over any \1 months", r"within any \1 months"]),
    (r"calendar year", ["calendar-year period"]), (r"date of birth", ["birth date"]), (r"email address", ["email"]),
    (r"phone number", ["phone"]), (r"on the profile", ["in the profile", "on file"]),
    (r"on the reservation", ["in the booking", "on that booking"]), (r"on the account", ["on that account",
                                                                                       "in the account"]),
    (r"on file", ["stored", "on record"]), (r"per passenger", ["for each passenger", "a passenger"]),
    (r"per person", ["for each person", "a head"]), (r"per day", ["a day", "each day"]), (r"per year", ["a year",
                                                                                                         "annually"]),
    (r"per month", ["a month", "monthly"]), (r"per cycle", ["each cycle", "a cycle"]),
    (r"per statement cycle", ["each statement cycle", "in a statement cycle"]), (r"per line", ["for each line",
                                                                                                "a line"]),
    (r"per order", ["for each order", "an order"]), (r"per item", ["for each item", "an item"]),
    (r"per transaction", ["for each transaction", "a transaction"]), (r"per account", ["for each account",
                                                                                         "an account"]),
    (r"per device", ["for each device", "a device"]), (r"per night", ["a night", "for each night"]),
    (r"per dollar", ["for each dollar", "a dollar"]), (r"per minute", ["a minute", "for each minute"]),
    (r"per", ["for each", "a"]), (r"for each", ["per"]), (r"each year", ["every year", "annually"]),
    (r"every year", ["each year", "annually"]), (r"each month", ["every month", "monthly"]),
    (r"to waive", ["that waives", "needed to waive"]), (r"for the sign-up bonus", ["to earn the sign-up bonus"]),
    (r"without a pass", ["with no pass"]), (r"in US dollars", ["in USD"]), (r"US dollar", ["USD"]),
    (r"the United States", ["the US"]), (r"without a", ["with no"]), (r"without", ["with no"]),
    (r"at the time of booking", ["when booking", "while booking"]),
    (r"capped at", ["limited to", "held to"]),
    (r"earning", ["that earns", "which earns"]), (r"stated", ["quoted", "listed"]), (r"maximum", ["highest", "top"]),
    (r"(?<!\ba )minimum", ["lowest", "smallest"]), (r"opening deposit", ["deposit to open", "first deposit"]),
    (r"required", ["needed"]), (r"in effect", ["in force", "valid"]), (r"remains", ["stays"]), (r"remain", ["stay"]),
    (r"single", ["one"]), (r"a single", ["one", "just one"]), (r"totaling", ["adding up to", "totalling"]),
    (r"may be held", ["can be put on hold", "might be held"]), (r"turned on", ["switched on", "enabled"]),
    (r"(?<=is )enabled", ["switched on", "turned on"]), (r"(?<=are )enabled", ["switched on", "turned on"]),
    (r"turned off", ["switched off", "disabled"]), (r"turn on", ["switch on", "enable"]), (r"turn off",
                                                                                         ["switch off", "disable"]),
    (r"make sure", ["check", "ensure"]), (r"go to step", ["move on to step", "continue with step"]),
    (r"otherwise", ["if not", "or else"]), (r"comes back", ["returns", "is restored"]), (r"offered by",
                                                                                        ["sold by", "from"]),
    (r"enrolled at", ["studying at", "attending"]), (r"government-issued", ["government"]),
    (r"unexpired", ["valid", "current"]), (r"residential", ["home"]), (r"excluding", ["except", "apart from"]),
    (r"through", ["to"]), (r"proof of", ["evidence of"]), (r"in any", ["over any", "within any"]),
    (r"opted in to", ["signed up for", "chosen"]), (r"who are", ["that are"]), (r"are paid", ["get paid", "are covered"]),
    (r"at the start of", ["at the beginning of", "when"]), (r"the rest of", ["the remainder of", "what is left of"]),
    (r"no matter how long", ["however long"]), (r"whichever is greater", ["whichever is higher", "if that is more"]),
    (r"whichever is lower", ["whichever is smaller"]), (r"roll over", ["carry over", "carry forward"]),
    (r"carry over", ["roll over", "carry forward"]), (r"uses up", ["runs through", "exhausts"]),
    (r"opts in", ["chooses", "agrees"]), (r"up front", ["in advance"]), (r"in advance", ["up front", "ahead"]),
    (r"at the time of", ["at the moment of"]), (r"the day of travel", ["the travel day", "the day you fly"]),
    (r"on the day of", ["on the date of"]), (r"belong to", ["are tied to", "are linked to"]),
    (r"belongs to", ["is tied to", "is linked to"]), (r"act only on", ["only work on", "only touch"]),
    (r"take effect", ["apply", "kick in"]), (r"takes effect", ["applies", "kicks in"]),
    (r"is used up", ["gets used up", "is spent"]), (r"are used up", ["get used up"]), (r"used up", ["spent"]),
    (r"for good", ["permanently", "for ever"]), (r"lost for good", ["permanently lost", "never recovered"]),
    (r"does not have to", ["need not", "doesn't need to"]), (r"do not have to", ["need not", "don't need to"]),
    (r"has to", ["must", "needs to"]), (r"have to", ["must", "need to"]), (r"needs to", ["has to", "must"]),
    (r"need to", ["have to", "must"]), (r"is able to", ["can"]), (r"are able to", ["can"]),
    (r"is allowed to", ["may", "can"]), (r"are allowed to", ["may", "can"]), (r"in good standing", ["in good order",
                                                                                                   "that is current"]),
    (r"as published", ["as listed", "as printed"]), (r"shown in", ["listed in", "given in"]), (r"shown", ["listed",
                                                                                                        "given"]),
    (r"is charged", ["applies", "is billed"]), (r"are charged", ["apply", "are billed"]), (r"is waived", ["is dropped",
                                                                                                        "does not apply"]),
    (r"are waived", ["are dropped", "do not apply"]), (r"is refunded", ["is paid back", "comes back"]),
    (r"are refunded", ["are paid back", "come back"]), (r"is forfeited", ["is lost", "goes unused"]),
    (r"are forfeited", ["are lost"]), (r"is required", ["is needed", "is mandatory"]), (r"are required",
                                                                                      ["are needed"]),
    (r"is responsible for", ["handles", "looks after"]), (r"are responsible for", ["handle", "look after"]),
    (r"is processed", ["is handled", "goes through"]), (r"are processed", ["are handled", "go through"]),
    (r"is delivered", ["arrives", "is sent"]), (r"are delivered", ["arrive", "are sent"]),
    (r"is available", ["is offered", "can be had"]), (r"are available", ["are offered", "can be had"]),
    (r"is assigned", ["is allocated", "gets assigned"]), (r"are assigned", ["are allocated", "get assigned"]),
    (r"is sent", ["goes out", "is mailed"]), (r"are sent", ["go out", "are mailed"]), (r"is applied", ["is put on",
                                                                                                   "is used"]),
    (r"are applied", ["are put on", "are used"]), (r"is reviewed", ["is looked at", "is checked"]),
    (r"is closed", ["is shut"]), (r"is opened", ["is set up"]), (r"is issued", ["goes out", "is given"]),
    (r"is credited", ["is added", "lands"]), (r"are credited", ["are added", "land"]), (r"is returned",
                                                                                      ["is sent back", "comes back"]),
    (r"are returned", ["are sent back", "come back"]), (r"is replaced", ["is swapped"]), (r"is covered", ["is paid for"]),
    (r"is not", ["isn't"]), (r"are not", ["aren't"]), (r"do not", ["don't"]), (r"does not", ["doesn't"]),
    (r"cannot", ["can't"]), (r"can't", ["cannot"]), (r"don't", ["do not"]), (r"doesn't", ["does not"]),
    (r"isn't", ["is not"]), (r"aren't", ["are not"]), (r"won't", ["will not"]), (r"will not", ["won't"]),
    (r"it's", ["it is"]), (r"it is", ["it's"]), (r"that is", ["which is"]), (r"that are", ["which are"]),
    (r"who is", ["that is"]), (r"who are", ["that are"]), (r"there is", ["there's"]), (r"one of the", ["among the"]),
    (r"any other", ["another"]), (r"another", ["a different", "one more"]), (r"the next", ["the following"]),
    (r"the last", ["the final", "the most recent"]), (r"the first", ["the initial", "the opening"]),
    (r"a new", ["a fresh", "another"]), (r"the same", ["the identical", "that same"]),
    (r"in person", ["face to face", "at a counter"]), (r"in writing", ["on paper", "in a written note"]),
    (r"by email", ["over email", "via email"]), (r"by phone", ["over the phone", "via phone"]),
    (r"online", ["on the web", "over the internet"]), (r"on time", ["by the due date", "punctually"]),
    (r"late", ["overdue", "past due"]), (r"right away", ["straight away", "immediately"]),
    (r"a percentage of", ["a share of", "a percent of"]), (r"the amount of", ["the sum of"]),
    (r"the price of", ["the cost of"]), (r"the cost of", ["the price of"]), (r"no longer", ["not any more"]),
    (r"and the", ["plus the", "along with the"]), (r"or the", ["or else the"]),
    # verbs
    (r"purchase", ["buy"]), (r"purchased", ["bought"]), (r"receive", ["get"]), (r"receives", ["gets"]),
    (r"received", ["got", "taken in"]), (r"provide", ["give"]), (r"provides", ["gives"]), (r"require", ["need"]),
    (r"requires", ["needs", "calls for"]), (r"begin", ["start"]), (r"begins", ["starts"]), (r"starts", ["begins"]),
    (r"start", ["begin"]), (r"ends", ["finishes", "stops"]), (r"end", ["finish"]), (r"contact(?= (?:the|a|an|your|their|us|our|support|them|him|her|customers?|staff|members?)\b)",
                                                                ["get in touch with", "reach"]),
    (r"assist", ["help"]), (r"inform", ["tell"]), (r"informs", ["tells"]), (r"tells", ["lets", "informs"]),
    (r"obtain", ["get"]), (r"request", ["ask for"]), (r"requests", ["asks for"]), (r"requested", ["asked for"]),
    (r"ensure", ["make sure"]), (r"include", ["come with", "cover"]), (r"includes", ["comes with", "covers"]),
    (r"included", ["bundled", "covered"]), (r"covers", ["takes care of", "pays for"]), (r"cover", ["take care of",
                                                                                                "pay for"]),
    (r"differ", ["vary"]), (r"differs", ["varies"]), (r"vary", ["differ"]), (r"varies", ["differs"]),
    (r"quote", ["state", "give"]), (r"summarise", ["sum up", "recap"]), (r"summarize", ["sum up", "recap"]),
    (r"verify", ["check", "confirm"]), (r"confirm", ["check", "verify"]),
    (r"confirmed", ["verified", "checked"]), (r"stored", ["saved", "kept"]), (r"store", ["save", "keep"]),
    (r"reimburses", ["pays back", "repays"]), (r"reimburse", ["pay back", "repay"]), (r"forfeits", ["loses", "gives up"]),
    (r"misses", ["does not make"]), (r"accepts", ["takes"]), (r"accept", ["take"]), (r"allows", ["permits", "lets you have"]),
    (r"allow", ["permit"]), (r"charges", ["bills"]), (r"charged", ["billed"]),
    # "charge" by its sense: a verb after a modal or "to" ("may charge a surcharge": never "may fee")
    (r"(?<=may |can |not |you )charge", ["bill"]), (r"(?<=will |they )charge", ["bill"]), (r"(?<=to |we )charge", ["bill"]),
    (r"pays", ["covers", "settles"]), (r"pay", ["cover", "settle"]), (r"paid", ["settled", "covered"]),
    (r"refunded", ["paid back", "returned"]), (r"cancelled", ["called off", "canceled"]),
    (r"canceled", ["called off"]), (r"cancel", ["call off"]), (r"changed", ["altered", "modified"]),
    (r"change", ["alter", "modify"]), (r"removed", ["taken off", "dropped"]), (r"remove", ["take off", "drop"]),
    (r"added", ["put on", "included"]), (r"add", ["put on", "include"]), (r"applies to", ["holds for"]),
    (r"applies(?! to\b)", ["comes into play", "kicks in"]), (r"apply to", ["hold for"]),
    (r"apply(?= (?:a|an|the|this|these|that|any|your|their)\b)", ["use"]),
    (r"apply(?! (?:to|a|an|the|this|these|that|any|your|their)\b)", ["come into play", "kick in"]), (r"applied", ["used", "put"]), (r"issued", ["given", "sent"]),
    (r"issue(?= (?:a|an|the|your|their|it|them|refunds?|credits?|vouchers?|cards?|payments?)\b)", ["give", "send"]), (r"sends", ["mails", "forwards"]), (r"send", ["mail", "forward"]),
    (r"returned", ["sent back", "brought back"]), (r"return", ["send back", "bring back"]), (r"exceed", ["go over",
                                                                                                     "go beyond"]),
    (r"exceeds", ["goes over", "goes beyond"]), (r"converts to", ["turns into", "becomes"]), (r"becomes", ["turns into"]),
    (r"holds", ["has"]), (r"hold", ["have", "keep"]), (r"keeps", ["retains"]), (r"keep", ["retain"]),
    (r"raises", ["lifts", "increases"]), (r"lowers", ["reduces", "cuts"]), (r"expires", ["runs out", "lapses"]),
    (r"expire", ["run out", "lapse"]), (r"lasts", ["runs", "continues"]), (r"last", ["run", "continue"]),
    (r"earn", ["collect", "get"]), (r"earns", ["collects", "gets"]), (r"offers", ["gives", "provides"]),
    (r"offer", ["give", "provide"]), (r"handled", ["dealt with", "managed"]), (r"handle", ["deal with", "manage"]),
    (r"replaced", ["swapped"]), (r"replace", ["swap"]), (r"approve", ["sign off on", "authorise"]),
    (r"submitted", ["sent in", "filed"]), (r"submit", ["send in", "file"]), (r"reviewed", ["looked at", "checked"]),
    (r"review", ["look at", "check"]), (r"opened", ["set up"]), (r"open", ["set up"]), (r"closes", ["shuts"]),
    (r"close", ["shut"]), (r"sets", ["fixes", "chooses"]), 
    (r"explain", ["describe", "set out"]), (r"suggest", ["recommend", "propose"]), (r"escalate", ["pass up",
                                                                                               "refer"]),
    (r"transfer(?= (?:the|your|a|an|it|them|money|funds|\$))", ["move"]), (r"linked", ["connected", "tied"]), (r"counts against", ["uses up", "eats into"]),
    (r"counts", ["is counted"]), (r"treated as", ["regarded as", "handled as"]), (r"governed by", ["subject to",
                                                                                                "ruled by"]),
    (r"recorded", ["logged", "noted"]), (r"record", ["log", "note"]), (r"sold", ["offered", "bought"]),
    (r"collect", ["pick up", "gather"]), (r"reach(?! out)", ["get to"]), (r"arrives", ["comes in", "turns up"]),
    # nouns
    (r"customer", ["client"]), (r"customers", ["clients"]), (r"customer's", ["client's"]),
    (r"agent", ["rep", "staff member"]), (r"agents", ["reps", "staff"]), (r"reservation", ["booking"]),
    (r"reservations", ["bookings"]), (r"booking", ["reservation"]), (r"bookings", ["reservations"]),
    (r"fee", ["charge"]), (r"fees", ["charges"]),
    (r"(?<!may )(?<!can )(?<!not )(?<!you )(?<!will )(?<!they )(?<!to )(?<!we )charge", ["fee"]), (r"amount", ["sum", "figure"]),
    (r"number", ["figure"]), (r"item", ["article"]), (r"items", ["articles", "goods"]), (r"remainder", ["rest",
                                                                                                      "balance"]),
    (r"request", ["ask"]), (r"requests", ["asks"]), (r"purchase", ["buy"]), (r"purchases", ["buys"]),
    (r"application", ["request"]), (r"applicant", ["person applying"]), (r"applicants", ["people applying"]),
    (r"conversation", ["chat", "exchange"]), (r"documentation", ["paperwork"]), (r"documents", ["papers",
                                                                                               "paperwork"]),
    (r"approval", ["sign-off"]), (r"confirmation", ["OK"]), (r"trip", ["journey"]),
    (r"journey", ["trip"]), (r"travel", ["travelling"]), (r"baggage", ["luggage"]), (r"luggage", ["baggage"]),
    (r"lodging", ["accommodation", "a hotel"]), (r"meals", ["food"]), (r"money", ["funds"]), (r"funds", ["money"]),
    (r"illness", ["sickness"]), (r"injury", ["accident"]), 
    (r"records", ["files"]), (r"details", ["particulars", "information"]), (r"address", ["postal address"]),
    (r"phone", ["mobile"]), (r"problem", ["issue"]), (r"issue", ["problem"]), (r"team", ["group"]),
    (r"staff", ["employees", "team members"]), (r"employees", ["staff"]), (r"playbook", ["guide", "handbook"]),
    (r"handbook", ["guide", "manual"]), (r"manual", ["handbook", "guide"]), (r"policy", ["rulebook", "rules"]),
    (r"rule", ["policy"]), (r"rules", ["policies"]), (r"step", ["stage"]), (r"steps", ["stages"]),
    (r"attempt", ["try"]), (r"attempts", ["tries"]), (r"session", ["visit"]), (r"message", ["text"]),
    (r"window", ["period"]), (r"period", ["window", "stretch"]), (r"deadline", ["cut-off"]), (r"cut-off", ["deadline"]),
    (r"certificate", ["voucher"]), (r"remaining", ["leftover", "outstanding"]),
    # adjectives and adverbs
    (r"additional", ["extra", "further"]), (r"extra", ["additional"]), (r"approximately", ["about", "roughly"]),
    (r"required", ["needed", "necessary"]), (r"permitted", ["allowed"]), (r"allowed", ["permitted"]),
    (r"possible", ["an option", "allowed"]), (r"immediately", ["straight away", "right away"]),
    (r"however", ["but"]), (r"therefore", ["so"]), (r"every", ["each"]), (r"each", ["every"]),
    (r"any(?!\s+[a-z]+s\b)", ["every"]),  # "any discrepancies" is no "every discrepancies"
    (r"never", ["not ever", "under no circumstances"]), (r"only", ["just", "solely"]), (r"exactly", ["precisely"]),
    (r"original", ["initial", "first"]), (r"full", ["complete", "whole"]), (r"whole", ["entire", "full"]),
    # "complete" as an adjective only ("a complete record"): "transfers complete in three days" is a verb
    (r"(?<=a )complete", ["full"]), (r"(?<=the )complete", ["full"]), (r"(?<=is )complete", ["full"]),
    (r"(?<=are )complete", ["full"]), (r"complete in", ["go through in", "clear in"]),
    (r"complete within", ["go through within", "clear within"]), (r"existing", ["current"]), (r"current", ["present"]),
    (r"later", ["subsequent"]), (r"different", ["other"]), (r"explicit", ["clear", "express"]),
    (r"valid", ["good", "usable"]),
    # "available" said of a thing ("is available to you"), never before its noun ("your available
    # rewards" is no "your on offer rewards")
    (r"available(?!\s+(?!(?:to|for|in|on|at|from|only|until|when|if|after|before|during|through|via|by|with|and|or|"
     r"as|once|upon|immediately|now|again|online|today)\b)[a-z])", ["on offer", "offered"]), (r"unused", ["leftover"]),
    (r"optional", ["voluntary", "opt-in"]), (r"standard", ["regular", "normal"]), (r"regular", ["standard"]),
    (r"free(?! of charge)", ["at no charge", "no-cost"]), (r"scheduled", ["planned"]), (r"documented", ["recorded",
                                                                                         "certified"]),
    (r"immediate", ["close"]), (r"consecutive", ["back-to-back", "successive"]), (r"temporary", ["short-term"]),
    (r"automatically", ["by default", "on its own"]), (r"automatic", ["auto"]), (r"separate", ["distinct"]),
    (r"personal", ["individual"]), (r"daily", ["per-day"]), (r"monthly", ["per-month"]), (r"annual", ["yearly"]),
    (r"yearly", ["annual"]), (r"outstanding", ["unpaid", "remaining"]), (r"eligible", ["entitled", "qualified"]),
    (r"kindly", ["politely", "gently"]), (r"both", ["the two"]), (r"whether", ["if"]),
    (r"depends on", ["is set by", "varies with"]), (r"depend on", ["are set by", "vary with"]),
    (r"within", ["inside"]), (r"outside", ["beyond"]), (r"after", ["following"]), (r"before", ["ahead of"]),
    (r"again", ["once more"]), (r"together", ["jointly"]), (r"jointly", ["together"]),
    (r"also", [""]), (r"either", [""]), (r"its", ["the"]), (r"their", ["the"]), (r"this", ["that"]), (r"our", ["the"]),
]
_LEX_RE = [(re.compile(rf"(?<![\w'-]){p}(?![\w'-])", re.I), alts) for p, alts in _LEX]


def _bare(pattern: str) -> str:
    """A swap pattern without its leading look-behinds ("(?<!\\ba )minimum" -> "minimum")."""
    return re.sub(r"^(?:\(\?<[!=][^)]*\))+", "", pattern)


def _first_word(pattern: str) -> str:
    m = re.match(r"[a-z']+", _bare(pattern))
    return m.group(0) if m else ""


# entries by their first word, each alternative that does not repeat the replaced words
LEX_BY_WORD: dict[str, list[tuple[re.Pattern, list[str], str]]] = {}
for (_rx, _alts), (_pat, _a) in zip(_LEX_RE, _LEX):
    _lit = re.sub(r"\(.*", "", _bare(_pat)).strip()
    _ok = [x for x in _alts if not (_lit and re.search(rf"(?<![\w'-]){re.escape(_lit)}(?![\w'-])", x))]
    if _ok:
        LEX_BY_WORD.setdefault(_first_word(_pat), []).append((_rx, _ok, _pat))
# function-word swaps are a last resort: they may only break a run, never start a draft
LAST_RESORT = {"its", "their", "this", "our"}


def keep_case(src: str, rep: str) -> str:
    return rep[:1].upper() + rep[1:] if src[:1].isupper() else rep
