#!/usr/bin/env python3
# How tests/data/dark-coffee-noisy.png and dark-coffee-clean.png were
# made (kept for the record; the test reads the committed files): a
# crop of coffee.png taken back to linear light, under-exposed ten
# times, given Poisson-Gaussian noise (variance shot * x + read, x in
# 0..1) as a phone's sensor would, amplified back, clipped at black and
# white, gamma-encoded and rounded to 8 bits.  The clean file is the
# same pipeline without the noise.  Needs numpy and pillow.
#
#   python3 tests/make-dark-photo.py tests/data/coffee.png tests/data
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
import sys

import numpy as np
from PIL import Image

EXPOSURE, SHOT, READ, SEED = 0.1, 0.0008, 4e-6, 35


def encode(lin):
    return np.round(255 * np.clip(lin, 0, 1) ** (1 / 2.2)).astype(np.uint8)


def main(src, out):
    x = np.asarray(Image.open(src).convert("RGB"), dtype=np.float64) / 255
    x = x[100:292, 200:392]
    raw = x ** 2.2 * EXPOSURE
    rng = np.random.default_rng(SEED)
    noisy = raw + rng.standard_normal(raw.shape) * np.sqrt(SHOT * raw + READ)
    Image.fromarray(encode(raw / EXPOSURE)).save(out + "/dark-coffee-clean.png")
    Image.fromarray(encode(noisy / EXPOSURE)).save(out + "/dark-coffee-noisy.png")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
