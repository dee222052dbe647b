#!/usr/bin/env python3
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
"""Benchmark only: run the reference `bm3d` Python package (PyPI, by the
original authors' group) on the very noisy inputs bench/bm3d-quality
wrote with --save-noisy, and print PSNR and time per image.  Not a
dependency of the project; needs `pip install bm3d pillow numpy`.

  bench/bm3d_reference.py SIGMA NOISY-DIR CLEAN-IMAGE...

NOISY-DIR holds <clean file name>.pfm (0..1 scale, rows bottom to top,
as image_io writes them)."""
import os
import sys
import time

import numpy as np
from PIL import Image
import bm3d


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        width, height = (int(v) for v in f.readline().split())
        scale = float(f.readline())
        channels = 3 if kind == b"PF" else 1
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    data = data.reshape(height, width, channels)[::-1]
    return data[:, :, 0] if channels == 1 else data


def psnr(clean, out):
    out = np.clip(out, 0.0, 255.0)
    mse = np.mean((out.astype(np.float64) - clean) ** 2)
    return 10.0 * np.log10(255.0 ** 2 / mse)


def main():
    sigma = float(sys.argv[1])
    noisy_dir = sys.argv[2]
    total_psnr = total_time = 0.0
    print("# reference bm3d %s, sigma %g" % (bm3d.__version__
          if hasattr(bm3d, "__version__") else "", sigma))
    for path in sys.argv[3:]:
        name = os.path.basename(path)
        clean = np.asarray(Image.open(path), dtype=np.float64)
        noisy = read_pfm(os.path.join(noisy_dir, name + ".pfm")) * 255.0
        start = time.perf_counter()
        if noisy.ndim == 3:
            out = bm3d.bm3d_rgb(noisy, sigma)
        else:
            out = bm3d.bm3d(noisy, sigma)
        seconds = time.perf_counter() - start
        value = psnr(clean, out)
        print("%-16s %8.3f %8.3f" % (name, value, seconds))
        sys.stdout.flush()
        total_psnr += value
        total_time += seconds
    n = len(sys.argv) - 3
    print("%-16s %8.3f %8.3f" % ("average", total_psnr / n, total_time / n))


if __name__ == "__main__":
    main()
