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

from ..base import ArtifactSpec, Extraction, ExtractContext, RenderContext, Transformer
from .. import catalog as K
from ..extract.html import html_text
from ..grammar import say
from ..registry import register
from transforms.common import Content, answer, check_capacity, fmt_date, plan_content, shown_slot, spec_date

_TITLES = ["{sec}: what you need to know", "How {sec_l} work", "{sec} explained", "Our {sec_l} policy",
           "{sec} - rules and FAQs", "Understanding {sec_l}"]
_INTROS = ["This article explains how {sec_l} work at {company}, and answers the questions we hear most often.",
           "Here is everything you need to know about {sec_l}. If your question is not answered below, our team is "
           "happy to help.",
           "We get a lot of questions about {sec_l}. This page sums up the current rules.",
           "Below you'll find the current {company} rules for {sec_l}, plus answers to common questions."]
_RELATED = ["How to update your payment method", "Contact {company} support", "Managing your account online",
            "Understanding your receipt", "Our privacy notice in plain words", "Accessibility at {company}",
            "How to make a complaint", "Gift cards and promotional codes", "Opening hours and locations"]
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
_FAQ_GENERIC = [("{Where can I find|How do I get|Can I download} {my receipt|a copy of my receipt|an invoice}{ for "
                 "<thing>|}?", "{Receipts are|Every receipt is} in the Account area{ on <website>|} under History, "
                 "and we {email a copy|send a copy to your inbox} after every {transaction|payment}."),
                ("{Can I talk to a person|How do I reach a real person|Is there a phone number}{ about <thing>|}?",
                 "{Yes|Of course}. Use the chat button on this page or call <phone> during opening hours{, "
                 "<hours>|}."),
                ("{What if|What should I do if} {my question is not answered here|this page does not cover my case}?",
                 "{Message|Contact} {our team|us} {from your account|through the chat button}{ and quote the "
                 "article number|}; {we reply|someone replies} <reply>.")]

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


def _grids(items) -> list[str]:
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
        notes = g.footnotes()
        if notes:
            out.append(f'<p class="small">{_e(" ".join(notes))}</p>')
    return out


