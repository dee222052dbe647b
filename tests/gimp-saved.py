#!/usr/bin/env python3
# What a file written by GIMP holds, for the tests of the batch's saves
# (tests/gimp-save.sh, tests/gimp3-save.sh).  Standard library only, and
# the structures are read by code that shares nothing with GIMP; the
# PNG, JPEG and TIFF walkers are cli-files.py's.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   gimp-saved.py describe FILE    one "KEY VALUE" line each:
#       format     png, jpeg or tiff
#       depth      bits per sample (PNG, TIFF)
#       flevel     PNG: the FLEVEL bits of the zlib header of the first
#                  IDAT: 0 for zlib levels 0-1, 1 for 2-5, 2 for 6,
#                  3 for 7-9
#       idat       PNG: the bytes of the first IDAT chunk and of all
#                  of them (libpng, as GIMP's export uses it, cuts the
#                  data into chunks of 8192 bytes; the project's writer
#                  writes the zlib header alone, then chunks of 1 MiB)
#       compression  TIFF: the Compression tag (1 none, 5 LZW, 8 Deflate)
#       sampling   JPEG: the first component's sampling, HxV
#       tables     JPEG: a digest of the quantization tables
#       icc        a digest of the ICC profile ("none" if absent)
#       comment    JPEG: the COM marker's text; PNG: the Comment text
#       make       the EXIF Make, wherever the file keeps EXIF
#                  (PNG: eXIf, or the "Raw profile type exif" text
#                  chunk that exiv2 writes)
#   gimp-saved.py with-meta IN.png OUT.png
#       OUT is IN with cli-files.py's ICC profile and EXIF block and the
#       comment "BM3D test comment" added
#   gimp-saved.py with-profile IN.png OUT.png
#       OUT is IN with a real RGB profile other than sRGB (wide primaries,
#       gamma 2.2), one babl makes a colour space of
#   gimp-saved.py with-title IN.png OUT.png
#       OUT is IN with a tEXt chunk "Title", text the plug-in's own
#       reader does not keep (so the batch leaves the file to GIMP)
#   gimp-saved.py with-turn IN.png OUT.png
#       OUT is IN with EXIF whose orientation (6) turns the photo, which
#       GIMP's loader may apply (so the batch leaves the file to GIMP)
#   gimp-saved.py with-app3 IN.jpg OUT.jpg
#       OUT is IN with an APP3 marker, which GIMP's loader ignores and
#       the plug-in's own reader does not keep (so the batch leaves the
#       file to GIMP)
#   gimp-saved.py with-comment IN.jpg OUT.jpg
#       OUT is IN with a COM marker "BM3D test comment" added
#   gimp-saved.py plain-tiff IN.png OUT.tif
#       OUT holds IN's 8-bit RGB samples, uncompressed, no metadata
#   gimp-saved.py packbits-tiff IN.png OUT.tif
#       the same, compressed by PackBits

import binascii
import hashlib
import importlib.util
import os
import struct
import sys
import zlib

COMMENT = b"BM3D test comment"

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "cli_files", os.path.join(HERE, "cli-files.py"))
files = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(files)


def exif_make(block):
    """The Make (tag 271) of IFD0 of an EXIF block, "none" if absent."""
    if not block or len(block) < 8:
        return "none"
    order = "<" if block[:2] == b"II" else ">"
    ifd = struct.unpack(order + "I", block[4:8])[0]
    count = struct.unpack(order + "H", block[ifd:ifd + 2])[0]
    for i in range(count):
        e = ifd + 2 + 12 * i
        tag, kind, n = struct.unpack(order + "HHI", block[e:e + 8])
        if tag == 271 and kind == 2:
            at = e + 8 if n <= 4 else struct.unpack(
                order + "I", block[e + 8:e + 12])[0]
            return block[at:at + n].rstrip(b"\0").decode("latin-1")
    return "none"


def png_chunks(data):
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def raw_profile(text):
    """The bytes of ImageMagick's "Raw profile" text: a line with the
    profile's name, one with its length, then hex digits."""
    lines = text.decode("latin-1").strip().split("\n")
    return binascii.unhexlify("".join(l.strip() for l in lines[2:]))


def png_text(kind, body):
    """(keyword, text) of a tEXt, zTXt or iTXt chunk."""
    keyword, rest = body.split(b"\0", 1)
    if kind == b"zTXt":
        return keyword, zlib.decompress(rest[1:])
    if kind == b"iTXt":
        compressed = rest[0]
        rest = rest[2:].split(b"\0", 2)[2]
        return keyword, zlib.decompress(rest) if compressed else rest
    return keyword, rest


def png_exif(data):
    for kind, body in png_chunks(data):
        if kind == b"eXIf":
            return body
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            keyword, text = png_text(kind, body)
            if keyword == b"Raw profile type exif":
                block = raw_profile(text)
                return block[6:] if block[:6] == b"Exif\0\0" else block
    return None


def png_comment(data):
    for kind, body in png_chunks(data):
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            keyword, text = png_text(kind, body)
            if keyword == b"Comment":
                return text.decode("latin-1")
    return "none"


def describe_png(data):
    out = [("format", "png")]
    idat = []
    for kind, body in png_chunks(data):
        if kind == b"IHDR":
            out.append(("depth", body[8]))
        elif kind == b"IDAT":
            if not idat:
                out.append(("flevel", body[1] >> 6))
            idat.append(len(body))
    if idat:
        out.append(("idat", "%d %d" % (idat[0], sum(idat))))
    icc, _ = files.png_meta(data)
    return out + [("comment", png_comment(data)),
                  ("icc", files.digest(icc)),
                  ("make", exif_make(png_exif(data)))]


