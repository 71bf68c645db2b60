# SPDX-License-Identifier: GPL-2.0
"""report --html and compare --html: one self-contained page whose charts
carry the report's own numbers (each bar's tooltip is checked against the
JSON of the same run), whose strings from a recording cannot become markup,
and which a real browser renders: headless Chromium (Debian's, installed by
`make deps`; without it these tests fail) takes a screenshot, and the charts' colours must be among its
pixels, with no console message."""

import html.parser
import json
import re
import shutil
import sqlite3
import struct
import subprocess
import zlib

import pytest

import ntpgen
from conftest import Exit, run_ok
from report_text import us

CHROMIUM = shutil.which("chromium")
# the darkest and the lightest colour of the charts' ramp (lib/fmt/svg_chart.c)
RAMP_ENDS = ((0x44, 0x01, 0x54), (0xfd, 0xe7, 0x25))


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    d = tmp_path_factory.mktemp("html")
    ntpgen.generate(d / "host.ntp", seed=3)
    ntpgen.generate(d / "host2.ntp", seed=4)
    ntpgen.generate_pair(d / "h.ntp", d / "t.ntp", seed=8)
    return d


class Page(html.parser.HTMLParser):
    """The tags of a page, the charts' bar tooltips, and whether it is well nested."""

    VOID = {"meta", "br", "img"}    # SVG elements close themselves (<rect/>) or have an end tag

    def __init__(self, text):
        super().__init__()
        self.stack, self.tags, self.titles, self.errors = [], [], [], []
        self.svg_titles, self.rect_svg = [], []    # each chart's title; each bar's chart
        self._title = self._svg_title = None
        self.feed(text)
        self.close()
        assert not self.stack, f"unclosed: {self.stack}"

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)
        if tag == "title" and self.stack[-2:-1] == ["rect"]:
            self._title = ""
        elif tag == "title" and self.stack[-2:-1] == ["svg"]:
            self._svg_title = ""

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in self.VOID and (not self.stack or self.stack[-1] != tag):
            return
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag == "title" and self._title is not None:
            self.titles.append(self._title)
            self.rect_svg.append(len(self.svg_titles) - 1)
            self._title = None
        elif tag == "title" and self._svg_title is not None:
            self.svg_titles.append(self._svg_title)
            self._svg_title = None

    def handle_data(self, data):
        if self._title is not None:
            self._title += data
        elif self._svg_title is not None:
            self._svg_title += data


def page(path):
    return Page(path.read_text())


def charts(p):
    return [a for t, a in p.tags if t == "svg" and a.get("class") == "chart"]


def test_report_page__charts_carry_the_reports_means(run, recs, tmp_path):
    out = tmp_path / "r.html"
    text = run_ok(run, "report", "--html", out, recs / "host.ntp").stdout
    assert text.startswith("# ntprof report\n")          # the text still goes to stdout
    doc = json.loads(run_ok(run, "report", "-j", "-", recs / "host.ntp").stdout)
    p = page(out)
    # where the time goes, the tails, and one distribution per group
    assert len(charts(p)) == 2 + len(doc["groups"])
    want = set()
    for g in doc["groups"]:
        label = f"{g['io_type']} {ntpgen_size(g['bytes'])} {g['namespace']}"
        for s, name in zip(g["stages"], ("block", "driver", "network*")):
            want.add(f"{label}: {name} {us(s['mean_ns'])} \u00b5s")
            # a p99 of too few commands (null) has no bar
            if s["p99_ns"] is not None:
                want.add(f"{label}: {name} {us(s['p99_ns'])} \u00b5s")
        if g["e2e"]["p99_ns"] is not None:
            want.add(f"{label}: end-to-end {us(g['e2e']['p99_ns'])} \u00b5s")
    assert want <= set(p.titles), sorted(want - set(p.titles))[:5]
    assert any(g["e2e"]["p99_ns"] is None for g in doc["groups"])
    assert not [t for t in p.titles if " - \u00b5s" in t]
    # and its row says why it has no bar
    assert ">too few commands for a p99 (100)</text>" in out.read_text()
    assert "<script" not in out.read_text()


def ntpgen_size(n):
    from report_text import size_str
    return size_str(n)


@pytest.mark.parametrize("kind,args,stages", [
    ("joined", ("h.ntp", "t.ntp"), ntpgen.JOIN_STAGES),
    ("target", ("t.ntp",), ("target_driver", "storage")),
])
def test_report_page__every_kind(run, recs, tmp_path, kind, args, stages):
    out = tmp_path / "r.html"
    run_ok(run, "report", "--html", out, *(recs / a for a in args))
    doc = json.loads(run_ok(run, "report", "-j", "-", *(recs / a for a in args)).stdout)
    assert doc["kind"] == kind
    p = page(out)
    assert len(charts(p)) == 2 + len(doc["groups"])
    # one stacked bar segment per group and stage, one side-by-side bar per stage and the
    # total that has a p99 (one of too few commands is null: no bar)
    bars = [t for t in p.titles if t.endswith(" \u00b5s")]
    tails = sum((g["e2e"]["p99_ns"] is not None) +
                sum(s["p99_ns"] is not None for s in g["stages"]) for g in doc["groups"])
    assert len(bars) == len(doc["groups"]) * len(stages) + tails
    # each distribution's buckets count the group's commands
    total = "residence" if kind == "target" else "end-to-end"
    for g in doc["groups"]:
        label = f"{g['io_type']} {ntpgen_size(g['bytes'])} {g['namespace'] or g['device']}"
        chart = p.svg_titles.index(f"{label}: {total} (n={g['n']})")
        counts = [int(re.search(r": (\d+) commands$", t)[1])
                  for t, k in zip(p.titles, p.rect_svg) if k == chart]
        assert sum(counts) == g["n"] and len(counts) >= 1, (label, counts)


