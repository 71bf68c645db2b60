# SPDX-License-Identifier: GPL-2.0
"""Reading report -t / compare -t (the long form) and the JSON it must agree with."""

import csv
import io

REPORT_COLUMNS = ["file", "io_type", "bytes", "namespace", "device", "stage", "stat", "value"]
COMPARE_COLUMNS = ["file", "io_type", "bytes", "namespace", "device", "stage", "stat", "baseline", "new",
                   "delta", "ratio", "ci95_low", "ci95_high", "significant", "present"]
SUMMARY_KEYS = ("min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "max_ns", "stddev_ns")


def read(text, sep=","):
    """The rows as dicts, after checking that every row has the header's columns."""
    rows = list(csv.reader(io.StringIO(text), delimiter=sep)) if len(sep) == 1 else \
        [line.split(sep) for line in text.splitlines()]
    header, body = rows[0], rows[1:]
    assert all(len(r) == len(header) for r in body), \
        [r for r in body if len(r) != len(header)][:3]
    return header, [dict(zip(header, r)) for r in body]


def num(s):
    """A field as the JSON has it: '' is null, integers stay integers."""
    if s == "":
        return None
    try:
        return int(s)
    except ValueError:
        return float(s)


def report_cells(doc):
    """{(file, io_type, bytes, namespace, device, stage, stat): value} from report -j."""
    out = {}
    for g in doc["groups"]:
        key = (g["file"], g["io_type"], g["bytes"], g["namespace"], g["device"])
        for s in g["stages"]:
            out[key + (s["stage"], "n")] = g["n"]
            for k in SUMMARY_KEYS + ("share_pct",):
                out[key + (s["stage"], k)] = s[k]
        out[key + ("unattributed", "mean_ns")] = g["unattributed_mean_ns"]
        out[key + ("unattributed", "share_pct")] = g["unattributed_pct"]
        out[key + ("e2e", "n")] = g["n"]
        for k in SUMMARY_KEYS:
            out[key + ("e2e", k)] = g["e2e"][k]
        out[key + ("e2e", "share_pct")] = 100.0 if g["n"] else None
        out[key + ("e2e", "est_cmds_per_s")] = g["est_cmds_per_s"]
        out[key + ("e2e", "mismatched_commands")] = g["sum_check"]["mismatched_commands"]
    return out


def tidy_report_cells(rows):
    return {(int(r["file"]), r["io_type"], int(r["bytes"]), r["namespace"] or None,
             r["device"] or None, r["stage"], r["stat"]): num(r["value"]) for r in rows}
