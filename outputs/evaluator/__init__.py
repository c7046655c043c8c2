"""The lean evaluator: score an agent on a task pack's sealed tests.

`factforge eval PACK --task ID --agent PATH|oracle|naive|null [--trials K] [--user offline|llm]
[--out DIR]` writes `DIR/results.json` (`models.Results`) and `DIR/report.html`.

Modules: `engine` (the run: task context, API backend, agent hosts, conversations, grading,
summary), `users` (scripted and LLM customers), `rewards` (one scorer per component),
`metrics` (pass^k, bootstrap interval, final score), `models` (results schema), `agents`
(the reference agents), `cli` (the command).

Lean: no Dagster, no media library, no litellm or numpy at import time (a test checks
`sys.modules` in a clean interpreter); litellm is imported only by the LLM user, the judge
and the model gateway, matplotlib only when the report is drawn.
"""
