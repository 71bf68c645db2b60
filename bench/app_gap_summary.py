#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""app_gap_summary.py - the table of bench/app_gap.sh: per fio run, fio's mean
lat beside the kernel's steps (bench/app_gap.bt) and ntprof's host e2e.

    app_gap_summary.py BT_OUT RUN:FIO_JSON[:NTPROF_E2E_US] ...

The runs are given in the order they ran; the fio job process of run i is
the (2i+1)-th fio process bpftrace saw (each fio run is a parent and one job).
"""
import json
import re
import sys


def parse(path):
    maps = {}
    for line in open(path):
        m = re.match(r'@(\w+)\[(\d+)\]: (-?\d+)', line)
        if m:
            maps.setdefault(m.group(1), {})[int(m.group(2))] = int(m.group(3))
    return maps


def main():
    maps = parse(sys.argv[1])
    pids = sorted(maps.get('first', {}), key=lambda p: maps['first'][p])
    g = lambda name, pid: maps.get(name, {}).get(pid, 0)

    def mean(sumname, nname, pid):
        n = g(nname, pid)
        return g(sumname, pid) / n / 1000 if n else None

    def tmean(a, b, na, pid):
        n = g(na, pid)
        return (g(a, pid) - g(b, pid)) / n / 1000 if n and g(a, pid) else None

    hdr = ('run', 'fio_lat', 'fio_slat', 'fio_clat', 'sub', 'win', 'endio', 'post', 'reap',
           'sum', 'ntprof_e2e', 'oncpu%', 'preempt%')
    print(' '.join(f'{h:>10}' for h in hdr))
    for i, arg in enumerate(sys.argv[2:]):
        parts = arg.split(':')
        label, fj = parts[0], parts[1]
        e2e = float(parts[2]) if len(parts) > 2 and parts[2] else None
        rd = json.load(open(fj))['jobs'][0]['read']
        pid = pids[2 * i + 1] if 2 * i + 1 < len(pids) else None
        sub = mean('sum_sub', 'n_sub', pid)
        win = mean('sum_win', 'n_win', pid)
        endio = mean('sum_endio', 'n_endio', pid)
        post = tmean('t_cqe', 't_end', 'n_cqe', pid) or 0.0
        reap = tmean('t_reap', 't_end', 'n_reap', pid)
        if reap is None:
            reap = mean('sum_sreap', 'n_sreap', pid)
        if reap is None:
            reap = 0.0      # io_uring: reaped in user space
        steps = [sub, win, endio, post, reap]
        total = sum(s for s in steps if s is not None)
        runtime = rd['runtime'] * 1e6 if rd.get('runtime') else None   # ms -> ns
        oncpu = 100 * g('oncpu', pid) / runtime if runtime else None
        pre = 100 * g('preempt_wait', pid) / runtime if runtime else None
        vals = [rd['lat_ns']['mean'] / 1000, rd['slat_ns']['mean'] / 1000,
                rd['clat_ns']['mean'] / 1000] + steps + [total, e2e, oncpu, pre]
        print(f'{label:>10} ' + ' '.join(f'{v:10.1f}' if v is not None else f'{"-":>10}'
                                         for v in vals))


if __name__ == '__main__':
    main()
