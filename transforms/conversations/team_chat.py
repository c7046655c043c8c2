"""Team chat export (.json): one channel of a Slack-style workspace export: channel metadata,
members, and the messages in time order, thread replies included (each with `thread_ts`;
parents carry `reply_count`, `replies` and `reactions`).

Facts are settled in threads: a support agent asks, a colleague may repeat a wrong value, and
the policy owner answers. An old value (role "superseded") is posted as a proposal/draft in an
earlier thread, dated before the final answer. An older capture may hold a figure that was
current then (the owner answered with it: the capture's dates tell it is old); a colleague
may answer another with a wrong figure, confidently, where no owner speaks (the owner-approved
record outranks it). Most threads are unrelated (shift swaps, tooling, reminders): a capture
holds the planner's `size` threads, with follow-up replies."""
from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

from facts.hashing import sha256_hex
from transforms import clock as CK, common as C, haystack_staff as HS, headings, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_chat_export
from transforms.grammar import say
from transforms.plan import ArtifactSpec
from transforms.registry import register
from transforms.situations import view
from transforms.smalltalk import spoken_topic


# Thread wording is a grammar ({a|b} choices, <slot> names: people, the customer waiting, the
# topic, days), so one domain's channels do not repeat each other; a fact's words are put in
# untouched (`raw`).
_ASK = ["{Quick policy check|Quick one|Policy question|Sanity check}{ for a customer on hold| for <cust> on the line| "
        "— <cust> is waiting on chat| before I reply to <cust>|}: <q>",
        "{Customer|<cust>} {asking right now|on chat right now|wants to know}{ about <topic>|}: <q>",
        "{Can a policy owner confirm|Can someone confirm|<owner_first>, can you confirm}{ for <cust>|}? <q>",
        "<q> {Want|Need} to {make sure the macro is right|get <topic> right for <cust>|be sure before I answer <cust>}.",
        "{Getting this a lot today|Third one this {morning|week}|Another <topic> question}: <q>"]
_DRAFT_INTRO = ["{Posting|Sharing|Dropping} the {draft|working draft|proposal}{ on <topic>|} so {everyone can "
                "comment|you can all comment|people can weigh in} before {the review|<next>'s review}.",
                "For discussion {on <next>|at the review}{ — nothing is live yet|, nothing is live yet}.",
                "{Working notes|Notes} from the {pricing|policy} review{ on <topic>|}, comments {welcome|by <next> "
                "please}."]
_DRAFT_REPLIES = ["{Looks reasonable|Seems fine} from the floor{, <owner_first>|}.",
                  "Can we check this against {last quarter's numbers|what <topic> cases looked like last month}?",
                  "{Ops|Finance|The team leads} might push back on this one{ before <next>|}.",
                  "Thanks{, <owner_first>|}, will read before <next>."]
_LOOKING = ["{Checking|Pulling up|Looking at} {the policy doc|the <topic> section|the manual|the <topic> page}{, one sec| now|}"
            "{, <asker_first>|}.", "{Looking|On it|Checking now|Give me a minute}, <asker_first>{ — {one sec|pulling up "
            "the <topic> page|<cust> can hold a moment|bear with me}|}."]
_THANKS = ["{Perfect|Great|Brilliant|Lovely|Thanks|Thank you|Cheers|Super}, <owner_first> — {updating the {macro|<topic> "
           "macro} now|passing it on to <cust>|that's what I needed{ for <cust>|}|telling <cust> now|I'll note it on "
           "<cust>'s case|<cust> will be pleased|I'll let <cust> know{ straight away|}}{.|!}",
           "{Thank you|Thanks|Cheers|Much appreciated}{, <owner_first>|} — {<cust> has {the answer|it} now|that clears up "
           "<topic>{ for <cust>|}|I was {stuck|going round in circles} on <topic>}{!|.}"]
_HOLD = ["{Let's not quote anything on that|Please don't quote that to customers|Hold off on quoting that} until "
         "{the review|I've checked|<next>}{, I'll confirm| — I'll confirm in this thread|}."]
_REACT = ["white_check_mark", "+1", "pray", "eyes", "raised_hands", "100"]


def _uid(name: str, salt: str) -> str:
    h = sha256_hex(f"{salt}:{name}").upper()
    return "U0" + "".join(c for c in h if c.isalnum())[:9]


