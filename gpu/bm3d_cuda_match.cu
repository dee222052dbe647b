/* BM3D Denoise — CUDA block matching, second round.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The same search as block_match in bm3d_cpu.c (every displacement of
 * the window, the reference first, then the best N - 1 candidates by
 * distance and raster index, within tau), with the work shared between
 * references of one column:
 *
 *   The distance of reference (x, y) at displacement (dx, dy) is the sum
 *   over the patch rows y .. y + 7 of the row products
 *     H(row) = sum_j I(x + j, row) I(x + dx + j, row + dy),
 *   and references of the same column at the same displacement share
 *   rows: with the reference step 3 a row serves 8 / 3 references.  A
 *   warp takes one reference column and a strip of up to STRIP reference
 *   rows; each lane takes one vertical displacement dy and four
 *   horizontal ones dx .. dx + 3 (consecutive lanes consecutive dy, so
 *   their candidate rows fall in distinct banks), and walks the strip's rows once,
 *   computing each row's four products (8 x 4 multiply-adds from the row
 *   of the reference column, read by all lanes at once, and 11 pixels of
 *   the candidate row) into a ring of the last eight rows.  When the
 *   walk passes the last row of a reference's patch, the ring holds its
 *   eight rows: their sum is P.Q, and the distance |P|^2 + |Q|^2 - 2 P.Q
 *   (norms precomputed by patch_norms) goes through the classic
 *   matcher's selection (bm3d_cuda_kernels.cuh): one compare against the
 *   list's entry bound, a per-reference buffer in shared memory, and a
 *   warp-wide bitonic merge into the sorted list of 64-bit keys (distance
 *   bits | raster index) once 32 candidates wait.
 *
 *   Per reference and displacement this is 8 x (rows walked / references
 *   in the strip) multiply-adds instead of 64: 29 / 8 x 8 = 29 for a
 *   full strip of 8 at step 3.  The block's reference columns share one
 *   window of the plane in shared memory, laid out so that every
 *   displacement reads inside it (zeros outside the plane); candidates
 *   outside the plane or the search window are never kept.  */
#include <cuda_runtime.h>

#include <stdint.h>

#include "bm3d_cuda_kernels.cuh"

/* Reference columns (warps) of a block, and the most reference rows a
 * warp walks.  */
#define NM_WARPS       4
#define NM_STRIP_MAX   8
#define NM_MIN_BLOCKS  3

/* Horizontal displacements of a lane, and the candidate-row pixels they
 * read.  */
#define NM_DX     4
#define NM_SPAN   (BM3D_PATCH + NM_DX - 1)

/* Keys waiting to enter a reference's list (see merge_pending).  */
#define NM_PENDING 64

/* The ring of row products: one patch of rows.  */
#define NM_RING BM3D_PATCH

static_assert (NM_RING == 8, "the walk is unrolled by a patch of rows");
static_assert ((NM_STRIP_MAX - 1) * 8 + BM3D_PATCH <= 64,
               "a strip's rows fit the 64-bit mask of completions");

/* Per warp in shared memory: for each reference row of the strip its
 * list (32 keys), its waiting keys (64), and two words: the entry bound
 * and the number waiting.  */
#define NM_WARP_KEYS(strip) ((strip) * (32 + NM_PENDING + 2))

typedef struct
{
  int x0, y0;      /* plane coordinates of the window's first pixel      */
  int w, h;        /* floats per row, rows                               */
} nm_window;

/* The window of a block: references columns x_first .. x_last, rows
 * y_top .. y_last; every displacement of the search, plus the lane's
 * four horizontal ones rounded up, reads inside it.  */
__host__ __device__ __forceinline__ nm_window
nm_window_for (int x_first, int x_last, int y_top, int y_last, int radius)
{
  nm_window w;

  w.x0 = x_first - radius;
  w.y0 = y_top - radius;
  w.w = x_last - x_first + 2 * radius + BM3D_PATCH + NM_DX;
  w.h = y_last - y_top + 2 * radius + BM3D_PATCH;
  /* An odd row length: the lanes of a warp read the same column of
   * consecutive rows (consecutive dy), which then fall in distinct
   * banks.  */
  w.w |= 1;
  return w;
}

/* Offers the lane's four candidates of reference slot `s` to its list:
 * sd their unscaled distances |P - Q|^2 (infinite where a candidate's
 * patch leaves the plane), in_search whether each displacement belongs
 * to the search, key_base the raster index + 1 of the first.  Screened
 * and keyed as MATCH_NORM_NONE's comment says.  Warp-uniform.  */
