# SPDX-License-Identifier: GPL-2.0
"""The Grafana dashboard (contrib/grafana/ntprof.json) and the Prometheus
recording rules (contrib/prometheus/ntprof-rules.yml) of the tree: the rules
pass promtool's check, and both use only the metrics, labels and stage keys
that ntprof-monitor(1) documents (and the rules' own recorded series).  Every
expression of both is run against the test bed's Prometheus, scraping a
running monitor, by tests/testbed/test_monitor.py."""
import json
import re
import shutil
import subprocess

import pytest

import promql
from conftest import REPO

# the values the stage and role labels take (ntprof-monitor(1), METRICS)
STAGE_LINE = re.compile(r"^    \*\*stage\*\*\n(.*?)\n    \*\*", re.S | re.M)


def documented_stages():
    text = promql.MONITOR_PAGE.read_text()
    return set(re.findall(r"\*\*(\w+)\*\*", STAGE_LINE.search(text).group(1)))


def promtool(*args):
    if not shutil.which("promtool"):
        pytest.fail("promtool not found: apt-get install prometheus (or: make deps)", pytrace=False)
    return subprocess.run(["promtool", *args], capture_output=True, text=True, timeout=60)


def test_rules__promtool_check__passes():
    r = promtool("check", "rules", str(promql.RULES))
    assert r.returncode == 0, r.stdout + r.stderr
    n = len(promql.rules())
    assert f"SUCCESS: {n} rules found" in r.stdout, r.stdout


def test_rules__promtool_check__sees_a_broken_rule(tmp_path):
    # the check above can fail: an expression that does not parse is refused
    bad = tmp_path / "bad.yml"
    bad.write_text(promql.RULES.read_text().replace("rate(ntprof_stage_seconds_sum[1m])",
                                                    "rate(ntprof_stage_seconds_sum[1m]", 1))
    r = promtool("check", "rules", str(bad))
    assert r.returncode != 0 and "FAILED" in r.stdout + r.stderr, r.stdout + r.stderr


def test_documented__metrics_and_labels__found_in_the_page():
    # the page's parse finds what it lists: guards the checks below
    metrics, labels = promql.documented()
    assert {"ntprof_stage_seconds_bucket", "ntprof_stage_seconds_sum", "ntprof_stage_seconds_count",
            "ntprof_commands_seen_total", "ntprof_lost_total", "ntprof_sample_one_in"} <= metrics
    assert {"role", "stage", "io_type", "size", "controller", "namespace", "le", "cause"} <= labels
    assert {"e2e", "storage", "residence", "network_star"} <= documented_stages()


def all_exprs():
    return promql.dashboard_exprs() + [(f"rule-{r}", e) for r, e in promql.rules()]


def test_dashboard_and_rules__every_metric__documented():
    metrics, _ = promql.documented()
    recorded = {r for r, _ in promql.rules()}
    exprs = all_exprs()
    assert len(exprs) >= 20, exprs
    used = set()
    for name, expr in exprs:
        names = promql.metric_names(expr)
        assert names, f"{name}: no metric in {expr!r}"
        # the dashboard stands alone: it reads the scraped metrics, not the rules' series
        allowed = metrics | recorded if name.startswith("rule-") else metrics
        assert names <= allowed, f"{name}: not documented: {names - allowed}"
        used |= names
    # the dashboard and rules show every stage histogram and every counter
    assert {"ntprof_stage_seconds_bucket", "ntprof_stage_seconds_sum", "ntprof_stage_seconds_count",
            "ntprof_commands_seen_total", "ntprof_commands_sampled_total",
            "ntprof_lost_total", "ntprof_sample_one_in"} <= used


def test_metric_names__unknown_metric__caught():
    # the parse finds a metric among functions, keywords, labels and durations
    e = 'sum by (role) (rate(ntprof_nope_total{stage="e2e"}[1m])) / on (role) group_left ntprof_x'
    assert promql.metric_names(e) == {"ntprof_nope_total", "ntprof_x"}
    assert promql.label_names(e) == {"role", "stage"}


def test_dashboard_and_rules__every_label__documented():
    _, labels = promql.documented()
    stages = documented_stages()
    for name, expr in all_exprs():
        used = promql.label_names(expr)
        assert used <= labels | promql.SCRAPE_LABELS, f"{name}: {used - labels - promql.SCRAPE_LABELS}"
        for values in re.findall(r'\bstage\s*(?:=~|!~|!=|=)\s*"([^"]*)"', expr):
            assert set(values.split("|")) <= stages, f"{name}: stage {values}"
        for values in re.findall(r'\brole\s*(?:=~|!~|!=|=)\s*"([^"]*)"', expr):
            assert values == ".+" or set(values.split("|")) <= {"host", "target"}, f"{name}: role {values}"


def test_dashboard__json__grafana_shape():
    dash = json.loads(promql.DASHBOARD.read_text())
    assert dash["uid"] and dash["title"].startswith("ntprof")
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)), ids
    titles = " / ".join(p["title"] for p in dash["panels"])
    # what the dashboard is for: the stage breakdown, p99 per stage over time, top controllers
    for want in ("Stage breakdown", "p99 per stage", "Top controllers"):
        assert want in titles, titles
    for p in dash["panels"]:
        if p["type"] != "row":
            assert p["datasource"]["uid"] == "${datasource}" and p["targets"], p["title"]
    # every Grafana variable used has a stand-in for a query outside Grafana
    text = promql.DASHBOARD.read_text()
    used = set(re.findall(r"\$\w+", text.replace("${datasource}", "")))
    assert used <= set(promql.GRAFANA_VARS), used - set(promql.GRAFANA_VARS)


def test_promql__lists_every_expression_as_json_lines():
    # what the test bed's guest runs to know what to query
    r = subprocess.run(["/usr/bin/python3", str(REPO / "tests" / "integration" / "promql.py")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(d["name"], d["expr"]) for d in lines] == promql.all_exprs()
    names = [d["name"] for d in lines]
    assert len(names) == len(set(names))
