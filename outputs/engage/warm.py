"""Imported once by the forkserver of a batch's worker processes (`batch._in_processes`), so
that each engagement's fresh process starts with the engagement's modules and litellm (the
evaluator's model gateway; seconds to import) already loaded.

Importing this module is its purpose: it sets litellm's offline price map, silences the
pydantic `ReadOnly` warnings litellm's types raise when imported that way (litellm's own
filter of them comes later), and imports.
"""
from __future__ import annotations

import os
import warnings

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
warnings.filterwarnings("ignore", message=".*`ReadOnly` qualifier.*", category=UserWarning)

import litellm  # noqa: E402,F401

from outputs.engage import run, tools  # noqa: E402,F401
from outputs.evaluator import engine  # noqa: E402,F401
