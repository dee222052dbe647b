#!/usr/bin/env python3
# NL-means quality and speed against OpenCV and the IPOL figures.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# Run through bench/nlm-quality.sh, which finds the build and a Python
# with OpenCV.  Prints Markdown tables:
#
#   1. the IPOL comparison: Set12's six classic images at sigma 25, the
#      mean over several noise draws of float (unclipped) noisy input;
#   2. against OpenCV's fastNlMeansDenoising (Set12) and
#      fastNlMeansDenoisingColored (Kodak24) at sigma 10, 25 and 50, on
#      the same 8-bit noisy input (noise added by bm3d-denoise
#      --add-noise, then clipped and rounded), both results rounded to
#      8 bits; OpenCV's h (and hColor) is the best of a sweep, per sigma,
#      by the set's average PSNR; our PSNR on float input besides;
#   3. CPU speed on the same inputs, this engine (bm3d-denoise, engine
#      time) and OpenCV (the call), both on N threads, as a ratio.
#
# --backend cuda runs our side of tables 1 and 2 on the GPU.
#
# Noise draws: seed s, image i gets --seed 1000 * s + i.

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

IPOL = {"01": 28.83, "02": 31.26, "03": 28.79, "08": 30.53, "09": 28.99,
        "10": 28.62}
IPOL_NAMES = {"01": "C.man", "02": "House", "03": "Peppers", "08": "Lena",
              "09": "Barbara", "10": "Boat"}