def test_report_page__histogram_adds_each_stages_distribution(run, recs, tmp_path):
    out = tmp_path / "r.html"
    run_ok(run, "report", "--histogram", "--html", out, recs / "host.ntp")
    doc = json.loads(run_ok(run, "report", "-j", "-", recs / "host.ntp").stdout)
    assert len(charts(page(out))) == 2 + len(doc["groups"]) * 4


def test_report_page__to_stdout_instead_of_the_text(run, recs):
    r = run_ok(run, "report", "--html", "-", recs / "host.ntp")
    assert r.stdout.startswith("<!DOCTYPE html>") and "# ntprof report" not in r.stdout
    Page(r.stdout)


def test_report_page__json_and_page_both_on_stdout__usage(run, recs):
    r = run("report", "-j", "-", "--html", "-", str(recs / "host.ntp"))
    assert r.returncode == Exit.USAGE and r.stdout == ""
    assert "standard output" in r.stderr and len(r.stderr.splitlines()) == 1


def test_report_page__strings_from_the_file_are_text_not_markup(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "evil.ntp", seed=5,
                          meta={"hostname": "<script>alert(1)</script>&\x1b]0;x\x07"})
    db = sqlite3.connect(rec.path)
    db.execute("UPDATE host_io SET namespace = '<b onmouseover=x>n1</b>'")
    db.commit()
    db.close()
    out = tmp_path / "e.html"
    run_ok(run, "report", "--html", out, rec.path)
    body = out.read_text()
    assert "<script" not in body and "<b " not in body and "\x1b" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in body
    assert "&lt;b onmouseover=x&gt;n1&lt;/b&gt;" in body
    Page(body)


def test_report_page__unwritable_place__one_line_no_file(run, recs, tmp_path):
    out = tmp_path / "no" / "such" / "dir" / "r.html"
    r = run("report", "--html", str(out), str(recs / "host.ntp"))
    assert r.returncode == Exit.FAILURE
    assert str(out) in r.stderr and len(r.stderr.splitlines()) == 1
    assert not out.exists()


def test_compare_page__baseline_and_new_side_by_side(run, recs, tmp_path):
    out = tmp_path / "c.html"
    run_ok(run, "compare", "--html", out, recs / "host.ntp", recs / "host2.ntp")
    doc = json.loads(run_ok(run, "compare", "-j", "-", recs / "host.ntp", recs / "host2.ntp").stdout)
    p = page(out)
    assert len(charts(p)) == len(doc["groups"])
    body = out.read_text()
    m = doc["changed_most"]
    assert f"mean {m['delta_ns'] / 1000:+.3f} \u00b5s" in body
    names = {"block": "block", "driver": "driver", "network_star": "network*", "e2e": "end-to-end"}
    for g in doc["groups"]:
        for s in g["stages"]:
            for run_name, key in (("baseline", "baseline_ns"), ("new", "new_ns")):
                if s["mean"][key] is not None:
                    assert f": {run_name} {us(s['mean'][key])} \u00b5s" in " ".join(
                        t for t in p.titles if t.startswith(names[s["stage"]])), (g, s)


def test_compare_page__json_and_page_both_on_stdout__usage(run, recs):
    r = run("compare", "-j", "-", "--html", "-", str(recs / "host.ntp"), str(recs / "host2.ntp"))
    assert r.returncode == Exit.USAGE and r.stdout == ""


# ---- a real browser -----------------------------------------------------------

