"""The review desk (`factforge audit serve`) and the bundle browser (`factforge browse`).

A server-rendered web application (FastAPI + Jinja2, local CSS and JS only) over the SQLite
audit queue of `audits.queue`: reviewers sign in by name, lease items, look at each file in a
viewer made for its kind, judge every claimed fact and submit; the dashboard shows progress,
consensus, Fleiss' kappa and what became of rejected artifacts. The same app browses bundles
read-only: files by family and kind, the fact index, and every report.

Modules: `app` (routes), `viewers` (one viewer per kind of file), `bundles` (reading bundles
generically), `extracted` (the audit's stored OCR/ASR text), `stats` (dashboard figures),
`jsonhtml` (any JSON as tables), `sessions` (signed cookies), `server` (running uvicorn),
`cli` (the two commands), `screenshots` (a screenshot per viewer, for people to look at).
"""
