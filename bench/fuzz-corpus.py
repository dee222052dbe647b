#!/usr/bin/env python3
# A corpus of hostile image files for the bm3d-denoise command: valid
# seeds of every format (with ICC and EXIF where the format holds them),
# each mutated the ways a damaged or crafted file differs from a good
# one, plus hand-made headers that claim huge sizes.  Standard library
# only; repeatable (the seed of each file is in its name).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   fuzz-corpus.py SEEDS-DIR OUT-DIR N
#       SEEDS-DIR: valid files (any of .png .jpg .tif .pgm .ppm .pfm);
#       writes N mutated files into OUT-DIR, spread over the seeds, and
#       the hand-made ones (huge-*).
#
# Mutations, one or more per file:
#   bytes      1 to 8 random bytes changed past the signature
#   field      a 16- or 32-bit field replaced by 0, 1, 0x7fff, 0xffff,
#              0x7fffffff or 0xffffffff (sizes, offsets, counts, lengths)
#   truncate   the file cut at a random point
#   splice     a block of the file repeated or removed
#   header     (PNM, PFM) the text header's numbers replaced by extreme
#              or malformed ones, control characters included

import os
import random
import struct
import sys
import zlib

EXTREMES16 = (0, 1, 0x7fff, 0xffff)
EXTREMES32 = (0, 1, 0x7fffffff, 0xffffffff, 0x10000, 0x40000000)
HEADER_WORDS = (b"0", b"-1", b"65536", b"4294967296", b"1e308", b"nan",
                b"99999999999999999999", b"\x1b[31m", b"1.0\x07", b"")


def mutate_bytes(data, rng):
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(min(2, len(data) - 1), len(data))
        data[i] = rng.randrange(256)


def mutate_field(data, rng):
    # Most structure lies near the start: favour the first 4 KiB.
    limit = min(len(data), 4096 if rng.random() < 0.8 else len(data))
    if limit < 8:
        return mutate_bytes(data, rng)
    at = rng.randrange(2, limit - 4)
    order = rng.choice("<>")
    if rng.random() < 0.5:
        data[at:at + 2] = struct.pack(order + "H", rng.choice(EXTREMES16))
    else:
        data[at:at + 4] = struct.pack(order + "I", rng.choice(EXTREMES32))


def mutate_truncate(data, rng):
    del data[rng.randrange(1, len(data)):]


def mutate_splice(data, rng):
    a = rng.randrange(0, len(data))
    b = min(len(data), a + rng.randint(1, 4096))
    if rng.random() < 0.5:
        data[a:a] = data[a:b]
    else:
        del data[a:b]


def mutate_header(data, rng):
    # The first lines of PNM/PFM: magic, then numbers.
    end = 0
    for _ in range(3 if data[:2] in (b"P5", b"P6") else 2):
        end = data.find(b"\n", end) + 1
        if end <= 0:
            return mutate_bytes(data, rng)
    words = bytes(data[:end]).split()
    if len(words) < 2:
        return mutate_bytes(data, rng)
    i = rng.randrange(1, len(words))
    words[i] = rng.choice(HEADER_WORDS)
    data[:end] = b" ".join(words[:1]) + b"\n" + b" ".join(words[1:]) + b"\n"


MUTATIONS = {
    "bytes": mutate_bytes,
    "field": mutate_field,
    "truncate": mutate_truncate,
    "splice": mutate_splice,
    "header": mutate_header,
}


def png_chunk(kind, data, length=None):
    n = len(data) if length is None else length
    return (struct.pack(">I", n) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))


def hand_made(out):
    """Headers that claim more than the file holds."""
    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    files = {}
    for kind in (b"tEXt", b"zTXt", b"iTXt", b"sPLT", b"iCCP", b"eXIf",
                 b"IDAT"):
        files["huge-chunk-%s.png" % kind.decode()] = (
            sig + ihdr + png_chunk(kind, b"k\0v", 2 ** 31 - 1))
    big = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1 << 20, 1 << 20, 16,
                                         6, 0, 0, 0))
    files["huge-side.png"] = sig + big + png_chunk(b"IEND", b"")
    files["huge-pixels.png"] = (sig + png_chunk(b"IHDR", struct.pack(
        ">IIBBBBB", 16384, 16385, 8, 0, 0, 0, 0)) + png_chunk(b"IEND", b""))
    files["huge.pgm"] = b"P5 1048576 1048576 65535\n" + b"\0" * 64
    files["huge.ppm"] = b"P6 16384 16384 255\n" + b"\0" * 64
    files["huge.pfm"] = b"PF\n65536 65536\n-1.0\n" + b"\0" * 64
    files["escape.pfm"] = b"PF\n1 1\n\x1b]0;owned\x07\x1b[2J\n" + b"\0" * 12
    files["huge-jpeg.jpg"] = (b"\xff\xd8\xff\xc0\x00\x11\x08\xff\xff\xff\xff"
                              b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"
                              b"\xff\xd9")
    files["huge-tiff.tif"] = (b"II*\0\x08\0\0\0\x03\0"
                              + struct.pack("<HHII", 256, 4, 1, 0x7fffffff)
                              + struct.pack("<HHII", 257, 4, 1, 0x7fffffff)
                              + struct.pack("<HHII", 273, 4, 1, 8)
                              + b"\0\0\0\0")
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    return len(files)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: fuzz-corpus.py SEEDS-DIR OUT-DIR N\n")
        return 2
    seeds_dir, out, n = argv[1], argv[2], int(argv[3])
    exts = (".png", ".jpg", ".tif", ".pgm", ".ppm", ".pfm")
    seeds = sorted(f for f in os.listdir(seeds_dir) if f.endswith(exts))
    if not seeds:
        sys.stderr.write("fuzz-corpus.py: no seed files in %s\n" % seeds_dir)
        return 1
    os.makedirs(out, exist_ok=True)
    counts = {}
    for i in range(n):
        seed = seeds[i % len(seeds)]
        with open(os.path.join(seeds_dir, seed), "rb") as f:
            data = bytearray(f.read())
        rng = random.Random(i)
        names = list(MUTATIONS)
        if not seed.endswith((".pgm", ".ppm", ".pfm")):
            names.remove("header")
        applied = [rng.choice(names) for _ in range(rng.choice((1, 1, 2, 3)))]
        for m in applied:
            if len(data) > 2:
                MUTATIONS[m](data, rng)
        for m in applied:
            counts[m] = counts.get(m, 0) + 1
        stem, ext = os.path.splitext(seed)
        with open(os.path.join(out, "%s-%05d%s" % (stem, i, ext)), "wb") as f:
            f.write(bytes(data))
    extra = hand_made(out)
    print("%d mutated files from %d seeds, %d hand-made; mutations: %s"
          % (n, len(seeds), extra,
             ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
