#!/usr/bin/env python3
# How tests/data/phone-coffee-noisy.jpg and phone-coffee-clean.png were
# made (kept for the record; the tests read the committed files): a
# 384x256 crop of coffee.png in linear light, under-exposed fifty
# times, sampled on an RGGB mosaic, given Poisson-Gaussian noise as a
# phone's sensor gives it, amplified back, demosaiced (bilinear) and
# gamma-encoded, as make-dark-photo.py does without the mosaic; then
# what a phone's processing does next: an edge-aware noise reduction of
# the luminance (a bilateral filter, 9x9, spatial deviation 2.5, range
# deviation 30 on the 0..255 scale), the chroma smoothed (Gaussian,
# deviation 3), a light sharpening of the luminance, and JPEG quality
# 92.  The clean file is the same pipeline without the noise, before the
# JPEG.  Needs numpy, scipy and pillow.
#
#   python3 tests/make-phone-photo.py tests/data/coffee.png tests/data
#
# With --colour it makes tests/data/colour-brick-noisy.png and
# colour-brick-clean.png instead: a 384x256 corner of brick.png taken
# back through a camera's colour matrix (COLOUR_MATRIX) to linear camera
# RGB, under-exposed four times, the same mosaic, sensor noise and
# demosaicing, the matrix applied again and gamma-encoded, saved as PNG
# with no noise reduction and no JPEG: noise mostly of colour, as the
# matrix's negative terms leave it, its luminance weak at the finest
# scale (docs/camera-noise.md, "Colour noise under texture").
#
#   python3 tests/make-phone-photo.py --colour tests/data/brick.png tests/data
#
# With --raw it makes tests/data/raw-coffee-noisy.png and
# raw-coffee-clean.png: main's crop of coffee.png through the same
# colour matrix, a bright exposure (RAW_EXPOSURE), the mosaic and
# sensor noise, demosaiced (bilinear), the matrix applied and
# gamma-encoded, saved as PNG: a raw development as a raw converter
# saves it, its noise weak at the finest scale only because demosaicing
# averaged it, never a JPEG (docs/camera-noise.md, "Noise a JPEG
# cleaned").
#
#   python3 tests/make-phone-photo.py --raw tests/data/coffee.png tests/data
#
# With --vng it makes tests/data/vng-astronaut-noisy.png and
# vng-astronaut-clean.png: a 384x256 corner of astronaut.png through the
# same colour matrix, a dim shot (VNG_EXPOSURE), the mosaic and sensor
# noise, demosaiced by OpenCV's VNG (variable number of gradients, on
# the 8-bit mosaic), which keeps more of the noise's finest scale than
# bilinear demosaicing; its noise follows brightness strongly, and the
# photograph's flattest parts are bright and quiet (docs/camera-noise.md,
# "White noise under a level function").  Needs OpenCV (python3-opencv)
# too.
#
#   python3 tests/make-phone-photo.py --vng tests/data/astronaut.png tests/data
#
# With --folder it gives the same processing (chroma smoothed by
# --chroma S, 0: not at all) to each NAME_real.jpg of a folder such as
# ../shared/benchmark-sets/synthetic-phone-noise, written as
# DEST/NAME_real.JPG beside a link DEST/NAME_mean.png to its truth: the
# probe sets of docs/camera-noise.md ("Noise a phone's noise reduction
# left"), made in a scratch folder, never in the project.
#
#   python3 tests/make-phone-photo.py --folder --chroma 0 SRC DEST
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
import glob
import os
import sys

import numpy as np
from PIL import Image
from scipy.ndimage import gaussian_filter

EXPOSURE, SHOT, READ, SEED = 0.02, 0.0008, 4e-6, 36
# --colour: a camera's colour matrix (camera RGB to linear sRGB, rows
# summing to 1) and a dim shot's exposure and noise.
COLOUR_MATRIX = np.array([[1.6, -0.45, -0.15],
                          [-0.3, 1.55, -0.25],
                          [0.0, -0.5, 1.5]])
DIM_EXPOSURE, DIM_SHOT, DIM_READ, DIM_SEED = 0.25, 0.001, 5e-6, 7
# --raw: a bright shot's exposure and noise.
RAW_EXPOSURE, RAW_SHOT, RAW_READ, RAW_SEED = 0.5, 0.0002, 1e-6, 11
# --vng: a dim shot's.
VNG_EXPOSURE, VNG_SHOT, VNG_READ, VNG_SEED = 0.1, 0.0006, 5e-6, 1
# RGB to YCbCr (JPEG's), and back.
YCC = np.array([[0.299, 0.587, 0.114],
                [-0.168736, -0.331264, 0.5],
                [0.5, -0.418688, -0.081312]])


def encode(lin):
    return 255 * np.clip(lin, 0, 1) ** (1 / 2.2)


def bilateral(y, radius=4, spatial=2.5, rng=30.0):
    h, w = y.shape
    p = np.pad(y, radius, mode="reflect")
    num = np.zeros_like(y)
    den = np.zeros_like(y)
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            q = p[radius + dy:radius + dy + h, radius + dx:radius + dx + w]
            wgt = np.exp(-(dx * dx + dy * dy) / (2 * spatial ** 2)
                         - (q - y) ** 2 / (2 * rng ** 2))
            num += wgt * q
            den += wgt
    return num / den