@register
class TeamChat(Transformer):
    family = "conversations"
    kind = "team_chat"
    ext = ".json"
    modality = "json"
    max_facts = 6
    weight = 2.0
    description = "Team chat channel export (Slack-like JSON): threads, replies, reactions, decisions."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("team-chat")
        w, pack = ctx.writer, ctx.pack
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        agents = RC.staff(ctx, rng, "agent", 3)
        owners = RC.staff(ctx, rng, "manager", 1, exclude=tuple(agents))
        others = RC.staff(ctx, rng, "agent", 2, exclude=tuple(agents + owners))
        people = agents + owners + others
        salt = f"{pack.name}:{RC.brand_short(pack)}"
        uid = {p: _uid(p, salt) for p in people}
        titles = {p: "Customer Support" for p in agents + others}
        titles.update({p: "Operations Manager" for p in owners})
        titles[agents[0]] = "Support Team Lead"
        owner = owners[0]

        # old values are posted as drafts in earlier threads (also those of facts carried elsewhere)
        drafts = [(it.fact, d) for it in its for d in it.superseded] + [(f, d) for f, d in orphans if d.role == "superseded"]
        sup_days = {id(d): CK.earlier_day(d, day, rng, 4, 30) for _f, d in drafts}
        back = rng.randint(10, 20) + (spec.size or 0) // 3
        first_day = min([day - dt.timedelta(days=back)] + list(sup_days.values()))
        span = max(1, (day - first_day).days)
        threads: list[tuple[dt.datetime, list[tuple[str, str]], list[str]]] = []  # (start, [(who, text)], reactions)

        avoid = [d.text for d in spec.distractors]

        def noise_thread(on: dt.date) -> None:
            cast = rng.sample(people, 3)
            th = HS.internal_thread(ctx, rng, people=cast, channel="team_chat", avoid=avoid,
                                   follow_ups=rng.choice([0, 1, 2, 3, 4, 5]) if spec.size else 0)
            msgs = [(t.who, t.text) for t in th.turns if t.who in uid]
            threads.append((CK.office_time(pack, on, rng, 8, 17), msgs, rng.sample(_REACT, rng.randint(0, 2))))

        nxt = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"][(day.weekday() + rng.randint(1, 3)) % 5]
        who_waits = [c.first for c in view(ctx.db).customers] or ["the customer"]

        def line(pool: list[str], asker: str = "", fact=None, **raw: str) -> str:
            slots = {"owner_first": RC.first(owner), "asker_first": RC.first(asker or rng.choice(agents)),
                     "cust": rng.choice(who_waits), "next": nxt,
                     "topic": spoken_topic(headings.topic_of(fact)) if fact is not None else "this"}
            return say(rng.choice(pool), rng, slots, raw=raw)

        for fact, d in drafts:
            on = sup_days[id(d)]
            msgs = [(owner, line(_DRAFT_INTRO, fact=fact) + " " + C.hedged(ctx, fact, d, rng, on=on,
                                                                          register="team_chat"))]
            for _ in range(rng.randint(1, 2)):
                msgs.append((rng.choice(agents + others), line(_DRAFT_REPLIES, fact=fact)))
            threads.append((CK.office_time(pack, on, rng, 9, 16), msgs, rng.sample(["eyes", "thinking_face"], 1)))
        peer = [it for it in its if it.role == "stale" and it.stale is not None and it.stale.resolution == "authority"]
        its = [it for it in its if it not in peer]
        for it in peer:  # a colleague answers another with a wrong figure; no policy owner in the thread
            asker = rng.choice(agents)
            other = rng.choice([p for p in agents + others if p != asker])
            msgs = [(asker, line(_ASK, asker, it.fact, q=w.question(it.fact, rng, register="team_chat"))),
                    (other, C.authoritative(ctx, it, rng, after_wrong=False, register="team_chat")),
                    (asker, line(_THANKS, asker, it.fact).replace(RC.first(owner), RC.first(other)))]
            threads.append((CK.office_time(pack, day - dt.timedelta(days=rng.randint(0, 3)), rng, 9, 17), msgs,
                            ["+1"]))
        groups = C.split_groups(its, rng, 1, 1) if rng.random() < 0.5 else C.split_groups(its, rng, 1, 2)
        for g in groups:
            back = rng.randint(0, 1) if len(groups) > 2 and not any(it.superseded for it in g) else 0
            if any(it.stale is not None and it.stale.resolution in ("date", "version") for it in g):
                back = 0  # an old value the file's date resolves is posted on that date, which the file shows
            on = day - dt.timedelta(days=back)
            asker = rng.choice(agents)
            question = " ".join(w.question(it.fact, rng, register="team_chat") for it in g)
            msgs = [(asker, line(_ASK, asker, g[0].fact, q=question))]
            for it in g:
                for d in it.wrong:
                    msgs.append((rng.choice([p for p in agents + others if p != asker]),
                                 C.hedged(ctx, it.fact, d, rng, role="colleague", register="team_chat")))
            if rng.random() < 0.5:
                msgs.append((owner, line(_LOOKING, asker, g[0].fact)))
            # full answers: a channel export interleaves threads in time order, so a bare figure
            # could land far from its question; one reply per question asked, so a figure is never
            # read as the case of the sentence before it ("Camping and hiking has a label charge of
            # $7.99. The restocking fee is zero percent", the second for another category)
            for it in g:
                msgs.append((owner, C.reply(ctx, it, rng, after_wrong=bool(it.distractors), register="team_chat")))
            msgs.append((asker, line(_THANKS, asker, g[0].fact)))
            threads.append((CK.office_time(pack, on, rng, 9, 17), msgs, ["white_check_mark"]))
        for fact, d in [(f, d) for f, d in orphans if d.role != "superseded"]:
            asker = rng.choice(agents)
            threads.append((CK.office_time(pack, day, rng, 9, 17),
                            [(asker, C.hedged(ctx, fact, d, rng, role="colleague", register="team_chat")),
                             (owner, line(_HOLD, asker, fact))], ["eyes"]))
        want = spec.size or (rng.randint(4, 8) + (6 if not its else 0) + len(threads))
        while len(threads) < want:
            noise_thread(first_day + dt.timedelta(days=rng.randint(0, span)))

        messages = self._messages(threads, uid, rng, people)
        channel_name = rng.choice(["support-policy", "support-leads", "cx-policy-questions", "frontline-help"])
        export = {
            "export": {"workspace": pack.brand.company, "format": "slack-style channel export v1",
                       "timezone": pack.info.timezone,
                       "range": {"from": first_day.isoformat(), "to": day.isoformat()},
                       "message_count": len(messages)},
            "channel": {"id": "C0" + sha256_hex(f"{salt}:{channel_name}").upper()[:9], "name": channel_name,
                        "created": f"{int(CK.at(pack, first_day - dt.timedelta(days=400), 9).timestamp())}",
                        "creator": uid[owner],
                        "topic": {"value": f"Policy questions for {pack.brand.company} support. Ask in a thread."},
                        "purpose": {"value": "Where frontline staff ask policy questions and policy owners answer. "
                                             "An answer from a policy owner in this channel is the current rule."},
                        "members": [uid[p] for p in people]},
            "users": [{"id": uid[p], "name": RC.handle(p), "real_name": p, "deleted": False, "is_bot": False,
                       "profile": {"real_name": p, "display_name": RC.first(p), "title": titles[p],
                                   "email": w.email(p)}} for p in people],
            "messages": messages,
        }
        out.write_text(json.dumps(export, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @staticmethod
    def _messages(threads, uid, rng: random.Random, people: list[str]) -> list[dict]:
        flat: list[dict] = []
        seq = 0
        for start, msgs, reactions in sorted(threads, key=lambda t: t[0]):
            t = start
            parent_ts = None
            parent: dict = {}
            for i, (who, text) in enumerate(msgs):
                if i:
                    t += dt.timedelta(seconds=rng.randint(40, 1500))
                seq += 1
                ts = f"{int(t.timestamp())}.{seq:06d}"
                m = {"type": "message", "client_msg_id": sha256_hex(f"{ts}:{who}")[:32], "ts": ts,
                     "user": uid[who], "user_profile": {"real_name": who, "display_name": RC.first(who)},
                     "text": text}
                if i == 0:
                    parent_ts, parent = ts, m
                    if reactions:
                        m["reactions"] = [{"name": r, "users": rng.sample([uid[p] for p in people], k),
                                           "count": k} for r in reactions for k in [rng.randint(1, 3)]]
                else:
                    m["thread_ts"] = parent_ts
                    m["parent_user_id"] = parent["user"]
                flat.append(m)
            if len(msgs) > 1:
                parent["thread_ts"] = parent_ts
                replies = [m for m in flat if m.get("thread_ts") == parent_ts and m is not parent]
                parent["reply_count"] = len(replies)
                parent["reply_users"] = sorted({m["user"] for m in replies})
                parent["latest_reply"] = replies[-1]["ts"]
                parent["replies"] = [{"user": m["user"], "ts": m["ts"]} for m in replies]
        return sorted(flat, key=lambda m: tuple(int(x) for x in m["ts"].split(".")))

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_chat_export(path), extractor="json-chat-export")
