"""What the two adversarial reference agents say: the policy reciter and the confident guesser.

A held-out test should be passed only by doing the job. These two agents probe the ways a
test can be passed without it:

- the **policy reciter** never calls the API and answers every message with a refusal line
  and the task's whole policy, every fact statement quoted wholesale. It passes a test that
  rewards writing nothing and saying a policy value somewhere;
- the **confident guesser** does what the customer asks (the naive agent's actions) and states
  a plausible wrong value for each value the gold communicates: every number of the value
  moved to a different number of the same shape (`45` -> `54`, `4.0%` -> `4.8%`,
  `2026-03-05` -> `2026-03-06`, `HAT123` -> `HAT147`). A value without a digit (a desk, a
  fare name) has no generic wrong twin and is left unsaid. It passes a test whose gold is the
  naive outcome and that checks no value.

Both are deterministic: the same test gives the same text.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Iterable, Optional

REFUSAL = "I'm sorry, I cannot make that change. Here is our policy:"
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_NUM = re.compile(r"\d+(?:[.,]\d+)*")


def recital(statements: Iterable[str]) -> str:
    """The reciter's reply: the refusal line, then every policy statement on its own line."""
    return "\n".join([REFUSAL, *(f"- {s}" for s in statements)])


def _shift_date(m: re.Match) -> str:
    try:
        d = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return m.group(0)
    return (d + dt.timedelta(days=1)).isoformat()


def _wrong_number(tok: str) -> str:
    """A different number of the same shape (decimals, thousands separators), about 20% off."""
    plain = tok.replace(",", "")
    whole, _, frac = plain.partition(".")
    if not whole.isdigit() or (frac and not frac.isdigit()):
        return tok
    if frac:
        x = float(plain)
        y = round(x * 1.2 if x else 1.0, len(frac))
        out = f"{y if y != x else x + 10 ** -len(frac):.{len(frac)}f}"
    else:
        n = int(whole)
        out = str(n + max(1, round(n * 0.2))).zfill(len(whole))
    if "," in tok:
        w, _, f = out.partition(".")
        out = f"{int(w):,}" + (f".{f}" if f else "")
    return out


def wrong_value(value: str) -> Optional[str]:
    """A value of the same type as `value` that differs from it (None when it has no digit)."""
    if not any(ch.isdigit() for ch in value):
        return None
    out = _DATE.sub(_shift_date, value)
    if out != value:
        return out
    return _NUM.sub(lambda m: _wrong_number(m.group(0)), value)


def guesses(values: Iterable[str]) -> list[str]:
    """The guesser's wrong value for each value that has one."""
    out = []
    for v in values:
        w = wrong_value(v)
        if w is not None and w != v:
            out.append(w)
    return out


def guess_reply(values: Iterable[str]) -> str:
    wrong = guesses(values)
    return "I have done what you asked." + (f" The figures that apply: {', '.join(wrong)}." if wrong else "")