def png_pixels(path):
    """The RGB(A) pixels of an 8-bit PNG, unfiltered (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def colour_count(rows, bpp, rgb):
    n = 0
    for line in rows:
        for i in range(0, len(line), bpp):
            if tuple(line[i:i + 3]) == rgb:
                n += 1
    return n


def screenshot(page, shot, width, height):
    """page rendered by headless Chromium into shot; its pixels.  Chromium is a
    test dependency (make deps installs it): without it the test fails, never skips."""
    assert CHROMIUM, "chromium is not installed (make deps installs it): the page cannot be rendered"
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
                        f"--window-size={width},{height}", f"--screenshot={shot}", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert not re.search(r"CONSOLE|Uncaught|SyntaxError", p.stderr), p.stderr[-2000:]
    w, h, bpp, rows = png_pixels(shot)
    assert (w, h) == (width, height)
    return bpp, rows


@pytest.mark.parametrize("cmd", ["report", "compare"])
def test_browser_renders_the_charts(run, recs, tmp_path, cmd):
    out = tmp_path / "p.html"
    files = [recs / "host.ntp"] + ([recs / "host2.ntp"] if cmd == "compare" else [])
    run_ok(run, cmd, "--html", out, *files)
    bpp, rows = screenshot(out, tmp_path / "p.png", 1000, 1200)
    for rgb in RAMP_ENDS:
        # a bar is hundreds of pixels of one colour: the charts were painted
        assert colour_count(rows, bpp, rgb) > 500, (rgb, cmd)


# ---- series --html ------------------------------------------------------------

def polylines(text):
    """Each chart's title and the number of points of each of its lines."""
    out, title = [], None
    for m in re.finditer(r'<svg [^>]*class="chart"[^>]*>\n<title>([^<]*)</title>|'
                         r'<polyline [^>]*points="([^"]*)"', text):
        if m[1] is not None:
            title = m[1]
            out.append((title, []))
        else:
            out[-1][1].append(len(m[2].split()))
    return out


@pytest.mark.parametrize("step", ["1", "5"])
def test_series_page__two_charts_a_group__a_point_per_interval(run, recs, tmp_path, step):
    """Intervals of 5 s hold the 100 commands a p99 needs in some groups: a
    line where an interval has them, a gap where not; a group none of whose
    intervals has them (every group at 1 s) gets a note instead of a chart
    with no point."""
    out = tmp_path / "s.html"
    run_ok(run, "series", "-i", step, "--html", out, recs / "host.ntp")
    doc = json.loads(run_ok(run, "series", "-i", step, "-j", "-", recs / "host.ntp").stdout)
    body = out.read_text()
    Page(body)
    charts_ = polylines(body)
    groups = {}
    for r in doc["rows"]:
        groups.setdefault((r["io_type"], r["bytes"], r["namespace"]), []).append(r)
    # the rate panel first (test_series_read.py checks it)
    assert charts_[0][0].startswith("est. commands/s per ")
    tails = 0
    for (io, nbytes, ns), rows in groups.items():
        label = f"{io} {ntpgen_size(nbytes)} {ns}:"
        mine = [c for c in charts_ if c[0].startswith(label)]
        shown = [r for r in rows if r["e2e"]["p99_ns"] is not None]
        # every interval of the group has commands here: one unbroken line a series
        assert mine[0][1] == [len(rows)] * 4, (label, mine)
        if shown:
            tails += 1
            assert len(mine) == 2 and sum(mine[1][1]) >= len(shown)
        else:
            assert len(mine) == 1, (label, mine)
            assert f"<p class=\"note\">{label[:-1]}: no interval has the 100 commands a p99 " \
                   "needs" in body
    assert len(charts_) == 1 + len(groups) + tails
    assert bool(tails) == (step == "5")


def test_series_page__only_one_output_on_stdout(run, recs):
    r = run("series", "--html", "-", "--csv", "-", str(recs / "host.ntp"))
    assert r.returncode == Exit.USAGE and "stdout" in r.stderr
    r = run_ok(run, "series", "--html", "-", recs / "host.ntp")
    assert r.stdout.startswith("<!DOCTYPE html>")


def test_series_page__rendered(run, recs, tmp_path):
    out = tmp_path / "s.html"
    run_ok(run, "series", "--html", out, recs / "host.ntp")
    bpp, rows = screenshot(out, tmp_path / "s.png", 1000, 900)
    # lines are thin: fewer pixels than bars, but many of the ramp's ends
    for rgb in RAMP_ENDS:
        assert colour_count(rows, bpp, rgb) > 200, rgb


LEGEND = re.compile(r'<rect [^>]*width="12" height="12" fill="(#[0-9a-f]{6})"[^>]*/>\s*'
                    r'<text[^>]*>([^<]*)</text>')


@pytest.mark.parametrize("cmd,args", [
    ("report", ("--histogram", "h.ntp", "t.ntp")),
    ("report", ("host.ntp",)),
    ("series", ("host.ntp",)),
])
def test_a_stage_keeps_its_colour_from_chart_to_chart(run, recs, tmp_path, cmd, args):
    """The stacked means leave out the end-to-end that the tails show: the
    stages still take the same colours in both (and in series' two charts)."""
    out = tmp_path / "p.html"
    run_ok(run, cmd, "--html", out, *(a if a.startswith("-") else recs / a for a in args))
    colours = {}
    # series' rate panel names groups, not stages
    body = re.sub(r'<svg [^>]*class="chart"[^>]*>\n<title>est\. commands/s .*?</svg>', "",
                  out.read_text(), flags=re.S)
    for fill, name in LEGEND.findall(body):
        colours.setdefault(name, set()).add(fill)
    assert len(colours) >= 4, colours
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len({c.pop() for c in colours.values()}) == len(colours), "two series share a colour"