__device__ __forceinline__ void
nm_offer (uint64_t *lists, uint64_t *pend_all, uint64_t *words, int s,
          const float (&sd)[NM_DX], const bool (&in_search)[NM_DX],
          uint32_t key_base, int group_max, float tau, int lane)
{
  uint64_t *list_mem = lists + s * 32;
  uint64_t *pend = pend_all + s * NM_PENDING;
  float bound = __uint_as_float ((uint32_t) words[2 * s]);
  int pending = (int) words[2 * s + 1];
  const unsigned lanes_below = (1u << lane) - 1;

#pragma unroll
  for (int q = 0; q < NM_DX; q++)
    {
      const bool keep = in_search[q] && sd[q] <= bound * BM3D_PATCH_AREA;
      const unsigned mask = __ballot_sync (BM3D_CUDA_FULL_MASK, keep);

      if (keep)
        pend[pending + __popc (mask & lanes_below)] = match_key (sd[q],
                                                              key_base + q);
      pending += __popc (mask);
      if (pending >= 32)
        {
          uint64_t list = list_mem[lane];

          list = merge_pending (list, pend, pending, lane);
          list_mem[lane] = list;
          bound = entry_bound (list, group_max, tau);
        }
    }
  __syncwarp ();
  if (lane == 0)
    {
      words[2 * s] = __float_as_uint (bound);
      words[2 * s + 1] = (uint64_t) pending;
    }
  __syncwarp ();
}

__global__ void __launch_bounds__ (NM_WARPS * 32, NM_MIN_BLOCKS)
block_match_strips (match_args a, int strip)
{
  extern __shared__ __align__ (16) float smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int rx_first = blockIdx.x * NM_WARPS;
  const int rx_last = min (a.ax.n - 1, rx_first + NM_WARPS - 1);
  const int rr0 = a.ry_begin + blockIdx.y * strip;
  const int rr1 = min (a.ry_end, rr0 + strip);
  const int x_first = ref_coord (a.ax, rx_first);
  const int x_last = ref_coord (a.ax, rx_last);
  const int y_top = ref_coord (a.ay, rr0);
  const int y_last = ref_coord (a.ay, rr1 - 1);
  const nm_window win = nm_window_for (x_first, x_last, y_top, y_last,
                                       a.radius);
  float *pix = smem;                              /* win.h rows of win.w */
  float *nrm = pix + win.w * win.h;               /* the same            */
  uint64_t *keys = (uint64_t *) (nrm + win.w * win.h)
                   + (size_t) warp * NM_WARP_KEYS (strip);
  uint64_t *lists = keys;                         /* strip x 32          */
  uint64_t *pend = lists + strip * 32;            /* strip x 64          */
  uint64_t *words = pend + strip * NM_PENDING;    /* strip x 2 words     */

  /* The window, zeros outside the plane; norms where a patch fits,
   * MATCH_NORM_NONE where it does not.  */
  for (int t = threadIdx.x; t < win.w * win.h; t += blockDim.x)
    {
      const int y = win.y0 + t / win.w, x = win.x0 + t % win.w;
      const bool in = x >= 0 && x < a.width && y >= 0 && y < a.height;
      const bool fits = x >= 0 && x <= a.width - BM3D_PATCH && y >= 0
                        && y <= a.height - BM3D_PATCH;

      pix[t] = in ? __ldg (a.plane + (size_t) y * a.width + x)
                    - BM3D_MATCH_CENTRE : 0.0f;
      nrm[t] = fits ? __ldg (a.norms + (size_t) y * a.width + x)
                    : MATCH_NORM_NONE;
    }
  __syncthreads ();

  const int rx = rx_first + warp;
  if (rx > rx_last)
    return;
  const int xr = ref_coord (a.ax, rx);
  const int rows = rr1 - rr0;
  const float tau = a.tau;

  /* Lists: the reference's key 0 in lane 0 (it always leads), empty
   * slots all ones; the entry bound tau; nothing waiting.  The rows
   * where a reference's patch ends, as bits of the walk.  */
  uint64_t done_mask = 0;
  for (int s = 0; s < rows; s++)
    {
      lists[s * 32 + lane] = lane == 0 ? 0 : ~(uint64_t) 0;
      if (lane == 0)
        {
          words[2 * s] = __float_as_uint (tau);
          words[2 * s + 1] = 0;
        }
      done_mask |= (uint64_t) 1 << (ref_coord (a.ay, rr0 + s) + BM3D_PATCH - 1
                                    - y_top);
    }
  __syncwarp ();

  const int y_bot = y_last + BM3D_PATCH - 1;
  const int ndy = 2 * a.radius + 1;
  const int groups = (ndy + NM_DX - 1) / NM_DX;
  const int items = ndy * groups;
  const float *ref_col = pix + (xr - win.x0);

  for (int base = 0; base < items; base += 32)
    {
      const int item = base + lane;
      const bool active = item < items;
      /* Consecutive lanes take consecutive dy (see nm_window_for).  */
      const int g = active ? item / ndy : 0;
      const int dyi = active ? item - g * ndy : 0;
      const int dy = dyi - a.radius;
      const int dx0 = g * NM_DX - a.radius;
      /* Row y of the walk reads candidate row y + dy from here (the
       * sum stays inside the window, this part alone need not).  */
      const int cand = (dy - win.y0) * win.w + (xr + dx0 - win.x0);
      /* The lane's displacements that belong to the search: the last
       * column of four may pass the window's edge, and the reference
       * itself leads its list already.  */
      bool in_search[NM_DX];

#pragma unroll
      for (int q = 0; q < NM_DX; q++)
        in_search[q] = active && dx0 + q <= a.radius
                       && !(dx0 + q == 0 && dy == 0);
      float ring[NM_RING][NM_DX];
      int s = 0;

#pragma unroll
      for (int k = 0; k < NM_RING; k++)
#pragma unroll
        for (int q = 0; q < NM_DX; q++)
          ring[k][q] = 0.0f;

      for (int y0 = y_top; y0 <= y_bot; y0 += NM_RING)
        {
#pragma unroll
          for (int k = 0; k < NM_RING; k++)
            {
              const int y = y0 + k;

              if (y > y_bot)
                break;
              const float *rrow = ref_col + (y - win.y0) * win.w;
              const float *crow = pix + (cand + y * win.w);
              float rv[BM3D_PATCH], cv[NM_SPAN];

#pragma unroll
              for (int j = 0; j < BM3D_PATCH; j++)
                rv[j] = rrow[j];
#pragma unroll
              for (int j = 0; j < NM_SPAN; j++)
                cv[j] = crow[j];
#pragma unroll
              for (int q = 0; q < NM_DX; q++)
                {
                  float h = 0.0f;
#pragma unroll
                  for (int j = 0; j < BM3D_PATCH; j++)
                    h = fmaf (rv[j], cv[j + q], h);
                  ring[k][q] = h;
                }

              if ((done_mask >> (y - y_top)) & 1)
                {
                  /* Reference row s of the strip ends here: the ring
                   * holds its patch's eight rows.  */
                  const int yr = y - (BM3D_PATCH - 1);
                  const int cy = yr + dy;
                  const float ref_norm = nrm[(yr - win.y0) * win.w
                                             + (xr - win.x0)];
                  float sd[NM_DX];

#pragma unroll
                  for (int q = 0; q < NM_DX; q++)
                    {
                      const int cx = xr + dx0 + q;
                      float dot = 0.0f;

#pragma unroll
                      for (int r = 0; r < NM_RING; r++)
                        dot += ring[r][q];
                      sd[q] = (ref_norm + nrm[(cy - win.y0) * win.w
                                              + (cx - win.x0)])
                              - 2.0f * dot;
                    }
                  nm_offer (lists, pend, words, s, sd, in_search,
                            (uint32_t) (cy * a.width + xr + dx0 + 1),
                            a.group_max, tau, lane);
                  s++;
                }
            }
        }
    }

  /* The rest waiting, then the groups: the reference, then its best
   * candidates, cut to a power of two.  */
  for (int s = 0; s < rows; s++)
    {
      uint64_t list = lists[s * 32 + lane];
      int pending = (int) words[2 * s + 1];

      if (pending > 0)
        list = merge_pending (list, pend + s * NM_PENDING, pending, lane);

      const int found = __popc (__ballot_sync (BM3D_CUDA_FULL_MASK,
                                               list != ~(uint64_t) 0));
      int m = 1;
      while (m * 2 <= min (found, a.group_max))
        m *= 2;
      const int ry = rr0 + s;
      const int yr = ref_coord (a.ay, ry);
      const size_t r = (size_t) (ry - a.ry_begin) * a.ax.n + rx;

      if (lane < m)
        a.lists[r * a.group_max + lane] = lane == 0
          ? yr * a.width + xr : (int) (uint32_t) list - 1;
      if (lane == 0)
        a.counts[r] = m;
    }
}

