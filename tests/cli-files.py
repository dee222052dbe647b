#!/usr/bin/env python3
# JPEG and TIFF test files for the bm3d-denoise command, with metadata,
# and independent checks of what it writes.  Standard library only: the
# TIFF and JPEG structures are read by code that shares nothing with the
# command (pixels of uncompressed TIFFs; JPEG markers, not pixels).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   cli-files.py generate DIR      write the test files into DIR
#   cli-files.py meta FILE         print "icc DIGEST exif DIGEST" of the
#                                  ICC profile and EXIF block of a PNG,
#                                  JPEG or TIFF file ("none" if absent)
#   cli-files.py meta-expected [big-endian]
#                                  the same line for the generated blocks
#   cli-files.py jpeg-info FILE    print "W H COMPONENTS HxV" (sampling of
#                                  the first component)
#   cli-files.py tiff-info FILE    print "W H SPP BPS FORMAT PHOTOMETRIC
#                                  EXTRA" of the first image
#   cli-files.py tiff-same FILE NAME
#                                  exit 0 when the uncompressed TIFF FILE
#                                  holds the samples of the generated NAME
#   cli-files.py mutate IN OUT SEED
#                                  OUT is IN with a few bytes changed past
#                                  its first 2 bytes (seeded, repeatable)

import hashlib
import importlib.util
import os
import random
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "cli_images", os.path.join(HERE, "cli-images.py"))
images = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(images)

W, H = images.W, images.H


# ---- the metadata blocks --------------------------------------------------

def icc_header(size):
    """The 128-byte header of an ICC v2.1 RGB display profile of `size`
    bytes (PCS XYZ, D50 illuminant)."""
    header = struct.pack(">I4sI4s4s4s12s4s4sI4sI8sI12s4s16s28s",
                         size, b"none", 0x02100000, b"mntr", b"RGB ",
                         b"XYZ ", b"\0" * 12, b"acsp", b"APPL", 0,
                         b"none", 0, b"\0" * 8, 0,
                         struct.pack(">iii", 0xF6D6, 0x10000, 0xD32D),
                         b"none", b"\0" * 16, b"\0" * 28)
    assert len(header) == 128
    return header


def icc_profile(size=70000):
    """A well-formed RGB display profile of `size` bytes (over one JPEG
    marker's capacity, so the JPEG writer must split it)."""
    text = b"text" + b"\0" * 4 + b"bm3d-denoise test profile " * 4
    tag_offset = 128 + 4 + 12
    body = bytearray(size - tag_offset)
    body[:len(text)] = text
    for i in range(len(text), len(body)):
        body[i] = (i * 7) & 0xff
    header = icc_header(size)
    tags = struct.pack(">I4sII", 1, b"cprt", tag_offset, size - tag_offset)
    return header + tags + bytes(body)


def exif_block(o="<"):
    """An EXIF block (little-endian unless o is ">"): IFD0 with Make and a pointer to an
    EXIF IFD holding ExposureTime and ISO."""
    make = b"BM3D test camera\0"
    # Layout: header 8, IFD0 (2 entries) at 8, make at 38, EXIF IFD after.
    ifd0 = 8
    make_at = ifd0 + 2 + 2 * 12 + 4
    exif_at = make_at + len(make)
    exif_at += exif_at & 1
    rational_at = exif_at + 2 + 2 * 12 + 4
    out = (b"II*\0" if o == "<" else b"MM\0*") + struct.pack(o + "I", ifd0)
    out += struct.pack(o + "H", 2)
    out += struct.pack(o + "HHII", 0x010F, 2, len(make), make_at)
    out += struct.pack(o + "HHII", 0x8769, 4, 1, exif_at)
    out += struct.pack(o + "I", 0)
    out += make
    out += b"\0" * (exif_at - len(out))
    out += struct.pack(o + "H", 2)
    out += struct.pack(o + "HHII", 0x829A, 5, 1, rational_at)
    out += struct.pack(o + "HHIHH", 0x8827, 3, 1, 3200, 0)
    out += struct.pack(o + "I", 0)
    out += struct.pack(o + "II", 1, 250)
    return out


