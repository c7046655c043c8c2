"""E-mail thread (.eml): one RFC 5322 message, the latest reply of a thread of 5 to 25
messages (the planner's `size`), whose body quotes the earlier ones the way mail clients do (inline/bottom-posted,
one more ">" per level, "On <date>, <name> wrote:" attributions), with a text/html
alternative using nested blockquotes. Threading headers (Message-ID, In-Reply-To,
References) are derived from the spec, so the file is reproducible.

Two shapes: an internal policy thread (a colleague asks, a draft/proposal dated earlier is
superseded, the policy owner sends the final decision) and a customer thread (questions,
an auto-acknowledgement, the agent's answer). Wrong values stated in a thread that carries
the fact appear in earlier, quoted messages, and the authoritative statements in the final,
unquoted message. An old thread may state an old value plainly (it was current then: the
thread's date tells), or carry a proposal that was never adopted. Long threads are mostly
routine: earlier exchanges with the same customer about their records, or a team's running
thread where each reply takes up another item (`transforms.haystack`)."""
from __future__ import annotations

import datetime as dt
import html
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

from facts.hashing import sha256_hex
from transforms import clock as CK, common as C, haystack as H, haystack_staff as HS, headings, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_eml
from transforms.grammar import say
from transforms.plan import ArtifactSpec
from transforms.registry import register
from transforms.smalltalk import spoken_topic


@dataclass
class _Mail:
    when: dt.datetime
    sender: str
    addr: str
    to: list[tuple[str, str]]
    paragraphs: list[str]
    signature: list[str]


# Thread wording is a grammar (`say`) over the thread's people, topic, customer record and days,
# so one domain's threads do not repeat each other; a fact's own words are never edited.
_ASK_INTERNAL = ["{We're getting more questions on <topic>|<cust> and others asked about <topic> this week|The <queue> "
                 "queue keeps asking about <topic>} and {the macros don't agree|the knowledge base is unclear|two of our "
                 "macros contradict each other}{ — can|; can} {someone|you, <owner_first>,} confirm the current rules?",
                 "Before I update the {help centre article|<topic> article|<topic> macro}{ on <wday>|}, can we confirm "
                 "the following{, <owner_first>|}?",
                 "{A few|Several|Two} customers pushed back {this week|on <wday>|on the <queue> queue} about <topic>, so "
                 "I want to make sure we're consistent{ — questions below|; my questions are below|}."]
_FINAL_LEADS = ["{Thanks {everyone|both of you|<asker_first> and <helper_first>} for the input|Closing the loop on "
                "<topic>|Signed off with {compliance|the policy team} {this morning|on <wday>}}{ —|;} {final decision "
                "below, effective {immediately|from <date>}|the approved rules are below|please treat the following as "
                "current}{, and please use this wording with customers|}:"]
_KB_UPDATE = ["{I'll update|<helper_first> will update|I've asked <helper_first> to update} the {knowledge base "
              "article|<topic> article|<topic> macros} {today|by <wday>|before the <wday> huddle}{, <asker_first>|}."]
_REVIEW = ["{Thanks|Thanks, <asker_first>}{,| —} I'll take <topic> to the {policy review|<wday> review}{ and report back|}.",
           "Looping in {ops|<owner_first>} so they see {this|the <topic> question}{ before <wday>|}.",
           "Adding <topic> to {<wday>'s agenda|the agenda for the <wday> review}{, <asker_first>|}.",
           "Agree we need one answer on <topic>{, <asker_first>|}{ — let me check with finance| — I'll check with "
           "<owner_first>|}."]
_CUST_ASK = ["{I have a couple of questions|I'm hoping you can clear something up for me|I couldn't find a clear answer "
             "on your website} about <thing>{, so I'm writing in| before <wday>|}.",
             "I'm writing about <thing>{ — I have {a couple of|two} questions| as I'm not sure how it works|}."]
_AUTO = ("Thank you for contacting {company}. Your request has been received and assigned case number "
         "{case}. A member of our team will reply within one business day. Please keep the case number in "
         "the subject line if you write again.")
_HOLDING = ["Thanks for your email about <thing>{, <cust_first>|} — I'm checking the details with {our policy team|a "
            "colleague} and will {get back to you|reply} {shortly|by <wday>|tomorrow}.",
            "Thanks for waiting{, <cust_first>|}: I want to give you an exact answer on <thing>, so I'm confirming "
            "with {a colleague|our policy team}{ today| and will reply by <wday>|}."]
