"""The starting workspace lever: none, or a seeded naive agent with known gaps and a ledger.

A seeded workspace is a working agent (`agent.py`, the agent contract: `create_agent()`,
`get_init_state()`, `generate_next_message(message, state)`) that sends each customer message
to a menu model through the model gateway, with policy notes (`prompt.md`) as its system
prompt and the API's operations as tools. Its gaps are declared by the task spec:

- `omit_sections`: policy sections its notes leave out;
- `stale_facts`: facts its notes state with a plausible wrong value (an old version);
- `code_gaps`: API behaviour its code does not handle (`no_retry_on_rate_limit`,
  `no_idempotency_key`, `first_page_only`, `no_async_polling`) or a tool it hides
  (`no_transfer`).

Its notes never know more than the kit: only facts recoverable from the task's delivered
files, never a client-held or contested fact (those gaps are recorded too). The ledger
(sealed) maps every gap to the fact ids (and defect kinds) it costs.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import jinja2

from facts.errors import FactforgeError
from facts.models import Fact

from .withhold import contested_version

KITFILES = Path(__file__).resolve().parent / "kitfiles"
CODE_GAP_DEFECTS = {"no_retry_on_rate_limit": ["rate_limit"], "no_idempotency_key": ["post_commit_timeout"],
                    "first_page_only": ["pagination"], "no_async_polling": ["async_completion"], "no_transfer": []}
CODE_GAP_TEXT = {
    "no_retry_on_rate_limit": "does not wait and retry when the API answers 429 (rate limited)",
    "no_idempotency_key": "sends writes without an Idempotency-Key and does not retry a write that timed out",
    "first_page_only": "reads only the first page of a paged list",
    "no_async_polling": "does not poll the status URL of an operation that completes asynchronously",
    "no_transfer": "never offers the tool that hands the customer to a human colleague",
}


def templates() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(KITFILES)), trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True, undefined=jinja2.StrictUndefined, autoescape=False)


def seeded_workspace(spec, loaded, facts: list[Fact], known: set[str], client_known: set[str], brand,
                     operations: list[str], model: str, seed: int, now: dt.datetime) -> tuple[dict[str, bytes], dict]:
    """(files under `workspace/`, ledger). `known`: fact ids recoverable from the kit;
    `client_known`: held and contested fact ids (never in the notes)."""
    w = spec.workspace
    sections = list(dict.fromkeys(f.section[0] for f in facts if f.section))
    for i, s in enumerate(w.omit_sections):
        if s not in sections:
            raise loaded.error(f"unknown policy section {s!r}; sections: {', '.join(sections)}", "workspace",
                               "omit_sections", i)
    by_id = {f.id: f for f in facts}
    in_notes = [f for f in facts if f.id in known and f.id not in client_known
                and (f.section[0] if f.section else "") not in w.omit_sections]
    note_ids = {f.id for f in in_notes}
    for i, fid in enumerate(w.stale_facts):
        if fid not in note_ids:
            raise loaded.error(f"stale fact {fid} is not in the seeded notes (unknown, not delivered, client-held, "
                               "contested or in an omitted section)", "workspace", "stale_facts", i)
    stale = {}
    for i, fid in enumerate(w.stale_facts):
        try:
            stale[fid] = contested_version(by_id[fid], seed, salt="stale", suffix="~stale")
        except FactforgeError as e:  # e.g. a $0 fee: no older value to make up
            raise loaded.error(e.problem, "workspace", "stale_facts", i) from None
    transfer_ops = [o for o in operations if "transfer" in o]
    if "no_transfer" in w.code_gaps and not transfer_ops:
        raise loaded.error("code gap no_transfer: the API has no transfer operation", "workspace", "code_gaps")

    lines = [f"# {brand.company}: support notes", "",
             f"You are a customer-service agent of {brand.company}. Help customers with the tools you have.",
             f"These notes date from {(now.date() - dt.timedelta(days=400)).isoformat()}."]
    current = None
    for f in in_notes:
        sec = " / ".join(f.section) or "General"
        if sec != current:
            lines += ["", f"## {sec}", ""]
            current = sec
        lines.append(f"- {stale[f.id].statement if f.id in stale else f.statement}")
    prompt = "\n".join(lines).strip() + "\n"
    agent = templates().get_template("agent.py.j2").render(company=brand.company, model=model,
                                                           gaps=set(w.code_gaps), transfer_ops=sorted(transfer_ops))
    readme = (f"# Starting workspace\n\nAn agent for {brand.company} that already runs end to end "
              "(`agent.py`, policy notes in `prompt.md`). It is a starting point, not a finished agent: "
              "check its notes against the evidence and the client, and its code against the API's real "
              "behaviour.\n")
    files = {"workspace/agent.py": agent.encode("utf-8"), "workspace/prompt.md": prompt.encode("utf-8"),
             "workspace/README.md": readme.encode("utf-8")}

    gaps = []
    for s in w.omit_sections:
        ids = sorted(f.id for f in facts if f.section and f.section[0] == s and f.id in known
                     and f.id not in client_known)
        gaps.append({"id": f"omitted:{s}", "kind": "omitted_section", "description": f"notes leave out section {s!r}",
                     "fact_ids": ids, "defects": []})
    for fid, v in stale.items():
        gaps.append({"id": f"stale:{fid}", "kind": "stale_value", "description": f"notes say: {v.statement}",
                     "fact_ids": [fid], "defects": []})
    for g in w.code_gaps:
        ids = sorted(f.id for f in facts if "transfer" in f.statement.lower()) if g == "no_transfer" else []
        gaps.append({"id": f"code:{g}", "kind": "code", "description": f"the agent {CODE_GAP_TEXT[g]}",
                     "fact_ids": ids, "defects": CODE_GAP_DEFECTS[g]})
    if client_known:
        gaps.append({"id": "client-knowledge", "kind": "client_knowledge",
                     "description": "notes hold nothing only the client knows or settles",
                     "fact_ids": sorted(client_known), "defects": []})
    ledger = {"schema_version": "1.0", "notes_facts": len(in_notes), "gaps": gaps}
    return files, ledger
