"""documents/kb_article: a help-centre article exported as one HTML page.

Site navigation, breadcrumb, title, last-updated line, an "article history" notice (dated
old values, before the body), body sections with paragraphs and a summary table, an FAQ
accordion (customer misconceptions answered with the current rule), a related-articles
sidebar and a footer; CSS inline in the page, a small script, a hidden cookie template.
Extraction keeps visible text only.
"""
from __future__ import annotations

import datetime as dt
import random
from html import escape
from pathlib import Path
from typing import Optional

from facts.match import matches
from transforms.clock import fmt_date, spec_date
from transforms.common import Content, answer, catalog_view, cell, check_capacity, plan_content, shown_slot, shown_title
from transforms.headings import section_topic, topic_of

from .. import catalog as K
from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..extract.html import html_text
from ..grammar import say
from ..plan import ArtifactSpec
from ..reading import read
from ..registry import register
from ..situations import view


# Page wording is a grammar over the page's own topics (a section's short name, the catalog
# products it covers) and the brand: titles, intros and the "Related articles" box are drawn
# from the domain (its products, sections and records), not from a fixed list.
_TITLES = ["<topic>: what you need to know", "<topic> explained", "<topic>: rules and FAQs", "Understanding <topic_l>",
           "<topic>: common questions", "A guide to <topic_l>", "<topic>: the essentials", "Questions about <topic_l>"]
_TITLES_PRODUCTS = ["<p1>{ and <p2>|}: {fees, rates and limits|what you need to know|the figures|key terms}",
                    "{Fees, rates and limits|Key figures|Terms at a glance} for the <p1>{ and <p2>|}",
                    "{Comparing|Choosing between} the <p1> and the <p2>", "The <p1>{ and <p2>|}: {FAQs|questions answered}"]
_INTROS = ["{This article|This page} {explains|covers|sets out} {how <company> handles <topic_l>|the current <company> rules "
           "for <topic_l>|what applies to <topic_l>}{, and answers the questions we hear most often| and answers common "
           "questions| with examples| in plain words|}.",
           "{Here is|Below is|You'll find here} {everything you need to know|what you need to know|the detail} about "
           "<topic_l>{ at <company>|}{ — if your question is not answered below, our team is happy to help| and how "
           "it applies to your account|}.",
           "{We get a lot of questions|Customers often ask us} about <topic_l>{, so this page sums up the current rules| "
           "— this page sums them up| and this page answers the most common ones}.",
           "{Below|On this page} you'll find the current <company> rules for <topic_l>{, plus answers to common "
           "questions| and a summary table| and what to do if your case is different|}."]
_INTROS_PRODUCTS = ["{This article|This page} {covers|sets out|explains} the {fees, rates and limits|current figures|"
                    "terms} of the <p1>{ and the <p2>|}{, and answers common questions| in one place|}.",
                    "{Thinking about|Already have} the <p1>{ or the <p2>|}? {This page sets out|Here are} the {figures|"
                    "terms} that apply{ today| to it|}."]
_RELATED_PRODUCT = ["<p>: frequently asked questions", "Getting started with the <p>", "Is the <p> right for you?",
                    "The <p> at a glance", "Managing your <p> online", "Switching to the <p>",
                    "Fees and charges on the <p>", "Statements and documents for the <p>"]
_RELATED_TOPIC = ["<topic>: common questions", "<topic> explained", "<topic>: what's changed",
                  "<topic>: a step-by-step guide", "<topic>: how we can help"]
_RELATED_BRAND = ["<bp>: frequently asked questions", "Getting started with <bp>", "Troubleshooting <bp>",
                  "What's new in <bp>"]
_RELATED_RECORD = ["What does \u201c<status>\u201d mean on a <kind>?", "Why is my <kind> showing \u201c<status>\u201d?",
                   "Questions about a <kind>"]
_RELATED = ["How to update your payment method", "Contact {company} support", "Managing your account online",
            "Our privacy notice in plain words", "Accessibility at {company}", "How to make a complaint",
            "Opening hours and locations", "Keeping your account secure", "Updating your contact details"]
