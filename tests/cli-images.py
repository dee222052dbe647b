#!/usr/bin/env python3
# Test images for the bm3d-denoise command, and an independent reader to
# check what it writes.  Standard library only (zlib, struct), so the PNG
# and Netpbm files written by the command are decoded by code that shares
# nothing with it.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   cli-images.py generate DIR        write every test image into DIR
#   cli-images.py same A B            exit 0 when A and B hold the same
#                                     samples (size, channels, depth)
#   cli-images.py expect A NAME       exit 0 when A holds the samples of
#                                     the generated image NAME
#   cli-images.py close-pfm A B       exit 0 when two PFM files agree to
#                                     within one float ulp
#   cli-images.py noise CLEAN NOISY   print "mean std" of NOISY - CLEAN
#                                     on the 0..255 scale, colour only
#   cli-images.py alpha-same A B      exit 0 when the alpha channels match
#   cli-images.py info A              print "WIDTH HEIGHT CHANNELS DEPTH"
#   cli-images.py range A             print "MIN MAX" on the 0..255 scale
#   cli-images.py expect-noise NOISY CLEAN SIGMA SEED
#                                     exit 0 when the PFM file NOISY is
#                                     CLEAN plus the documented noise

import math
import struct
import sys
import zlib

# ---- images as (width, height, channels, maxval, samples) ---------------
# samples: flat list, rows top to bottom, interleaved; integers for PNG and
# Netpbm, floats on the 0..1 scale for PFM.


def pattern(width, height, channels, maxval, seed=0):
    """Deterministic content that exercises every sample value range."""
    out = []
    for y in range(height):
        for x in range(width):
            for c in range(channels):
                v = (x * 37 + y * 91 + c * 53 + seed * 17
                     + (x * y) % 29) % (maxval + 1)
                out.append(v)
    # Both extremes appear somewhere.
    out[0] = 0
    out[-1] = maxval
    return out