def digest(block):
    return hashlib.sha256(block).hexdigest()[:16] if block else "none"


# ---- PNG with metadata ----------------------------------------------------

def write_png_meta(path, w, h, samples, order="<"):
    chunk = images.png_chunk
    raw = bytearray()
    for y in range(h):
        raw.append(0)
        raw += bytes(samples[y * w * 3:(y + 1) * w * 3])
    data = images.PNG_SIGNATURE
    data += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    data += chunk(b"iCCP", b"test\0\0" + zlib.compress(icc_profile()))
    data += chunk(b"eXIf", exif_block(order))
    data += chunk(b"IDAT", zlib.compress(bytes(raw)))
    data += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def png_meta(data):
    icc = exif = None
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"iCCP":
            name_end = body.index(b"\0")
            icc = zlib.decompress(body[name_end + 2:])
        elif kind == b"eXIf":
            exif = body
        pos += 12 + length
    return icc, exif


# ---- JPEG markers ---------------------------------------------------------

def jpeg_segments(data):
    """(marker, payload) of every segment before the entropy data."""
    assert data[:2] == b"\xff\xd8", "not a JPEG file"
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xff:
            raise ValueError("bad marker at %d" % pos)
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        yield marker, data[pos + 4:pos + 2 + length]
        if marker == 0xda:
            return
        pos += 2 + length


def jpeg_meta(data):
    icc_parts = {}
    exif = None
    for marker, body in jpeg_segments(data):
        if marker == 0xe1 and body[:6] == b"Exif\0\0":
            exif = body[6:]
        elif marker == 0xe2 and body[:12] == b"ICC_PROFILE\0":
            icc_parts[body[12]] = body[14:]
    icc = b"".join(icc_parts[k] for k in sorted(icc_parts)) or None
    return icc, exif


def jpeg_info(data):
    for marker, body in jpeg_segments(data):
        if marker in (0xc0, 0xc1, 0xc2):
            _, h, w, n = struct.unpack(">BHHB", body[:6])
            sampling = body[7]
            return "%d %d %d %dx%d" % (w, h, n, sampling >> 4, sampling & 15)
    raise ValueError("no frame header")


# ---- TIFF -----------------------------------------------------------------

TYPE_SIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8,
             11: 4, 12: 8, 13: 4}
TYPE_CHAR = {1: "B", 2: "c", 3: "H", 4: "I", 7: "B", 11: "f", 13: "I"}


def tiff_entries(data):
    order = "<" if data[:2] == b"II" else ">"
    magic, ifd = struct.unpack(order + "HI", data[2:8])
    assert magic == 42, "not a classic TIFF file"
    count = struct.unpack(order + "H", data[ifd:ifd + 2])[0]
    tags = {}
    for i in range(count):
        e = ifd + 2 + 12 * i
        tag, kind, n = struct.unpack(order + "HHI", data[e:e + 8])
        size = TYPE_SIZE.get(kind, 1) * n
        at = e + 8 if size <= 4 else struct.unpack(order + "I",
                                                    data[e + 8:e + 12])[0]
        raw = data[at:at + size]
        if kind in TYPE_CHAR and kind != 2:
            value = list(struct.unpack(order + TYPE_CHAR[kind] * n, raw))
        else:
            value = raw
        tags[tag] = value
    return order, tags


def ifd_raw(data, order, at):
    """(tag, type, count, value bytes) of the directory at `at`."""
    n = struct.unpack(order + "H", data[at:at + 2])[0]
    out = []
    for i in range(n):
        e = at + 2 + 12 * i
        tag, kind, count = struct.unpack(order + "HHI", data[e:e + 8])
        size = TYPE_SIZE[kind] * count
        if size <= 4:
            raw = data[e + 8:e + 8 + size]
        else:
            off = struct.unpack(order + "I", data[e + 8:e + 12])[0]
            raw = data[off:off + size]
        out.append((tag, kind, count, raw))
    return out