_NOISE = [("How to reset your password",
           ["Open the sign-in page and choose Forgot password.",
            "Enter the email address on your account. We send a reset link within a few minutes.",
            "Follow the link and choose a new password you have not used before.",
            "If the email does not arrive, check your spam folder or contact support."]),
          ("Updating your contact details",
           ["Sign in and open Profile from the account menu.",
            "Edit your phone number or email address and select Save.",
            "For security, we send a confirmation message to your previous email address.",
            "Changes to your legal name need a quick identity check by our team."]),
          ("Using the mobile app",
           ["Download the app from your device's app store and sign in with your usual details.",
            "Turn on notifications to hear about bookings, receipts and service updates.",
            "You can manage most requests in the app without calling us."])]
# Generic questions every help page ends with, worded from a grammar with the brand's own
# site and phone line (`say` with the page's slots).
_FAQ_GENERIC = [("{Where can I find|How do I get|Can I download} {my receipt|a copy of my receipt|an invoice|my "
                 "paperwork}{ for <thing>| about <topic_l>|}?", "{Receipts are|Every receipt is|Your documents are} in the "
                 "Account area{ on <website>| of the app|} under {History|Documents}, and we {email a copy|send a copy to "
                 "your inbox} after every {transaction|payment|change}."),
                ("{Can I talk to a person|How do I reach a real person|Is there a phone number}{ about <thing>| about "
                 "<topic_l>|}?", "{Yes — use|You can use|Please use} the chat button on this page or call <phone> "
                 "{during opening hours|<hours>}{; have <thing> to hand|; we'll ask for your <check>|}."),
                ("{What if|What should I do if} {my question is not answered here|this page does not cover my case|my "
                 "question about <topic_l> is not covered here|<thing> does not fit these rules}?",
                 "{Message|Contact|Write to} {our team|us} {from your account|through the chat button|at <website>}{ and "
                 "quote the article number| and mention <topic_l>|}; {we reply|someone replies|a specialist replies} "
                 "<reply>."),
                ("{Has anything changed|Have the rules changed} {recently|this year|since I joined} for "
                 "<topic_l>?", "{The rules above are|This page is} {current|up to date} as of the date at the top; we "
                 "{write to you|let you know by email|notify you in the app} before any change to <thing>."),
                ("{Does this apply to|Is this the same for} {everyone|all customers|customers who joined online|"
                 "customers of <company> in every state}?",
                 "{Unless the page says otherwise|Where the page does not say otherwise}, {yes|the same rules apply}; "
                 "{ask us|check with our team} if <thing> {is different|has special terms}.")]

_CSS = """
*{box-sizing:border-box}body{margin:0;font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
color:#1f2933;background:#f5f7fa;line-height:1.6}a{color:#1f5fbf;text-decoration:none}
.topnav{background:#fff;border-bottom:1px solid #e1e6ee;display:flex;align-items:center;padding:0 32px;height:64px}
.topnav .logo{font-weight:700;font-size:20px;color:#16325c;margin-right:40px}.topnav nav a{margin-right:24px;
color:#3e4c59}.topnav form{margin-left:auto}.topnav input{padding:8px 12px;border:1px solid #cbd2d9;border-radius:6px;
width:260px}.crumbs{max-width:1140px;margin:18px auto 0;padding:0 32px;font-size:14px;color:#616e7c}
.layout{max-width:1140px;margin:0 auto;padding:16px 32px 48px;display:grid;grid-template-columns:1fr 300px;gap:32px}
article{background:#fff;border:1px solid #e1e6ee;border-radius:10px;padding:32px 40px}h1{margin:0 0 6px;
font-size:30px;color:#16325c}.meta{color:#616e7c;font-size:14px;margin-bottom:24px}h2{font-size:21px;
margin-top:32px;color:#16325c}.notice{background:#fff8e6;border-left:4px solid #f0a500;padding:12px 16px;
border-radius:6px;font-size:15px}.callout{background:#eef5ff;border-left:4px solid #1f5fbf;padding:12px 16px;
border-radius:6px}table{border-collapse:collapse;width:100%;margin:16px 0}th,td{border:1px solid #e1e6ee;
padding:8px 12px;text-align:left}th{background:#f0f4f8}.faq details{border:1px solid #e1e6ee;border-radius:8px;
margin:10px 0;padding:10px 16px}.faq summary{font-weight:600;cursor:pointer}.helpful{margin-top:32px;
padding-top:16px;border-top:1px solid #e1e6ee;color:#616e7c}.helpful button{margin-left:8px;padding:4px 14px;
border:1px solid #cbd2d9;background:#fff;border-radius:16px}aside .box{background:#fff;border:1px solid #e1e6ee;
border-radius:10px;padding:20px 24px;margin-bottom:20px}aside h3{margin-top:0;font-size:16px}aside li{margin:8px 0}
footer{background:#16325c;color:#d9e2ec;padding:28px 32px;font-size:14px}footer a{color:#d9e2ec;margin-right:18px}
""".strip()