def clean_scene(width, height, channels):
    """A piecewise-smooth 8-bit picture: gradients, a disc, stripes."""
    out = []
    for y in range(height):
        for x in range(width):
            base = 40 + (150 * x) // max(width - 1, 1)
            if (x - width * 0.6) ** 2 + (y - height * 0.4) ** 2 < (width / 4) ** 2:
                base = 210
            if y > height * 0.75 and (x // 6) % 2 == 0:
                base = 30
            for c in range(channels):
                out.append(max(0, min(255, base - 25 * c + (y * c) // 4)))
    return out


# ---- PNG ------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS_OF_TYPE = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
TYPE_OF_CHANNELS = {1: 0, 2: 4, 3: 2, 4: 6}


def png_chunk(kind, data):
    crc = zlib.crc32(kind + data) & 0xffffffff
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def pack_row(values, depth):
    if depth == 16:
        return b"".join(struct.pack(">H", v) for v in values)
    if depth == 8:
        return bytes(values)
    # 1, 2 or 4 bits: most significant bits first, row padded to a byte.
    per_byte = 8 // depth
    out = bytearray()
    for i in range(0, len(values), per_byte):
        byte = 0
        group = values[i:i + per_byte]
        for j, v in enumerate(group):
            byte |= v << (8 - depth * (j + 1))
        out.append(byte)
    return bytes(out)


def write_png(path, width, height, colour_type, depth, samples,
              palette=None, trns=None):
    channels = CHANNELS_OF_TYPE[colour_type]
    raw = bytearray()
    row = width * channels
    for y in range(height):
        raw.append(0)
        raw += pack_row(samples[y * row:(y + 1) * row], depth)
    data = PNG_SIGNATURE
    data += png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth,
                                           colour_type, 0, 0, 0))
    if palette is not None:
        data += png_chunk(b"PLTE", b"".join(bytes(p) for p in palette))
    if trns is not None:
        data += png_chunk(b"tRNS", trns)
    data += png_chunk(b"IDAT", zlib.compress(bytes(raw), 9))
    data += png_chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, height, stride, bpp):
    out = bytearray()
    prev = bytearray(stride)
    pos = 0
    for _ in range(height):
        kind = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 255
            elif kind != 0:
                raise ValueError("bad PNG filter %d" % kind)
        out += line
        prev = line
    return bytes(out)


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("not a PNG file")
    pos = 8
    idat = b""
    palette = trns = None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = \
                struct.unpack(">IIBBBBB", body)
            if interlace:
                raise ValueError("interlaced PNG not handled here")
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    channels = CHANNELS_OF_TYPE[ctype]
    bits = channels * depth
    stride = (width * bits + 7) // 8
    raw = unfilter(zlib.decompress(idat), height, stride, max(1, bits // 8))
    samples = []
    for y in range(height):
        line = raw[y * stride:(y + 1) * stride]
        if depth == 16:
            samples += [v for (v,) in struct.iter_unpack(">H", line)]
        elif depth == 8:
            samples += list(line)
        else:
            per_byte = 8 // depth
            mask = (1 << depth) - 1
            row = []
            for byte in line:
                for j in range(per_byte):
                    row.append((byte >> (8 - depth * (j + 1))) & mask)
            samples += row[:width * channels]
    maxval = (1 << depth) - 1
    if ctype == 3:
        # Palette: expanded the way libpng does for the command.
        expanded = []
        for index in samples:
            expanded += list(palette[index])
            if trns is not None:
                expanded.append(trns[index] if index < len(trns) else 255)
        return width, height, 4 if trns is not None else 3, 255, expanded
    if trns is not None and ctype in (0, 2):
        raise ValueError("tRNS on gray/RGB not handled here")
    return width, height, channels, maxval, samples


# ---- Netpbm and PFM -------------------------------------------------------

def write_pnm(path, width, height, channels, maxval, samples, header=None):
    magic = b"P5" if channels == 1 else b"P6"
    if header is None:
        header = b"%s\n%d %d\n%d\n" % (magic, width, height, maxval)
    if maxval > 255:
        body = b"".join(struct.pack(">H", v) for v in samples)
    else:
        body = bytes(samples)
    with open(path, "wb") as f:
        f.write(header + body)


def read_pnm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields = []
    pos = 2
    while len(fields) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            while data[pos:pos + 1] not in (b"\n", b"\r"):
                pos += 1
            continue
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(int(data[start:pos]))
    pos += 1
    width, height, maxval = fields
    channels = 1 if data[:2] == b"P5" else 3
    count = width * height * channels
    body = data[pos:]
    if maxval > 255:
        samples = [v for (v,) in struct.iter_unpack(">H", body[:2 * count])]
    else:
        samples = list(body[:count])
    if len(samples) != count:
        raise ValueError("truncated")
    return width, height, channels, maxval, samples


def write_pfm(path, width, height, channels, samples, little=True,
              scale=1.0):
    magic = b"PF" if channels == 3 else b"Pf"
    order = "<" if little else ">"
    header = b"%s\n%d %d\n%s\n" % (magic, width, height,
                                   repr(-scale if little else scale).encode())
    rows = []
    row = width * channels
    for y in range(height - 1, -1, -1):
        rows.append(struct.pack(order + "%df" % row,
                                *samples[y * row:(y + 1) * row]))
    with open(path, "wb") as f:
        f.write(header + b"".join(rows))


def read_pfm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(None, 4)
    magic, width, height, scale = parts[0], int(parts[1]), int(parts[2]), \
        float(parts[3])
    channels = 3 if magic == b"PF" else 1
    count = width * height * channels
    body = data[len(data) - 4 * count:]
    order = "<" if scale < 0 else ">"
    flat = list(struct.unpack(order + "%df" % count, body))
    row = width * channels
    samples = []
    for y in range(height - 1, -1, -1):
        samples += flat[y * row:(y + 1) * row]
    return width, height, channels, 0, samples


def read_any(path):
    lower = path.lower()
    if lower.endswith(".png"):
        return read_png(path)
    if lower.endswith(".pfm"):
        return read_pfm(path)
    return read_pnm(path)


def scaled(image):
    """Samples on the 0..255 scale, as the command sees them."""
    width, height, channels, maxval, samples = image
    if maxval == 0:
        return [v * 255.0 for v in samples]
    return [v * 255.0 / maxval for v in samples]


# ---- the generated set ----------------------------------------------------

W, H = 23, 17           # odd sizes catch row-stride and padding mistakes


def generated():
    """name -> (width, height, channels, maxval, samples)"""
    images = {}
    for channels, kind in ((1, "gray"), (2, "ga"), (3, "rgb"), (4, "rgba")):
        for depth in (8, 16):
            maxval = (1 << depth) - 1
            images["%s%d" % (kind, depth)] = \
                (W, H, channels, maxval, pattern(W, H, channels, maxval))
    images["gray1000"] = (W, H, 1, 1000, pattern(W, H, 1, 1000))
    images["gray1bit"] = (W, H, 1, 1, pattern(W, H, 1, 1))
    images["clean-gray"] = (96, 96, 1, 255, clean_scene(96, 96, 1))
    images["clean-rgb"] = (64, 64, 3, 255, clean_scene(64, 64, 3))
    images["flat-gray"] = (256, 256, 1, 255, [128] * (256 * 256))
    images["flat-rgba"] = (128, 128, 4, 255,
                           [v for i in range(128 * 128)
                            for v in (128, 120, 136, (i * 7) % 256)])
    return images


def generate(directory):
    images = generated()
    for name, (w, h, c, maxval, samples) in images.items():
        if c in (1, 3):
            ext = "pgm" if c == 1 else "ppm"
            write_pnm("%s/%s.%s" % (directory, name, ext), w, h, c, maxval,
                      samples)
        if maxval in (255, 65535) or name == "gray1bit":
            depth = {1: 1, 255: 8, 65535: 16}[maxval]
            write_png("%s/%s.png" % (directory, name), w, h,
                      TYPE_OF_CHANNELS[c], depth, samples)

    # Gray 1-bit PNG, expected as 0/255 gray.
    w, h, c, maxval, samples = images["gray1bit"]
    images["gray1bit-expanded"] = (w, h, 1, 255, [v * 255 for v in samples])
    write_pnm("%s/gray1bit-expanded.pgm" % directory, w, h, 1, 255,
              [v * 255 for v in samples])

    # Palette PNG (4-bit indices) with transparency: expands to RGBA.
    palette = [(i * 16, 255 - i * 16, (i * 80) % 256) for i in range(16)]
    alpha = bytes(255 - i * 10 for i in range(12))   # last 4 opaque
    indices = [(x + 3 * y) % 16 for y in range(H) for x in range(W)]
    write_png("%s/palette.png" % directory, W, H, 3, 4, indices,
              palette=palette, trns=alpha)

    # PFM: the 8-bit patterns as floats (k / 255), both byte orders, and a
    # map with values outside 0..1.
    for name, c in (("gray8", 1), ("rgb8", 3)):
        w, h, _, _, samples = images[name]
        floats = [v / 255.0 for v in samples]
        write_pfm("%s/%s-le.pfm" % (directory, name), w, h, c, floats, True)
        write_pfm("%s/%s-be.pfm" % (directory, name), w, h, c, floats, False,
                  scale=2.0)
    wild = [(-0.5 + 2.0 * v / 255.0) for v in pattern(W, H, 3, 255)]
    write_pfm("%s/wild.pfm" % directory, W, H, 3, wild)

    # Netpbm header with comments everywhere they are allowed.
    w, h, c, maxval, samples = images["gray8"]
    write_pnm("%s/comments.pgm" % directory, w, h, c, maxval, samples,
              header=b"P5 # a comment\n# another\n%d # width\n%d\n255\n"
              % (w, h))

    # Broken files.
    with open("%s/truncated.png" % directory, "wb") as f, \
            open("%s/rgb8.png" % directory, "rb") as g:
        good = g.read()
        f.write(good[:len(good) // 2])
    with open("%s/badcrc.png" % directory, "wb") as f:
        bad = bytearray(good)
        bad[60] ^= 0xff          # inside IDAT's data
        f.write(bytes(bad))
    with open("%s/garbage.png" % directory, "wb") as f:
        f.write(PNG_SIGNATURE + bytes(range(256)) * 4)
    with open("%s/hugedims.png" % directory, "wb") as f:
        f.write(PNG_SIGNATURE + png_chunk(
            b"IHDR", struct.pack(">IIBBBBB", 0x7fffffff, 0x7fffffff, 8, 0,
                                 0, 0, 0)))
    with open("%s/truncated.ppm" % directory, "wb") as f, \
            open("%s/rgb8.ppm" % directory, "rb") as g:
        good = g.read()
        f.write(good[:len(good) - 100])
    with open("%s/truncated.pfm" % directory, "wb") as f, \
            open("%s/rgb8-le.pfm" % directory, "rb") as g:
        good = g.read()
        f.write(good[:len(good) - 7])
    with open("%s/nan.pfm" % directory, "wb") as f:
        f.write(b"Pf\n2 1\n-1.0\n" + struct.pack("<2f", 0.5, float("nan")))
    return images


# ---- commands -------------------------------------------------------------

def same(a, b):
    ia, ib = read_any(a), read_any(b)
    if ia[:4] != ib[:4]:
        print("layout differs: %r vs %r" % (ia[:4], ib[:4]))
        return 1
    if ia[4] != ib[4]:
        diffs = sum(1 for x, y in zip(ia[4], ib[4]) if x != y)
        print("%d samples differ" % diffs)
        return 1
    return 0


def expect(path, name):
    images = generated()
    if name == "palette":
        got = read_any(path)
        # The palette image, expanded independently of the command.
        palette = [(i * 16, 255 - i * 16, (i * 80) % 256) for i in range(16)]
        alpha = [255 - i * 10 for i in range(12)] + [255] * 4
        want = []
        for y in range(H):
            for x in range(W):
                i = (x + 3 * y) % 16
                want += list(palette[i]) + [alpha[i]]
        ok = got[:4] == (W, H, 4, 255) and got[4] == want
    else:
        if name == "gray1bit-expanded":
            w, h, c, _, samples = images["gray1bit"]
            want = (w, h, c, 255, [v * 255 for v in samples])
        elif name == "gray1000-as-16bit":
            w, h, c, _, samples = images["gray1000"]
            want = (w, h, c, 65535,
                    [int(math.floor(v * 65535 / 1000 + 0.5)) for v in samples])
        else:
            want = images[name]
        got = read_any(path)
        ok = got[:4] == want[:4] and got[4] == want[4]
    if not ok:
        print("%s does not hold %s" % (path, name))
    return 0 if ok else 1


def close_pfm(a, b):
    ia, ib = read_pfm(a), read_pfm(b)
    if ia[:3] != ib[:3]:
        return 1
    worst = 0.0
    for x, y in zip(ia[4], ib[4]):
        tolerance = max(abs(x), 1e-30) * 2.0 ** -23
        worst = max(worst, abs(x - y) / tolerance)
    if worst > 1.0:
        print("largest difference: %.2f ulp" % worst)
        return 1
    return 0


def noise(clean, noisy):
    a, b = read_any(clean), read_any(noisy)
    colour = a[2] - (1 if a[2] in (2, 4) else 0)
    sa, sb = scaled(a), scaled(b)
    diffs = [sb[i] - sa[i] for i in range(len(sa)) if i % a[2] < colour]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    print("%.4f %.4f" % (mean, math.sqrt(var)))
    return 0


def alpha_same(a, b):
    ia, ib = read_any(a), read_any(b)
    c = ia[2]
    if c not in (2, 4) or ib[2] != c:
        return 1
    return 0 if ia[4][c - 1::c] == ib[4][c - 1::c] else 1


# The generator documented by "bm3d-denoise --help", written anew here.
MASK = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9e3779b97f4a7c15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def gaussians(seed):
    s = []
    state = seed
    for _ in range(4):
        state, v = splitmix64(state)
        s.append(v)

    def nxt():
        result = (rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    while True:
        u1 = ((nxt() >> 11) + 1) * 2.0 ** -53
        u2 = ((nxt() >> 11) + 1) * 2.0 ** -53
        r = math.sqrt(-2.0 * math.log(u1))
        yield r * math.cos(2.0 * math.pi * u2)
        yield r * math.sin(2.0 * math.pi * u2)


def expect_noise(noisy, clean, sigma, seed):
    a = read_any(clean)
    got = scaled(read_pfm(noisy))
    colour = a[2] - (1 if a[2] in (2, 4) else 0)
    source = scaled(a)
    draws = gaussians(seed)
    worst = 0.0
    j = 0
    for i, v in enumerate(source):
        if i % a[2] >= colour:
            continue
        want = v + sigma * next(draws)
        worst = max(worst, abs(got[j] - want))
        j += 1
    if j != len(got):
        print("sample count differs")
        return 1
    if worst > 1e-3:
        print("largest difference %g" % worst)
        return 1
    return 0


def main(argv):
    command = argv[1]
    if command == "generate":
        generate(argv[2])
        return 0
    if command == "same":
        return same(argv[2], argv[3])
    if command == "expect":
        return expect(argv[2], argv[3])
    if command == "close-pfm":
        return close_pfm(argv[2], argv[3])
    if command == "noise":
        return noise(argv[2], argv[3])
    if command == "alpha-same":
        return alpha_same(argv[2], argv[3])
    if command == "range":
        samples = scaled(read_any(argv[2]))
        print("%.4f %.4f" % (min(samples), max(samples)))
        return 0
    if command == "to-pfm":
        # to-pfm IN OUT [FIRST]: the same values as floats, the first
        # sample set to FIRST (0..1 scale) when given.
        width, height, channels, maxval, samples = read_any(argv[2])
        values = [v / maxval for v in samples]
        if len(argv) > 4:
            values[0] = float(argv[4])
        write_pfm(argv[3], width, height, channels, values)
        return 0
    if command == "expect-noise":
        return expect_noise(argv[2], argv[3], float(argv[4]), int(argv[5]))
    if command == "info":
        image = read_any(argv[2])
        print("%d %d %d %d" % (image[0], image[1], image[2],
                               16 if image[3] > 255 else 8))
        return 0
    print("unknown command %s" % command, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