def phone_processing(rgb, chroma=3.0):
    ycc = rgb @ YCC.T
    y = bilateral(ycc[..., 0])
    ycc[..., 0] = y + 0.6 * (y - gaussian_filter(y, 1.0))
    for c in (1, 2):
        if chroma > 0:
            ycc[..., c] = gaussian_filter(ycc[..., c], chroma)
    return ycc @ np.linalg.inv(YCC).T


def to_image(rgb):
    return Image.fromarray(np.round(np.clip(rgb, 0, 255)).astype(np.uint8))


def bayer(rgb):
    """The RGGB mosaic's one value a photosite."""
    m = np.zeros(rgb.shape[:2])
    m[0::2, 0::2] = rgb[0::2, 0::2, 0]
    m[0::2, 1::2] = rgb[0::2, 1::2, 1]
    m[1::2, 0::2] = rgb[1::2, 0::2, 1]
    m[1::2, 1::2] = rgb[1::2, 1::2, 2]
    return m


def demosaic(m):
    """Bilinear: each colour's photosites, spread to the others."""
    h, w = m.shape
    mask = np.zeros((h, w, 3))
    mask[0::2, 0::2, 0] = 1
    mask[0::2, 1::2, 1] = mask[1::2, 0::2, 1] = 1
    mask[1::2, 1::2, 2] = 1
    k = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 4.0
    out = np.zeros((h, w, 3))
    for c in range(3):
        v = np.pad(m * mask[..., c], 1, mode="reflect")
        n = np.pad(mask[..., c], 1, mode="reflect")
        sv = sum(k[i, j] * v[i:i + h, j:j + w] for i in range(3) for j in range(3))
        sn = sum(k[i, j] * n[i:i + h, j:j + w] for i in range(3) for j in range(3))
        out[..., c] = sv / sn
    return out


def vng_demosaic(m):
    """OpenCV's VNG, on the mosaic rounded to 8 bits (all it takes)."""
    import cv2
    m8 = np.round(np.clip(m, 0, 1) * 255).astype(np.uint8)
    return cv2.cvtColor(m8, cv2.COLOR_BayerBG2RGB_VNG) / 255.0


def main(src, out):
    x = np.asarray(Image.open(src).convert("RGB"), dtype=np.float64) / 255
    x = x[72:328, 108:492]
    raw = bayer(x ** 2.2 * EXPOSURE)
    rng = np.random.default_rng(SEED)
    noisy = raw + rng.standard_normal(raw.shape) * np.sqrt(SHOT * np.clip(raw, 0, None) + READ)
    raw, noisy = demosaic(raw), demosaic(noisy)
    to_image(phone_processing(encode(raw / EXPOSURE))).save(
        out + "/phone-coffee-clean.png")
    to_image(phone_processing(encode(noisy / EXPOSURE))).save(
        out + "/phone-coffee-noisy.jpg", quality=92)


def matrix_development(x, exposure, shot, read, seed, prefix,
                       demosaic=demosaic):
    """x (sRGB, 0..1) back through COLOUR_MATRIX to linear camera RGB,
    under-exposed, mosaic noise, demosaiced, the matrix applied again
    and gamma-encoded: PREFIX-clean.png and PREFIX-noisy.png."""
    lin = np.clip(x ** 2.2 @ np.linalg.inv(COLOUR_MATRIX).T, 0, None)
    raw = bayer(lin * exposure)
    rng = np.random.default_rng(seed)
    noisy = raw + rng.standard_normal(raw.shape) * np.sqrt(shot * raw + read)
    for name, r in (("clean", raw), ("noisy", noisy)):
        rgb = np.clip(demosaic(np.clip(r / exposure, 0, 1)), 0, 1)
        to_image(encode(rgb @ COLOUR_MATRIX.T)).save(prefix + "-" + name + ".png")


def colour(src, out):
    x = np.asarray(Image.open(src).convert("RGB"), dtype=np.float64) / 255
    matrix_development(x[:256, :384], DIM_EXPOSURE, DIM_SHOT, DIM_READ,
                       DIM_SEED, out + "/colour-brick")


def raw_development(src, out):
    x = np.asarray(Image.open(src).convert("RGB"), dtype=np.float64) / 255
    matrix_development(x[72:328, 108:492], RAW_EXPOSURE, RAW_SHOT, RAW_READ,
                       RAW_SEED, out + "/raw-coffee")


def vng_development(src, out):
    x = np.asarray(Image.open(src).convert("RGB"), dtype=np.float64) / 255
    matrix_development(x[:256, :384], VNG_EXPOSURE, VNG_SHOT, VNG_READ,
                       VNG_SEED, out + "/vng-astronaut", vng_demosaic)


def folder(src, dest, chroma):
    os.makedirs(dest, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(src, "*_real.jpg"))):
        name = os.path.basename(path)[:-len("_real.jpg")]
        rgb = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
        to_image(phone_processing(rgb, chroma)).save(
            os.path.join(dest, name + "_real.JPG"), quality=92)
        link = os.path.join(dest, name + "_mean.png")
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(os.path.join(src, name + "_mean.png")),
                       link)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--folder"]:
        chroma = 3.0
        if args[1:2] == ["--chroma"]:
            chroma = float(args[2])
            args = args[2:]
        folder(args[1], args[2], chroma)
    elif args[:1] == ["--colour"]:
        colour(args[1], args[2])
    elif args[:1] == ["--raw"]:
        raw_development(args[1], args[2])
    elif args[:1] == ["--vng"]:
        vng_development(args[1], args[2])
    else:
        main(*args[:2])
