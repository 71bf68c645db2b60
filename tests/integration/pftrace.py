# SPDX-License-Identifier: GPL-2.0
"""Read an exported Perfetto trace back, for the tests.

The trace is decoded with the .proto subset kept in the tree
(schema/perfetto_trace.proto), compiled here with protoc into a Python module,
so a field written with a wrong number or type fails to decode or decodes
into the wrong field. Then the events are replayed into what a trace viewer
shows: tracks, slices with their nested slices, flows and counter series.
"""
import dataclasses
import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROTO = REPO / "schema" / "perfetto_trace.proto"


def compile_proto(outdir):
    """protoc --python_out; returns the generated module."""
    subprocess.run(["protoc", f"-I{PROTO.parent}", f"--python_out={outdir}", str(PROTO)], check=True)
    spec = importlib.util.spec_from_file_location("perfetto_trace_pb2", Path(outdir) / "perfetto_trace_pb2.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["perfetto_trace_pb2"] = mod
    spec.loader.exec_module(mod)
    return mod


def protoc_decode(path):
    """protoc --decode, as the docs tell users to run it; returns its text."""
    with open(path, "rb") as f:
        p = subprocess.run(["protoc", f"-I{PROTO.parent}", "--decode=perfetto.protos.Trace", str(PROTO)],
                           stdin=f, capture_output=True)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    assert p.stderr == b"", p.stderr.decode(errors="replace")
    return p.stdout.decode()


@dataclasses.dataclass
class Slice:
    track: int
    name: str
    ts: int
    end: int = None
    args: dict = dataclasses.field(default_factory=dict)
    flows: list = dataclasses.field(default_factory=list)
    end_flows: list = dataclasses.field(default_factory=list)
    children: list = dataclasses.field(default_factory=list)
    parent: "Slice" = None

    @property
    def dur(self):
        return self.end - self.ts


@dataclasses.dataclass
class Track:
    uuid: int
    name: str
    parent: int
    pid: int = None
    counter: bool = False
    unit: int = 0


class Trace:
    """tracks {uuid: Track}, slices [top-level Slice], counters {uuid: [(ts, value)]}."""

    def __init__(self, pb2, path):
        t = pb2.Trace()
        t.ParseFromString(Path(path).read_bytes())
        self.packets = list(t.packet)
        self.tracks = {}
        self.slices = []
        self.counters = {}
        names = {"event": {}, "annotation": {}}
        open_slices = {}
        seq_cleared = False
        for p in self.packets:
            assert p.trusted_packet_sequence_id == 1
            if p.sequence_flags & 1:
                seq_cleared = True
            if p.HasField("interned_data"):
                for e in p.interned_data.event_names:
                    assert e.iid not in names["event"], "an iid interned twice"
                    names["event"][e.iid] = e.name
                for e in p.interned_data.debug_annotation_names:
                    assert e.iid not in names["annotation"], "an iid interned twice"
                    names["annotation"][e.iid] = e.name
            if p.HasField("track_descriptor"):
                d = p.track_descriptor
                assert d.uuid not in self.tracks, f"track {d.uuid} described twice"
                tr = Track(d.uuid, d.name, d.parent_uuid or None)
                if d.HasField("process"):
                    tr.pid = d.process.pid
                if d.HasField("counter"):
                    tr.counter, tr.unit = True, d.counter.unit
                self.tracks[d.uuid] = tr
            if not p.HasField("track_event"):
                continue
            e = p.track_event
            assert seq_cleared and p.sequence_flags & 2, "interned names used outside incremental state"
            assert e.track_uuid in self.tracks, f"event on undescribed track {e.track_uuid}"
            if e.type == e.TYPE_COUNTER:
                assert self.tracks[e.track_uuid].counter
                self.counters.setdefault(e.track_uuid, []).append((p.timestamp, e.double_counter_value))
            elif e.type == e.TYPE_SLICE_BEGIN:
                name = names["event"][e.name_iid] if e.name_iid else e.name
                args = {}
                for a in e.debug_annotations:
                    key = names["annotation"][a.name_iid] if a.name_iid else a.name
                    args[key] = a.string_value if a.HasField("string_value") else a.int_value
                s = Slice(e.track_uuid, name, p.timestamp, args=args, flows=list(e.flow_ids),
                          end_flows=list(e.terminating_flow_ids))
                stack = open_slices.setdefault(e.track_uuid, [])
                if stack:
                    s.parent = stack[-1]
                    stack[-1].children.append(s)
                else:
                    self.slices.append(s)
                stack.append(s)
            elif e.type == e.TYPE_SLICE_END:
                stack = open_slices.get(e.track_uuid)
                assert stack, f"slice end without a begin on track {e.track_uuid}"
                s = stack.pop()
                s.end = p.timestamp
                assert s.end >= s.ts, f"slice {s.name} ends before it begins"
            else:
                raise AssertionError(f"unexpected event type {e.type}")
        assert all(not st for st in open_slices.values()), "slices left open"

    def track_path(self, uuid):
        """Names from the machine down to the track."""
        out = []
        while uuid:
            tr = self.tracks[uuid]
            out.append(tr.name)
            uuid = tr.parent
        return list(reversed(out))

    def machine_of(self, uuid):
        while self.tracks[uuid].parent:
            uuid = self.tracks[uuid].parent
        return self.tracks[uuid]

    def counter_tracks(self, suffix):
        return {u: t for u, t in self.tracks.items() if t.counter and t.name.endswith(suffix)}
