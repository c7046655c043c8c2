"""Case ledger (.csv): the case export a support desk pulls from its CRM: one row per case,
in the order cases were opened: id, timestamps, customer (from the seed database when it
has people), category, channel, status, amount, the agent's resolution note, the policy
reference and the agent.

Fact-bearing cases carry the fact in the resolution note (with the amount in its own column
when the fact is about money) and cite the policy section. Cases where a customer quoted a
wrong value, or that were handled under an old rule, are dated earlier. Most rows are
ordinary cases (contact changes, receipts, duplicates, log-in trouble), their notes written by
`transforms.haystack_cases.case_entry` from the customer's own records."""
from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

from facts.models import SlotType
from transforms import clock as CK, common as C, haystack_cases as HC, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_csv
from transforms.plan import ArtifactSpec
from transforms.registry import register


_CHANNELS = ["Phone", "Email", "Web chat", "In person", "Web form"]
_ADVISED = ["Advised customer: ", "Explained to customer: ", "Confirmed with customer: ", "Customer informed: ", ""]


# The desk's own case categories (the CRM's taxonomy, the one its everyday cases are filed
# under: `transforms.haystack`), not the policy manual's section titles.
_DESK_CATEGORIES = {"money": ["Charges"], "other": ["Account change", "Service request", "General"]}


def _category(fact, rng) -> str:
    """The CRM category a desk files a fact's case under: a fee, a refund or a rate under
    charges, anything else under account changes, service requests or general."""
    money = any(s.type in (SlotType.money, SlotType.percent) for s in fact.slots)
    return rng.choice(_DESK_CATEGORIES["money" if money else "other"])


