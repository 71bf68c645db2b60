# SPDX-License-Identifier: GPL-2.0
"""ntprof export: recordings as a Perfetto trace.

Each trace is decoded with the tree's .proto subset (pftrace.py) and checked
against SQL over the recordings it came from: every sampled command one
slice with its recorded start and duration, the stages nested inside adding
up to the stage views, lanes that never overlap, host and target slices of a
joined command linked by a flow and placed on one clock, and counters equal
to a sweep over the same rows.
"""
import collections
import csv
import io
import sqlite3
import subprocess

import pytest

import ntpgen
import pftrace
from conftest import Exit, assert_ok
from report_text import size_str

IO = {1: "write", 2: "read"}


@pytest.fixture(scope="module")
def pb2(tmp_path_factory):
    return pftrace.compile_proto(tmp_path_factory.mktemp("proto"))


def export(run, pb2, out, *files):
    r = run("export", "-o", out, *files)
    assert_ok_out(r, out)
    pftrace.protoc_decode(out)
    return pftrace.Trace(pb2, out)


def assert_ok_out(r, out):
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr == ""
    assert r.stdout.startswith(f"{out}: ") and "open it in ui.perfetto.dev" in r.stdout


def rows(path, sql):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute(sql)]
    finally:
        db.close()


def by_name_sum(s):
    out = collections.Counter()
    for c in s.children:
        out[c.name] += c.dur
    return out


def check_nesting(s):
    """The stages tile their command: each begins where the previous ended."""
    at = s.ts
    for c in s.children:
        assert c.ts == at and c.end >= c.ts and not c.children
        at = c.end
    assert at == s.end or not s.children


def check_lanes(trace):
    lanes = collections.defaultdict(list)
    for s in trace.slices:
        lanes[s.track].append(s)
    for track, ss in lanes.items():
        ss.sort(key=lambda s: s.ts)
        for a, b in zip(ss, ss[1:]):
            assert b.ts >= a.end, f"overlap on {trace.track_path(track)}"


def sweep(spans):
    """The in-flight counter a queue must show: +1 at a start, -1 at an end, ends first."""
    ev = sorted([(s, 1) for s, _ in spans] + [(e, 0) for _, e in spans])
    n, out = 0, []
    for t, up in ev:
        n += 1 if up else -1
        out.append((t, float(n)))
    return out


@pytest.fixture(scope="module")
def host_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("export_host")
    ntpgen.generate(d / "host.ntp", seed=7)
    return d / "host.ntp"


def test_host_recording_one_slice_per_command_with_its_stages(run, pb2, host_file, tmp_path):
    trace = export(run, pb2, tmp_path / "h.pftrace", host_file)
    hio = {r["id"]: r for r in rows(host_file, "SELECT * FROM host_io")}
    stages = {r["id"]: r for r in rows(host_file, "SELECT * FROM host_stages")}
    assert len(trace.slices) == len(hio) > 0
    seen = set()
    for s in trace.slices:
        h = hio[s.args["id"]]
        seen.add(h["id"])
        assert (s.ts, s.dur) == (h["h_start_ns"], h["h_done_ns"] - h["h_start_ns"])
        assert s.name == f"{IO.get(h['opcode'], 'other')} {size_str(h['bytes'])}"
        for k in ("cid", "slba", "nlb", "qid", "nsid", "cntlid", "status", "bytes"):
            assert s.args[k] == h[k]
        assert s.args["namespace"] == h["namespace"]
        check_nesting(s)
        st = stages[h["id"]]
        sums = by_name_sum(s)
        assert sums["block"] == st["block_ns"]
        assert sums["driver"] == st["driver_ns"]
        assert sums["network*"] == st["network_star_ns"]
        assert set(sums) <= {"block", "driver", "network*"}
        # machine > queue > lane
        path = trace.track_path(s.track)
        assert path[0] == "host genhost (host.ntp)"
        assert path[1] == f"{h['controller']} q{h['qid']}"
        assert path[2].startswith(path[1] + " #")
        assert trace.machine_of(s.track).pid is not None
    assert seen == set(hio)
    check_lanes(trace)


def test_r2t_writes_show_the_hosts_work_between_round_trips(run, pb2, host_file, tmp_path):
    trace = export(run, pb2, tmp_path / "h.pftrace", host_file)
    hio = {r["id"]: r for r in rows(host_file, "SELECT * FROM host_io WHERE h_r2t_ns IS NOT NULL")}
    assert hio, "the generator made no R2T writes"
    for s in trace.slices:
        if s.args["id"] in hio:
            assert [c.name for c in s.children if c.dur] == \
                ["block", "driver", "network*", "driver", "network*", "driver"]


