"""Ticket export (.json): an issue-tracker/helpdesk export (Jira-like): project, query, and
tickets with key, type, summary, status, priority, reporter, assignee, timestamps, labels,
description and comments.

Facts are settled in "Policy clarification" tickets: an agent asks in the description, a
colleague comments a wrong value first and/or the owner posts an earlier draft (older
value, dated before the answer), then the policy owner's resolution comment states the
current rule. Ordinary tickets (tooling, macros, customer escalations) surround them."""
from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

from facts.runs import ngrams
from transforms import clock as CK, common as C, haystack_cases as HC, headings, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_json_strings
from transforms.grammar import say
from transforms.plan import ArtifactSpec
from transforms.registry import register
from transforms.smalltalk import spoken_topic


_PRIORITY = ["Low", "Medium", "Medium", "High"]
# Ticket wording is a grammar with the ticket's own people, topic and days (`say`).
_ASK = ["{Frontline|The <queue> queue} keeps getting this and the knowledge base is unclear{ on <topic>|}. "
        "{Please confirm|Can <owner_first> confirm}:",
        "Need an authoritative answer for the {macros|<topic> macros}{ before <next>|}. Questions:",
        "Customers are escalating on {this|<topic>}; can the policy owner confirm the current rule{ by <next>|}?"]
_RESOLVE_LEAD = ["{Resolution|Answer}{ for <reporter_first>| on <topic>|}{ from <owner_first>|}:",
                 "{Answer|Ruling} from {the policy owner|<owner_first>}{ on <topic>| for the <queue> queue|}:",
                 "Confirmed with {compliance|the policy team|<owner_first>}{ on <wday>| this morning|}{, <reporter_first>|}:"]
_DRAFT_LEAD = ["Draft for discussion{ on <topic>|}, not approved yet:", "Working notes from the {review|<wday> review}:"]
_AFTER = ["{Updated|Changed|Fixed} the <topic> {article|macro|saved reply} to match{, thanks <owner_first>|}{ — closing| and "
          "closed this|; closing on <wday>|}.",
          "{Macros|The <queue> macros|Saved replies} {updated|now match}{ for <topic>|}{, thanks <owner_first>|}{; closing|, "
          "so closing this ticket| — shared with the <queue> queue}.",
          "{Thanks|Cheers|Got it}, <owner_first> — {shared with the team {in the morning huddle|at <wday>'s huddle|on the "
          "<queue> channel}|I'll brief the <queue> queue {today|on <wday>}|the <topic> article is updated}{, closing|}."]
_SUMMARY = ["{Clarify|Confirm|Need a ruling on} <topic> {rules|wording} for {frontline|the <queue> queue}",
            "{Conflicting|Unclear} answers on <topic>{ in the <queue> queue|}"]


def _lead(lead: str, line, reporter: str, fact, answer: str) -> str:
    """The line over the owner's answer. A reader runs a lead ending in ":" into the answer
    under it, so a lead naming the topic must not make, with the answer's first words, a run
    of the policy's own statement that the answer alone avoids ("Ruling on business credit
    card:" over "The business owner ..."); such a lead is drawn again, else one without the
    topic is used."""
    own = ngrams(fact.statement)
    if ngrams(answer) & own:
        return lead  # the answer itself quotes the policy (a canonical rendition)
    for _ in range(6):
        if not ngrams(f"{lead}\n{answer}") & own:
            return lead
        lead = line(_RESOLVE_LEAD, reporter, fact)
    return line(_RESOLVE_LEAD[2:], reporter, fact)


def _record(talk) -> str:
    """How a case note names the customer's record ("their Everyday Savings account")."""
    rec = talk.record
    if rec is None:
        return "their account"
    if rec.detail and rec.internal:
        return f"the {rec.detail} {rec.label or rec.kind}"
    if rec.label and rec.label.lower() != rec.kind:
        return f"their {rec.label}" + ("" if rec.kind in rec.label.lower() else f" {rec.kind}")
    return rec.ref()


# The saved filter an export was pulled with: its name (who keeps it, what it is for) and its
# query (the project, from the first ticket's day).
_FILTER_NAME = ["{<first>'s|My} {weekly|monthly|} {review|queue check|ticket list}", "{Support ops|Frontline|Service "
                "desk} {— last few weeks|since <since>|tickets since <since>|review pack}", "{All|Open and closed} "
                "<key> tickets{ since <since>| for <first>|}", "{Export|Pull} for <meeting>{ (<first>)|}"]