@register
class CaseLedger(Transformer):
    family = "tables"
    kind = "case_ledger"
    ext = ".csv"
    modality = "csv"
    max_facts = 40
    weight = 1.0
    description = "Support case ledger export (CSV): cases with resolution notes citing policy."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("ledger")
        pack = ctx.pack
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        agents = RC.staff(ctx, rng, "agent", 4)
        rows: list[dict] = []  # each: opened (datetime), fields

        def case(opened: dt.datetime, category: str, status: str, note: str, amount: str = "",
                 ref: str = "", who=None) -> None:
            who = who or RC.pick_customer(ctx, rng)
            if status in ("Open", "Pending"):
                closed = None
            elif rng.random() < 0.7:
                closed = opened + dt.timedelta(minutes=rng.randint(4, 180))
            else:
                closed = CK.office_time(pack, opened.date() + dt.timedelta(days=rng.randint(1, 2)), rng)
            rows.append({"opened": opened, "closed": closed, "customer": who.name, "customer_id": who.ref,
                         "category": category, "channel": rng.choice(_CHANNELS), "status": status,
                         "amount": amount, "note": note, "ref": ref, "agent": rng.choice(agents)})

        talk = C.speaker(ctx, rng)
        for it in its:
            f = it.fact
            shown = C.shown_slot(it) if f.slots else None
            money = shown if shown is not None and shown.type == SlotType.money and \
                isinstance(shown.value, (int, float)) and shown.value_max is None else None
            amount = f"{float(money.value):.2f}" if money else ""
            if it.role == "case":  # the rule applied to one customer's record: the figure charged or allowed
                talk = C.speaker(ctx, rng)
                who = RC.Person(talk.customer.name, talk.customer.id) if talk.customer else None
                note = C.word(ctx, it, rng, register="ticket", context=talk)
                case(CK.office_time(pack, day - dt.timedelta(days=rng.randint(0, 20)), rng, 8, 18),
                     _category(f, rng), "Closed", note,
                     amount, who=who)
                continue
            for d in it.wrong:
                when = CK.office_time(pack, day - dt.timedelta(days=rng.randint(1, 12)), rng)
                case(when, _category(f, rng), "Closed - no change",
                     f'Customer queried this: "{C.hedged(ctx, f, d, rng, role="customer")}" '
                     "Explained the current policy.", ref=C.policy_ref(pack, f))
            for d in it.superseded:
                when = CK.office_time(pack, CK.earlier_day(d, day, rng, 3, 30), rng)
                case(when, _category(f, rng), "Closed", "Handled with the macro in force at the time. " +
                     C.hedged(ctx, f, d, rng, on=when.date()), ref=C.policy_ref(pack, f))
            note = rng.choice(_ADVISED) + C.authoritative(ctx, it, rng, after_wrong=False, register="ticket")
            case(CK.office_time(pack, day, rng, 8, 18), _category(f, rng), "Resolved", note, amount,
                 C.policy_ref(pack, f))
        for fact, d in orphans:
            if d.role == "superseded":
                when = CK.office_time(pack, CK.earlier_day(d, day, rng, 3, 30), rng)
                case(when, _category(fact, rng), "Closed", "Handled with the macro in force at the time. " +
                     C.hedged(ctx, fact, d, rng, on=when.date()), ref=C.policy_ref(pack, fact))
                continue
            when = CK.office_time(pack, day - dt.timedelta(days=rng.randint(0, 3)), rng)
            case(when, _category(fact, rng), "Open",
                 f'Customer states: "{C.hedged(ctx, fact, d, rng, role="customer")}" '
                 "Escalated to team lead for confirmation.")
        avoid = tuple(d.text for d in spec.distractors)
        n_noise = (max(10, spec.size - len(rows)) if spec.size else
                   rng.randint(18, 30) + (10 if not its else 0) + len(its))
        for _ in range(n_noise):
            opened = CK.office_time(pack, day - dt.timedelta(days=rng.randint(0, 30)), rng, 7, 19)
            recent = opened.date() >= day - dt.timedelta(days=3)  # only recent cases may still be open
            earlier = [r for r in rows if r.get("entry") is not None and r["opened"] < opened]
            if earlier and rng.random() < 0.05:  # the same customer wrote in again: merged into the first case
                orig = rng.choice(earlier)
                note = HC.duplicate_note(ctx, rng, orig["entry"], avoid=avoid)
                case(opened, orig["category"], "Closed", note, who=RC.Person(orig["customer"], orig["customer_id"]))
                rows[-1]["dup_of"] = orig
                continue
            cn = HC.case_entry(ctx, rng, open_ok=recent, avoid=avoid)
            case(opened, cn.category, cn.status, cn.text, who=RC.Person(cn.customer.name, cn.customer.id))
            rows[-1]["entry"] = cn
        rows.sort(key=lambda r: r["opened"])
        prefix = RC.id_prefix(pack, "case", "ticket")
        n, ids = rng.randint(20000, 80000), []
        for _ in rows:
            n += rng.randint(1, 9)  # other queues take numbers in between
            ids.append(f"{prefix}-{n}")
        buf = io.StringIO()
        wr = csv.writer(buf, lineterminator="\r\n")
        wr.writerow(["case_id", "opened_at", "closed_at", "customer", "customer_id", "category", "channel",
                     "status", "amount", "currency", "resolution_note", "policy_ref", "agent"])
        id_of = {id(r): ids[i] for i, r in enumerate(rows)}
        for i, r in enumerate(rows):
            note = r["note"].replace("{dup}", id_of[id(r["dup_of"])]) if "dup_of" in r else r["note"]
            wr.writerow([ids[i], f"{r['opened']:%Y-%m-%d %H:%M}", f"{r['closed']:%Y-%m-%d %H:%M}" if r["closed"] else "",
                         r["customer"], r["customer_id"], r["category"], r["channel"], r["status"], r["amount"],
                         pack.info.currency if r["amount"] else "", note, r["ref"], r["agent"]])
        out.write_bytes(buf.getvalue().encode("utf-8"))

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_csv(path), extractor="csv")