def exif_layout(order, ifd0, exif):
    """The EXIF block of a TIFF's descriptive tags and EXIF directory,
    laid out as the test block is: IFD0 at 8, its values, the EXIF IFD,
    its values; entries sorted, values at even offsets."""
    def ifd(entries, at, pointer):
        entries = sorted(entries + ([(34665, 4, 1, None)]
                                    if pointer is not None else []),
                         key=lambda e: e[0])
        values_at = at + 2 + 12 * len(entries) + 4
        head, values = struct.pack(order + "H", len(entries)), b""
        for tag, kind, count, raw in entries:
            if tag == 34665:
                head += struct.pack(order + "HHII", tag, kind, count, pointer)
            elif len(raw) <= 4:
                head += struct.pack(order + "HHI", tag, kind, count) + raw \
                    + b"\0" * (4 - len(raw))
            else:
                head += struct.pack(order + "HHII", tag, kind, count,
                                    values_at + len(values))
                values += raw + (b"\0" if len(raw) & 1 else b"")
        return head + struct.pack(order + "I", 0) + values
    first = ifd(ifd0, 8, 0 if exif else None)
    block = (b"II*\0" if order == "<" else b"MM\0*") + \
        struct.pack(order + "I", 8)
    if not exif:
        return block + first
    return block + ifd(ifd0, 8, 8 + len(first)) + ifd(exif, 8 + len(first),
                                                      None)


def tiff_meta(data):
    order, tags = tiff_entries(data)
    icc = tags.get(34675)
    first = struct.unpack(order + "I", data[4:8])[0]
    ifd0 = [e for e in ifd_raw(data, order, first)
            if e[0] in (270, 271, 272, 306, 315, 33432)
            or (e[0] == 274 and e[3] not in (b"\1\0", b"\0\1"))]
    exif = []
    if 34665 in tags:
        exif = [e for e in ifd_raw(data, order, tags[34665][0])
                if e[0] not in (34665, 34853, 40965)]
    block = exif_layout(order, ifd0, exif) if ifd0 or exif else None
    return (bytes(icc) if icc else None), block


def tiff_info(data):
    _, t = tiff_entries(data)
    return "%d %d %d %d %d %d %s" % (
        t[256][0], t[257][0], t.get(277, [1])[0], t.get(258, [1])[0],
        t.get(339, [1])[0], t.get(262, [0])[0],
        ",".join(str(v) for v in t.get(338, [])) or "-")