@register
class KbArticle(Transformer):
    family = "documents"
    kind = "kb_article"
    ext = ".html"
    modality = "html"
    max_facts = 25
    weight = 1.0
    description = "Help-centre article exported as HTML: nav, breadcrumb, sections, FAQ, related articles."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("kb_article")
        content = plan_content(spec, ctx, rng, role="customer", register="kb")
        out.write_text(_page(spec, ctx, content, rng), encoding="utf-8", newline="\n")

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=html_text(path), extractor="html-visible-text")


def _e(text: str) -> str:
    return escape(text, quote=True)


def _grids(items, rng: Optional[random.Random] = None) -> list[str]:
    """Catalog cells as tables: attributes down the side, products across (a few per table),
    as a help page prints a product comparison (`transforms.catalog`)."""
    grids, _ = K.grids([(it.fact, shown_slot(it), False) for it in items], min_cells=1)
    out = []
    for g in grids:
        for caption, block in g.blocks(width=3, height=6):
            head = "".join(f"<th>{_e(p)}</th>" for p in block.products)
            rows = "".join(f"<tr><td>{_e(a)}</td>" + "".join(
                f"<td>{_e(c.slot.text) if (c := block.cell(a, p)) else ''}</td>" for p in block.products) + "</tr>"
                for a in block.attributes)
            out.append(f"<table><caption>{_e(caption)}</caption><thead><tr><th>{_e(g.dimension)}</th>{head}</tr>"
                       f"</thead><tbody>{rows}</tbody></table>")
        notes = g.footnotes(rng)
        if notes:
            out.append(f'<p class="small">{_e(" ".join(notes))}</p>')
    return out


def _reads_as_table(it, ctx: RenderContext) -> bool:
    """Whether a lone catalog cell is recovered from its one-cell table (header: the product;
    row: the attribute and the figure), as the extractor prints it."""
    grids, _ = K.grids([(it.fact, shown_slot(it), False)], min_cells=1)
    for g in grids:
        for _caption, block in g.blocks(width=3, height=6):
            for a in block.attributes:
                for p in block.products:
                    c = block.cell(a, p)
                    if c is not None:
                        return matches(it.fact, f"{g.dimension} | {p}\n{a} | {c.slot.text}", ctx.pack.info.currency)
    return False


def _heading(section: str, group, rng: random.Random) -> str:
    """A body section's heading: the catalog products it covers, or the section's short name."""
    rows = list(dict.fromkeys(r.cell["row"] for it in group if (r := read(it.fact)).cell))
    if rows:
        names = rows[:3]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return section_topic(section)