def _page(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> str:
    brand, w = ctx.pack.brand, ctx.writer
    date = spec_date(spec)
    company = brand.company
    items = content.items
    secs = list(dict.fromkeys((it.fact.section[-1] if it.fact.section else "General") for it in items))
    if spec.noise:
        noise_title, noise_steps = rng.choice(_NOISE)
        sec = noise_title
    else:
        sec = secs[0] if secs else "Policies"
    title = spec.title or (noise_title if spec.noise else rng.choice(_TITLES).format(sec=sec, sec_l=w.lower_first(sec)))
    author = w.person(rng, "agent")
    art_id = rng.randint(100000, 999999)
    updated = date  # the page's date is its last update
    cats = ["Getting started", "Account", "Billing", "Policies", "Contact"]
    body: list[str] = []
    fslots = {"website": brand.website or f"www.{brand.email_domain}", "phone": brand.phone or "our support line",
              "thing": rng.choice(["a booking", "an order", "my account", "a payment", "a recent purchase"]),
              "hours": rng.choice(["weekdays 8am to 8pm", "every day from 7am to 10pm", "Monday to Saturday"]),
              "reply": rng.choice(["within one working day", "the same day", "within a few hours"])}

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
        intro_sec = " and ".join(w.lower_first(s) for s in secs[:2])
        body.append(f"<p>{_e(rng.choice(_INTROS).format(sec_l=intro_sec, company=company))}</p>")
        faq_items = [it for it in items if it.rumours]
        others = [it for it in items if not it.rumours]
        if len(others) >= 3:  # readers' questions answered in the FAQ, value questions above all
            valued_ix = [i for i, it in enumerate(others) if it.current and it.fact.slots and not K.is_cell(it.fact)]
            k = max(1, len(others) // 4, len(valued_ix) // 2)
            pick = (valued_ix + [i for i in range(len(others)) if i not in valued_ix])[:k]
            faq_items += [others[i] for i in sorted(pick)]
        body_items = [it for it in items if it not in faq_items]
        for s in secs:
            group = [it for it in body_items if (it.fact.section[-1] if it.fact.section else "General") == s]
            if not group:
                continue
            body.append(f"<h2>{_e(s)}</h2>")
            gridded = [it for it in group if (it.current or it.role == "stale") and K.is_cell(it.fact)]
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
                body.append(f"<p{cls}>{_e(it.text)}</p>")
            body += _grids(gridded)
            valued = [it for it in group if it.value and not K.is_cell(it.fact)]
            if len(valued) >= 3:
                rows = "".join(f"<tr><td>{_e(it.label)}</td><td>{_e(it.value)}</td></tr>" for it in valued)
                body.append(f"<table><thead><tr><th>At a glance</th><th>Current rule</th></tr></thead>"
                            f"<tbody>{rows}</tbody></table>")
        faq = []
        for it in faq_items:
            for h in it.rumours:
                q = h.text if h.text.endswith("?") else f"{h.text} Is that right?"
                faq.append((q, it.text))
            if not it.rumours:
                q = w.question(it.fact, rng, register="kb")
                faq.append((q, answer(ctx, it, rng, q, register="kb") if it.current else it.text))
        for h in content.orphans:
            if h.distractor.role != "superseded":
                faq.append((h.text if h.text.endswith("?") else f"{h.text} Is that right?",
                            "No. Please check the current rules above or ask our team."))
        faq.append(generic(*rng.choice(_FAQ_GENERIC)))

    faq_html = "".join(f"<details open><summary>{_e(q)}</summary><p>{_e(a)}</p></details>" for q, a in faq)
    body.append(f'<section class="faq"><h2>Frequently asked questions</h2>{faq_html}</section>')
    body.append('<div class="helpful">Was this article helpful? <button type="button">Yes</button> '
                '<button type="button">No</button></div>')

    related = rng.sample(_RELATED, 4)
    products = sorted(brand.products.values())
    if products:
        related.insert(0, f"{rng.choice(products)}: frequently asked questions")
    rel_html = "".join(f'<li><a href="/help/articles/{rng.randint(100000, 999999)}">{_e(r.format(company=company))}'
                       f"</a></li>" for r in related)
    contact = f"Call {_e(brand.phone)} or chat with us." if brand.phone else "Chat with us."
    site = brand.website or f"www.{brand.email_domain}"
    nav = "\n".join(f'<a href="/help/{c.lower().replace(" ", "-")}">{c}</a>' for c in cats)
    crumb_cat = rng.choice(["Policies", "Account", "Billing"])
    year = date.year
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
<header class="topnav"><a class="logo" href="/help">{_e(brand.short_name or company)} Help Center</a>
<nav>{nav}</nav>
<form action="/help/search" role="search"><input type="search" name="q" placeholder="Search help articles"></form>
</header>
<div class="crumbs"><a href="/help">Help Center</a> &rsaquo; <a href="/help/{crumb_cat.lower()}">{crumb_cat}</a> &rsaquo; {_e(title)}</div>
<div class="layout">
<main>
<article id="article-{art_id}">
<h1>{_e(title)}</h1>
<div class="meta">Last updated {_e(fmt_date(updated))} &middot; Written by {_e(author)} &middot; {rng.randint(2, 6)} min read</div>
{chr(10).join(body)}
</article>
</main>
<aside>
<div class="box"><h3>Related articles</h3><ul>{rel_html}</ul></div>
<div class="box"><h3>Still need help?</h3><p>{contact}</p></div>
</aside>
</div>
<footer><div>&copy; {year} {_e(company)}. All rights reserved.</div>
<div><a href="/privacy">Privacy</a>
<a href="/terms">Terms</a>
<a href="/cookies">Cookie settings</a>
<a href="/help/contact">Contact us</a></div></footer>
<div class="cookie-banner" hidden><p>We use cookies to improve your experience.</p><button type="button">Accept all</button></div>
<script>document.querySelectorAll("details").forEach(function (d) {{ d.addEventListener("toggle", function () {{ track("faq"); }}); }});</script>
</body>
</html>
"""