def tiff_samples(data):
    """Samples of an uncompressed, contiguous, stripped TIFF."""
    order, t = tiff_entries(data)
    assert t.get(259, [1])[0] == 1, "compressed"
    w, h, spp = t[256][0], t[257][0], t.get(277, [1])[0]
    bps, fmt = t.get(258, [1])[0], t.get(339, [1])[0]
    raw = b"".join(data[o:o + n] for o, n in zip(t[273], t[279]))
    char = {8: "B", 16: "H"}[bps] if fmt == 1 else "f"
    n = w * h * spp
    return (w, h, spp, bps,
            list(struct.unpack(order + char * n, raw[:n * bps // 8])))


def packbits(row):
    """`row` as PackBits (TIFF's compression 32773) codes it with literal
    runs alone: a length byte n - 1, then n bytes, n up to 128."""
    out = bytearray()
    for i in range(0, len(row), 128):
        part = row[i:i + 128]
        out.append(len(part) - 1)
        out += part
    return bytes(out)


def write_tiff(path, w, h, spp, bps, samples, order="<", photometric=None,
               planar=False, tile=None, fmt=1, extra=None, invert=False,
               compression=1):
    char = {8: "B", 16: "H", 32: "f"}[bps]
    if photometric is None:
        photometric = 2 if spp >= 3 else 1
    if invert:
        top = (1 << bps) - 1
        samples = [top - v for v in samples]
    chunks = []
    if tile:
        for ty in range(0, h, tile):
            for tx in range(0, w, tile):
                vals = []
                for y in range(ty, ty + tile):
                    for x in range(tx, tx + tile):
                        for c in range(spp):
                            inside = x < w and y < h
                            vals.append(samples[(y * w + x) * spp + c]
                                        if inside else 0)
                chunks.append(struct.pack(order + char * len(vals), *vals))
    elif planar:
        for c in range(spp):
            plane = samples[c::spp]
            for y0 in range(0, h, 5):
                vals = plane[y0 * w:min(h, y0 + 5) * w]
                chunks.append(struct.pack(order + char * len(vals), *vals))
    else:
        rows = 5                # several strips, a short last one
        for y0 in range(0, h, rows):
            vals = samples[y0 * w * spp:min(h, y0 + rows) * w * spp]
            chunk = struct.pack(order + char * len(vals), *vals)
            if compression == 32773:    # each row by itself
                row = w * spp * bps // 8
                chunk = b"".join(packbits(chunk[i:i + row])
                                 for i in range(0, len(chunk), row))
            chunks.append(chunk)
    entries = {256: (4, [w]), 257: (4, [h]), 258: (3, [bps] * spp),
               259: (3, [compression]), 262: (3, [photometric]), 277: (3, [spp]),
               284: (3, [2 if planar else 1]), 339: (3, [fmt] * spp)}
    if extra is not None:
        entries[338] = (3, [extra])
    offsets_tag, counts_tag = (324, 325) if tile else (273, 279)
    if tile:
        entries[322] = (4, [tile])
        entries[323] = (4, [tile])
    else:
        entries[278] = (4, [5])
    entries[offsets_tag] = (4, [0] * len(chunks))
    entries[counts_tag] = (4, [len(c) for c in chunks])

    # Image data after the 8-byte header, then the IFD and its arrays.
    body = bytearray()
    offsets = []
    for c in chunks:
        offsets.append(8 + len(body))
        body += c
        if len(body) & 1:
            body.append(0)
    entries[offsets_tag] = (4, offsets)
    ifd_at = 8 + len(body)
    n = len(entries)
    extra_at = ifd_at + 2 + 12 * n + 4
    ifd = struct.pack(order + "H", n)
    blobs = bytearray()
    for tag in sorted(entries):
        kind, values = entries[tag]
        raw = struct.pack(order + TYPE_CHAR[kind] * len(values), *values)
        if len(raw) <= 4:
            ifd += struct.pack(order + "HHI", tag, kind, len(values))
            ifd += raw + b"\0" * (4 - len(raw))
        else:
            ifd += struct.pack(order + "HHII", tag, kind, len(values),
                               extra_at + len(blobs))
            blobs += raw
            if len(blobs) & 1:
                blobs.append(0)
    ifd += struct.pack(order + "I", 0)
    head = (b"II*\0" if order == "<" else b"MM\0*") + \
        struct.pack(order + "I", ifd_at)
    with open(path, "wb") as f:
        f.write(head + bytes(body) + ifd + bytes(blobs))


# ---- commands -------------------------------------------------------------

def meta_of(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] == images.PNG_SIGNATURE:
        return png_meta(data)
    if data[:2] == b"\xff\xd8":
        return jpeg_meta(data)
    return tiff_meta(data)


def generate(directory):
    gen = images.generated()
    _, _, _, _, rgb8 = gen["rgb8"]
    write_png_meta(os.path.join(directory, "meta.png"), W, H, rgb8)
    write_png_meta(os.path.join(directory, "meta-be.png"), W, H, rgb8, ">")
    p = lambda name: os.path.join(directory, name)
    _, _, _, _, gray8 = gen["gray8"]
    _, _, _, _, gray16 = gen["gray16"]
    _, _, _, _, rgb16 = gen["rgb16"]
    _, _, _, _, rgba16 = gen["rgba16"]
    write_tiff(p("rgb8-strips.tif"), W, H, 3, 8, rgb8)
    write_tiff(p("rgb8-planar.tif"), W, H, 3, 8, rgb8, planar=True)
    write_tiff(p("gray16-tiled.tif"), W, H, 1, 16, gray16, tile=16)
    write_tiff(p("rgb16-be.tif"), W, H, 3, 16, rgb16, order=">")
    write_tiff(p("gray8-white.tif"), W, H, 1, 8, gray8, photometric=0,
               invert=True)
    write_tiff(p("rgba16.tif"), W, H, 4, 16, rgba16, extra=2)
    floats = [v / 255.0 for v in rgb8]
    write_tiff(p("rgb-float-be.tif"), W, H, 3, 32, floats, order=">", fmt=3)
    # A TIFF whose strips stop half way.
    with open(p("rgb8-strips.tif"), "rb") as f:
        good = f.read()
    with open(p("truncated.tif"), "wb") as f:
        f.write(good[:len(good) // 3])
    # Strips that lie past the end of the file.
    order, t = tiff_entries(good)
    bad = bytearray(good)
    ifd = struct.unpack("<I", good[4:8])[0]
    count = struct.unpack("<H", good[ifd:ifd + 2])[0]
    for i in range(count):
        e = ifd + 2 + 12 * i
        if struct.unpack("<H", good[e:e + 2])[0] == 273:   # StripOffsets
            at = struct.unpack("<I", good[e + 8:e + 12])[0]
            last = at + 4 * (len(t[273]) - 1)
            bad[last:last + 4] = struct.pack("<I", len(good) + 4096)
    with open(p("pastend.tif"), "wb") as f:
        f.write(bytes(bad))
    with open(p("notatiff.tif"), "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 1 << 30) + b"\0" * 16)


def tiff_same(path, name):
    gen = images.generated()
    with open(path, "rb") as f:
        w, h, spp, bps, samples = tiff_samples(f.read())
    if name.endswith("-float"):
        gw, gh, gc, gmax, want = gen[name[:-6]]
        ok = (w, h, spp, bps) == (gw, gh, gc, 32) and all(
            abs(a - b / gmax) <= 1e-6 for a, b in zip(samples, want))
    else:
        gw, gh, gc, gmax, want = gen[name]
        ok = (w, h, spp, (1 << bps) - 1) == (gw, gh, gc, gmax) \
            and samples == want
    if not ok:
        print("%s does not hold %s (%dx%d, %d samples, %d bits)"
              % (path, name, w, h, spp, bps))
    return 0 if ok else 1


def mutate(src, dst, seed):
    with open(src, "rb") as f:
        data = bytearray(f.read())
    rng = random.Random(seed)
    for _ in range(1 + seed % 4):
        i = rng.randrange(2, len(data))
        data[i] = rng.randrange(256)
    with open(dst, "wb") as f:
        f.write(bytes(data))
    return 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "generate" and len(argv) == 3:
        generate(argv[2])
        return 0
    if cmd == "meta" and len(argv) == 3:
        icc, exif = meta_of(argv[2])
        print("icc %s exif %s" % (digest(icc), digest(exif)))
        return 0
    if cmd == "meta-expected":
        order = ">" if len(argv) > 2 and argv[2] == "big-endian" else "<"
        print("icc %s exif %s" % (digest(icc_profile()),
                                  digest(exif_block(order))))
        return 0
    if cmd == "jpeg-info" and len(argv) == 3:
        with open(argv[2], "rb") as f:
            print(jpeg_info(f.read()))
        return 0
    if cmd == "tiff-info" and len(argv) == 3:
        with open(argv[2], "rb") as f:
            print(tiff_info(f.read()))
        return 0
    if cmd == "tiff-same" and len(argv) == 4:
        return tiff_same(argv[2], argv[3])
    if cmd == "mutate" and len(argv) == 5:
        return mutate(argv[2], argv[3], int(argv[4]))
    sys.stderr.write(__doc__ if __doc__ else "usage: see the file\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