_CUST_CHASE = ["Any update on {this|my question about <thing>}{, <agent_first>|}?", "Just following up on my question "
               "{below|about <thing>}{ from <wday>|}.", "Hi again{, <agent_first>|} — {wanted to check if there's news|is "
               "there any news} on <thing>{?|.}"]
_CUST_ANSWER_LEADS = ["{Thanks for your patience|Sorry for the wait|Thanks for bearing with us}{ while I checked <thing>|"
                      ", <cust_first>| on <thing>}{ — here's what applies| — this is what I confirmed| — the answers are "
                      "below| — I've confirmed the following}:"]


def _yours(thing: str) -> str:
    """The customer's "my account" as the agent says it: "your account"."""
    return "your" + thing[2:] if thing.startswith("my ") else thing


def _signature(ctx: RenderContext, name: str, title: str, internal: bool) -> list[str]:
    b = ctx.pack.brand
    lines = [name, f"{title} | {b.company}"]
    contact = " | ".join(x for x in (b.phone, b.website) if x)
    if contact:
        lines.append(contact)
    if not internal and b.tagline:
        lines.append(b.tagline)
    return lines


def _quote(lines: list[str]) -> list[str]:
    return [(">" + line) if line.startswith(">") else ("> " + line if line else ">") for line in lines]


def _when(t: dt.datetime) -> str:
    return f"{t:%a}, {t.day} {t:%b %Y} at {t:%H:%M}"


def _plain(chain: list[_Mail], signed: bool = True) -> str:
    """Body of the last mail of `chain`, quoting the earlier ones bottom-posted (quoted
    signatures trimmed, as people do)."""
    m = chain[-1]
    own: list[str] = []
    for p in m.paragraphs:
        own += [p, ""]
    if signed:
        own += ["-- ", *m.signature]
    else:
        own = own[:-1]
    if len(chain) == 1:
        return "\n".join(own)
    prev = chain[-2]
    attribution = f"On {_when(prev.when)}, {prev.sender} <{prev.addr}> wrote:"
    quoted = _quote(_plain(chain[:-1], signed=False).split("\n"))
    return "\n".join([attribution, *quoted, "", *own])


def _html(chain: list[_Mail], company: str) -> str:
    def body(ms: list[_Mail], signed: bool) -> str:
        m = ms[-1]
        own = "".join(f"<p>{html.escape(p)}</p>".replace("\n", "<br>") for p in m.paragraphs)
        if signed:
            sig = "<br>".join(html.escape(s) for s in m.signature)
            own += f'<p style="color:#555;font-size:12px">-- <br>{sig}</p>'
        if len(ms) == 1:
            return own
        prev = ms[-2]
        attribution = html.escape(f"On {_when(prev.when)}, {prev.sender} <{prev.addr}> wrote:")
        return (f'<div class="attr">{attribution}</div>'
                f'<blockquote style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex">'
                f"{body(ms[:-1], False)}</blockquote>{own}")

    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(company)}</title></head><body style=\"font-family:Arial,sans-serif;font-size:14px\">"
            f"{body(chain, True)}</body></html>\n")


