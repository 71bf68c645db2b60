# SPDX-License-Identifier: GPL-2.0
"""ntprof compare on synthetic recordings (ntpgen.py): two runs drawn from the
same seed, the second with every command's wire time longer by a known
constant, so that exactly the network* stage (and the end-to-end latency)
changes by exactly that much; plus a group only the baseline has and one only
the new run has.  Every number is checked against Python's statistics of the
commands, the JSON against the text, and compare against report."""

import json
import re
import sqlite3

import pytest

import ntpgen
from report_text import size_str
from conftest import Exit, run_ok

# the known change of the network* stage, ns: odd, so rounding would show
DELTA = 7_321
STAGE_TEXT = {"block": "block", "driver": "driver", "network_star": "network*", "e2e": "end-to-end"}
STAT_KEYS = {"mean": "mean_ns", "p50": "p50_ns", "p90": "p90_ns", "p99": "p99_ns", "p99.9": "p99_9_ns"}
JSON_STAT = {"mean": "mean", "p50": "p50", "p90": "p90", "p99": "p99", "p99.9": "p99_9"}


# ---- recordings ------------------------------------------------------------------

def shifted(groups, wire_ns):
    """The same groups with every wire time longer by wire_ns: the same random
    draws (randint of a range of the same width), only network* moves."""
    return tuple(ntpgen.Group(**{**g.__dict__, "wire": (g.wire[0] + wire_ns, g.wire[1] + wire_ns)})
                 for g in groups)