def _related(ctx: RenderContext, rng: random.Random, secs: list[str], rows: list[str], company: str) -> list[str]:
    """Four links for the "Related articles" box: the page's own products and sections first,
    then others of the domain (catalog products, sections, the brand's services, what its
    records are: "What does "pending" mean on a transfer?"), now and then a general page."""
    w = ctx.writer
    names = catalog_view(ctx)
    all_rows, all_secs = list(names["rows"]), list(names["sections"])
    v = view(ctx.db)
    kinds = sorted({(r.kind, r.status) for r in v.records if r.status and r.kind})

    used: set[str] = set()

    def pick(pool: list[str]) -> str:  # one template once a box ("Statements for A", "Statements for B")
        t = rng.choice([x for x in pool if x not in used] or pool)
        used.add(t)
        return t

    def product(p: str) -> str:
        return say(pick(_RELATED_PRODUCT), rng, {"p": p})

    def topic(t: str) -> str:
        return say(pick(_RELATED_TOPIC), rng, {"topic": t, "topic_l": w.lower_first(t)})

    out: list[str] = []
    own = [product(p) for p in rows[:3]] + [topic(section_topic(sec)) for sec in secs[:2]]
    rng.shuffle(own)
    out += own[:2]
    pool = []
    if all_rows:
        pool.append(lambda: product(rng.choice(all_rows)))
    if all_secs:
        pool.append(lambda: topic(rng.choice(all_secs)))
    if ctx.pack.brand.products:
        pool.append(lambda: say(rng.choice(_RELATED_BRAND), rng,
                                {"bp": rng.choice(sorted(ctx.pack.brand.products.values()))}))
    if kinds:
        pool.append(lambda: say(rng.choice(_RELATED_RECORD), rng, dict(zip(("kind", "status"), rng.choice(kinds)))))
    while len(out) < 4 and pool:
        out.append(rng.choice(pool)())
    if rng.random() < 0.3:
        out[-1] = rng.choice(_RELATED).format(company=company)
    return list(dict.fromkeys(out))


def _section_blocks(ctx: RenderContext, secs: list[str], body_items: list, rng: random.Random
                    ) -> tuple[list[str], Optional[str]]:
    """The body's HTML under each section heading: its statements, its figures as spec
    tables, an "At a glance" table of three values or more; and the rows of the last such
    table (None when there is none)."""
    blocks: list[str] = []
    table_rows: Optional[str] = None
    for s in secs:
        group = [it for it in body_items if topic_of(it.fact) == s]
        if not group:
            continue
        # a heading in the words of a statement the page voices would print the policy's run
        # (a section "If Direct Integration Is Not Supported" above another voicing it): none,
        # its paragraphs read on under the heading before
        head = cell(ctx, group[0], _heading(s, group, rng), "")
        if head:
            blocks.append(f"<h2>{_e(head)}</h2>")
        # a product's figures as its spec table, even one: a help page prints the figure in its
        # cell under the column's name, not in a sentence that names the measure beside it
        gridded = [it for it in group if (it.current or it.role == "stale") and K.is_cell(it.fact)]
        if len(gridded) == 1 and gridded[0].current and not _reads_as_table(gridded[0], ctx):
            gridded = []  # a lone figure the matcher cannot read from a cell ("4" for "4 purchases")
        said: set[str] = set()
        for it in group:
            if it in gridded:
                continue
            if it.role == "hop" and it.route is not None and K.is_cell(it.fact):
                if it.route.code in said:  # a catalog row names its schedule code once
                    continue
                said.add(it.route.code)
            special = it.fact.conditions and all(c.attribute != "attribute" for c in it.fact.conditions)
            cls = ' class="callout"' if special else ""
            blocks.append(f"<p{cls}>{_e(it.text)}</p>")
        blocks += _grids(gridded, rng)
        valued = [it for it in group if it.value and not K.is_cell(it.fact)]
        if len(valued) >= 3:
            table_rows = "".join(f"<tr><td>{_e(it.label)}</td><td>{_e(it.value)}</td></tr>" for it in valued)
            blocks.append(f"<table><thead><tr><th>At a glance</th><th>Current rule</th></tr></thead>"
                          f"<tbody>{table_rows}</tbody></table>")
    return blocks, table_rows


def _faq(ctx: RenderContext, faq_items: list, content: Content, generic, rng: random.Random) -> list[tuple[str, str]]:
    """The FAQ's questions and answers: each rumour answered by its rule, each FAQ item's own
    question answered with its figure, a stray belief corrected, one generic question."""
    w = ctx.writer
    faq = []
    for it in faq_items:
        for h in it.rumours:
            q = h.text if h.text.endswith("?") else f"{h.text} Is that right?"
            faq.append((q, it.text))
        if not it.rumours:
            q = w.question(it.fact, rng, register="kb")
            # an FAQ answers its own question: the figure, whenever the question names the rule
            faq.append((q, answer(ctx, it, rng, q, register="kb", short_rate=1.0) if it.current else it.text))
    for h in content.orphans:
        if h.distractor.role != "superseded":
            faq.append((h.text if h.text.endswith("?") else f"{h.text} Is that right?",
                        "No. Please check the current rules above or ask our team."))
    faq.append(generic(*rng.choice(_FAQ_GENERIC)))
    return faq


