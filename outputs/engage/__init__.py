"""The engagement: a developer agent takes a task from its kit to a scored delivery.

`tools` is the developer's side of it: the tools (ask the owner, the development API, sample
and live runs, the models, submit) and their two faces (an MCP server and the `ff` command).
Nothing here imports Dagster or the media stack.
"""