def test_in_flight_counters_follow_the_commands(run, pb2, host_file, tmp_path):
    trace = export(run, pb2, tmp_path / "h.pftrace", host_file)
    spans = collections.defaultdict(list)
    for h in rows(host_file, "SELECT * FROM host_io"):
        spans[f"{h['controller']} q{h['qid']}"].append((h["h_start_ns"], h["h_done_ns"]))
    counters = trace.counter_tracks(" sampled in flight")
    assert {t.name[:-len(" sampled in flight")] for t in counters.values()} == set(spans)
    for uuid, t in counters.items():
        q = t.name[:-len(" sampled in flight")]
        assert trace.counters[uuid] == sweep(spans[q])
        # as many lanes as commands were ever in flight at once
        lanes = [u for u, tr in trace.tracks.items() if tr.name.startswith(q + " #")]
        assert len(lanes) == max(v for _, v in trace.counters[uuid])


def rates(path, side="host"):
    """The rate counters a file's intervals make: each interval's counts over its
    length, at its start; the first starts at the recording's start (meta start_ns)."""
    (start,) = (r["value"] for r in rows(path, "SELECT value FROM meta WHERE key = 'start_ns'"))
    iv = rows(path, f"SELECT * FROM intervals WHERE side = '{side}' ORDER BY t_ns")
    ends = [start] + [r["t_ns"] for r in iv]
    return ([(a, r["seen"] * 1e9 / (b - a)) for a, b, r in zip(ends, ends[1:], iv)],
            [(a, r["sampled"] * 1e9 / (b - a)) for a, b, r in zip(ends, ends[1:], iv)])


def test_rate_counters_are_the_intervals(run, pb2, host_file, tmp_path):
    trace = export(run, pb2, tmp_path / "h.pftrace", host_file)
    want_seen, want_sampled = rates(host_file)
    assert len(want_seen) > 2
    (seen,) = trace.counter_tracks("commands/s (all seen)")
    (sampled,) = trace.counter_tracks("sampled commands/s")
    assert trace.counters[seen] == pytest.approx(want_seen)
    assert trace.counters[sampled] == pytest.approx(want_sampled)


def test_one_interval_file_has_its_rate(run, pb2, tmp_path):
    """The first interval runs from the recording's start: a file of one has one rate."""
    ntpgen.generate(tmp_path / "one.ntp", duration_s=1)
    trace = export(run, pb2, tmp_path / "one.pftrace", tmp_path / "one.ntp")
    want_seen, want_sampled = rates(tmp_path / "one.ntp")
    assert len(want_seen) == 1
    (seen,) = trace.counter_tracks("commands/s (all seen)")
    (sampled,) = trace.counter_tracks("sampled commands/s")
    assert trace.counters[seen] == pytest.approx(want_seen)
    assert trace.counters[sampled] == pytest.approx(want_sampled)


def test_without_start_the_first_interval_has_no_rate(run, pb2, tmp_path):
    """No meta start_ns: the first interval's start is unknown, its rate is left out."""
    ntpgen.generate(tmp_path / "h.ntp", meta={"start_ns": None})
    trace = export(run, pb2, tmp_path / "h.pftrace", tmp_path / "h.ntp")
    iv = rows(tmp_path / "h.ntp", "SELECT * FROM intervals WHERE side = 'host' ORDER BY t_ns")
    want = [(a["t_ns"], b["seen"] * 1e9 / (b["t_ns"] - a["t_ns"])) for a, b in zip(iv, iv[1:])]
    (seen,) = trace.counter_tracks("commands/s (all seen)")
    assert trace.counters[seen] == pytest.approx(want)


def joined_pairs(run, *files):
    r = run("dump", *files)
    assert r.returncode == Exit.OK, r.stderr
    return {(int(d["host_id"]), int(d["target_id"])): d for d in csv.DictReader(io.StringIO(r.stdout))}


