"""The reports' charts: inline SVG text, deterministic, labels escaped and fitted."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from outputs.svgchart import Scale, bar_chart, hbar_chart, nice_ticks, points_chart, timeline_chart


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and root.get("viewBox")
    return root


def test_charts_are_well_formed_deterministic_and_escape_their_labels():
    make = [
        lambda: bar_chart([0.5, 1.0], ["#111", "#222"], ["a<b", "c&d"], y_max=1.05, y_label="reward",
                          x_label="test (2)", legend=[("#111", "trap: <none>")]),
        lambda: hbar_chart(["x" * 200, "b"], [("#ddd", [4, 2]), ("#00f", [1, 2])], x_max=4, x_label="files",
                           legend=[("#ddd", "kit"), ("#00f", "read")]),
        lambda: points_chart([0.001, 0.2], [(0.1, "#f00", True, "mean"), (0.5, "#0f0", False, "budget easy 0.5")],
                             y_label="credits", x_label="conversation", point_colour="#00f",
                             point_label="credits per conversation", linthresh=0.0005),
        lambda: timeline_chart(["evidence opened", "ask_owner"], [(0, 0.5, "|", "#0aa"), (1, 1.0, "o", "#00f"),
                                                                  (1, 2.0, "x", "#f00")], end=3.0, x_label="s"),
    ]
    for m in make:
        svg = m()
        assert svg == m()
        _parse(svg)
    first = make[0]()
    assert "a&lt;b" in first and "c&amp;d" in first and "trap: &lt;none&gt;" in first
    long = make[1]()
    assert f">{'x' * 200}</text>" not in long and "…</text>" in long   # a long label is cut to its margin
    assert f"<title>{'x' * 200}: 4</title>" in long                     # and whole in the bar's tooltip


def test_ticks_and_scales():
    assert nice_ticks(0, 1.05) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(0, 44) == [0.0, 10.0, 20.0, 30.0, 40.0]
    log = Scale(0.0, 1.0, linthresh=0.001)
    assert log.ticks() == [0.0, 0.001, 0.01, 0.1, 1.0]
    assert log.frac(0.0) == 0.0 and log.frac(1.0) == 1.0 and 0.2 < log.frac(0.001) < 0.3
    assert Scale(0, 10).frac(20) == 1.0 and Scale(0, 10).frac(-1) == 0.0
