"""Dagster code location: `dagster dev` (with [tool.dagster] module_name) shows this graph."""
from __future__ import annotations

import dagster as dg

from .assets import ALL_ASSETS, ALL_CHECKS
from .resources import BuildSettings, Execution, Workspace, WriterResource

defs = dg.Definitions(
    assets=ALL_ASSETS,
    asset_checks=ALL_CHECKS,
    resources={"settings": BuildSettings(), "workspace": Workspace(), "writer": WriterResource(),
               "execution": Execution()},
)