def check_joined(trace, pairs, host_path, target_path, exact_clock):
    host = {s.args["id"]: s for s in trace.slices if trace.machine_of(s.track).name.startswith("host ")}
    target = {s.args["id"]: s for s in trace.slices if trace.machine_of(s.track).name.startswith("target ")}
    assert len(host) == len(rows(host_path, "SELECT id FROM host_io"))
    assert len(target) == len(rows(target_path, "SELECT id FROM target_io"))
    ends = {}
    for s in target.values():
        assert not s.flows
        for f in s.end_flows:
            assert f not in ends
            ends[f] = s
    linked = set()
    for s in host.values():
        assert not s.end_flows and len(s.flows) <= 1
        for f in s.flows:
            linked.add((s.args["id"], ends[f].args["id"]))
    # every joined command is linked, and nothing else is
    assert linked == set(pairs)
    assert len(ends) == len(pairs)
    tstages = {r["id"]: r for r in rows(target_path, "SELECT * FROM target_stages")}
    for (hid, tid), d in pairs.items():
        h, t = host[hid], target[tid]
        # the target's part on the host's clock, where the join's estimate puts it
        want = int(d["t_recv_ns"]) - int(d["offset_ns"])
        assert abs(t.ts - want) <= (0 if exact_clock else 10)
        # on two clocks a span is scaled by the drift (ntpgen: 20 ppm)
        slack = 0 if exact_clock else 2 + 25e-6 * t.dur
        assert t.dur == pytest.approx(int(d["t_sent_ns"]) - int(d["t_recv_ns"]), abs=slack)
        assert h.ts <= t.ts and t.end <= h.end
        check_nesting(t)
        sums = by_name_sum(t)
        st = tstages[tid]
        assert sums["storage"] == pytest.approx(st["storage_ns"], abs=2 * slack)
        assert sums["driver(t)"] == pytest.approx(st["target_driver_ns"], abs=2 * slack)
        # the host's round trip holds what the target did; beside it, the host's driver
        assert {"network*", "driver(h)"} <= {c.name for c in h.children}
        path = trace.track_path(t.track)
        assert path[1] == f"ctrl {d['cntlid']} q{d['qid']}" and path[2].startswith(path[1] + " #")
    check_lanes(trace)


def test_host_and_target_pair_linked_by_flows_on_the_hosts_clock(run, pb2, tmp_path):
    js = ntpgen.generate_pair(tmp_path / "host.ntp", tmp_path / "target.ntp", seed=11)
    trace = export(run, pb2, tmp_path / "p.pftrace", tmp_path / "host.ntp", tmp_path / "target.ntp")
    pairs = joined_pairs(run, tmp_path / "host.ntp", tmp_path / "target.ntp")
    assert len(pairs) == len(js.matched()) > 0
    check_joined(trace, pairs, tmp_path / "host.ntp", tmp_path / "target.ntp", exact_clock=False)
    machines = sorted(t.name for t in trace.tracks.values() if t.pid is not None)
    assert machines == ["host gen-host-0 (host.ntp)", "target gen-target-0 (target.ntp)"]


def test_both_recording_one_clock(run, pb2, tmp_path):
    ntpgen.generate_both(tmp_path / "both.ntp", seed=12)
    trace = export(run, pb2, tmp_path / "b.pftrace", tmp_path / "both.ntp")
    pairs = joined_pairs(run, tmp_path / "both.ntp")
    assert pairs
    check_joined(trace, pairs, tmp_path / "both.ntp", tmp_path / "both.ntp", exact_clock=True)


def shape(trace):
    """What a trace shows, whatever its files are called: each machine's slices
    with their stages, flows and queue, and its counters, by side."""
    def side(uuid):
        return trace.machine_of(uuid).name.split()[0]

    def one(s):
        return (side(s.track), trace.track_path(s.track)[1:], s.name, s.ts, s.dur,
                tuple(sorted(s.args.items())), len(s.flows), len(s.end_flows),
                tuple((c.name, c.ts, c.dur) for c in s.children))
    counters = sorted((side(u), trace.tracks[u].name, tuple(v)) for u, v in trace.counters.items())
    return sorted(one(s) for s in trace.slices), counters


def test_joined_recording_is_the_pair_it_was_made_of(run, pb2, tmp_path):
    """ntprof join's file: each side on its own clock, placed by the pairing it
    holds; the same trace as of the host and target recordings, but for the
    file named in the tracks."""
    ntpgen.generate_pair(tmp_path / "host.ntp", tmp_path / "target.ntp", seed=11,
                         target_meta=[{"start_ns": 1_000_000_000_000 + 1_000_000_000,
                                       "hostname": "the-target"}])
    joined = tmp_path / "joined.ntp"
    assert_ok(run("join", "-q", "-o", joined, tmp_path / "host.ntp", tmp_path / "target.ntp"))
    trace = export(run, pb2, tmp_path / "j.pftrace", joined)
    pair = export(run, pb2, tmp_path / "p.pftrace", tmp_path / "host.ntp", tmp_path / "target.ntp")
    pairs = joined_pairs(run, joined)
    assert set(pairs) == set(joined_pairs(run, tmp_path / "host.ntp", tmp_path / "target.ntp"))
    check_joined(trace, pairs, joined, joined, exact_clock=False)
    assert shape(trace) == shape(pair)
    machines = sorted(t.name for t in trace.tracks.values() if t.pid is not None)
    assert machines == ["host gen-host-0 (joined.ntp)", "target the-target (joined.ntp)"]
    # the target's rates from its own start (its meta, which join_meta keeps), not the host's
    (seen,) = [u for u, t in trace.tracks.items() if t.name == "commands/s (all seen)"
               and trace.machine_of(u).name.startswith("target ")]
    want, _ = rates(tmp_path / "target.ntp", "target")
    assert len(want) == 1
    assert [v for _, v in trace.counters[seen]] == pytest.approx([v for _, v in want])