def describe_jpeg(data):
    tables = b""
    comment = ""
    for marker, body in files.jpeg_segments(data):
        if marker == 0xdb:
            tables += body
        elif marker == 0xfe:
            comment = body.rstrip(b"\0").decode("latin-1")
    icc, exif = files.jpeg_meta(data)
    return [("format", "jpeg"),
            ("sampling", files.jpeg_info(data).split()[3]),
            ("tables", hashlib.sha256(tables).hexdigest()[:16]),
            ("comment", comment or "none"),
            ("icc", files.digest(icc)),
            ("make", exif_make(exif))]


def describe_tiff(data):
    _, tags = files.tiff_entries(data)
    icc, exif = files.tiff_meta(data)
    make = tags.get(271)
    return [("format", "tiff"),
            ("depth", tags.get(258, [1])[0]),
            ("compression", tags.get(259, [1])[0]),
            ("icc", files.digest(icc)),
            ("make", bytes(make).rstrip(b"\0").decode("latin-1")
             if make else exif_make(exif))]


def describe(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return describe_png(data)
    if data[:2] == b"\xff\xd8":
        return describe_jpeg(data)
    return describe_tiff(data)


def with_meta(src, dst):
    with open(src, "rb") as f:
        data = f.read()
    chunk = files.images.png_chunk
    ihdr_end = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    extra = (chunk(b"iCCP", b"test\0\0" + zlib.compress(files.icc_profile()))
             + chunk(b"eXIf", files.exif_block())
             + chunk(b"tEXt", b"Comment\0" + COMMENT))
    with open(dst, "wb") as f:
        f.write(data[:ihdr_end] + extra + data[ihdr_end:])


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def matrix_profile():
    """An ICC v2 RGB display profile: Adobe RGB (1998)'s primaries adapted
    to D50, D65 white, a gamma 2.2 curve for each channel."""
    desc_text = b"bm3d-denoise wide test profile\0"
    desc = (b"desc" + b"\0" * 4 + struct.pack(">I", len(desc_text))
            + desc_text + b"\0" * (4 + 4 + 2 + 1 + 67))
    def xyz(x, y, z):
        return b"XYZ " + b"\0" * 4 + s15(x) + s15(y) + s15(z)
    curve = b"curv" + b"\0" * 4 + struct.pack(">IH", 1, int(2.2 * 256)) \
        + b"\0\0"
    tags = [(b"desc", desc), (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
            (b"rXYZ", xyz(0.6097, 0.3111, 0.0195)),
            (b"gXYZ", xyz(0.2053, 0.6257, 0.0609)),
            (b"bXYZ", xyz(0.1492, 0.0632, 0.7446)),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve),
            (b"cprt", b"text" + b"\0" * 4 + b"no copyright\0")]
    offset = 128 + 4 + 12 * len(tags)
    table, body = b"", b""
    for name, data in tags:
        data += b"\0" * (-len(data) % 4)
        table += struct.pack(">4sII", name, offset + len(body), len(data))
        body += data
    size = offset + len(body)
    return (files.icc_header(size) + struct.pack(">I", len(tags)) + table
            + body)


def with_chunk(src, dst, extra):
    with open(src, "rb") as f:
        data = f.read()
    ihdr_end = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    with open(dst, "wb") as f:
        f.write(data[:ihdr_end] + extra + data[ihdr_end:])


def with_profile(src, dst):
    with_chunk(src, dst, files.images.png_chunk(
        b"iCCP", b"wide\0\0" + zlib.compress(matrix_profile())))


def with_title(src, dst):
    with_chunk(src, dst, files.images.png_chunk(
        b"tEXt", b"Title\0BM3D test title"))


def with_turn(src, dst):
    exif = (b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", 1)
            + struct.pack("<HHIHH", 0x0112, 3, 1, 6, 0) + struct.pack("<I", 0))
    with_chunk(src, dst, files.images.png_chunk(b"eXIf", exif))


def with_app3(src, dst):
    with open(src, "rb") as f:
        data = f.read()
    body = b"BM3D test"
    marker = b"\xff\xe3" + struct.pack(">H", len(body) + 2) + body
    with open(dst, "wb") as f:
        f.write(data[:2] + marker + data[2:])


def with_comment(src, dst):
    with open(src, "rb") as f:
        data = f.read()
    marker = b"\xff\xfe" + struct.pack(">H", len(COMMENT) + 2) + COMMENT
    with open(dst, "wb") as f:
        f.write(data[:2] + marker + data[2:])


def plain_tiff(src, dst, compression=1):
    w, h, channels, maxval, samples = files.images.read_png(src)
    assert channels == 3 and maxval == 255, "8-bit RGB only"
    files.write_tiff(dst, w, h, 3, 8, samples, compression=compression)


def main(argv):
    if len(argv) == 3 and argv[1] == "describe":
        for key, value in describe(argv[2]):
            print(key, value)
        return 0
    if len(argv) == 4 and argv[1] == "with-meta":
        with_meta(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "with-profile":
        with_profile(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "with-title":
        with_title(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "with-turn":
        with_turn(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "with-app3":
        with_app3(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "with-comment":
        with_comment(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "plain-tiff":
        plain_tiff(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "packbits-tiff":
        plain_tiff(argv[2], argv[3], compression=32773)
        return 0
    sys.stderr.write("usage: gimp-saved.py describe|with-meta|with-profile|"
                     "with-title|with-turn|with-app3|with-comment|"
                     "plain-tiff|packbits-tiff FILE...\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
