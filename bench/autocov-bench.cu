/* Benchmark: the noise profile estimate's block statistics on the GPU
 * (issue 23: "batched block FFTs: cuFFT on the GPU, measured against
 * your own kernel").  Every 32x32 residual block of every plane gets its
 * autocovariance at lags dy = 0..7, dx = -7..7, each the mean over the
 * pairs the lag has inside the block, computed three ways on the same
 * blocks:
 *
 *   direct   the engine's own kernel, block_autocov in
 *            gpu/noise/noise_profile_cuda.cu (called, not copied): a thread
 *            per lag, sums in double in the host's order;
 *   cuFFT    each block zero-padded to 64x64 (no wrap-around for lags
 *            up to 7), one batched R2C of every block and plane, |F|^2,
 *            one batched C2R: the whole circular autocorrelation, of
 *            which pick_lags keeps the 120 lags and divides by their
 *            pair counts, float throughout;
 *   rows     the engine's kernel since it was measured here (it was this
 *            program's own first): a thread per block, plane
 *            and dy keeps a whole row in registers (as doubles) and
 *            sums the 15 dx lags side by side, in the host's order, so
 *            its tables must equal the direct ones bit for bit; per
 *            product it reads shared memory and converts a float about
 *            13 times less often than a thread per lag.
 *
 * The residuals are Gaussian noise through a [1 2 1] blur (so the lags
 * beside zero are far from zero), a different deviation per block and
 * plane, from a fixed seed.  GPU time from CUDA events, the median of
 * the repetitions after a warm-up; the kernels of a timed run are queued
 * behind a spinning kernel, so host launch gaps are not counted.  The
 * copies (pageable host memory, as the engine's) are timed apart.
 *
 * Checks, each of which fails the run (exit status 1): the direct
 * tables of a sample of blocks equal a host sum in the same order bit
 * for bit, the rows tables equal the direct ones bit for bit, and
 * cuFFT's lag-0 values are within 1e-3 of the direct ones, relatively.
 * Besides that the table shows cuFFT's largest difference at any lag,
 * relative to its block's lag 0 (the variance: near-zero lags have no
 * relative precision of their own).
 *
 *   bench/bm3d-autocov-bench [--reps N] [BLOCKS...]   (default 256 2048,
 *   blocks per plane, 3 planes)
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include <cuda_runtime.h>
#include <cufft.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise/noise_profile_cuda.cuh"

#define PLANES           3
#define PAD              64                  /* FFT side, >= 32 + 7   */
#define PAD_AREA         (PAD * PAD)
#define PAD_SPECTRUM     (PAD * (PAD / 2 + 1)) /* R2C output per block */
#define PAD_THREADS      256
#define PICK_THREADS     128
#define MAX_BLOCKS       16384               /* per plane             */
#define MAX_REPS         1000
#define HOST_CHECK_EVERY 61                  /* blocks x planes, prime */
#define LAG0_TOLERANCE   1e-3
/* Cycles the spinning kernel holds the stream while the host queues a
 * timed run (about 25 ms at 2 GHz).  */
#define HOLD_CYCLES      50000000LL

#define CUDA_OK(call)                                                   \
  do                                                                    \
    {                                                                   \
      cudaError_t e_ = (call);                                          \
      if (e_ != cudaSuccess)                                            \
        {                                                               \
          fprintf (stderr, "autocov-bench: %s: %s\n", #call,            \
                   cudaGetErrorString (e_));                            \
          return 1;                                                     \
        }                                                               \
    }                                                                   \
  while (0)

#define CUFFT_OK(call)                                                  \
  do                                                                    \
    {                                                                   \
      cufftResult r_ = (call);                                          \
      if (r_ != CUFFT_SUCCESS)                                          \
        {                                                               \
          fprintf (stderr, "autocov-bench: %s: cuFFT error %d\n",       \
                   #call, (int) r_);                                    \
          return 1;                                                     \
        }                                                               \
    }                                                                   \
  while (0)

/* ---- kernels ---------------------------------------------------------- */

/* Keep the stream busy while the host queues what follows.  */
__global__ void
hold_stream (long long cycles)
{
  long long start = clock64 ();

  while (clock64 () - start < cycles)
    ;
}

/* Each block into the corner of a zeroed 64x64 square, a thread per
 * square pixel (the zeros written too: the engine's buffer would be
 * fresh each time).  */
__global__ void __launch_bounds__ (PAD_THREADS)
pad_blocks (const float *__restrict__ residual, float *__restrict__ padded,
            int count)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= (size_t) count * PAD_AREA)
    return;
  const size_t bc = i / PAD_AREA;
  const int r = (int) (i - bc * PAD_AREA), y = r / PAD, x = r - y * PAD;

  padded[i] = y < AUTOCOV_BLOCK && x < AUTOCOV_BLOCK
              ? residual[bc * AUTOCOV_AREA + y * AUTOCOV_BLOCK + x] : 0.0f;
}