/* ---- host side --------------------------------------------------------- */

static size_t
nm_smem_bytes (int step, int radius, int strip)
{
  const nm_window w = nm_window_for (0, (NM_WARPS - 1) * step, 0,
                                     (strip - 1) * step, radius);

  return sizeof (float) * 2 * (size_t) w.w * w.h
         + sizeof (uint64_t) * NM_WARPS * (size_t) NM_WARP_KEYS (strip);
}

int
bm3d_cuda_match_shape (int step, int radius, int smem_optin,
                       bm3d_match_shape *shape)
{
  /* The tallest strip that fits (8 rows: 56 KB for the standard window,
   * so three blocks share an H100 multiprocessor).  */
  for (int strip = NM_STRIP_MAX; strip >= 1; strip /= 2)
    {
      const size_t bytes = nm_smem_bytes (step, radius, strip);

      if (bytes <= (size_t) smem_optin)
        {
          shape->strip = strip;
          shape->warps = NM_WARPS;
          shape->smem = bytes;
          return 1;
        }
    }
  return 0;
}

cudaError_t
bm3d_cuda_match_launch (const match_args *ma, const bm3d_match_shape *shape,
                        cudaStream_t stream)
{
  cudaError_t e;
  dim3 grid ((ma->ax.n + NM_WARPS - 1) / NM_WARPS,
             (ma->ry_end - ma->ry_begin + shape->strip - 1) / shape->strip);

  if ((e = cudaFuncSetAttribute (block_match_strips,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int) shape->smem)) != cudaSuccess)
    return e;
  block_match_strips<<<grid, NM_WARPS * 32, shape->smem, stream>>> (*ma,
                                                                    shape->strip);
  return cudaGetLastError ();
}
