#!/usr/bin/env python3
"""Writes alphad's Grafana dashboards (JSON, current Grafana schema) from one description.

    python3 dashboards/generate.py          # rewrite provisioning/dashboards/*.json
    python3 dashboards/generate.py --check  # exit 1 if the JSON files are out of date

Every panel queries the data source chosen in the ``datasource`` variable; no
``__inputs`` section, so Grafana's file provisioning loads them as they are.
Standard library only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "provisioning" / "dashboards"
DS = {"type": "prometheus", "uid": "${datasource}"}
SCHEMA = 39  # Grafana 10.4 / 11.x

Panel = dict[str, Any]


def target(expr: str, legend: str = "", ref: str = "A", instant: bool = False,
           fmt: str = "time_series") -> dict[str, Any]:
    return {"refId": ref, "datasource": DS, "expr": expr, "legendFormat": legend or "__auto",
            "range": not instant, "instant": instant, "format": fmt, "editorMode": "code"}


def panel(kind: str, title: str, w: int, h: int, targets: list[dict[str, Any]],
          unit: str = "short", desc: str = "", **extra: Any) -> Panel:
    p: Panel = {"type": kind, "title": title, "description": desc, "datasource": DS,
                "gridPos": {"w": w, "h": h}, "targets": targets,
                "fieldConfig": {"defaults": {"unit": unit}, "overrides": []}}
    if kind == "timeseries":
        p["options"] = {"legend": {"displayMode": "list", "placement": "bottom",
                                   "showLegend": True},
                        "tooltip": {"mode": "multi", "sort": "desc"}}
    elif kind == "stat":
        p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "",
                                          "values": False},
                        "colorMode": "value", "graphMode": "area", "textMode": "auto"}
    p.update(extra)
    return p


def ts(title: str, w: int, h: int, targets: list[dict[str, Any]], unit: str = "short",
       desc: str = "", step: bool = False, **custom: Any) -> Panel:
    p = panel("timeseries", title, w, h, targets, unit, desc)
    c = {"lineWidth": 1, "fillOpacity": 0, "showPoints": "never", **custom}
    if step:
        c["lineInterpolation"] = "stepAfter"
    p["fieldConfig"]["defaults"]["custom"] = c
    return p


def stat(title: str, expr: str, unit: str = "short", desc: str = "", w: int = 4,
         thresholds: list[tuple[float | None, str]] | None = None, legend: str = "") -> Panel:
    p = panel("stat", title, w, 4, [target(expr, legend)], unit, desc)
    steps = [{"color": c, "value": v} for v, c in (thresholds or [(None, "green")])]
    p["fieldConfig"]["defaults"]["thresholds"] = {"mode": "absolute", "steps": steps}
    p["fieldConfig"]["defaults"]["color"] = {"mode": "thresholds"}
    return p


def layout(panels: list[Panel]) -> list[Panel]:
    """Row-major placement on Grafana's 24-column grid; ids in order."""
    x = y = row_h = 0
    for i, p in enumerate(panels, 1):
        g = p["gridPos"]
        if x + g["w"] > 24:
            x, y, row_h = 0, y + row_h, 0
        g["x"], g["y"] = x, y
        x += g["w"]
        row_h = max(row_h, g["h"])
        p["id"] = i
    return panels


def var_datasource() -> dict[str, Any]:
    return {"name": "datasource", "label": "Data source", "type": "datasource",
            "query": "prometheus", "current": {}, "hide": 0, "refresh": 1, "regex": "",
            "options": []}


def var_query(name: str, label: str, query: str, multi: bool) -> dict[str, Any]:
    return {"name": name, "label": label, "type": "query", "datasource": DS,
            "query": {"query": query, "refId": f"{name}-var"}, "definition": query,
            "refresh": 2, "sort": 1, "multi": multi, "includeAll": multi,
            "allValue": ".*" if multi else None, "current": {}, "hide": 0, "options": []}


def dashboard(uid: str, title: str, desc: str, panels: list[Panel],
              variables: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "uid": uid, "title": title, "description": desc, "tags": ["alphad"],
        "schemaVersion": SCHEMA, "version": 1, "editable": True, "graphTooltip": 1,
        "time": {"from": "now-30m", "to": "now"}, "refresh": "10s", "timezone": "browser",
        "annotations": {"list": []},
        "links": [{"type": "dashboards", "tags": ["alphad"], "asDropdown": False,
                   "includeVars": True, "keepTime": True, "title": "alphad"}],
        "templating": {"list": [var_datasource(), *variables]},
        "panels": layout(panels),
    }