def run(args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def read_pfm(path):
    with open(path, "rb") as fh:
        kind = fh.readline().strip()
        width, height = map(int, fh.readline().split())
        scale = float(fh.readline())
        data = np.frombuffer(fh.read(), dtype="<f4" if scale < 0 else ">f4")
    channels = 3 if kind == b"PF" else 1
    data = data.reshape(height, width, channels)[::-1]
    # bm3d-denoise stores 0..255 as 0..1.
    data = data.astype(np.float64) * 255.0
    return data[:, :, 0] if channels == 1 else data


def read_clean(path, colour):
    img = cv2.imread(path, cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE)
    if img is None:
        sys.exit("cannot read " + path)
    if colour:
        img = img[:, :, ::-1]        # RGB, as bm3d-denoise reads PNG
    return img.astype(np.float64)


def psnr(clean, test, round8):
    test = np.clip(test, 0.0, 255.0)
    if round8:
        test = np.floor(test + 0.5)
    mse = np.mean((test - clean) ** 2)
    return 10.0 * np.log10(255.0 ** 2 / mse)


class Ours:
    def __init__(self, build, threads, backend):
        self.cmd = os.path.join(build, "cli", "bm3d-denoise")
        self.threads = threads
        self.backend = backend

    def noisy(self, clean_path, sigma, seed, out_path):
        if not os.path.exists(out_path):
            run([self.cmd, "--add-noise", str(sigma), "--seed", str(seed),
                 clean_path, out_path])
        return out_path

    def denoise(self, noisy_path, sigma, out_path, backend=None):
        """Denoise; returns (result, engine seconds)."""
        res = run([self.cmd, "--mode", "nlm", "--backend",
                   backend or self.backend,
                   "--threads", str(self.threads), "--sigma", str(sigma),
                   "--verbose", noisy_path, out_path])
        m = re.search(r"engine ([0-9.]+) s", res.stderr)
        return read_pfm(out_path), float(m.group(1)) if m else float("nan")


def noisy_name(work, path, sigma, ext):
    """The noisy copy of `path` (8-bit PNG or float PFM) in `work`."""
    base = os.path.splitext(os.path.basename(path))[0]
    return os.path.join(work, "noisy-%s-%g.%s" % (base, sigma, ext))


def opencv_denoise(noisy_bgr_or_gray, colour, h, h_colour):
    if colour:
        return cv2.fastNlMeansDenoisingColored(noisy_bgr_or_gray, None, h,
                                               h_colour, 7, 21)
    return cv2.fastNlMeansDenoising(noisy_bgr_or_gray, None, h, 7, 21)


def opencv_psnr(clean, noisy_path, colour, h, h_colour):
    noisy = cv2.imread(noisy_path, cv2.IMREAD_COLOR if colour
                       else cv2.IMREAD_GRAYSCALE)
    out = opencv_denoise(noisy, colour, h, h_colour).astype(np.float64)
    if colour:
        out = out[:, :, ::-1]
    return psnr(clean, out, False)


def sweep_opencv(images, colour, sigma, work, ours, subset):
    """Best (h, hColor) by the average PSNR over `subset` images."""
    pick = images[:: max(1, len(images) // subset)][:subset]
    cache = {}

    def average(h, hc):
        key = (round(h, 3), round(hc, 3))
        if key not in cache:
            vals = []
            for i, path in pick:
                clean = read_clean(path, colour)
                noisy = ours.noisy(path, sigma, 1000 + i,
                                   noisy_name(work, path, sigma, "png"))
                vals.append(opencv_psnr(clean, noisy, colour, h, hc))
            cache[key] = float(np.mean(vals))
        return cache[key]

    # h around sigma (OpenCV's h is not sigma's 0.4: it has no 2 sigma^2
    # offset), coarse then fine.
    grid = [sigma * f for f in (0.5, 0.7, 0.85, 1.0, 1.15, 1.3, 1.5)]
    best_h = max(grid, key=lambda h: average(h, h))
    best_h = climb(lambda h: average(h, h), best_h, sigma * 0.05)
    best_hc = best_h
    if colour:
        grid_c = [best_h * f for f in (0.5, 0.75, 1.0, 1.25, 1.5)]
        best_hc = max(grid_c, key=lambda hc: average(best_h, hc))
        best_hc = climb(lambda hc: average(best_h, hc), best_hc, sigma * 0.05)
    return best_h, best_hc, average(best_h, best_hc)


def climb(score, x, step):
    """From x, step by `step` while either neighbour scores higher."""
    while True:
        nxt = max((x - step, x + step), key=score)
        if nxt <= 0 or score(nxt) <= score(x):
            return x
        x = nxt


def ipol_table(args, ours, work):
    print("### IPOL comparison: Set12, sigma 25, float noisy input, "
          "mean of %d noise draws" % args.seeds)
    print()
    print("| image | IPOL | ours (mean) | difference | draws (min .. max) |")
    print("|---|---|---|---|---|")
    diffs = []
    for key in ("01", "02", "03", "08", "09", "10"):
        path = os.path.join(args.sets, "set12", key + ".png")
        clean = read_clean(path, False)
        vals = []
        for s in range(1, args.seeds + 1):
            noisy = ours.noisy(path, 25, 1000 * s + int(key),
                               os.path.join(work, "f-%s-%d.pfm" % (key, s)))
            out, _ = ours.denoise(noisy, 25, os.path.join(work, "o.pfm"))
            vals.append(psnr(clean, out, False))
        mean = float(np.mean(vals))
        diffs.append(mean - IPOL[key])
        print("| %s | %.2f | %.3f | %+.3f | %.3f .. %.3f |"
              % (IPOL_NAMES[key], IPOL[key], mean, mean - IPOL[key],
                 min(vals), max(vals)))
    print("| average | %.3f | %.3f | %+.3f | |"
          % (np.mean(list(IPOL.values())),
             np.mean(list(IPOL.values())) + np.mean(diffs), np.mean(diffs)))
    print()
    sys.stdout.flush()


def set_tables(args, ours, work):
    sets = [("Set12", sorted(glob.glob(os.path.join(args.sets, "set12",
                                                    "*.png"))), False),
            ("Kodak24", sorted(glob.glob(os.path.join(args.sets, "kodak24",
                                                      "*.png"))), True)]
    for name, files, colour in sets:
        if args.images:
            files = files[: args.images]
        images = list(enumerate(files, 1))
        for sigma in args.sigmas:
            h, hc, sweep_avg = (sweep_opencv(images, colour, sigma, work, ours,
                                             args.sweep_images)
                                if not args.opencv_h else
                                (args.opencv_h * sigma, args.opencv_h * sigma,
                                 float("nan")))
            if sigma == 25:
                args.best_h[colour] = (h, hc)
            print("### %s, sigma %g: against OpenCV %s (h %.2f%s), same "
                  "8-bit noisy input" % (name, sigma,
                                         "fastNlMeansDenoisingColored" if colour
                                         else "fastNlMeansDenoising",
                                         h, ", hColor %.2f" % hc if colour
                                         else ""))
            print()
            print("| image | OpenCV (8-bit) | ours (8-bit in, rounded) | "
                  "difference | ours, float input |")
            print("|---|---|---|---|---|")
            rows = []
            for i, path in images:
                clean = read_clean(path, colour)
                n8 = ours.noisy(path, sigma, 1000 + i,
                                noisy_name(work, path, sigma, "png"))
                nf = ours.noisy(path, sigma, 1000 + i,
                                noisy_name(work, path, sigma, "pfm"))
                p_cv = opencv_psnr(clean, n8, colour, h, hc)
                out8, _ = ours.denoise(n8, sigma, os.path.join(work, "o.pfm"))
                outf, _ = ours.denoise(nf, sigma, os.path.join(work, "o.pfm"))
                p8 = psnr(clean, out8, True)
                pf = psnr(clean, outf, False)
                rows.append((p_cv, p8, pf))
                print("| %s | %.3f | %.3f | %+.3f | %.3f |"
                      % (os.path.basename(path), p_cv, p8, p8 - p_cv, pf))
                sys.stdout.flush()
            a = np.mean(rows, axis=0)
            worst = min(r[1] - r[0] for r in rows)
            print("| **average** | %.3f | %.3f | %+.3f (worst %+.3f) | %.3f |"
                  % (a[0], a[1], a[1] - a[0], worst, a[2]))
            print()
            sys.stdout.flush()


def speed_table(args, ours, work):
    cv2.setNumThreads(args.threads)
    sigma = 25
    cases = [("512x512 RGB (astronaut)", os.path.join(args.src, "tests", "data",
                                                      "astronaut.png"), True,
              None, args.repeat),
             ("512x512 gray (camera)", os.path.join(args.src, "tests", "data",
                                                    "camera.png"), False, None,
              args.repeat)]
    if not args.no_large:
        cases.append(("4000x3000 RGB (kodim23 upscaled)",
                      os.path.join(args.sets, "kodak24", "kodim23.png"), True,
                      (4000, 3000), 1))
    print("### CPU speed, sigma 25, %d threads, same 8-bit noisy input "
          "(best of the runs; OpenCV h %.2f gray, %.2f / %.2f colour)"
          % (args.threads, args.best_h[False][0], args.best_h[True][0],
             args.best_h[True][1]))
    print()
    print("| image | OpenCV s | PSNR | ours s | PSNR | OpenCV / ours |")
    print("|---|---|---|---|---|---|")
    for k, (label, path, colour, size, repeat) in enumerate(cases):
        if size:
            big = cv2.imread(path, cv2.IMREAD_COLOR)
            big = cv2.resize(big, size, interpolation=cv2.INTER_CUBIC)
            path = os.path.join(work, "large-clean.png")
            cv2.imwrite(path, big)
        clean = read_clean(path, colour)
        n8 = ours.noisy(path, sigma, 7, os.path.join(work, "speed-%d.png" % k))
        noisy = cv2.imread(n8, cv2.IMREAD_COLOR if colour
                           else cv2.IMREAD_GRAYSCALE)
        h, hc = args.best_h[colour]
        t_cv = t_ours = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = opencv_denoise(noisy, colour, h, hc)
            t_cv = min(t_cv, time.perf_counter() - t0)
            res, t = ours.denoise(n8, sigma, os.path.join(work, "o.pfm"),
                                  "cpu")
            t_ours = min(t_ours, t)
        out = out.astype(np.float64)
        if colour:
            out = out[:, :, ::-1]
        print("| %s | %.3f | %.3f | %.3f | %.3f | **%.1f** |"
              % (label, t_cv, psnr(clean, out, False), t_ours,
                 psnr(clean, res, True), t_cv / t_ours))
        sys.stdout.flush()
    print()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--sets", required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--backend", default="cpu",
                   help="our backend for the quality tables (the speed "
                   "table is the CPU's)")
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--sigmas", default="10,25,50")
    p.add_argument("--images", type=int, default=0,
                   help="only the first N images of each set")
    p.add_argument("--sweep-images", type=int, default=6)
    p.add_argument("--opencv-h", type=float, default=0.0,
                   help="skip the sweep: h = hColor = this times sigma")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--speed-h-gray", type=float, default=25.0,
                   help="OpenCV's h for the speed runs when the sets "
                   "did not run at sigma 25")
    p.add_argument("--speed-h-colour", type=float, default=25.0)
    p.add_argument("--no-large", action="store_true")
    p.add_argument("--only", default="ipol,sets,speed")
    args = p.parse_args()
    args.sigmas = [float(s) if "." in s else int(s)
                   for s in args.sigmas.split(",")]
    args.best_h = {False: (args.speed_h_gray, args.speed_h_gray),
                   True: (args.speed_h_colour, args.speed_h_colour)}
    ours = Ours(args.build, args.threads, args.backend)
    cv2.setNumThreads(args.threads)
    print("OpenCV %s, %d threads; bm3d-denoise %s, backend %s"
          % (cv2.__version__, args.threads, ours.cmd, args.backend))
    print()
    with tempfile.TemporaryDirectory() as work:
        if "ipol" in args.only:
            ipol_table(args, ours, work)
        if "sets" in args.only:
            set_tables(args, ours, work)
        if "speed" in args.only:
            speed_table(args, ours, work)


if __name__ == "__main__":
    main()
