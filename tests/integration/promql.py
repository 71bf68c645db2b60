# SPDX-License-Identifier: GPL-2.0
"""The PromQL expressions of the tree's Grafana dashboard
(contrib/grafana/ntprof.json) and Prometheus recording rules
(contrib/prometheus/ntprof-rules.yml), read from the files, and the metric
and label names they use; the metrics and labels ntprof-monitor(1) documents.

Used by tests/integration/test_monitor_dashboard.py (names checked against
the page) and by the test bed (tests/testbed/guest/monitor.sh runs this file
to list the expressions it queries; test_monitor.py checks the answers).

    python3 tests/integration/promql.py   # one JSON object a line: name, expr
    python3 tests/integration/promql.py --query URL TIME DIR
        # each expression asked of the Prometheus at URL at TIME (unix s):
        # its answer into DIR/prom-expr-N.json, N its line above
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "contrib" / "grafana" / "ntprof.json"
RULES = REPO / "contrib" / "prometheus" / "ntprof-rules.yml"
MONITOR_PAGE = REPO / "Documentation" / "ntprof-monitor.rst"

# what Grafana puts in place of the dashboard's variables, for a query
# outside Grafana: every instance and role, a rate window of a minute
GRAFANA_VARS = {
    "$__rate_interval": "1m",
    "$__range": "5m",
    "$instance": ".+",
    "$role": ".+",
}
# the labels Prometheus adds to every scraped series
SCRAPE_LABELS = {"instance", "job"}

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool",
            "and", "or", "unless", "offset", "atan2", "inf", "nan"}


def grafana_expr(text):
    """A dashboard query with Grafana's variables replaced; label_values(M, L),
    a variable's query, becomes the series selector M it asks Prometheus for."""
    m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", text, re.S)
    if m:
        text = m.group(1)
    for var, value in sorted(GRAFANA_VARS.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(var, value)
    if "$" in text:
        raise ValueError(f"a Grafana variable without a value here: {text!r}")
    return text


def dashboard_exprs(path=DASHBOARD):
    """[(name, expr)] of every panel's target and every query variable"""
    dash = json.loads(Path(path).read_text())
    out = []

    def panels(ps):
        for p in ps:
            yield p
            yield from panels(p.get("panels") or [])

    for p in panels(dash["panels"]):
        for t in p.get("targets") or []:
            out.append((f"dashboard-{p['id']}-{t['refId']}", grafana_expr(t["expr"])))
    for v in dash["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            out.append((f"dashboard-var-{v['name']}", grafana_expr(q)))
    return out


def rules(path=RULES):
    """[(record, expr)] of the rules file, in order"""
    doc = yaml.safe_load(Path(path).read_text())
    return [(r["record"], r["expr"]) for g in doc["groups"] for r in g["rules"]]


def all_exprs():
    """[(name, expr)]: the dashboard's, the rules' expressions, and each
    recorded series by its name (it exists once the rules are loaded)"""
    out = dashboard_exprs()
    for record, expr in rules():
        out.append((f"rule-{record}", expr))
        out.append((f"recorded-{record}", record))
    return out


def _strip(expr):
    """expr without string literals, range and subquery brackets"""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    return re.sub(r"\[[^\]]*\]", "", expr)


def label_names(expr):
    """The label names an expression matches on or groups by."""
    e = _strip(expr)
    names = set()
    for m in re.finditer(r"\{([^}]*)\}", e):
        names |= set(re.findall(r"([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)", m.group(1)))
    for m in re.finditer(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)", e):
        names |= {n.strip() for n in m.group(1).split(",") if n.strip()}
    return names


def metric_names(expr):
    """The metric (or recorded series) names an expression selects."""
    e = _strip(expr)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"(?<![\w.:])([A-Za-z_:][\w:]*)(?![\w:])(?!\s*\()", e):
        tok = m.group(1)
        if tok.lower() in KEYWORDS:
            continue
        names.add(tok)
    return names


def documented():
    """(metrics, labels) that ntprof-monitor(1)'s METRICS section names: a
    histogram's _bucket, _sum and _count; its labels, le among them"""
    text = MONITOR_PAGE.read_text()
    sec = re.search(r"^METRICS\n=+\n(.*?)^[A-Z][A-Z ]+\n=+\n", text, re.S | re.M).group(1)
    metrics, labels = set(), {"le"}
    for line in sec.splitlines():
        for name in re.findall(r"\*\*(ntprof_\w+)\*\*", line):
            if "(histogram)" in line:
                metrics |= {name + s for s in ("_bucket", "_sum", "_count")}
            else:
                metrics.add(name)
        # {role, cause} after a metric's name
        for group in re.findall(r"\*\*ntprof_\w+\*\*[^{]*\{([\w, ]+)\}", line):
            labels |= {n.strip() for n in group.split(",")}
    # the histogram's labels: the bold names under "Labels:"
    lab = re.search(r"Labels:\n(.*?)\n\*\*ntprof_", sec, re.S).group(1)
    labels |= set(re.findall(r"^    \*\*(\w+)\*\*$", lab, re.M))
    return metrics, labels


def query_all(url, at, outdir, tries=20):
    """Each expression's answer at `at` into outdir/prom-expr-N.json, asked
    again (a second apart, tries times at most) while it answers no series."""
    for n, (name, expr) in enumerate(all_exprs()):
        q = urllib.parse.urlencode({"query": expr, "time": at})
        for _ in range(tries):
            with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=60) as r:
                body = r.read()
            if json.loads(body)["data"]["result"]:
                break
            time.sleep(1)
        Path(outdir, f"prom-expr-{n}.json").write_bytes(body)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--query"]:
        query_all(*sys.argv[2:5])
    else:
        for name, expr in all_exprs():
            print(json.dumps({"name": name, "expr": expr}))
    sys.exit(0)