/* F into |F|^2, the spectrum of the circular autocorrelation.  */
__global__ void __launch_bounds__ (PAD_THREADS)
power_spectrum (cufftComplex *spectrum, size_t n)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= n)
    return;
  const cufftComplex f = spectrum[i];

  spectrum[i].x = f.x * f.x + f.y * f.y;
  spectrum[i].y = 0.0f;
}

/* The 120 lags of each block's correlation (C2R leaves it multiplied by
 * 64 * 64), laid out as block_autocov's: [plane][block][lag], a thread
 * per lag.  A negative dx is column 64 + dx.  */
__global__ void __launch_bounds__ (PICK_THREADS)
pick_lags (const float *__restrict__ corr, int blocks, int channels,
           float *__restrict__ autocov)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= blocks * channels * AUTOCOV_LAGS)
    return;
  const int bc = i / AUTOCOV_LAGS, k = i - bc * AUTOCOV_LAGS;
  const int b = bc / channels, c = bc - b * channels;
  const int dy = k / BM3D_NOISE_SIDE;
  const int dx = k - dy * BM3D_NOISE_SIDE - BM3D_NOISE_LAG;
  const float pairs = (float) ((AUTOCOV_BLOCK - dy)
                               * (AUTOCOV_BLOCK - (dx < 0 ? -dx : dx)));
  const float r = corr[(size_t) bc * PAD_AREA + dy * PAD
                       + (dx < 0 ? dx + PAD : dx)];

  autocov[((size_t) c * blocks + b) * AUTOCOV_LAGS + k]
    = r / (pairs * (float) PAD_AREA);
}

/* ---- the three ways ---------------------------------------------------- */

typedef struct
{
  int            blocks, count;   /* per plane; blocks x PLANES        */
  cudaStream_t   stream;
  float         *residual;        /* [block][plane][32 * 32]           */
  double        *direct;          /* [plane][block][lag]               */
  double        *rows;            /* [plane][block][lag]               */
  float         *padded;          /* [block][plane][64 * 64], and the
                                     C2R's correlation                 */
  cufftComplex  *spectrum;        /* [block][plane][64 * 33]           */
  float         *fft;             /* [plane][block][lag]               */
  cufftHandle    forward, inverse;
  int            plans;           /* how many of the two are made      */
} autocov_bench;

typedef int (*bench_step) (autocov_bench *st);

static int
run_direct (autocov_bench *st)
{
  CUDA_OK (bm3d_cuda_launch_block_autocov_direct (st->residual, st->blocks,
                                                  PLANES, st->direct,
                                                  st->stream));
  return 0;
}

static int
run_rows (autocov_bench *st)
{
  CUDA_OK (bm3d_cuda_launch_block_autocov (st->residual, st->blocks, PLANES,
                                           st->rows, st->stream));
  return 0;
}

/* The two transforms alone: what the rest of run_fft costs beside.  */
static int
run_transforms (autocov_bench *st)
{
  CUFFT_OK (cufftExecR2C (st->forward, st->padded, st->spectrum));
  CUFFT_OK (cufftExecC2R (st->inverse, st->spectrum, st->padded));
  return 0;
}

