# SPDX-License-Identifier: GPL-2.0
"""compare tells a change from noise (ntprof-compare(1), SIGNIFICANCE): each
delta's 95% interval, on generated runs whose true difference is known.

- two runs of the same draws, one with every storage time longer by SHIFT:
  the true delta of every statistic is known exactly, and each interval
  must hold it;
- two runs of other draws of one distribution: no true change, so few
  intervals may exclude 0 (about 5%);
- the same with the storage shifted by much more than its noise: the
  storage change is found, nothing else much.
And --threshold's rules, which trip only on significant changes, and
--min-n."""

import json

import pytest

import ntpgen
from conftest import Exit

SHIFT = 50_017                 # ns: beyond the storage's noise (a 20-90 us spread)
STATS = "mean,p50,p90,p99,p99.9"
KEYS = ("mean", "p50", "p90", "p99", "p99_9")


def slower_storage(groups, ns):
    return tuple(ntpgen.JGroup(**{**g.__dict__, "storage": (g.storage[0] + ns, g.storage[1] + ns)})
                 for g in groups)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("sig")
    slow = slower_storage(ntpgen.DEFAULT_JGROUPS, SHIFT)
    # no drift: target times then shift by exactly SHIFT (a drift rounds them by a ns)
    ntpgen.generate_pair(d / "a-h.ntp", d / "a-t.ntp", seed=31, drift=0.0)
    ntpgen.generate_pair(d / "same-h.ntp", d / "same-t.ntp", seed=31, drift=0.0, groups=slow)
    ntpgen.generate_pair(d / "b-h.ntp", d / "b-t.ntp", seed=32, drift=0.0)
    ntpgen.generate_pair(d / "c-h.ntp", d / "c-t.ntp", seed=33, drift=0.0, groups=slow)
    return {k: f"{d / (k + '-h.ntp')},{d / (k + '-t.ntp')}" for k in ("a", "same", "b", "c")}


def compare(run, *args):
    r = run("compare", "-j", "-", "--stat", STATS, *map(str, args))
    assert r.returncode in (Exit.OK, Exit.THRESHOLD, Exit.UNTESTED), r.stderr
    return json.loads(r.stdout)


def values(doc):
    """(group, stage, stat, value object) of every statistic found in both runs."""
    for g in doc["groups"]:
        if g["present"] != "both":
            continue
        for s in g["stages"]:
            for k in KEYS:
                yield (g["io_type"], g["bytes"]), s["stage"], k, s[k]


def stat_p(stat):
    """A statistic's p for ntpgen.min_shown: p99_9 -> 99.9; the mean is shown from 1."""
    return 0 if stat == "mean" else float(stat[1:].replace("_", "."))


def n_needed(stat):
    """A percentile's interval wants 5 commands beyond it: p90 50, p99 500, p99.9 5000."""
    return {"mean": 2, "p50": 10, "p90": 50, "p99": 500, "p99_9": 5000}[stat]


def test_same_draws_shifted__every_interval_holds_the_true_delta(run, runs):
    doc = compare(run, runs["a"], runs["same"])
    n = 0
    sizes = {(g["io_type"], g["bytes"]): min(g["n_baseline"], g["n_new"]) for g in doc["groups"]}
    for group, stage, stat, v in values(doc):
        true = SHIFT if stage in ("storage", "e2e") else 0
        if sizes[group] < ntpgen.min_shown(stat_p(stat)):
            # too few commands to show the statistic at all: no value, no delta
            assert v["delta_ns"] is None and v["significant"] is None, (group, stat, v)
            continue
        assert v["delta_ns"] == true, (group, stage, stat, v)
        if sizes[group] < n_needed(stat):
            # too few commands for this tail: no interval, not tested
            assert v["ci95_low_ns"] is None and v["significant"] is None, (group, stat, v)
            continue
        assert v["ci95_low_ns"] <= true <= v["ci95_high_ns"], (group, stage, stat, v)
        n += 1
    assert n >= 4 * 6 * 3
    # the shifted means are found in every group (n of 60 to 300, a 50 us shift)
    for group, stage, stat, v in values(doc):
        if stage == "storage" and stat == "mean":
            assert v["significant"] is True, (group, v)


