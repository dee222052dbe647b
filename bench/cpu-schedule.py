#!/usr/bin/env python3
# The CPU backend's critical path at more threads, simulated from one
# run's band times (BM3D_CPU_TRACE=1 on stderr; best from one thread,
# where no band waits and none shares a core).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   BM3D_CPU_TRACE=1 bm3d-bench ... --threads 1 2> trace.txt
#   bench/cpu-schedule.py trace.txt [threads ...]
#
# For each thread count it prints the speed-up over the traced run's
# time under these schedules of the same bands:
#   barrier    a tile's even bands in parallel, a barrier, then its odd
#              bands; the whole-image stages serial (the backend at
#              26bc02c);
#   depend     the even bands handed out first, an odd band matching at
#              once and filtering when the even bands beside it are done;
#              the stages serial, then divided among the threads;
#   tiles      as depend, the bands of 1 + threads / 8 tiles (at most 4)
#              in one pool, phase by phase (the backend now);
#   ideal      all work divided evenly (no schedule can do better).
# The trace must come from a one-thread run, where tiles go one by one.
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
                phases.append(([], line.split()[3]))
            elif line.startswith("trace stage "):
                stages += float(line.split()[3])
            else:
                m = band.match(line)
                if m:
                    phases[-1][0].append((float(m.group(3)),
                                          float(m.group(4))))
    # Tile after tile: its hard phase, then its Wiener phase if any.
    tiles = []
    for bands, kind in phases:
        if kind == "hard":
            tiles.append([bands])
        else:
            tiles[-1].append(bands)
    return tiles, stages


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


def depend(tiles, threads):
    """The bands of several tiles' phases in one pool, tile after tile."""
    free = [0.0] * threads
    end = 0.0
    for bands in tiles:
        n = len(bands)
        done = [0.0] * n
        for b in list(range(0, n, 2)) + list(range(1, n, 2)):
            t = heapq.heappop(free)
            m, f = bands[b]
            start = t + m
            if b % 2:
                start = max(start, done[b - 1],
                            done[b + 1] if b + 1 < n else 0.0)
            done[b] = start + f
            heapq.heappush(free, done[b])
        end = max(end, max(done))
    return end


def pooled(tiles, threads, in_flight):
    total = 0.0
    for first in range(0, len(tiles), in_flight):
        group = tiles[first:first + in_flight]
        for phase in range(len(group[0])):
            total += depend([t[phase] for t in group], threads)
    return total


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: cpu-schedule.py TRACE [THREADS ...]")
    tiles, stages = read_trace(sys.argv[1])
    phases = [p for t in tiles for p in t]
    counts = [int(a) for a in sys.argv[2:]] or [1, 2, 4, 8, 16]
    work = sum(m + f for p in phases for m, f in p)
    total = work + stages
    print("# %d tiles, %d phases, %d bands, band work %.0f ms, whole-image "
          "stages %.0f ms (%.1f %%)"
          % (len(tiles), len(phases), sum(len(p) for p in phases), work,
             stages, 100.0 * stages / total))
    print("| threads | barrier, serial | depend, serial | depend, split "
          "| tiles in flight | tiles, split | ideal |")
    print("|---|---|---|---|---|---|---|")
    for t in counts:
        old = sum(barrier(p, t) for p in phases) + stages
        new = pooled(tiles, t, 1)
        flight = min(4, 1 + t // 8)
        pool = pooled(tiles, t, flight)
        print("| %d | %.2f | %.2f | %.2f | %d | %.2f | %.2f |"
              % (t, total / old, total / (new + stages),
                 total / (new + stages / t), flight,
                 total / (pool + stages / t), t))


main()