@register
class EmailThread(Transformer):
    family = "conversations"
    kind = "email_thread"
    ext = ".eml"
    modality = "eml"
    max_facts = 4
    weight = 2.5
    description = "E-mail thread (.eml): latest reply quoting 3-10 earlier messages, plain text + HTML."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("email")
        its, orphans = C.items(spec, ctx)
        internal = rng.random() < 0.5 or any(it.superseded for it in its)
        if internal:
            chain, subject = self._internal(spec, ctx, rng, its, orphans)
        else:
            chain, subject = self._customer(spec, ctx, rng, its, orphans)
        self._write(spec, ctx, _trim(chain, spec, ctx), subject, out)

    # --- thread shapes -----------------------------------------------------------------
    def _internal(self, spec, ctx, rng, its, orphans):
        w = ctx.writer
        day = CK.spec_date(spec)
        asker, helper = RC.staff(ctx, rng, "agent", 2)
        owner = RC.staff(ctx, rng, "manager", 1, exclude=(asker, helper))[0]
        addr = {n: w.email(n) for n in (asker, helper, owner)}
        sig = {asker: _signature(ctx, asker, "Customer Support", True),
               helper: _signature(ctx, helper, "Support Team Lead", True),
               owner: _signature(ctx, owner, "Operations Manager", True)}
        facts = [it.fact for it in its]
        subject = w.subject(facts, rng).removeprefix("Re: ").removeprefix("Fwd: ")
        sup_days = [CK.earlier_day(d, day, rng, 4, 30) for it in its for d in it.superseded]
        start = min([day - dt.timedelta(days=rng.randint(2, 6))] + [d - dt.timedelta(days=rng.randint(1, 3)) for d in sup_days])
        mails: list[_Mail] = []

        def mail(when_day, sender, to, paras):
            t = CK.office_time(ctx.pack, when_day, rng, 8, 17)
            if mails and t <= mails[-1].when:
                t = mails[-1].when + dt.timedelta(minutes=rng.randint(7, 180))
            mails.append(_Mail(t, sender, addr[sender], [(n, addr[n]) for n in to], paras, sig[sender]))

        avoid = [d.text for d in spec.distractors]
        people = [asker, helper, owner]
        if not its:
            subject = None
            stray = [C.hedged(ctx, f, d, rng, role="colleague", on=start, register="staff_email") for f, d in orphans]
            want = spec.size or 4
            first = True
            span = max(2, want // 2)
            t0 = day - dt.timedelta(days=span)
            while len(mails) < want:
                th = HS.internal_thread(ctx, rng, people=people, channel="email", avoid=avoid)
                subject = subject or th.subject
                for i, t in enumerate(th.turns):
                    paras = t.text.split("\n\n")
                    if first and i == 0 and stray:
                        paras = paras[:-1] + stray + paras[-1:]
                    if not first and i == 0:
                        paras = [rng.choice(["Different topic, same thread:", "Adding one more item here:",
                                             "While we're on this thread:", "Next item:"])] + paras
                    to = [p for p in people if p != t.who]
                    frac = len(mails) / max(want, 1)
                    mail(t0 + dt.timedelta(days=int(frac * span)) if len(mails) < want - 1 else day, t.who, to, paras)
                first = False
            return mails, subject
        current = [it for it in its if it.role != "stale"]
        stale = [it for it in its if it.role == "stale"]
        if not current:
            return self._internal_stale(spec, ctx, rng, stale, people, addr, sig, mails, mail, day, start)
        self._pad_internal(ctx, rng, spec, mails, mail, people, avoid, start, 3 + len(stale))
        for it in stale:  # an older figure or a proposal of another rule, earlier in the thread
            who = helper if it.stale is not None and it.stale.role == "proposal" else owner
            mail(start, who, [p for p in people if p != who],
                 [w.greeting(rng, "colleague"), C.authoritative(ctx, it, rng, after_wrong=False, register="staff_email")])
        its = current

        g = {"topic": spoken_topic(headings.topic_of(its[0].fact)), "owner_first": RC.first(owner), "asker_first": RC.first(asker),
             "helper_first": RC.first(helper), "wday": f"{day:%A}", "date": f"{day:%B} {day.day}",
             "queue": rng.choice(["chat", "phone", "email", "branch"]),
             "cust": RC.first(RC.pick_customer(ctx, rng).name)}
        ask = [w.greeting(rng, "colleague", name=owner), say(rng.choice(_ASK_INTERNAL), rng, g)]
        qs = [w.question(it.fact, rng, register='staff_email') for it in its]
        ask += [f"{i + 1}. {q}" for i, q in enumerate(qs)]
        ask += [C.hedged(ctx, it.fact, d, rng, role="colleague", register="staff_email") for it in its for d in it.wrong]
        ask += [C.hedged(ctx, f, d, rng, role="colleague", on=start, register="staff_email") for f, d in orphans]
        ask.append(w.closing(rng, "colleague", name=owner))
        mail(start, asker, [owner, helper], ask)
        mail(start, helper, [asker, owner], [f"Hi {RC.first(asker)},", say(rng.choice(_REVIEW), rng, g)])
        k = 0
        for it in its:
            for d in it.superseded:
                mail(sup_days[k], owner, [asker, helper],
                     ["Hi all,", rng.choice(["Notes from the policy review below; nothing is final yet:",
                                              "Sharing where the working group landed so far, for comments:"]),
                      C.hedged(ctx, it.fact, d, rng, on=sup_days[k], register="staff_email"),
                      "Comments welcome by end of week."])
                k += 1
                if rng.random() < 0.6:
                    mail(sup_days[k - 1], helper, [owner, asker], [f"Hi {RC.first(owner)},", rng.choice(
                        ["Looks fine from the support side.", "Ops may push back on this one, flagging early.",
                         "Can we check the numbers against last quarter?"])])
        nudges = ["Any news on this? Customers are still asking.", "Gentle nudge on the question above.",
                  "Did this get discussed at the review?"]
        for who, text in zip((asker, helper), rng.sample(nudges, rng.randint(0, 2))):
            mail(day - dt.timedelta(days=1), who, [owner], [f"Hi {RC.first(owner)},", text])
        final = [f"Hi {RC.first(asker)}, hi {RC.first(helper)},", say(rng.choice(_FINAL_LEADS), rng, g)]
        final += _answers(ctx, rng, its, qs, "staff_email")
        final += [say(rng.choice(_KB_UPDATE), rng, g), w.closing(rng, "colleague", name=RC.first(asker))]
        mail(day, owner, [asker, helper], final)
        return mails, subject

    def _customer(self, spec, ctx, rng, its, orphans):
        w, b = ctx.writer, ctx.pack.brand
        day = CK.spec_date(spec)
        agent = RC.staff(ctx, rng, "agent", 1)[0]
        talk = C.speaker(ctx, rng, name=agent)
        cust = RC.Person(talk.customer.name, talk.customer.id) if talk.customer else RC.pick_customer(ctx, rng)
        support = f"support@{b.email_domain}"
        caddr = (talk.customer.email if talk.customer and talk.customer.email else w.email(cust.name, internal=False))
        case = f"{RC.id_prefix(ctx.pack, 'case', 'ticket')}-{rng.randint(100000, 999999)}"
        addr = {cust.name: caddr, agent: support, "auto": support}
        ex_cust = talk.customer or H.customer_of(ctx, cust.name, cust.ref, caddr)  # the routine talk is theirs
        sig = {cust.name: [cust.name], agent: _signature(ctx, agent, "Customer Support", False),
               "auto": [f"{b.company} Customer Support"]}
        start = day - dt.timedelta(days=rng.randint(1, 4))
        mails: list[_Mail] = []
        facts = [it.fact for it in its]
        subject = (w.subject(facts, rng).removeprefix("Re: ").removeprefix("Fwd: ") if its
                   else rng.choice(["Question about my account", "Receipt", "Help please"]))

        def mail(when_day, sender, paras, display=None):
            t = CK.office_time(ctx.pack, when_day, rng, 7, 20)
            if mails and t <= mails[-1].when:
                t = mails[-1].when + dt.timedelta(minutes=rng.randint(2, 240))
            to = [(f"{b.company} Support", support)] if sender == cust.name else [(cust.name, caddr)]
            name = display or sender
            mails.append(_Mail(t, name, addr[sender], to, paras, sig[sender]))

        avoid = [d.text for d in spec.distractors]
        disp = f"{agent} ({b.company} Support)"

        def exchange(first_day, last_day, stray=(), lead=None):
            ex = H.customer_exchange(ctx, rng, channel="email", customer=ex_cust, record=talk.record,
                                     agent=agent, avoid=avoid)
            for i, t in enumerate(ex.turns):
                paras = t.text.split("\n\n")
                if i == 0 and stray:
                    paras = paras[:-1] + list(stray) + paras[-1:]
                if i == 0 and lead:
                    paras = [lead] + paras
                who = cust.name if t.role == "customer" else agent
                mail(first_day if i == 0 else last_day, who, paras, display=None if t.role == "customer" else disp)
                if i == 0 and not mails[:-1]:
                    mail(first_day, "auto", [_AUTO.format(company=b.company, case=case)], display=f"{b.company} Support")
            return ex

        want = spec.size or 4
        if not its:
            stray = [C.hedged(ctx, f, d, rng, role="customer", on=start, register="customer_email", context=talk)
                     for f, d in orphans]
            span = max(2, want // 2)
            t0 = day - dt.timedelta(days=span)
            ex = exchange(t0, t0 + dt.timedelta(days=1), stray)
            while len(mails) < want:
                frac = len(mails) / max(want, 1)
                d0 = t0 + dt.timedelta(days=int(frac * span))
                exchange(d0, min(day, d0 + dt.timedelta(days=1)), lead=rng.choice(
                    ["Hi again, something else on my account:", "Sorry, one more question while this is open.",
                     "Hello, replying here since it's the same account.", "Hi, a different question this time."]))
            return mails, ex.subject
        # earlier, routine exchanges in the same thread (the planner's size)
        pad = max(0, want - 3)
        if pad >= 2:
            t0 = start - dt.timedelta(days=max(2, pad // 2))
            while len(mails) < pad:
                exchange(t0, start - dt.timedelta(days=1))
                t0 = t0 + dt.timedelta(days=1)

        g = {"thing": H.record_name(talk.record, rng) if talk.record is not None else "my account",
             "cust_first": RC.first(cust.name), "agent_first": RC.first(agent), "wday": f"{day:%A}"}
        ask = ["Hello,", say(rng.choice(_CUST_ASK), rng, g)] if not mails else [rng.choice(
            ["Hello again,", "Hi again,", "Hello,"]), say(rng.choice(["Different question this time, about <thing>.",
                                                                     *_CUST_ASK]), rng, g)]
        qs = [w.question(it.fact, rng, talk.customer, talk.record if i == 0 else None) for i, it in enumerate(its)]
        ask += qs
        ask += [C.hedged(ctx, it.fact, d, rng, role="customer", register="customer_email", context=talk)
                for it in its for d in it.wrong]
        ask += [C.hedged(ctx, f, d, rng, role="customer", on=start, register="customer_email", context=talk)
                for f, d in orphans]
        ask.append(f"Thanks,\n{RC.first(cust.name)}")
        had = bool(mails)
        mail(start, cust.name, ask)
        if not had:
            mail(start, "auto", [_AUTO.format(company=b.company, case=case)], display=f"{b.company} Support")
        if rng.random() < 0.7:
            mail(start + dt.timedelta(days=1), agent, [f"Hi {RC.first(cust.name)},",
                                                        say(rng.choice(_HOLDING), rng, {**g, "thing": _yours(g["thing"])})],
                 display=disp)
            if rng.random() < 0.5:
                mail(day, cust.name, [say(rng.choice(_CUST_CHASE), rng, g), RC.first(cust.name)])
        final = [f"Hi {RC.first(cust.name)},", say(rng.choice(_CUST_ANSWER_LEADS), rng, {**g, "thing": _yours(g["thing"])})]
        final += _answers(ctx, rng, its, qs, "customer_email", talk)
        final.append(w.closing(rng, "agent", name=cust.name))
        mail(day, agent, final, display=disp)
        subject = f"[{case}] {subject}"
        return mails, subject

    def _pad_internal(self, ctx, rng, spec, mails, mail, people, avoid, start, fact_mails):
        """Routine replies of the team's running thread before the question (the planner's size)."""
        want = max(0, (spec.size or 0) - fact_mails)
        if want < 1:
            return
        t0 = start - dt.timedelta(days=max(3, want // 2))
        first = True
        while len(mails) < want:
            th = HS.internal_thread(ctx, rng, people=people, channel="email", avoid=avoid)
            for i, t in enumerate(th.turns):
                paras = t.text.split("\n\n")
                if not first and i == 0:
                    paras = [rng.choice(["Next item:", "Another one for this thread:", "Separate point:"])] + paras
                mail(t0, t.who, [p for p in people if p != t.who], paras)
            first = False
            t0 = min(start - dt.timedelta(days=1), t0 + dt.timedelta(days=1))

    def _internal_stale(self, spec, ctx, rng, stale, people, addr, sig, mails, mail, day, start):
        """An older thread that states a figure current at the time (its date tells it is old), or a
        proposal someone made that was not adopted; routine replies around it."""
        w = ctx.writer
        asker, helper, owner = people
        avoid = [d.text for d in spec.distractors]
        self._pad_internal(ctx, rng, spec, mails, mail, people, avoid, start, 2 + len(stale))
        subject = w.subject([it.fact for it in stale], rng).removeprefix("Re: ").removeprefix("Fwd: ")
        for it in stale:
            text = C.authoritative(ctx, it, rng, after_wrong=False, register="staff_email")
            if it.stale is not None and it.stale.role == "proposal":
                who = rng.choice([asker, helper])
                mail(start, who, [p for p in people if p != who],
                     [w.greeting(rng, "colleague", name=owner), text, w.closing(rng, "colleague", name=owner)])
                mail(day, owner, [asker, helper], [f"Hi {RC.first(who)},", rng.choice(
                    ["Thanks, I'll take it to the next review.", "Noted. Let's look at the numbers first.",
                     "Parking this until finance has had a look."])])
            else:
                mail(start, asker, [owner, helper], [w.greeting(rng, "colleague", name=owner),
                                                     w.question(it.fact, rng, register="staff_email")])
                mail(day, owner, [asker, helper], [f"Hi {RC.first(asker)},", text,
                                                   w.closing(rng, "colleague", name=RC.first(asker))])
        return mails, subject

    # --- the file --------------------------------------------------------------------------
    def _write(self, spec: ArtifactSpec, ctx: RenderContext, chain: list[_Mail], subject: str, out: Path) -> None:
        domain = ctx.pack.brand.email_domain
        ids = [f"<{sha256_hex(f'{spec.id}:{spec.seed}:{i}')[:24]}@{domain}>" for i in range(len(chain))]
        last = chain[-1]
        msg = EmailMessage(policy=policy.SMTP)
        msg["From"] = formataddr((last.sender, last.addr))
        msg["To"] = ", ".join(formataddr(t) for t in last.to[:1])
        if len(last.to) > 1:
            msg["Cc"] = ", ".join(formataddr(t) for t in last.to[1:])
        msg["Subject"] = f"Re: {subject}"
        msg["Date"] = format_datetime(last.when)
        msg["Message-ID"] = ids[-1]
        msg["In-Reply-To"] = ids[-2]
        msg["References"] = " ".join(ids[:-1])
        msg["Organization"] = ctx.pack.brand.company
        msg["Content-Language"] = "en-US"
        msg.set_content(_plain(chain) + "\n", subtype="plain", charset="utf-8", cte="quoted-printable")
        msg.add_alternative(_html(chain, ctx.pack.brand.company), subtype="html", charset="utf-8",
                            cte="quoted-printable")
        for part in msg.iter_parts():
            del part["MIME-Version"]
        msg.set_boundary(f"=_part_{sha256_hex(f'{spec.id}:{spec.seed}:boundary')[:20]}")
        out.write_bytes(msg.as_bytes(policy=policy.SMTP))

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_eml(path), extractor="email-parser")


INLINE_RATE = 0.85


def _answers(ctx, rng, its, questions: list[str], register: str, context=None) -> list[str]:
    """The paragraphs answering the thread's questions: usually each full answer in turn; often
    (`INLINE_RATE`) answered inline, as people answer a list of questions: each question quoted
    ("> ...") and the answer under it, which then names only what the question did not (the
    bare figure and its case, `common.answer`: the quote right above it carries the rest)."""
    if rng.random() >= INLINE_RATE:
        return [C.reply(ctx, it, rng, after_wrong=bool(it.distractors), register=register, context=context)
                for it in its]
    out = []
    for it, q in zip(its, questions):
        out += [f"> {q}", C.answer(ctx, it, rng, q, after_wrong=bool(it.distractors), register=register,
                                   context=context, gap=8)]
    return out


MAX_MESSAGES = 25


def _trim(chain: list[_Mail], spec: ArtifactSpec, ctx: RenderContext) -> list[_Mail]:
    """A thread of at most `MAX_MESSAGES`: routine exchanges are written whole, so the padding
    can overshoot the planner's size; the oldest mails that carry nothing planned (no wrong
    value, none of the file's facts' values) go first, as if the thread had started later
    (an auto-reply left at the top goes with them)."""
    planned = [d.text for d in spec.distractors if d.text]
    facts = ctx.facts
    for m in spec.facts:
        f = facts.get(m.fact_id)
        if f is not None:
            planned += [sl.text for sl in f.slots if sl.text]
    out = list(chain)
    i = 0
    while len(out) > MAX_MESSAGES and i < len(out) - 1:
        body = " ".join(out[i].paragraphs)
        if any(t in body for t in planned):
            i += 1
            continue
        del out[i]
        while i == 0 and len(out) > 1 and out[0].paragraphs[:1] and out[0].paragraphs[0].startswith(_AUTO[:30]):
            del out[0]
    return out