def test_no_true_change__few_intervals_exclude_zero(run, runs):
    doc = compare(run, runs["a"], runs["b"])
    tested = [v for _, _, _, v in values(doc) if v["significant"] is not None]
    assert len(tested) >= 4 * 6 * 3
    false_alarms = sum(v["significant"] for v in tested)
    # 5% expected (measured over 20 pairs of seeds: 5.2% of means, 6.7% of
    # medians, 4.2% of p90s); these fixed draws give a handful, never most
    assert false_alarms <= 0.15 * len(tested), false_alarms
    for v in tested:
        assert v["ci95_low_ns"] <= v["delta_ns"] <= v["ci95_high_ns"]


def test_true_change_in_other_draws__storage_found(run, runs):
    doc = compare(run, runs["b"], runs["c"])
    storage = [(g, v) for g, stage, stat, v in values(doc) if stage == "storage" and stat == "mean"]
    assert len(storage) == 4 and all(v["significant"] for _, v in storage), storage
    # the true shift lies in (nearly) every storage mean's interval
    held = sum(v["ci95_low_ns"] <= SHIFT <= v["ci95_high_ns"] for _, v in storage)
    assert held >= 3, storage
    others = [v for _, stage, _, v in values(doc)
              if stage not in ("storage", "e2e") and v["significant"] is not None]
    assert sum(v["significant"] for v in others) <= 0.15 * len(others)
    assert doc["changed_most"]["stage"] == "storage"


def test_text_shows_the_interval_and_the_verdict(run, runs):
    text = run("compare", "--stat", "mean", runs["a"], runs["same"]).stdout
    assert "# ci95: the delta's 95% interval" in text
    row = next(line for line in text.splitlines()
               if line.startswith("  read       4KiB") and " storage " in line)
    cells = row.split()
    assert cells[-2] == "yes" and cells[-3].startswith("[+") and cells[-1] == "both"


def test_threshold_rules__only_significant_growth_trips(run, runs):
    # storage grew by far more than 5%, significantly: exit 11, the rule named
    r = run("compare", "--threshold", "storage.p90=5", "-j", "-", runs["a"], runs["same"])
    assert r.returncode == Exit.THRESHOLD
    doc = json.loads(r.stdout)
    assert doc["threshold"]["rules"] == [{"stage": "storage", "stat": "p90", "pct": 5}]
    over = [g for g in doc["groups"] if g["over_threshold"]]
    assert over and all(g["tripped"]["stage"] == "storage" for g in over)
    assert "(storage.p90=5)" in r.stderr and len(r.stderr.splitlines()) == 1
    # a p99 of a few hundred commands is not a tail to test (500 needed): it cannot
    # trip, and it never passes in silence either: exit 12, each group named
    r = run("compare", "--threshold", "storage.p99=5", "-j", "-", runs["a"], runs["same"])
    assert r.returncode == Exit.UNTESTED, r.stderr
    assert "could not be tested" in r.stderr and "p99 needs 500 commands a run" in r.stderr
    doc = json.loads(r.stdout)
    assert doc["threshold"]["verdict"] == "not_tested" and not doc["threshold"]["exceeded"]
    assert doc["threshold"]["groups_not_tested"] == 4
    assert all(g["not_tested"] == {"stage": "storage", "stat": "p99", "pct": 5, "needs_n": 500}
               for g in doc["groups"] if g["present"] == "both")
    # block did not move: its rule never trips, whatever its percent
    assert run("compare", "--threshold", "block.mean=0,driver.p90=0", runs["a"],
               runs["same"]).returncode == Exit.OK
    # no true change: a loose rule on noise stays quiet
    assert run("compare", "--threshold", "20", runs["a"], runs["b"]).returncode == Exit.OK


def test_threshold_rule_syntax(run, runs):
    doc = compare(run, "--threshold", "p99.9=5,network.mean=1", "--threshold", "7",
                  runs["a"], runs["b"])
    assert doc["threshold"]["rules"] == [
        {"stage": "e2e", "stat": "p99_9", "pct": 5},
        {"stage": "network", "stat": "mean", "pct": 1},
        {"stage": "e2e", "stat": "mean", "pct": 7}]
    # a stage by its text name
    assert run("compare", "--threshold", "driver(t).mean=1000", runs["a"],
               runs["b"]).returncode == Exit.OK


