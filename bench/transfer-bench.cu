/* Host <-> device transfer benchmark: what moving an image costs, by the
 * ways the engine could move it.  For each size (MiB), best of --repeat:
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   pageable   cudaMemcpy from / to malloc'ed, touched memory
 *   pinned     the same from / to cudaHostAlloc'ed memory
 *   register   cudaHostRegister + cudaHostUnregister of a pageable
 *              buffer of that size (what pinning the caller's image costs)
 *   staged     pageable memory through two pinned chunks: the host's
 *              memcpy into one chunk while the other is copied
 *
 * GB/s are 1e9 bytes a second.
 *
 *   bm3d-transfer-bench [MiB ...]        (default: 144 1200)  */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess)                                                 \
      {                                                                    \
        fprintf (stderr, "%s: %s\n", #call, cudaGetErrorString (e_));      \
        exit (1);                                                          \
      }                                                                    \
  } while (0)

static const int repeat = 3;
static const size_t chunk = (size_t) 16 << 20;

static double
now (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Best time of `repeat` copies of `bytes` between `host` and `dev`.  */
static double
copy_time (void *dev, void *host, size_t bytes, cudaMemcpyKind kind)
{
  double best = 1e30;

  for (int r = 0; r < repeat; r++)
    {
      double t0 = now ();

      if (kind == cudaMemcpyHostToDevice)
        CHECK (cudaMemcpy (dev, host, bytes, kind));
      else
        CHECK (cudaMemcpy (host, dev, bytes, kind));
      if (now () - t0 < best)
        best = now () - t0;
    }
  return best;
}

/* Pageable host memory to the device through two pinned chunks.  */
static double
staged_upload (void *dev, const char *host, size_t bytes, char *pinned[2],
               cudaStream_t stream, cudaEvent_t done[2])
{
  double best = 1e30;

  for (int r = 0; r < repeat; r++)
    {
      double t0 = now ();

      for (size_t off = 0, i = 0; off < bytes; off += chunk, i++)
        {
          size_t n = bytes - off < chunk ? bytes - off : chunk;

          CHECK (cudaEventSynchronize (done[i & 1]));
          memcpy (pinned[i & 1], host + off, n);
          CHECK (cudaMemcpyAsync ((char *) dev + off, pinned[i & 1], n,
                                  cudaMemcpyHostToDevice, stream));
          CHECK (cudaEventRecord (done[i & 1], stream));
        }
      CHECK (cudaStreamSynchronize (stream));
      if (now () - t0 < best)
        best = now () - t0;
    }
  return best;
}

static void
bench_size (size_t mib)
{
  const size_t bytes = mib << 20;
  char *host = (char *) malloc (bytes), *pinned_host, *chunks[2];
  void *dev;
  cudaStream_t stream;
  cudaEvent_t done[2];
  double t, reg = 1e30;

  if (!host)
    {
      fprintf (stderr, "out of host memory for %zu MiB\n", mib);
      exit (1);
    }
  memset (host, 1, bytes);
  CHECK (cudaMalloc (&dev, bytes));
  CHECK (cudaHostAlloc ((void **) &pinned_host, bytes, cudaHostAllocDefault));
  memset (pinned_host, 1, bytes);
  CHECK (cudaHostAlloc ((void **) &chunks[0], chunk, cudaHostAllocDefault));
  CHECK (cudaHostAlloc ((void **) &chunks[1], chunk, cudaHostAllocDefault));
  CHECK (cudaStreamCreate (&stream));
  CHECK (cudaEventCreate (&done[0]));
  CHECK (cudaEventCreate (&done[1]));
  CHECK (cudaEventRecord (done[0], stream));
  CHECK (cudaEventRecord (done[1], stream));

#define ROW(name, seconds)                                                  \
  t = (seconds);                                                          \
  printf ("%6zu MiB  %-22s %9.2f ms %7.1f GB/s\n", mib, name, t * 1e3,    \
          bytes / t * 1e-9)
  ROW ("pageable upload", copy_time (dev, host, bytes, cudaMemcpyHostToDevice));
  ROW ("pageable download", copy_time (dev, host, bytes, cudaMemcpyDeviceToHost));
  ROW ("pinned upload", copy_time (dev, pinned_host, bytes, cudaMemcpyHostToDevice));
  ROW ("pinned download", copy_time (dev, pinned_host, bytes, cudaMemcpyDeviceToHost));
  ROW ("staged upload", staged_upload (dev, host, bytes, chunks, stream, done));
  for (int r = 0; r < repeat; r++)
    {
      double t0 = now ();

      CHECK (cudaHostRegister (host, bytes, cudaHostRegisterDefault));
      CHECK (cudaHostUnregister (host));
      if (now () - t0 < reg)
        reg = now () - t0;
    }
  ROW ("register+unregister", reg);
  CHECK (cudaHostRegister (host, bytes, cudaHostRegisterDefault));
  ROW ("registered upload", copy_time (dev, host, bytes, cudaMemcpyHostToDevice));
  ROW ("registered download", copy_time (dev, host, bytes, cudaMemcpyDeviceToHost));
  CHECK (cudaHostUnregister (host));
#undef ROW

  CHECK (cudaEventDestroy (done[0]));
  CHECK (cudaEventDestroy (done[1]));
  CHECK (cudaStreamDestroy (stream));
  CHECK (cudaFreeHost (chunks[0]));
  CHECK (cudaFreeHost (chunks[1]));
  CHECK (cudaFreeHost (pinned_host));
  CHECK (cudaFree (dev));
  free (host);
}

int
main (int argc, char **argv)
{
  double t0 = now ();

  CHECK (cudaFree (0));
  printf ("context: %.1f ms\n", (now () - t0) * 1e3);
  if (argc < 2)
    {
      bench_size (144);
      bench_size (1200);
    }
  for (int i = 1; i < argc; i++)
    bench_size ((size_t) atol (argv[i]));
  return 0;
}
