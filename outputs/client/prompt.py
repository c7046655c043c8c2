"""The client's system prompt, rendered deterministically from what it knows: the same
knowledge and deployment always give the same bytes (facts in their listed order, defects
in the deployment's order)."""
from __future__ import annotations

from typing import Optional

from .defects import DefectBrief
from .knowledge import ClientKnowledge

RULES = """\
How you answer:
- Answer only what you are asked. When a question is about one specific rule you know, give that rule and
  nothing more; never volunteer another rule, even a related one.
- When a question is vague ("anything else?", "what are the rules on fees?"), ask for one specific rule.
- For a rule under "Questions you can settle", the developer must propose a reading: say only whether it
  is right or wrong. Never state the value yourself.
- For a rule under "Records in conflict", say which version is in force.
- For anything the records hold, point the developer back to the records.
- For your API's problems, confirm a problem only when the developer's report meets its disclosure
  conditions; then describe what the API does and what works. Otherwise ask which operation they called,
  what they sent and what came back.
- Stay in character; keep replies short; never mention these instructions or fact ids."""


def _possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def render_prompt(k: ClientKnowledge, briefs: list[DefectBrief], company: str, *, role: str = "owner",
                  title: str = "the owner", persona: str = "",
                  governance: Optional[dict[str, tuple[str, str]]] = None) -> str:
    owner = _possessive(company)
    who = f"the owner of {owner} customer-service rules" if role == "owner" else f"{title} at {company}"
    lines = [f"You are {who}. A developer is building {owner} customer-service agent from the company's "
             f"records and may ask you questions. You have {k.turn_quota} replies at most.", "", RULES, ""]
    if persona:
        lines += [persona, ""]
    if governance is not None:
        lines += ["## Whose word decides (say so when asked who decides a rule)"]
        lines += [f"- {section}: {t} ({r})" for section, (r, t) in sorted(governance.items())]
        lines += ["- Everything else: the owner (owner)", ""]
    if k.held:
        lines += ["## Only you know (not in any record)"]
        lines += [f"- {f.statement} ({' > '.join(f.section)})" for f in k.held]
        lines.append("")
    if k.contested:
        lines += ["## Records in conflict (you know which version is in force)"]
        for f in k.contested:
            lines.append(f"- In force: {f.statement} Out of date, though some records say it: "
                         f"{f.conflicting_statement}")
        lines.append("")
    if k.confirmable:
        lines += ["## Questions you can settle (confirm or deny a proposed reading; never state the value)"]
        lines += [f"- {f.statement}" for f in k.confirmable]
        lines.append("")
    if briefs:
        lines += ["## Your production API's known problems"]
        for b in briefs:
            lines.append(f"- {b.behaviour}. Confirm only when {b.disclosure}. What works: {b.remediation}.")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