def append_group(rec, io_type, nbytes, ns, latencies):
    """Adds commands of one more group to rec's file (and to rec.commands):
    latencies are (block, driver, wire) in ns, laid out as ntpgen's, no R2T."""
    g = ntpgen.Group(io_type, nbytes, ns, len(latencies))
    db = sqlite3.connect(rec.path)
    t0 = rec.meta["start_ns"] + 500
    for k, (block, driver, wire) in enumerate(latencies):
        s = t0 + k * 1_000_000
        submit, complete = driver - driver // 3, driver // 3
        row = dict(h_start_ns=s, h_queue_ns=s + block, h_cmd_sent_ns=s + block + submit,
                   h_r2t_ns=None, h_data_sent_ns=None, h_recv_ns=s + block + submit + wire,
                   h_done_ns=s + block + driver + wire, opcode=ntpgen.OPCODE[io_type], cid=k,
                   slba=k, nlb=max(nbytes // 512, 1), bytes=nbytes, qid=1,
                   nsid=int(ns.split("n")[-1]), cntlid=1, controller=ns.rsplit("n", 1)[0],
                   namespace=ns, path=ns, status=0, flags=0)
        db.execute(f"INSERT INTO host_io({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                   list(row.values()))
        rec.commands.append(ntpgen.Command(row, g, {"block": block, "driver": driver,
                                                    "network_star": wire},
                                           block + driver + wire))
    db.commit()
    db.close()


BASE_ONLY = ("read", 8192, "nvme2n1")
NEW_ONLY = ("write", 65536, "nvme3n1")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("compare")
    base = ntpgen.generate(d / "base.ntp", seed=11)
    new = ntpgen.generate(d / "new.ntp", seed=11, groups=shifted(ntpgen.DEFAULT_GROUPS, DELTA))
    append_group(base, *BASE_ONLY, [(2_000 + 37 * k, 6_000 + 11 * k, 40_000 + 101 * k)
                                    for k in range(25)])
    append_group(new, *NEW_ONLY, [(3_000 + 17 * k, 9_000 + 13 * k, 90_000 + 307 * k)
                                  for k in range(15)])
    return base, new


# ---- parsing the text ---------------------------------------------------------------

def parse(text):
    """{'files': [{key: value, 'hook': [...]}, ...], 'differs': [...], 'warnings': [...],
    'groups': {(io_type, size, ns): row}, 'values': {(io_type, size, ns, stage, stat): row},
    'formulas': {same key: line}} from compare's text."""
    out = {"files": [], "differs": [], "warnings": [], "groups": {}, "values": {},
           "formulas": {}}
    table, last = None, None
    for line in text.splitlines():
        m = re.match(r"# (baseline|new):\s+(\S.*)$", line)
        if m:
            out["files"].append({"which": m[1], "path": m[2], "hook": []})
            continue
        m = re.match(r"#   ([a-z ]+):\s+(.*)$", line)
        if m and table is None:
            f = out["files"][-1]
            if m[1] == "hook":
                f["hook"].append(m[2])
            else:
                f[m[1]] = m[2]
            continue
        m = re.match(r"# differs:\s+(.*)$", line)
        if m:
            out["differs"].append(m[1])
            continue
        m = re.match(r"# warning: (.*)$", line)
        if m:
            out["warnings"].append(m[1])
            continue
        if re.match(r"# io_type\s+size\s+namespace\s+n_baseline", line):
            table = "groups"
            continue
        if re.match(r"# io_type\s+size\s+namespace\s+stage", line):
            table = "values"
            continue
        m = re.match(r"#   ((mean|p50|p90|p99|p99\.9), ns: .*)$", line)
        if m and table == "values":
            out["formulas"][last] = m[1]
            continue
        if line.startswith("#") or not line.strip():
            continue
        cells = line.split()
        if table == "groups":
            assert len(cells) == 6, line
            out["groups"][tuple(cells[:3])] = dict(zip(("n_baseline", "n_new", "present"),
                                                       cells[3:]))
        else:
            assert len(cells) == 12, line
            last = tuple(cells[:5])
            out["values"][last] = dict(zip(("baseline", "new", "delta", "ratio", "ci95", "sig",
                                            "present"), cells[5:]))
    return out


def us(ns):
    """ns as compare prints it: microseconds, every digit; "-" for none."""
    if ns is None:
        return "-"
    return f"{'-' if ns < 0 else ''}{abs(ns) // 1000}.{abs(ns) % 1000:03d}"


def signed_us(ns):
    if ns is None:
        return "-"
    return ("+" if ns >= 0 else "") + us(ns)


def expected(rec):
    """{(io_type, bytes, ns): {stage: summary}} with 'e2e' among the stages."""
    out = {}
    for g in ntpgen.expected_groups(rec):
        st = dict(g["stages"])
        st["e2e"] = g["e2e"]
        out[(g["io_type"], g["bytes"], g["namespace"])] = {"n": g["n"], "stages": st}
    return out


def key_text(key):
    io_type, nbytes, ns = key
    return (io_type, size_str(nbytes), ns)


# ---- the numbers ---------------------------------------------------------------------

def test_only_network_changes_by_the_known_delta(run, pair):
    base, new = pair
    t = parse(run_ok(run, "compare", base.path, new.path).stdout)
    want_b, want_n = expected(base), expected(new)
    shared = set(want_b) & set(want_n)
    assert len(shared) == len(ntpgen.DEFAULT_GROUPS)
    for key in shared:
        for stage in ("block", "driver", "network_star", "e2e"):
            for stat in ("mean", "p99"):
                row = t["values"][key_text(key) + (STAGE_TEXT[stage], stat)]
                b = want_b[key]["stages"][stage][STAT_KEYS[stat]]
                n = want_n[key]["stages"][stage][STAT_KEYS[stat]]
                assert (row["baseline"], row["new"]) == (us(b), us(n)), (key, stage, stat)
                assert row["present"] == "both"
                # the runs differ by exactly DELTA on the wire, nowhere else
                moved = stage in ("network_star", "e2e")
                if b is None or n is None:
                    # a p99 of fewer than 100 commands is not shown: no delta
                    assert row["delta"] == row["ratio"] == "-"
                    continue
                assert n - b == (DELTA if moved else 0), (key, stage, stat)
                assert row["delta"] == signed_us(DELTA if moved else 0)
                # printf and Python round the same double the same way
                assert row["ratio"] == f"{n / b:.4f}"


def test_rows_of_one_run_are_shown_and_marked(run, pair):
    base, new = pair
    t = parse(run_ok(run, "compare", base.path, new.path).stdout)
    b, n = key_text(BASE_ONLY), key_text(NEW_ONLY)
    assert t["groups"][b] == {"n_baseline": "25", "n_new": "-", "present": "baseline-only"}
    assert t["groups"][n] == {"n_baseline": "-", "n_new": "15", "present": "new-only"}
    want_b, want_n = expected(base), expected(new)
    for key, side, want in ((BASE_ONLY, "baseline", want_b), (NEW_ONLY, "new", want_n)):
        other = "new" if side == "baseline" else "baseline"
        for stage in ("block", "driver", "network_star", "e2e"):
            for stat in ("mean", "p99"):
                row = t["values"][key_text(key) + (STAGE_TEXT[stage], stat)]
                assert row[side] == us(want[key]["stages"][stage][STAT_KEYS[stat]])
                assert row[other] == row["delta"] == row["ratio"] == "-"
                assert row["present"] == f"{side}-only"
    # every group of either run, in report's order: namespace, reads first, size
    keys = list(t["groups"])
    assert len(keys) == len(ntpgen.DEFAULT_GROUPS) + 2
    rank = {"read": 0, "write": 1, "other": 2}
    order = sorted(set(expected(base)) | set(expected(new)),
                   key=lambda k: (k[2], rank[k[0]], k[1]))
    assert keys == [key_text(k) for k in order]


def test_json_equals_text(run, pair, tmp_path):
    base, new = pair
    out = tmp_path / "c.json"
    r = run_ok(run, "compare", "-j", out, "--stat", "mean,p50,p90,p99,p99.9", base.path, new.path)
    t = parse(r.stdout)
    doc = json.loads(out.read_text())
    assert list(doc)[:7] == ["ntprof_version", "format_version", "schema_version", "command",
                             "kind", "stage_view", "e2e_is"]
    assert (doc["format_version"], doc["kind"], doc["stage_view"]) == (2, "host", "summary")
    assert doc["command"] == "compare"
    assert [f["path"] for f in doc["files"]] == [str(base.path), str(new.path)]
    assert [f["baseline"] for f in doc["files"]] == [True, False]
    assert doc["statistics"] == ["mean", "p50", "p90", "p99", "p99_9"]
    assert doc["threshold"] is None
    assert doc["differences"] == t["differs"] and doc["warnings"] == t["warnings"]
    assert [key_text((g["io_type"], g["bytes"], g["namespace"])) for g in doc["groups"]] == \
        list(t["groups"])
    nrows = 0
    for g in doc["groups"]:
        key = key_text((g["io_type"], g["bytes"], g["namespace"]))
        tg = t["groups"][key]
        assert g["present"] == tg["present"]
        assert str(g["n_baseline"] if g["n_baseline"] is not None else "-") == tg["n_baseline"]
        assert str(g["n_new"] if g["n_new"] is not None else "-") == tg["n_new"]
        assert [s["stage"] for s in g["stages"]] == ["block", "driver", "network_star", "e2e"]
        for s in g["stages"]:
            for stat, jk in JSON_STAT.items():
                v, row = s[jk], t["values"][key + (STAGE_TEXT[s["stage"]], stat)]
                nrows += 1
                cell = lambda x, f=us: "-" if x is None else f(x)
                assert cell(v["baseline_ns"]) == row["baseline"]
                assert cell(v["new_ns"]) == row["new"]
                assert cell(v["delta_ns"], signed_us) == row["delta"]
                assert ("-" if v["ratio"] is None else f"{v['ratio']:.4f}") == row["ratio"]
                assert s["present"] == row["present"]
                if v["delta_ns"] is not None:
                    assert v["delta_ns"] == v["new_ns"] - v["baseline_ns"]
                    assert v["ratio"] == v["new_ns"] / v["baseline_ns"]
    assert nrows == len(t["values"])


def test_json_to_stdout_is_one_document(run, pair):
    base, new = pair
    r = run_ok(run, "compare", "-j", "-", "--pretty", base.path, new.path)
    doc = json.loads(r.stdout)
    assert doc["command"] == "compare" and "# ntprof compare" not in r.stdout
    assert r.stdout.startswith("{\n  ")


def test_values_equal_report(run, pair):
    """compare reuses report's summaries: its numbers are report's numbers."""
    base, new = pair
    doc = json.loads(run_ok(run, "compare", "-j", "-", "--stat", "mean,p50,p90,p99,p99.9",
                        base.path, new.path).stdout)
    for side, rec in (("baseline", base), ("new", new)):
        rep = json.loads(run_ok(run, "report", "-j", "-", rec.path).stdout)
        by_key = {(g["io_type"], g["bytes"], g["namespace"]): g for g in rep["groups"]}
        seen = 0
        for g in doc["groups"]:
            rg = by_key.get((g["io_type"], g["bytes"], g["namespace"]))
            if rg is None:
                assert g[f"n_{side}"] is None
                continue
            seen += 1
            assert g[f"n_{side}"] == rg["n"]
            stages = {s["stage"]: s for s in rg["stages"]}
            stages["e2e"] = rg["e2e"]
            for s in g["stages"]:
                for stat, jk in JSON_STAT.items():
                    assert s[jk][f"{side}_ns"] == stages[s["stage"]][STAT_KEYS[stat]]
        assert seen == len(rep["groups"])


def test_stat_option_selects_the_rows(run, pair):
    base, new = pair
    t = parse(run_ok(run, "compare", "--stat", "p99.9,p50", base.path, new.path).stdout)
    assert {k[4] for k in t["values"]} == {"p50", "p99.9"}
    # shown in a fixed order, whatever the order asked
    stats = [k[4] for k in t["values"]][:2]
    assert stats == ["p50", "p99.9"]
    t = parse(run_ok(run, "compare", base.path, new.path).stdout)
    assert {k[4] for k in t["values"]} == {"mean", "p99"}


@pytest.mark.parametrize("arg", ["p95", "", ",", "mean,max"])
def test_bad_stat__usage_error(run, pair, arg):
    base, new = pair
    r = run("compare", "--stat", arg, base.path, new.path)
    assert r.returncode == Exit.USAGE
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("ntprof compare: error: invalid value")


def test_formula_shows_the_arithmetic(run, pair):
    base, new = pair
    t = parse(run_ok(run, "compare", "--formula", base.path, new.path).stdout)
    assert set(t["formulas"]) == set(t["values"])
    key = ntpgen.DEFAULT_GROUPS[0]
    k = (key.io_type, size_str(key.bytes), key.namespace)
    cmds = {side: [c for c in rec.commands if (c.group.report_io_type, c.group.bytes,
                                               c.group.namespace) == (k[0], key.bytes, k[2])]
            for side, rec in (("baseline", base), ("new", new))}
    s = {side: sum(c.stages["network_star"] for c in v) for side, v in cmds.items()}
    n = len(cmds["baseline"])
    mb, mn = ntpgen.mean_ns([c.stages["network_star"] for c in cmds["baseline"]]), \
        ntpgen.mean_ns([c.stages["network_star"] for c in cmds["new"]])
    f = t["formulas"][k + ("network*", "mean")]
    assert f == (f"mean, ns: baseline = round({s['baseline']} / {n}) = {mb}; "
                 f"new = round({s['new']} / {n}) = {mn}; "
                 f"delta = new - baseline = {mn} - {mb} = {mn - mb}; "
                 f"ratio = new / baseline = {mn} / {mb} = {mn / mb:.4f}")
    rank = -(-99 * n // 100)
    f = t["formulas"][k + ("end-to-end", "p99")]
    assert f.startswith(f"p99, ns: baseline = sorted[{rank} of {n}] = ")
    f = t["formulas"][key_text(BASE_ONLY) + ("block", "mean")]
    assert "new = none" in f and "delta and ratio: none" in f
    doc = json.loads(run_ok(run, "compare", "--formula", "-j", "-", base.path, new.path).stdout)
    g = next(g for g in doc["groups"] if (g["io_type"], g["bytes"], g["namespace"]) ==
             (k[0], key.bytes, k[2]))
    assert g["stages"][2]["mean"]["formula"] == t["formulas"][k + ("network*", "mean")]


# ---- header -----------------------------------------------------------------------------

def test_header_names_both_runs_and_what_differs(run, tmp_path):
    hooks = list(ntpgen.DEFAULT_HOOKS)
    hooks[5] = ("host", "h_recv", "nvme_tcp_process_nvme_cqe", "fentry", "")
    groups = (ntpgen.Group("read", 4096, "nvme0n1", 50),)
    a = ntpgen.generate(tmp_path / "a.ntp", seed=5, groups=groups)
    b = ntpgen.generate(tmp_path / "b.ntp", seed=5, groups=groups, hooks=hooks,
                        meta={"kernel_release": "6.8.0-new", "hostname": "otherhost"})
    t = parse(run_ok(run, "compare", "--header", a.path, b.path).stdout)
    fa, fb = t["files"]
    assert (fa["which"], fa["path"], fb["which"], fb["path"]) == \
        ("baseline", str(a.path), "new", str(b.path))
    assert fa["kernel release"] == "6.1.0-ntpgen" and fb["kernel release"] == "6.8.0-new"
    assert fa["host"] == "genhost" and fb["host"] == "otherhost"
    assert fa["sample rate"] == fb["sample rate"] == "1/1000"
    assert fa["role"] == "host" and fa["transport"] == "tcp"
    assert len(fa["hook"]) == len(fb["hook"]) == len(hooks)
    assert "host h_recv: nvme_tcp_process_nvme_cqe (kprobe): fentry would stall" in fa["hook"][5]
    assert fb["hook"][5] == "host h_recv: nvme_tcp_process_nvme_cqe (fentry)"
    assert t["differs"] == [
        "kernel release: 6.1.0-ntpgen -> 6.8.0-new",
        "host: genhost -> otherhost",
        "hook host h_recv: nvme_tcp_process_nvme_cqe (kprobe) -> nvme_tcp_process_nvme_cqe (fentry)",
    ]
    assert t["warnings"] == []


def test_different_sample_rates__warning_not_refusal(run, tmp_path):
    groups = (ntpgen.Group("read", 4096, "nvme0n1", 50),)
    a = ntpgen.generate(tmp_path / "a.ntp", seed=5, groups=groups)
    b = ntpgen.generate(tmp_path / "b.ntp", seed=5, groups=groups, sample_one_in=64)
    r = run("compare", a.path, b.path)
    assert r.returncode == Exit.OK
    assert r.stderr == ("ntprof compare: warning: sample rates differ (baseline 1/1000, "
                        "new 1/64): the statistics rest on different shares of the commands\n")
    t = parse(r.stdout)
    assert t["files"][1]["sample rate"] == "1/64"
    assert "sample rate: 1/1000 -> 1/64" in t["differs"]
    assert len(t["warnings"]) == 1 and "sample rates differ" in t["warnings"][0]
    doc = json.loads(run("compare", "-j", "-", a.path, b.path).stdout)
    assert doc["warnings"] == t["warnings"]


def test_lost_commands__warning_in_the_output(run, tmp_path):
    groups = (ntpgen.Group("read", 4096, "nvme0n1", 50),)
    a = ntpgen.generate(tmp_path / "a.ntp", seed=5, groups=groups)
    b = ntpgen.generate(tmp_path / "b.ntp", seed=5, groups=groups, lost_ringbuf=9)
    t = parse(run_ok(run, "compare", a.path, b.path).stdout)
    assert t["warnings"] == ["the new recording lost 9 sampled commands while recording; "
                             "its statistics do not include them"]
    assert t["files"][1]["commands"] == "50 in file, 9 lost"


# ---- refusals and exit codes -------------------------------------------------------------

@pytest.mark.parametrize("meta,what", [({"transport": "rdma"}, "transport tcp (baseline) vs rdma (new)"),
                                       ({"role": "target"},
                                        "host recordings (baseline) vs target recordings (new)")])
def test_incomparable_recordings__mismatch(run, tmp_path, meta, what):
    groups = (ntpgen.Group("read", 4096, "nvme0n1", 20),)
    a = ntpgen.generate(tmp_path / "a.ntp", seed=5, groups=groups)
    b = ntpgen.generate(tmp_path / "b.ntp", seed=5, groups=groups, meta=meta)
    r = run("compare", a.path, b.path)
    assert r.returncode == Exit.MISMATCH
    assert r.stdout == ""
    assert r.stderr == f"ntprof compare: error: {a.path}, {b.path}: cannot compare: {what}\n"
    r = run("compare", "-j", "-", a.path, b.path)
    assert r.returncode == Exit.MISMATCH
    assert json.loads(r.stdout)["error"]["code"] == Exit.MISMATCH


def test_threshold(run, pair):
    base, new = pair
    want_b, want_n = expected(base), expected(new)
    growth = {k: (want_n[k]["stages"]["e2e"]["mean_ns"] - want_b[k]["stages"]["e2e"]["mean_ns"])
              * 100 / want_b[k]["stages"]["e2e"]["mean_ns"] for k in set(want_b) & set(want_n)}
    lo, hi = min(growth.values()), max(growth.values())
    assert 0 < lo < hi

    # above every growth: success, and the text says so; every group is tested: the
    # flushes are 7 commands, below the default --min-n, and the mean needs 2
    r = run_ok(run, "compare", "--min-n", "2", "--threshold", f"{hi + 0.01:.2f}", base.path,
           new.path)
    assert re.search(r"^# threshold: ok \(0 groups over, 0 not tested\)$", r.stdout, re.M)
    # without: the flushes' rule is not tested, and that is said, exit 12
    r = run("compare", "--threshold", f"{hi + 0.01:.2f}", base.path, new.path)
    assert r.returncode == Exit.UNTESTED
    assert re.search(r"^# threshold: NOT TESTED \(0 groups over, 1 not tested\)$", r.stdout,
                     re.M)
    assert re.search(r"^#   other +0B nvme1n1: e2e\.mean=[0-9.]+ not tested: mean needs 10 "
                     r"commands in each run$", r.stdout, re.M), r.stdout

    # between the smallest and the largest: exactly the groups above fail whose
    # change is significant (a group of 7 commands moving 10% is noise)
    pct = (lo + hi) / 2
    # beyond the noise trips, within the floor or not (the rule's percent is the floor)
    sig = {(g["io_type"], g["bytes"], g["namespace"]):
           g["stages"][-1]["mean"]["verdict"] in ("changed", "small")
           for g in json.loads(run_ok(run, "compare", "--min-n", "2", "-j", "-", base.path,
                                  new.path).stdout)["groups"]}
    over = sorted(k for k, g in growth.items() if g > pct and sig[k])
    assert over
    r = run("compare", "--min-n", "2", "--threshold", f"{pct}", "-j", "-", base.path, new.path)
    assert r.returncode == Exit.THRESHOLD
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ntprof compare: error: {new.path}: "
                                                   "a --threshold rule was exceeded")
    doc = json.loads(r.stdout)
    assert doc["threshold"]["rules"] == [{"stage": "e2e", "stat": "mean", "pct": pct}]
    assert doc["threshold"]["exceeded"] is True
    assert doc["threshold"]["groups_over"] == len(over)
    got = sorted((g["io_type"], g["bytes"], g["namespace"]) for g in doc["groups"]
                 if g["over_threshold"])
    assert got == over
    for g in doc["groups"]:
        k = (g["io_type"], g["bytes"], g["namespace"])
        if k in growth:
            assert abs(g["e2e_mean_growth_pct"] - growth[k]) < 1e-9
        else:
            # a group in one run only has no growth and never trips the threshold
            assert g["e2e_mean_growth_pct"] is None and not g["over_threshold"]

    # the text is still printed in full
    r = run("compare", "--threshold", "0", base.path, new.path)
    assert r.returncode == Exit.THRESHOLD
    assert "# threshold: EXCEEDED" in r.stdout
    assert len(parse(r.stdout)["values"]) == (len(ntpgen.DEFAULT_GROUPS) + 2) * 4 * 2


def test_a_run_against_itself__zero_deltas_and_no_threshold(run, pair):
    base, _ = pair
    r = run_ok(run, "compare", "--min-n", "2", "--threshold", "0", base.path, base.path)
    t = parse(r.stdout)
    assert t["differs"] == [] and t["warnings"] == []
    shown = 0
    for row in t["values"].values():
        assert row["present"] == "both"
        # a p99 of fewer than 100 commands is not shown, in either run: no delta
        if row["baseline"] == "-":
            assert row["new"] == row["delta"] == row["ratio"] == "-", row
            continue
        shown += 1
        assert row["delta"] == "+0.000" and row["ratio"] == "1.0000"
    assert shown


@pytest.mark.parametrize("arg", ["-1", "ten", "5%", "nan", ""])
def test_bad_threshold__usage_error(run, pair, arg):
    base, new = pair
    r = run("compare", "--threshold", arg, base.path, new.path)
    assert r.returncode == Exit.USAGE
    assert r.stderr.startswith("ntprof compare: error: invalid value")


@pytest.mark.parametrize("nfiles", [0, 1, 3])
def test_not_two_files__usage_error(run, pair, nfiles):
    files = [pair[0].path] * nfiles
    r = run("compare", *files)
    assert r.returncode == Exit.USAGE
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1


def test_recordings_without_commands(run, tmp_path):
    a = ntpgen.generate(tmp_path / "a.ntp", groups=())
    b = ntpgen.generate(tmp_path / "b.ntp", groups=())
    r = run_ok(run, "compare", a.path, b.path)
    assert "# no sampled host commands in either recording" in r.stdout
    assert all(line.startswith("#") for line in r.stdout.splitlines())
    doc = json.loads(run_ok(run, "compare", "-j", "-", a.path, b.path).stdout)
    assert doc["groups"] == []


def test_compare_never_modifies_the_recordings(run, pair):
    base, new = pair
    before = (base.path.read_bytes(), new.path.read_bytes())
    run_ok(run, "compare", base.path, new.path)
    assert (base.path.read_bytes(), new.path.read_bytes()) == before


# ---- bad files: the codes of report, for either operand ------------------------------------

def _missing(d, good):
    return d / "no-such.ntp"


def _empty(d, good):
    p = d / "empty.ntp"
    p.write_bytes(b"")
    return p


def _text(d, good):
    p = d / "notes.ntp"
    p.write_text("this is not a recording\n" * 20)
    return p


def _other_sqlite(d, good):
    p = d / "other.db"
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()
    return p


def _newer(d, good):
    p = d / "v99.ntp"
    p.write_bytes(good.read_bytes())
    db = sqlite3.connect(p)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    return p


def _truncated(d, good):
    p = d / "half.ntp"
    data = good.read_bytes()
    p.write_bytes(data[:len(data) // 2])
    return p


BAD = [(_missing, Exit.NOFILE), (_empty, Exit.NOTSQLITE), (_text, Exit.NOTSQLITE),
       (_other_sqlite, Exit.NOTNTP), (_newer, Exit.TOONEW), (_truncated, Exit.CORRUPT)]


@pytest.mark.parametrize("which", ["baseline", "new"])
@pytest.mark.parametrize("make,code", BAD, ids=[b[0].__name__.strip("_") for b in BAD])
def test_bad_file__distinct_code_one_line(run, tmp_path, pair, which, make, code):
    good = pair[0].path
    bad = make(tmp_path, good)
    args = (bad, good) if which == "baseline" else (good, bad)
    r = run("compare", *args)
    assert r.returncode == code, r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ntprof compare: error: ")
    assert str(bad) in lines[0]
    r = run("compare", "-j", "-", *args)
    assert r.returncode == code
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == code and str(bad) in doc["error"]["message"]


# ---- scale ---------------------------------------------------------------------------------

def test_large_recordings_equal_report(run, tmp_path):
    """Recordings big enough that report reads them with several threads."""
    a = ntpgen.generate_bulk(tmp_path / "a.ntp", 250_000)
    b = ntpgen.generate_bulk(tmp_path / "b.ntp", 200_000)
    doc = json.loads(run_ok(run, "compare", "-j", "-", a.path, b.path, timeout=180).stdout)
    for side, rec in (("baseline", a), ("new", b)):
        rep = json.loads(run_ok(run, "report", "-j", "-", rec.path, timeout=120).stdout)
        assert [(g["io_type"], g["bytes"], g["namespace"], g["n"]) for g in rep["groups"]] == \
            [(g["io_type"], g["bytes"], g["namespace"], g[f"n_{side}"]) for g in doc["groups"]]
        for g, rg in zip(doc["groups"], rep["groups"]):
            assert g["stages"][-1]["mean"][f"{side}_ns"] == rg["e2e"]["mean_ns"]
            assert g["stages"][-1]["p99"][f"{side}_ns"] == rg["e2e"]["p99_ns"]
