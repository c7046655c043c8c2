"""Task packs: versioned releases of tasks, each a kit (what a developer agent gets) and a
sealed part (what the evaluator scores with). See `spec` (the seven levers of a task),
`build` (building and checking a pack), `store` (the layout on disk, reading, verifying and
exporting), `tau2` (the tau2-bench export) and /work/notes/packs-interface.md.

Nothing is imported here: the evaluator imports `store`, `menu` and `phrasing` without the
media stack the builder needs.
"""