def _html(*, title: str, company: str, short: str, site: str, art_id: int, nav: str, crumb_cat: str,
          updated: dt.date, author: str, minutes: int, body: list[str], rel_html: str, contact: str) -> str:
    """The help-center page around the article: head, top navigation, breadcrumbs, the article,
    the side boxes, the footer and the cookie banner."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)} | {_e(company)} Help Center</title>
<link rel="canonical" href="https://{_e(site)}/help/articles/{art_id}">
<style>
{_CSS}
</style>
<script>
window.dataLayer = window.dataLayer || [];
function track(e) {{ window.dataLayer.push({{event: e, article: "{art_id}"}}); }}
</script>
</head>
<body>
<header class="topnav"><a class="logo" href="/help">{_e(short)} Help Center</a>
<nav>{nav}</nav>
<form action="/help/search" role="search"><input type="search" name="q" placeholder="Search help articles"></form>
</header>
<div class="crumbs"><a href="/help">Help Center</a> &rsaquo; <a href="/help/{crumb_cat.lower()}">{crumb_cat}</a> &rsaquo; {_e(title)}</div>
<div class="layout">
<main>
<article id="article-{art_id}">
<h1>{_e(title)}</h1>
<div class="meta">Last updated {_e(fmt_date(updated))} &middot; Written by {_e(author)} &middot; {minutes} min read</div>
{chr(10).join(body)}
</article>
</main>
<aside>
<div class="box"><h3>Related articles</h3><ul>{rel_html}</ul></div>
<div class="box"><h3>Still need help?</h3><p>{contact}</p></div>
</aside>
</div>
<footer><div>&copy; {updated.year} {_e(company)}. All rights reserved.</div>
<div><a href="/privacy">Privacy</a>
<a href="/terms">Terms</a>
<a href="/cookies">Cookie settings</a>
<a href="/help/contact">Contact us</a></div></footer>
<div class="cookie-banner" hidden><p>We use cookies to improve your experience.</p><button type="button">Accept all</button></div>
<script>document.querySelectorAll("details").forEach(function (d) {{ d.addEventListener("toggle", function () {{ track("faq"); }}); }});</script>
</body>
</html>
"""


