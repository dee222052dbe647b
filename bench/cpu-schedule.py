#!/usr/bin/env python3
# The CPU backend's critical path at more threads, simulated from one
# run's band times (BM3D_CPU_TRACE=1 on stderr; best from one thread,
# where no band waits and none shares a core).
#
#   BM3D_CPU_TRACE=1 bm3d-bench ... --threads 1 2> trace.txt
#   bench/cpu-schedule.py trace.txt [threads ...]
#
# For each thread count it prints the speed-up over the traced run's
# time under three schedules of the same bands:
#   barrier    even bands in parallel, a barrier, then the odd bands
#              (the backend before the dependency schedule);
#   depend     the even bands handed out first, an odd band matching at
#              once and filtering when the even bands beside it are done
#              (the backend now);
#   ideal      all band work divided evenly (no schedule can do better).
# The whole-image stages (extract, store, zero, ratio, write) are taken
# as serial ("serial" rows) or as divided among the threads ("split").
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
# GPL-3.0-or-later.
import heapq
import re
import sys


def read_trace(path):
    phases, stages = [], 0.0
    band = re.compile(r"trace band (\d+) rows (\d+) match ([\d.]+) "
                      r"filter ([\d.]+) wait ([\d.]+) ms")
    with open(path) as f:
        for line in f:
            if line.startswith("trace phase "):
                phases.append([])
            elif line.startswith("trace stage "):
                stages += float(line.split()[3])
            else:
                m = band.match(line)
                if m:
                    phases[-1].append((float(m.group(3)), float(m.group(4))))
    return phases, stages


def list_schedule(durations, threads):
    free = [0.0] * threads
    for d in durations:
        t = heapq.heappop(free)
        heapq.heappush(free, t + d)
    return max(free)


def barrier(bands, threads):
    even = [m + f for i, (m, f) in enumerate(bands) if i % 2 == 0]
    odd = [m + f for i, (m, f) in enumerate(bands) if i % 2 == 1]
    return list_schedule(even, threads) + list_schedule(odd, threads)


def depend(bands, threads):
    n = len(bands)
    order = list(range(0, n, 2)) + list(range(1, n, 2))
    done = [0.0] * n
    free = [0.0] * threads
    for b in order:
        t = heapq.heappop(free)
        m, f = bands[b]
        start = t + m
        if b % 2:
            start = max(start, done[b - 1], done[b + 1] if b + 1 < n else 0.0)
        done[b] = start + f
        heapq.heappush(free, done[b])
    return max(done)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: cpu-schedule.py TRACE [THREADS ...]")
    phases, stages = read_trace(sys.argv[1])
    counts = [int(a) for a in sys.argv[2:]] or [1, 2, 4, 8, 16]
    work = sum(m + f for p in phases for m, f in p)
    total = work + stages
    print("# %d phases, %d bands, band work %.0f ms, whole-image stages "
          "%.0f ms (%.1f %%)" % (len(phases), sum(len(p) for p in phases),
                                 work, stages, 100.0 * stages / total))
    print("| threads | barrier, serial | depend, serial | depend, split "
          "| ideal, split |")
    print("|---|---|---|---|---|")
    for t in counts:
        old = sum(barrier(p, t) for p in phases) + stages
        new = sum(depend(p, t) for p in phases) + stages
        split = sum(depend(p, t) for p in phases) + stages / t
        ideal = total / t
        print("| %d | %.2f | %.2f | %.2f | %.2f |"
              % (t, total / old, total / new, total / split, total / ideal))


main()
