"""Imported once by the forkserver of a batch's worker processes (`batch._in_processes`), so
that each engagement's fresh process starts with the engagement's modules and litellm (the
evaluator's model gateway; seconds to import) already loaded.

Importing this module is its purpose: it imports litellm as every part of factforge does
(`facts.llm.litellm_module`: offline price map, quiet) and the engagement's modules.
"""
from __future__ import annotations

from facts.llm import litellm_module

litellm_module()

from outputs.engage import run, tools  # noqa: E402,F401
from outputs.evaluator import engine  # noqa: E402,F401