def _page(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> str:
    brand, w = ctx.pack.brand, ctx.writer
    date = spec_date(spec)
    company = brand.company
    items = content.items
    # a page names its sections by noun phrases: an FAQ question or a clause heading ("How to
    # dispute a transaction") gives the nearest heading above it (`topic_of`)
    secs = list(dict.fromkeys(topic_of(it.fact) for it in items))
    rows = list(dict.fromkeys(r.cell["row"] for it in items if (r := read(it.fact)).cell))
    if spec.noise:
        noise_title, noise_steps = rng.choice(_NOISE)
        sec = noise_title
    else:
        sec = secs[0] if secs else "Policies"
    tslots = {"topic": section_topic(sec), "topic_l": w.lower_first(section_topic(sec)), "company": company,
              "p1": rows[0] if rows else "", "p2": rows[1] if len(rows) > 1 else ""}
    if spec.title or spec.noise:  # a section's title as the page names it ("Personal checking")
        title = shown_title(ctx, spec, items, sec) if spec.title else noise_title
    elif rows and rng.random() < 0.7:
        title = say(rng.choice(_TITLES_PRODUCTS if len(rows) > 1 else _TITLES_PRODUCTS[:2] + _TITLES_PRODUCTS[3:]), rng,
                    tslots)
    else:
        title = say(rng.choice(_TITLES), rng, tslots)
    author = w.person(rng, "agent")
    art_id = rng.randint(100000, 999999)
    updated = date  # the page's date is its last update
    cats = ["Getting started", "Account", "Billing", "Policies", "Contact"]
    body: list[str] = []
    fslots = {"website": brand.website or f"www.{brand.email_domain}", "phone": brand.phone or "our support line",
              "thing": rng.choice(["a booking", "an order", "my account", "a payment", "a recent purchase"]),
              "hours": rng.choice(["weekdays 8am to 8pm", "every day from 7am to 10pm", "Monday to Saturday"]),
              "reply": rng.choice(["within one working day", "the same day", "within a few hours"])}

    fslots.update(topic_l=tslots["topic_l"], company=company,
                  check=rng.choice(["date of birth", "email address", "postcode", "phone number"]))

    def generic(q: str, a: str) -> tuple[str, str]:
        return say(q, rng, fslots), say(a, rng, fslots)

    # Notice of earlier values: dated, before the body.
    sup = [h for it in items for h in it.superseded_hedges] + [h for h in content.orphans if h.distractor.role == "superseded"]
    if sup:
        lines = "".join(f"<p>{_e(h.text)}</p>" for h in sup)
        body.append(f'<div class="notice" role="note"><strong>Article history.</strong> This article was revised on '
                    f'{_e(fmt_date(updated))}.{lines}</div>')

    if spec.noise:
        body.append(f"<p>This article walks you through {_e(sec[:1].lower() + sec[1:])} at {_e(company)}.</p>")
        body.append("<h2>Step by step</h2><ol>" + "".join(f"<li>{_e(s)}</li>" for s in noise_steps) + "</ol>")
        faq = [generic(q, a) for q, a in rng.sample(_FAQ_GENERIC, 2)]
    else:
        islots = {**tslots, "topic_l": " and ".join(w.lower_first(section_topic(s)) for s in secs[:2])}
        intro = _INTROS_PRODUCTS if rows and rng.random() < 0.5 else _INTROS
        body.append(f"<p>{_e(say(rng.choice(intro), rng, islots))}</p>")
        faq_items = [it for it in items if it.rumours]
        others = [it for it in items if not it.rumours]
        if len(others) >= 3:  # readers' questions answered in the FAQ, value questions above all: a help
            # page states a figure as the answer to the question that names its subject ("How long
            # do card refunds take?" - "Three to five business days."), the body keeps the rules
            valued_ix = [i for i, it in enumerate(others) if it.current and it.fact.slots and not K.is_cell(it.fact)]
            k = max(1, len(others) // 4, len(valued_ix))
            pick = (valued_ix + [i for i in range(len(others)) if i not in valued_ix])[:k]
            faq_items += [others[i] for i in sorted(pick)]
        body_items = [it for it in items if it not in faq_items]
        blocks, table_rows = _section_blocks(ctx, secs, body_items, rng)
        body += blocks
        if table_rows is not None:
            rows = table_rows  # the name the last "At a glance" table took (the related box reads it)
        faq = _faq(ctx, faq_items, content, generic, rng)

    faq_html = "".join(f"<details open><summary>{_e(q)}</summary><p>{_e(a)}</p></details>" for q, a in faq)
    body.append(f'<section class="faq"><h2>Frequently asked questions</h2>{faq_html}</section>')
    body.append('<div class="helpful">Was this article helpful? <button type="button">Yes</button> '
                '<button type="button">No</button></div>')

    rel_html = "".join(f'<li><a href="/help/articles/{rng.randint(100000, 999999)}">{_e(r)}</a></li>'
                       for r in _related(ctx, rng, secs, rows, company))
    contact = f"Call {_e(brand.phone)} or chat with us." if brand.phone else "Chat with us."
    site = brand.website or f"www.{brand.email_domain}"
    nav = "\n".join(f'<a href="/help/{c.lower().replace(" ", "-")}">{c}</a>' for c in cats)
    crumb_cat = rng.choice(["Policies", "Account", "Billing"])
    minutes = rng.randint(2, 6)  # reading time
    return _html(title=title, company=company, short=brand.short_name or company, site=site, art_id=art_id,
                 nav=nav, crumb_cat=crumb_cat, updated=updated, author=author, minutes=minutes, body=body,
                 rel_html=rel_html, contact=contact)