# --- the three dashboards ---------------------------------------------------------------
SW = 'switch=~"$switch"'
RATE = "$__rate_interval"


def fleet() -> dict[str, Any]:
    panels = [
        stat("Switches reporting", f"count(alphad_scheme_info{{{SW}}})",
             desc="Daemons Prometheus currently scrapes (one per switch)."),
        stat("Switches in fail-safe", f"sum(alphad_failsafe_active{{{SW}}})",
             thresholds=[(None, "green"), (1, "red")]),
        stat("Drop rate, all switches",
             f"sum(rate(alphad_queue_dropped_bytes_total{{{SW}}}[{RATE}])) * 8", "bps"),
        stat("Alpha writes / s", f"sum(rate(alphad_actuation_writes_total{{{SW}}}[{RATE}]))",
             "wps"),
        stat("Overruns in range", f"sum(increase(alphad_loop_overruns_total{{{SW}}}[$__range]))",
             thresholds=[(None, "green"), (1, "orange")]),
        stat("Actuation errors in range",
             f"sum(increase(alphad_actuation_errors_total{{{SW}}}[$__range]))",
             thresholds=[(None, "green"), (1, "red")]),
        ts("Drop rate by switch", 12, 8, [target(
            f"sum by (switch) (rate(alphad_queue_dropped_bytes_total{{{SW}}}[{RATE}])) * 8",
            "{{switch}}")], "bps"),
        ts("Shared pool peak occupancy by switch", 12, 8, [target(
            f"max by (switch) (alphad_pool_watermark_bytes{{{SW}}}"
            f" / alphad_pool_size_bytes{{{SW}}})", "{{switch}}")], "percentunit",
            desc="Peak pool occupancy in the last interval as a fraction of the pool B."),
        ts("Congested queues (sum of n_p) by switch", 12, 8, [target(
            f"sum by (switch) (alphad_priority_congested_queues{{{SW}}})", "{{switch}}")],
            step=True),
        ts("Control loop p99 by switch", 12, 8, [target(
            "histogram_quantile(0.99, sum by (switch, le) (rate(alphad_loop_duration_seconds_"
            f'bucket{{{SW}, phase="total"}}[{RATE}])))', "{{switch}}")], "s"),
        panel("table", "Top 10 queues by drop rate", 12, 8, [target(
            "topk(10, sum by (switch, port, queue, priority) "
            f"(rate(alphad_queue_dropped_bytes_total{{{SW}}}[{RATE}])) * 8)", instant=True,
            fmt="table")], "bps", transformations=[{"id": "organize", "options": {
                "excludeByName": {"Time": True}}}]),
        panel("table", "Switches: scheme and interval", 12, 8, [
            target(f"alphad_scheme_info{{{SW}}}", ref="A", instant=True, fmt="table"),
            target(f"alphad_interval_seconds{{{SW}}}", ref="B", instant=True, fmt="table")],
            transformations=[{"id": "merge", "options": {}},
                             {"id": "organize", "options": {"excludeByName": {
                                 "Time": True, "Value #A": True, "__name__": True}}}]),
    ]
    return dashboard("alphad-fleet", "alphad / Fleet overview",
                     "Every switch alphad manages: drops, pool, congestion, loop health.",
                     panels, [var_query("switch", "Switch",
                                        "label_values(alphad_scheme_info, switch)", True)])