_QUERY = ["project = {key} AND created >= {since_iso} ORDER BY created ASC",
          "project = {key} AND created >= {since_iso} ORDER BY key ASC",
          "project = \"{key}\" AND created >= \"{since_iso}\" ORDER BY created ASC",
          "project = {key} AND created >= {since_iso} AND created <= {until_iso} ORDER BY created ASC",
          "project in ({key}) AND created >= {since_iso} ORDER BY created",
          "created >= {since_iso} AND project = {key} ORDER BY created ASC, key ASC",
          "project = {key} AND created >= {since_iso} ORDER BY updated DESC",
          "project = {key} AND updated >= {since_iso} ORDER BY created ASC",
          "project = {key} AND created >= {since_iso} AND resolution in (Unresolved, Done, Answered) ORDER BY created",
          "project = {key} AND (created >= {since_iso} OR updated >= {since_iso}) ORDER BY key",
          "project = {key} AND created >= {since_iso} AND reporter in membersOf(\"{team}\") ORDER BY created ASC",
          "project = {key} AND created >= {since_iso} ORDER BY priority DESC, created ASC"]


def _iso(t: dt.datetime) -> str:
    return t.isoformat(timespec="seconds")


def _numbered(tickets: list[dict], key: str, rng: random.Random) -> list[dict]:
    """The tickets in creation order as the export prints them: keys numbered upward from a
    random start, fields in the export's order, comment ids under their ticket's number."""
    n = rng.randint(1200, 4800)
    ordered = []
    for tk in tickets:
        n += rng.randint(1, 6)
        created = tk.pop("created")
        rec = {"key": f"{key}-{n}", **tk, "created": _iso(created)}
        rec = {k: rec[k] for k in ("key", "type", "summary", "status", "resolution", "priority", "reporter",
                                   "assignee", "created", "updated", "labels", "components", "description",
                                   "comments")}
        for i, c in enumerate(rec["comments"]):
            c["id"] = f"{n}{i + 1:03d}"
        ordered.append(rec)
    return ordered