static int
run_fft (autocov_bench *st)
{
  const size_t padded = (size_t) st->count * PAD_AREA;
  const size_t spectrum = (size_t) st->count * PAD_SPECTRUM;
  const int lags = st->count * AUTOCOV_LAGS;

  pad_blocks<<<(unsigned) ((padded + PAD_THREADS - 1) / PAD_THREADS),
               PAD_THREADS, 0, st->stream>>> (st->residual, st->padded,
                                              st->count);
  CUDA_OK (cudaGetLastError ());
  CUFFT_OK (cufftExecR2C (st->forward, st->padded, st->spectrum));
  power_spectrum<<<(unsigned) ((spectrum + PAD_THREADS - 1) / PAD_THREADS),
                   PAD_THREADS, 0, st->stream>>> (st->spectrum, spectrum);
  CUDA_OK (cudaGetLastError ());
  CUFFT_OK (cufftExecC2R (st->inverse, st->spectrum, st->padded));
  pick_lags<<<(lags + PICK_THREADS - 1) / PICK_THREADS, PICK_THREADS, 0,
              st->stream>>> (st->padded, st->blocks, PLANES, st->fft);
  CUDA_OK (cudaGetLastError ());
  return 0;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* One warm-up, then `reps` runs queued back to back behind hold_stream,
 * an event between each two: the median run in ms.  */
static int
time_step (autocov_bench *st, bench_step step, int reps, double *median)
{
  cudaEvent_t mark[MAX_REPS + 1];
  double ms[MAX_REPS];
  int status = 0, made = 0;

  if (step (st))
    return 1;
  CUDA_OK (cudaStreamSynchronize (st->stream));
  for (; made <= reps; made++)
    if (cudaEventCreate (&mark[made]) != cudaSuccess)
      {
        status = 1;
        break;
      }
  if (!status)
    {
      hold_stream<<<1, 1, 0, st->stream>>> (HOLD_CYCLES);
      status = cudaGetLastError () != cudaSuccess
               || cudaEventRecord (mark[0], st->stream) != cudaSuccess;
      for (int r = 0; r < reps && !status; r++)
        status = step (st)
                 || cudaEventRecord (mark[r + 1], st->stream) != cudaSuccess;
      status = status || cudaStreamSynchronize (st->stream) != cudaSuccess;
      for (int r = 0; r < reps && !status; r++)
        {
          float t;

          status = cudaEventElapsedTime (&t, mark[r], mark[r + 1])
                   != cudaSuccess;
          ms[r] = t;
        }
    }
  while (made > 0)
    cudaEventDestroy (mark[--made]);
  if (status)
    {
      fprintf (stderr, "autocov-bench: timing failed: %s\n",
               cudaGetErrorString (cudaGetLastError ()));
      return 1;
    }
  qsort (ms, reps, sizeof *ms, compare_double);
  *median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
  return 0;
}

/* A copy timed alone, `reps` times: the median in ms.  */
static int
time_copy (cudaStream_t stream, void *dst, const void *src, size_t bytes,
           cudaMemcpyKind kind, int reps, double *median)
{
  double ms[MAX_REPS];
  cudaEvent_t a, b;

  CUDA_OK (cudaEventCreate (&a));
  CUDA_OK (cudaEventCreate (&b));
  for (int r = 0; r < reps; r++)
    {
      float t;

      CUDA_OK (cudaEventRecord (a, stream));
      CUDA_OK (cudaMemcpyAsync (dst, src, bytes, kind, stream));
      CUDA_OK (cudaEventRecord (b, stream));
      CUDA_OK (cudaEventSynchronize (b));
      CUDA_OK (cudaEventElapsedTime (&t, a, b));
      ms[r] = t;
    }
  CUDA_OK (cudaEventDestroy (a));
  CUDA_OK (cudaEventDestroy (b));
  qsort (ms, reps, sizeof *ms, compare_double);
  *median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
  return 0;
}

/* ---- residuals and the host's sums ------------------------------------ */

static uint64_t
splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static double
gaussian (uint64_t *state)
{
  /* Box-Muller: u in (0, 1], so that log (u) is finite; v in [0, 1).  */
  double u = ((splitmix64 (state) >> 11) + 1.0) / 9007199254740992.0;
  double v = (splitmix64 (state) >> 11) / 9007199254740992.0;

  return sqrt (-2.0 * log (u)) * cos (2.0 * M_PI * v);
}

/* Noise of a deviation between 0.002 and 0.04 per block and plane (as
 * a picture's shadows and highlights differ), through a [1 2 1] x
 * [1 2 1] / 16 blur.  */
static void
make_residuals (float *residual, int count)
{
  uint64_t state = 23;
  double white[AUTOCOV_BLOCK + 2][AUTOCOV_BLOCK + 2];

  for (int bc = 0; bc < count; bc++)
    {
      double sigma = 0.002 + 0.038 * ((bc * 7) % 19) / 18.0;
      float *v = residual + (size_t) bc * AUTOCOV_AREA;

      for (int y = 0; y < AUTOCOV_BLOCK + 2; y++)
        for (int x = 0; x < AUTOCOV_BLOCK + 2; x++)
          white[y][x] = sigma * gaussian (&state);
      for (int y = 0; y < AUTOCOV_BLOCK; y++)
        for (int x = 0; x < AUTOCOV_BLOCK; x++)
          {
            double s = 0.0;

            for (int j = 0; j < 3; j++)
              for (int i = 0; i < 3; i++)
                s += white[y + j][x + i] * (j == 1 ? 2 : 1) * (i == 1 ? 2 : 1);
            v[y * AUTOCOV_BLOCK + x] = (float) (s / 16.0);
          }
    }
}

/* One lag of one block as noise_profile_estimate.c sums it.  */
static double
host_lag (const float *v, int dy, int dx)
{
  int xa = dx < 0 ? -dx : 0, xb = dx > 0 ? AUTOCOV_BLOCK - dx : AUTOCOV_BLOCK;
  double s = 0.0;

  for (int y = 0; y + dy < AUTOCOV_BLOCK; y++)
    for (int x = xa; x < xb; x++)
      s += (double) v[y * AUTOCOV_BLOCK + x]
           * v[(y + dy) * AUTOCOV_BLOCK + x + dx];
  return s / ((double) (AUTOCOV_BLOCK - dy) * (xb - xa));
}

/* Direct tables of every HOST_CHECK_EVERY-th block and plane that
 * differ from the host's sums: bits, not tolerances.  */
static int
host_mismatches (const float *residual, const double *direct, int blocks,
                 int *checked)
{
  int bad = 0;

  *checked = 0;
  for (int bc = 0; bc < blocks * PLANES; bc += HOST_CHECK_EVERY, ++*checked)
    {
      const int b = bc / PLANES, c = bc % PLANES;
      const double *t = direct + ((size_t) c * blocks + b) * AUTOCOV_LAGS;

      for (int k = 0; k < AUTOCOV_LAGS; k++)
        {
          int dy = k / BM3D_NOISE_SIDE;
          int dx = k - dy * BM3D_NOISE_SIDE - BM3D_NOISE_LAG;

          bad += host_lag (residual + (size_t) bc * AUTOCOV_AREA, dy, dx)
                 != t[k];
        }
    }
  return bad;
}

/* cuFFT's largest relative difference at lag 0, and at any lag relative
 * to the block's lag 0.  A NaN counts as infinite.  */
static void
fft_differences (const double *direct, const float *fft, int count,
                 double *lag0, double *any)
{
  const int zero = BM3D_NOISE_LAG;        /* dy = 0, dx = 0 */

  *lag0 = *any = 0.0;
  for (int t = 0; t < count; t++)
    {
      const double *a = direct + (size_t) t * AUTOCOV_LAGS;
      const float *f = fft + (size_t) t * AUTOCOV_LAGS;
      double d0 = fabs (f[zero] - a[zero]) / a[zero];

      *lag0 = d0 <= *lag0 ? *lag0 : isnan (d0) ? INFINITY : d0;
      for (int k = 0; k < AUTOCOV_LAGS; k++)
        {
          double d = fabs (f[k] - a[k]) / a[zero];

          *any = d <= *any ? *any : isnan (d) ? INFINITY : d;
        }
    }
}

/* ---- one size --------------------------------------------------------- */

typedef struct
{
  double direct, rows, fft, transforms; /* kernels                     */
  double in, out_direct, out_fft;      /* copies                       */
} autocov_times;

static void
release (autocov_bench *st)
{
  if (st->plans > 0)
    cufftDestroy (st->forward);
  if (st->plans > 1)
    cufftDestroy (st->inverse);
  cudaFree (st->residual);
  cudaFree (st->direct);
  cudaFree (st->rows);
  cudaFree (st->padded);
  cudaFree (st->spectrum);
  cudaFree (st->fft);
  if (st->stream)
    cudaStreamDestroy (st->stream);
}

static int
prepare (autocov_bench *st, const float *residual)
{
  const size_t count = st->count;
  int n[2] = { PAD, PAD };

  CUDA_OK (cudaStreamCreateWithFlags (&st->stream, cudaStreamNonBlocking));
  CUDA_OK (cudaMalloc (&st->residual, count * AUTOCOV_AREA * sizeof (float)));
  CUDA_OK (cudaMalloc (&st->direct,
                       count * AUTOCOV_LAGS * sizeof (double)));
  CUDA_OK (cudaMalloc (&st->rows, count * AUTOCOV_LAGS * sizeof (double)));
  CUDA_OK (cudaMalloc (&st->padded, count * PAD_AREA * sizeof (float)));
  CUDA_OK (cudaMalloc (&st->spectrum,
                       count * PAD_SPECTRUM * sizeof (cufftComplex)));
  CUDA_OK (cudaMalloc (&st->fft, count * AUTOCOV_LAGS * sizeof (float)));
  CUDA_OK (cudaMemcpy (st->residual, residual,
                       count * AUTOCOV_AREA * sizeof (float),
                       cudaMemcpyHostToDevice));
  /* Poisoned tables: a lag left unwritten shows as NaN.  */
  CUDA_OK (cudaMemset (st->direct, 0xff,
                       count * AUTOCOV_LAGS * sizeof (double)));
  CUDA_OK (cudaMemset (st->rows, 0xff,
                       count * AUTOCOV_LAGS * sizeof (double)));
  CUDA_OK (cudaMemset (st->fft, 0xff, count * AUTOCOV_LAGS * sizeof (float)));
  /* One plan each way for every block and plane: packed 64x64 squares
   * in, packed 64x33 spectra out (NULL layouts).  */
  CUFFT_OK (cufftPlanMany (&st->forward, 2, n, NULL, 1, 0, NULL, 1, 0,
                           CUFFT_R2C, st->count));
  st->plans = 1;
  CUFFT_OK (cufftPlanMany (&st->inverse, 2, n, NULL, 1, 0, NULL, 1, 0,
                           CUFFT_C2R, st->count));
  st->plans = 2;
  CUFFT_OK (cufftSetStream (st->forward, st->stream));
  CUFFT_OK (cufftSetStream (st->inverse, st->stream));
  return 0;
}

/* Every timing, and the three sets of tables into `direct`, `rows` and
 * `fft`.  */
static int
measure (autocov_bench *st, const float *residual, double *direct,
         double *rows, float *fft, int reps, autocov_times *t)
{
  const size_t count = st->count;

  if (prepare (st, residual)
      || time_step (st, run_direct, reps, &t->direct)
      || time_step (st, run_rows, reps, &t->rows)
      || time_step (st, run_fft, reps, &t->fft)
      || time_step (st, run_transforms, reps, &t->transforms))
    return 1;
  /* run_transforms left its own output in st->padded: once more whole,
   * then the copies, which bring the tables back.  */
  if (run_fft (st))
    return 1;
  CUDA_OK (cudaStreamSynchronize (st->stream));
  if (time_copy (st->stream, st->residual, residual,
                 count * AUTOCOV_AREA * sizeof (float),
                 cudaMemcpyHostToDevice, reps, &t->in)
      || time_copy (st->stream, direct, st->direct,
                    count * AUTOCOV_LAGS * sizeof (double),
                    cudaMemcpyDeviceToHost, reps, &t->out_direct)
      || time_copy (st->stream, fft, st->fft,
                    count * AUTOCOV_LAGS * sizeof (float),
                    cudaMemcpyDeviceToHost, reps, &t->out_fft))
    return 1;
  CUDA_OK (cudaMemcpy (rows, st->rows, count * AUTOCOV_LAGS * sizeof (double),
                       cudaMemcpyDeviceToHost));
  return 0;
}

static void
row (const char *method, int blocks, double ms, const char *lag0,
     const char *any)
{
  printf ("| %-34s | %6d | %8.4f | %-11s | %-13s |\n", method, blocks, ms,
          lag0, any);
}

/* Time and check one size; 0 when every check holds.  */
static int
bench_size (int blocks, int reps)
{
  autocov_bench st;
  autocov_times t;
  const size_t count = (size_t) blocks * PLANES;
  float *residual = (float *) malloc (count * AUTOCOV_AREA * sizeof (float));
  double *direct = (double *) malloc (count * AUTOCOV_LAGS * sizeof (double));
  double *rows = (double *) malloc (count * AUTOCOV_LAGS * sizeof (double));
  float *fft = (float *) malloc (count * AUTOCOV_LAGS * sizeof (float));
  double lag0, any;
  int status = 1, checked = 0, bad;
  size_t rows_bad = 0;
  char s0[32], sa[32];

  memset (&st, 0, sizeof st);
  st.blocks = blocks;
  st.count = (int) count;
  if (!residual || !direct || !rows || !fft)
    fprintf (stderr, "autocov-bench: out of host memory\n");
  else
    {
      make_residuals (residual, st.count);
      status = measure (&st, residual, direct, rows, fft, reps, &t);
    }
  release (&st);
  if (!status)
    {
      bad = host_mismatches (residual, direct, blocks, &checked);
      fft_differences (direct, fft, st.count, &lag0, &any);
      /* Equal values, never NaN (memcmp would let the poison pass).  */
      for (size_t i = 0; i < count * AUTOCOV_LAGS; i++)
        rows_bad += !(rows[i] == direct[i]);
      snprintf (s0, sizeof s0, "%.2e", lag0);
      snprintf (sa, sizeof sa, "%.2e", any);
      row ("direct (the engine's before, double)", blocks, t.direct,
           "reference", "reference");
      row ("rows (the engine's, double)", blocks, t.rows,
           rows_bad ? "DIFFERENT" : "identical",
           rows_bad ? "DIFFERENT" : "identical");
      row ("cuFFT 64x64 R2C+C2R, float", blocks, t.fft, s0, sa);
      row ("  of which the two transforms", blocks, t.transforms, "", "");
      row ("copy residuals in", blocks, t.in, "", "");
      row ("copy tables out, double (direct)", blocks, t.out_direct, "", "");
      row ("copy tables out, float (cuFFT)", blocks, t.out_fft, "", "");
      if (bad)
        fprintf (stderr, "autocov-bench: %d blocks: %d of %d direct lags "
                 "differ from the host's sums\n", blocks, bad,
                 checked * AUTOCOV_LAGS);
      if (rows_bad)
        fprintf (stderr, "autocov-bench: %d blocks: %zu of %zu rows lags "
                 "differ from the direct ones\n", blocks, rows_bad,
                 count * AUTOCOV_LAGS);
      if (!(lag0 <= LAG0_TOLERANCE))
        fprintf (stderr, "autocov-bench: %d blocks: cuFFT's lag 0 is off "
                 "by %.2e relatively (more than %.0e)\n", blocks, lag0,
                 LAG0_TOLERANCE);
      status = bad || rows_bad || !(lag0 <= LAG0_TOLERANCE);
    }
  free (residual);
  free (direct);
  free (rows);
  free (fft);
  return status;
}

static int
parse_count (const char *s, int max, int *out)
{
  char *end;
  long v = strtol (s, &end, 10);

  if (end == s || *end || v < 1 || v > max)
    return 0;
  *out = (int) v;
  return 1;
}

int
main (int argc, char **argv)
{
  int sizes[16] = { 256, 2048 }, n_sizes = 0, reps = 50, status = 0;
  struct cudaDeviceProp prop;
  int device;

  for (int i = 1; i < argc; i++)
    if (!strcmp (argv[i], "--reps") && i + 1 < argc)
      {
        if (!parse_count (argv[++i], MAX_REPS, &reps))
          {
            fprintf (stderr, "autocov-bench: --reps takes 1 to %d\n",
                     MAX_REPS);
            return 2;
          }
      }
    else if (n_sizes == 16 || !parse_count (argv[i], MAX_BLOCKS,
                                            &sizes[n_sizes++]))
      {
        fprintf (stderr, "usage: %s [--reps N] [BLOCKS...] (blocks per "
                 "plane, 1 to %d; at most 16 sizes)\n", argv[0], MAX_BLOCKS);
        return 2;
      }
  if (!n_sizes)
    n_sizes = 2;

  CUDA_OK (cudaGetDevice (&device));
  CUDA_OK (cudaGetDeviceProperties (&prop, device));
  printf ("Residual autocovariance, 120 lags of 32x32 blocks x %d planes, "
          "on %s: median of %d runs, GPU time (CUDA events)\n\n",
          PLANES, prop.name, reps);
  printf ("| %-34s | %6s | %8s | %-11s | %-13s |\n", "method", "blocks",
          "ms", "lag 0 rel.", "max / lag 0");
  printf ("|%.36s|%.8s|%.10s|%.13s|%.15s|\n",
          "------------------------------------",
          "--------", "----------", "-------------", "---------------");
  for (int i = 0; i < n_sizes; i++)
    status |= bench_size (sizes[i], reps);
  return status;
}