def switch() -> dict[str, Any]:
    q = 'switch="$switch", port=~"$port"'
    heat = panel("heatmap", "Queue occupancy / threshold (heatmap per queue)", 24, 10, [target(
        f"alphad_queue_watermark_bytes{{{q}}} / alphad_queue_threshold_bytes{{{q}}}",
        "{{port}}/{{queue}}")], "percentunit",
        desc="Peak length of each queue in the interval against its DT threshold "
             "alpha*(B-Q): one row per queue; at 0.9 and above the queue counts as congested.",
        options={"calculate": False, "cellGap": 1, "showValue": "never",
                 "yAxis": {"axisPlacement": "left"},
                 "rowsFrame": {"layout": "auto"},
                 "color": {"mode": "scheme", "scheme": "Oranges", "steps": 64,
                           "min": 0, "max": 1.2, "exponent": 0.5, "fill": "dark-orange",
                           "scale": "exponential", "reverse": False},
                 "tooltip": {"show": True, "yHistogram": False},
                 "legend": {"show": True}, "exemplars": {"color": "rgba(255,0,255,0.7)"}})
    panels = [
        stat("Scheme", 'alphad_scheme_info{switch="$switch"}', legend="{{scheme}}",
             w=4) | {"options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "",
                                                   "values": False}, "textMode": "name",
                                 "colorMode": "none", "graphMode": "none"}},
        stat("Interval", 'alphad_interval_seconds{switch="$switch"}', "s"),
        stat("Pool peak / B", 'alphad_pool_watermark_bytes{switch="$switch"} / '
             'alphad_pool_size_bytes{switch="$switch"}', "percentunit",
             thresholds=[(None, "green"), (0.8, "orange"), (0.95, "red")]),
        stat("Drop rate", f"sum(rate(alphad_queue_dropped_bytes_total{{{q}}}[{RATE}])) * 8",
             "bps"),
        stat("Alpha writes / s",
             f'rate(alphad_actuation_writes_total{{switch="$switch"}}[{RATE}])', "wps"),
        stat("Fail-safe", 'alphad_failsafe_active{switch="$switch"}',
             thresholds=[(None, "green"), (1, "red")]),
        heat,
        ts("Queue length (peak) per queue", 12, 9, [target(
            f"alphad_queue_watermark_bytes{{{q}}}", "{{port}}/{{queue}}")], "bytes"),
        ts("DT threshold alpha*(B-Q) per queue", 12, 9, [target(
            f"alphad_queue_threshold_bytes{{{q}}}", "{{port}}/{{queue}}")], "bytes"),
        ts("Applied log2 alpha (dynamic_th)", 12, 9, [target(
            f"alphad_queue_log2_alpha{{{q}}}", "{{port}}/{{queue}}")], step=True,
            desc="The exponent k of the alpha = 2^k in effect on each queue."),
        ts("Target log2 alpha (before rounding)", 12, 9, [target(
            f"log2(alphad_queue_target_alpha{{{q}}})", "{{port}}/{{queue}}")],
            desc="What the scheme asked for; alphad rounds it to 2^k with hysteresis."),
        ts("Drop rate per queue", 12, 9, [target(
            f"rate(alphad_queue_dropped_bytes_total{{{q}}}[{RATE}]) * 8 > 0",
            "{{port}}/{{queue}}"), target(
            f"sum(rate(alphad_queue_dropped_bytes_total{{{q}}}[{RATE}])) * 8", "all queues",
            ref="B")], "bps"),
        ts("n_p: congested queues per priority", 12, 9, [target(
            'alphad_priority_congested_queues{switch="$switch"}', "{{priority}}")],
            step=True, desc="ABM's n_p: queues of the priority at >= 0.9 of their threshold."),
        ts("Shared pool", 12, 8, [
            target('alphad_pool_watermark_bytes{switch="$switch"}', "peak", "A"),
            target('alphad_pool_occupancy_bytes{switch="$switch"}', "at read", "B"),
            target('alphad_pool_size_bytes{switch="$switch"}', "B (size)", "C")], "bytes"),
        ts("gamma: normalized drain rate", 12, 8, [target(
            f"alphad_queue_gamma{{{q}}}", "{{port}}/{{queue}}")],
            desc="mu/b per queue (ABM Eq. 9), as alphad estimates it from tx counters."),
    ]
    return dashboard("alphad-switch", "alphad / Switch buffer state",
                     "One switch: per-queue occupancy against threshold, alpha, drops, n_p.",
                     panels, [
                         var_query("switch", "Switch",
                                   "label_values(alphad_scheme_info, switch)", False),
                         var_query("port", "Port",
                                   'label_values(alphad_queue_alpha{switch="$switch"}, port)',
                                   True)])


