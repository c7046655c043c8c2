"""The engagement: a developer takes a task from its kit to a scored, recorded delivery.

`factforge engage PACK --task ID --developer DEV --out DIR` sets the task up in DIR (the kit,
read-only; the starting workspace as a git repository), runs the developer in a bubblewrap
boundary with the task's tools served from outside it (`tools`: the owner, the development
API, samples, live experiments, models, submit; the `ff` command and the `ff-mcp` relay are
its two faces), watches which kit files it opens, then scores what it delivered with the
evaluator and writes `engagement.json` and `report.html`.

Modules: `tools` (the developer's tools), `faces` (their MCP server and JSON-lines socket),
`experiments` (sample and live runs), `ff` and `relay.py` (the kit's programs), `prepare`
(DIR's kit and workspace), `boundary` (the developer's bubblewrap), `evidence` (inotify on
the kit), `scan` (the contamination scan), `developers` (starting, scripted, cmd, coding
agents), `adapters/` (one TOML file per coding agent), `launch.py` (a coding agent's launcher,
inside the boundary), `traffic`, `modelproxy`, `looprelay.py`, `metering` (the developer's own
model traffic), `trajectory` (a coding agent's record as ATIF), `driver` (the scripted
developer's program), `run` (one engagement), `record` (engagement.json), `report`
(report.html), `batch` (one engagement per task into `RUN/<task>/`, resumable, side by side
or on Dask; `warm` is what its worker processes import once), `results` and `results_render`
(`factforge results`: the table of runs), `cli` (the commands). No Dagster, media library or
matplotlib is imported on this path until a report is drawn.
"""