def test_rdma_pair_names_the_read_wait(run, pb2, tmp_path):
    ntpgen.generate_pair(tmp_path / "host.ntp", tmp_path / "target.ntp", seed=13, transport="rdma")
    trace = export(run, pb2, tmp_path / "r.pftrace", tmp_path / "host.ntp", tmp_path / "target.ntp")
    names = collections.Counter(c.name for s in trace.slices for c in s.children)
    big = rows(tmp_path / "target.ntp", "SELECT count(*) AS n FROM target_io WHERE t_r2t_ns IS NOT NULL")[0]["n"]
    assert big > 0 and names["read-wait"] == big
    assert names["r2t-wait"] == 0


def test_target_recording_alone(run, pb2, tmp_path):
    ntpgen.generate_pair(tmp_path / "host.ntp", tmp_path / "target.ntp", seed=14)
    trace = export(run, pb2, tmp_path / "t.pftrace", tmp_path / "target.ntp")
    tio = {r["id"]: r for r in rows(tmp_path / "target.ntp", "SELECT * FROM target_io")}
    assert len(trace.slices) == len(tio)
    for s in trace.slices:
        t = tio[s.args["id"]]
        assert (s.ts, s.dur) == (t["t_recv_ns"], t["t_sent_ns"] - t["t_recv_ns"])
        assert not s.flows and not s.end_flows
        assert s.args["device"] == t["device"]
        check_nesting(s)


def test_default_output_name_and_stdout(run, ntprof, pb2, host_file, tmp_path):
    src = tmp_path / "run1.ntp"
    src.write_bytes(host_file.read_bytes())
    r = subprocess.run([str(ntprof), "export", str(src)], capture_output=True, text=True)
    assert r.returncode == Exit.OK and r.stderr == ""
    assert (tmp_path / "run1.pftrace").is_file()
    assert r.stdout.startswith(f"{tmp_path / 'run1.pftrace'}: ")
    r = subprocess.run([str(ntprof), "export", "-o", "-", str(src)], capture_output=True)
    assert r.returncode == Exit.OK
    assert r.stdout == (tmp_path / "run1.pftrace").read_bytes()
    assert r.stderr.decode().startswith("the trace: ")


@pytest.mark.parametrize("case", ["missing", "not_sqlite", "output_is_input", "no_file", "unknown_option",
                                  "twice", "two_hosts", "no_dir"])
def test_bad_input_one_line_distinct_code(run, host_file, tmp_path, case):
    out = tmp_path / "x.pftrace"
    if case == "missing":
        r, code = run("export", "-o", out, tmp_path / "nope.ntp"), Exit.NOFILE
    elif case == "not_sqlite":
        (tmp_path / "t.ntp").write_text("hello\n" * 100)
        r, code = run("export", "-o", out, tmp_path / "t.ntp"), Exit.NOTSQLITE
    elif case == "output_is_input":
        r, code = run("export", "-o", host_file, host_file), Exit.USAGE
    elif case == "no_file":
        r, code = run("export"), Exit.USAGE
    elif case == "unknown_option":
        r, code = run("export", "--frobnicate", host_file), Exit.USAGE
    elif case == "twice":
        r, code = run("export", "-o", out, host_file, host_file), Exit.USAGE
    elif case == "two_hosts":
        (tmp_path / "h2.ntp").write_bytes(host_file.read_bytes())
        r, code = run("export", "-o", out, host_file, tmp_path / "h2.ntp"), Exit.MISMATCH
    else:
        r, code = run("export", "-o", tmp_path / "no" / "such" / "dir.pftrace", host_file), Exit.FAILURE
    assert r.returncode == code, r.stderr
    assert r.stderr.startswith("ntprof export: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert not out.exists()


def test_help_lists_the_option(run):
    r = run("export", "--help")
    assert_ok(r)
    assert "-o, --output FILE" in r.stdout