def health() -> dict[str, Any]:
    join = f"* on (instance, job) group_left (switch) alphad_scheme_info{{{SW}}}"
    panels = [
        ts("Control loop duration (p50, p99) by phase", 12, 9, [
            target("histogram_quantile(0.99, sum by (switch, phase, le) (rate("
                   f"alphad_loop_duration_seconds_bucket{{{SW}}}[{RATE}])))",
                   "p99 {{switch}} {{phase}}", "A"),
            target("histogram_quantile(0.5, sum by (switch, phase, le) (rate("
                   f"alphad_loop_duration_seconds_bucket{{{SW}}}[{RATE}])))",
                   "p50 {{switch}} {{phase}}", "B")], "s"),
        ts("Mean cycle time against the interval", 12, 9, [
            target(f'rate(alphad_loop_duration_seconds_sum{{{SW}, phase="total"}}[{RATE}]) / '
                   f'rate(alphad_loop_duration_seconds_count{{{SW}, phase="total"}}[{RATE}])',
                   "cycle {{switch}}", "A"),
            target(f"alphad_interval_seconds{{{SW}}}", "interval {{switch}}", "B")], "s"),
        ts("Overruns / s", 8, 8, [target(
            f"rate(alphad_loop_overruns_total{{{SW}}}[{RATE}])", "{{switch}}")], "ops"),
        panel("state-timeline", "Fail-safe", 8, 8, [target(
            f"alphad_failsafe_active{{{SW}}}", "{{switch}}")],
            options={"showValue": "never", "mergeValues": True, "rowHeight": 0.9},
            fieldConfig={"defaults": {"unit": "none", "mappings": [{"type": "value", "options": {
                "0": {"text": "managing", "color": "green"},
                "1": {"text": "FAIL-SAFE", "color": "red"}}}],
                "thresholds": {"mode": "absolute", "steps": [
                    {"color": "green", "value": None}, {"color": "red", "value": 1}]},
                "color": {"mode": "thresholds"}}, "overrides": []}),
        ts("Telemetry age", 8, 8, [target(f"alphad_telemetry_age_seconds{{{SW}}}",
                                          "{{switch}}")], "s",
           desc="Time since the last successful telemetry read."),
        ts("Alpha writes and errors / s", 12, 8, [
            target(f"rate(alphad_actuation_writes_total{{{SW}}}[{RATE}])", "writes {{switch}}",
                   "A"),
            target(f"rate(alphad_actuation_errors_total{{{SW}}}[{RATE}])", "errors {{switch}}",
                   "B"),
            target(f"sum by (switch, op) (rate(alphad_backend_errors_total{{{SW}}}[{RATE}]))",
                   "backend {{op}} errors {{switch}}", "C")], "ops"),
        ts("Configuration changes in range", 12, 8, [target(
            f"sum by (switch, source, result) (increase(alphad_config_reloads_total{{{SW}}}"
            "[$__range]))", "{{switch}} {{source}} {{result}}")], step=True),
        ts("Daemon CPU", 12, 8, [target(
            f"rate(process_cpu_seconds_total[{RATE}]) {join}", "{{switch}}")], "percentunit"),
        ts("Daemon resident memory", 12, 8, [target(
            f"process_resident_memory_bytes {join}", "{{switch}}")], "bytes"),
        panel("table", "Versions", 24, 6, [target(
            f"alphad_build_info {join}", instant=True, fmt="table")],
            transformations=[{"id": "organize", "options": {"excludeByName": {
                "Time": True, "Value": True, "__name__": True}}}]),
    ]
    return dashboard("alphad-health", "alphad / Daemon health",
                     "The daemons themselves: loop latency, overruns, fail-safe, actuation.",
                     panels, [var_query("switch", "Switch",
                                        "label_values(alphad_scheme_info, switch)", True)])


DASHBOARDS = {"alphad-fleet.json": fleet, "alphad-switch.json": switch,
              "alphad-health.json": health}


def render() -> dict[str, str]:
    return {name: json.dumps(make(), indent=2) + "\n" for name, make in DASHBOARDS.items()}


def main(argv: list[str]) -> int:
    out = render()
    if "--check" in argv:
        stale = [n for n, text in out.items()
                 if not (OUT / n).exists() or (OUT / n).read_text() != text]
        for n in stale:
            print(f"{OUT / n} is out of date: run python3 dashboards/generate.py",
                  file=sys.stderr)
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for n, text in out.items():
        (OUT / n).write_text(text)
        print(OUT / n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