@register
class TicketExport(Transformer):
    family = "tables"
    kind = "ticket_export"
    ext = ".json"
    modality = "json"
    max_facts = 10
    weight = 1.0
    description = "Issue tracker / helpdesk export (JSON): policy clarification tickets with comments."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("tickets")
        w, pack = ctx.writer, ctx.pack
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        owner = RC.staff(ctx, rng, "manager", 1)[0]
        agents = RC.staff(ctx, rng, "agent", 3, exclude=(owner,))
        key = RC.id_prefix(pack, "ticket", "case")
        tickets: list[dict] = []

        def comment(author: str, when: dt.datetime, body: str) -> dict:
            return {"id": "", "author": author, "created": _iso(when), "body": body}

        nxt = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"][(day.weekday() + rng.randint(1, 3)) % 5]

        def line(pool: list[str], reporter: str, fact) -> str:
            return say(rng.choice(pool), rng, {"owner_first": RC.first(owner), "reporter_first": RC.first(reporter),
                                                "topic": spoken_topic(headings.topic_of(fact)), "next": nxt,
                                                "wday": f"{day:%A}", "queue": rng.choice(["chat", "phone", "email"])})

        cases = [it for it in its if it.role == "case"]
        its = [it for it in its if it.role != "case"]
        for it in cases:  # a customer request where the rule was applied to their record
            talk = C.speaker(ctx, rng)
            who = talk.customer.name if talk.customer else "the customer"
            agent = rng.choice(agents)
            created = CK.office_time(pack, day - dt.timedelta(days=rng.randint(0, 20)), rng)
            # the request says what the customer asked, the agent's comment answers it for their
            # record: the figure and its case, the rule's subject left to the question above
            asked = w.question(it.fact, rng, customer=talk.customer, record=talk.record)
            note = C.tidy(w.short_answer(it.fact, rng, register="ticket", context=talk, named=asked))
            if not note or not C.matches(it.fact, f"{asked}\n{'.' * 80}\n{note}", pack.info.currency):
                note = C.word(ctx, it, rng, register="ticket", context=talk)
            t1 = created + dt.timedelta(minutes=rng.randint(15, 400))
            tickets.append({"type": "Customer request", "summary": f"{who}: {rng.choice(['charge query', 'account change', 'request', 'service request'])}",
                            "status": "Done", "resolution": "Done", "priority": "Low", "reporter": agent,
                            "assignee": agent, "created": created, "updated": _iso(t1), "labels": ["customer"],
                            "components": ["Frontline"],
                            "description": say("{<who> {called|rang|phoned} {about|to ask about} <rec>{ on <wday>| this "
                                               "morning|}|<who> wrote in {through the web form|by email} about <rec>|"
                                               "{Request|Question} from <who> {via chat|by phone|in branch} about <rec>}.",
                                               rng, {"who": who, "rec": _record(talk), "wday": f"{created:%A}"})
                            + f' Asked: "{asked}"',
                            "comments": [comment(agent, t1, note)]})
        for group in C.split_groups(its, rng, 1, 4):
            reporter = rng.choice(agents)
            sup = [(it, d, CK.earlier_day(d, day, rng, 4, 25)) for it in group for d in it.superseded]
            created = CK.office_time(pack, min([day - dt.timedelta(days=rng.randint(1, 6))] +
                                              [s[2] - dt.timedelta(days=rng.randint(1, 3)) for s in sup]), rng, 8, 12)
            desc = "\n".join([line(_ASK, reporter, group[0].fact)] +
                              [f"- {w.question(it.fact, rng, register='ticket')}" for it in group])
            comments, t = [], created
            for it in group:
                for d in it.wrong:
                    t += dt.timedelta(minutes=rng.randint(20, 600))
                    comments.append(comment(rng.choice([a for a in agents if a != reporter] or agents), t,
                                            C.hedged(ctx, it.fact, d, rng, role="colleague")))
            for it, d, sday in sorted(sup, key=lambda s: s[2]):
                t = max(t + dt.timedelta(minutes=5), CK.office_time(pack, sday, rng, 9, 17))
                comments.append(comment(owner, t, f"{line(_DRAFT_LEAD, reporter, it.fact)} "
                                                  f"{C.hedged(ctx, it.fact, d, rng, on=sday)}"))
            final = max(t + dt.timedelta(minutes=10), CK.office_time(pack, day, rng, 9, 15))
            lead = line(_RESOLVE_LEAD, reporter, group[0].fact)
            answers = [C.authoritative(ctx, it, rng, after_wrong=bool(it.distractors), register="ticket") for it in group]
            body = "\n".join([_lead(lead, line, reporter, group[0].fact, answers[0])] + answers)
            comments.append(comment(owner, final, body))
            comments.append(comment(reporter, final + dt.timedelta(minutes=rng.randint(10, 120)),
                                    line(_AFTER, reporter, group[0].fact)))
            topic = headings.section_of(group[0].fact)
            tickets.append({"type": "Policy clarification", "summary": line(_SUMMARY, reporter, group[0].fact),
                            "status": "Resolved", "resolution": "Answered", "priority": rng.choice(_PRIORITY),
                            "reporter": reporter, "assignee": owner, "created": created,
                            "updated": comments[-1]["created"],
                            "labels": sorted({"policy", RC.slug(topic, 40)} | {RC.slug(headings.section_of(i.fact), 40) for i in group}),
                            "components": ["Knowledge base"], "description": desc, "comments": comments})
        for fact, d in orphans:
            reporter = rng.choice(agents)
            created = CK.office_time(pack, day - dt.timedelta(days=rng.randint(0, 3)), rng)
            tickets.append({"type": "Policy clarification", "summary": f"Check {headings.section_of(fact).lower()} wording",
                            "status": "Waiting for policy owner", "resolution": None, "priority": "Medium",
                            "reporter": reporter, "assignee": owner, "created": created, "updated": _iso(created),
                            "labels": ["policy", "needs-owner"], "components": ["Knowledge base"],
                            "description": C.hedged(ctx, fact, d, rng, role="colleague", on=created.date()),
                            "comments": []})
        avoid = [d.text for d in spec.distractors]
        n_routine = (max(4, spec.size - len(tickets)) if spec.size else rng.randint(6, 11) + (3 if not its else 0))
        for _ in range(n_routine):
            tk = HC.ticket(ctx, rng, people=[rng.choice(agents)] + rng.sample(agents + [owner], 2), avoid=avoid)
            created = CK.office_time(pack, day - dt.timedelta(days=rng.randint(0, 25)), rng)
            t, comments = created, []
            for c_ in tk.comments:
                t += dt.timedelta(minutes=rng.randint(5, 600))
                comments.append(comment(c_.who, t, c_.text))
            customer = tk.type == "Customer request"
            tickets.append({"type": tk.type, "summary": tk.summary, "status": tk.status,
                            "resolution": "Done" if tk.status in ("Done", "Resolved") else None,
                            "priority": "Low" if customer else rng.choice(_PRIORITY), "reporter": tk.reporter,
                            "assignee": tk.assignee, "created": created, "updated": _iso(t),
                            "labels": ["customer"] if customer else ["internal", tk.scenario],
                            "components": ["Frontline"] if customer else ["Operations"],
                            "description": tk.description, "comments": comments})
        tickets.sort(key=lambda tk: tk["created"])
        since = tickets[0]["created"].date()
        ordered = _numbered(tickets, key, rng)
        fslots = {"first": RC.first(owner), "since": f"{since:%B} {since.day}", "key": key, "since_iso": since.isoformat(),
                  "team": rng.choice(["support-staff", "frontline", "cx-team", "service-desk-users"]),
                  "until_iso": day.isoformat(), "meeting": rng.choice(["the ops review", "the monthly review", "the KB "
                                                                       "review", "the team leads' meeting"])}
        export = {"source": f"{RC.brand_short(pack)} Service Desk", "format": "issue export v2",
                  "project": {"key": key},
                  "filter": {"name": say(rng.choice(_FILTER_NAME), rng, fslots),
                             "query": rng.choice(_QUERY).format(**fslots)},
                  "exported_at": _iso(CK.at(pack, day, 18)), "exported_by": owner, "total": len(ordered),
                  "tickets": ordered}
        out.write_text(json.dumps(export, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_json_strings(path), extractor="json-strings")