@pytest.mark.parametrize("rule,says", [
    ("storage.p98=5", "expected [STAGE.][STAT=]PCT"),
    ("=5", "expected [STAGE.][STAT=]PCT"),
    ("storage.p99=-1", "percentage"),
    ("storage.p99=x", "percentage"),
    ("storge.p99=5", "no stage 'storge' in these recordings"),
    (",", "no rule"),
])
def test_threshold_bad_rules__usage(run, runs, rule, says):
    r = run("compare", "--threshold", rule, runs["a"], runs["b"])
    assert r.returncode == Exit.USAGE and r.stdout == ""
    assert says in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


def test_min_n__too_few_are_not_tested(run, runs):
    doc = compare(run, "--min-n", "1000", "--threshold", "storage.mean=1", runs["a"],
                  runs["same"])
    assert doc["min_n"] == 1000
    assert all(v["significant"] is None and v["verdict"] == "not_tested" and v["needs_n"] >= 1000
               for _, _, _, v in values(doc))
    # the interval is still given where it can be
    assert all(v["ci95_low_ns"] is not None for _, _, stat, v in values(doc) if stat == "mean")
    # the rule could be tested nowhere: not exceeded, not passed either
    assert doc["threshold"]["exceeded"] is False and doc["threshold"]["verdict"] == "not_tested"
    text = run("compare", "--min-n", "1000", runs["a"], runs["same"]).stdout
    assert " n<1000 " in text and " yes " not in text
    assert compare(run, runs["a"], runs["b"])["min_n"] == 10
    for bad in ("1", "x", "0"):
        r = run("compare", "--min-n", bad, runs["a"], runs["b"])
        assert r.returncode == Exit.USAGE and "--min-n" in r.stderr


def test_changed_most_names_a_significant_change_before_a_bigger_one_of_too_few(run, tmp_path):
    """A group of 6 commands whose storage grew by 500 us, and groups of 60 to
    300 whose storage grew by 50 us: the line names one of the latter, whose
    change is tested and significant, not the noise of 6 commands."""
    small = ntpgen.JGroup("read", 8192, "nvme0n1", 6)
    base = ntpgen.DEFAULT_JGROUPS + (small,)
    new = slower_storage(ntpgen.DEFAULT_JGROUPS, SHIFT) + slower_storage((small,), 10 * SHIFT)
    ntpgen.generate_pair(tmp_path / "a-h.ntp", tmp_path / "a-t.ntp", seed=41, drift=0.0, groups=base)
    ntpgen.generate_pair(tmp_path / "b-h.ntp", tmp_path / "b-t.ntp", seed=41, drift=0.0, groups=new)
    a, b = (f"{tmp_path / (k + '-h.ntp')},{tmp_path / (k + '-t.ntp')}" for k in "ab")
    doc = compare(run, a, b)
    most = doc["changed_most"]
    assert (most["stage"], most["significant"]) == ("storage", True), most
    assert most["bytes"] != 8192 and most["delta_ns"] == SHIFT, most
    small_row = next(g for g in doc["groups"] if g["bytes"] == 8192)
    storage = next(s for s in small_row["stages"] if s["stage"] == "storage")
    assert storage["mean"]["delta_ns"] == 10 * SHIFT and storage["mean"]["significant"] is None
    text = run("compare", a, b).stdout
    line = next(x for x in text.splitlines() if x.startswith("# changed most:"))
    assert line.startswith("# changed most: storage of ") and "8KiB" not in line
    assert "significant" not in line, line


def test_changed_most_says_when_nothing_changed_significantly(run, runs):
    # a run against itself: every delta 0, tested, none significant
    most = compare(run, runs["a"], runs["a"])["changed_most"]
    assert most["significant"] is False and most["delta_ns"] == 0, most
    assert most["verdict"] == "noise"
    text = run("compare", runs["a"], runs["a"]).stdout
    line = next(x for x in text.splitlines() if x.startswith("# changed most:"))
    assert line.startswith("# changed most: no meaningful change (the largest: "), line
    assert line.endswith(", within the noise)"), line
