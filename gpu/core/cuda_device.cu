/* BM3D Denoise — CUDA device state shared by every algorithm's CUDA
 * backend (see cuda_device.cuh).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Each device has its own lock, stream and workspace, so calls for
 * different devices (a batch spread over every GPU) run side by side,
 * while calls for one device take turns.  */
#include <cuda_runtime.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_device.cuh"
#include "pixels.h"

static bm3d_cuda_device g_devices[BM3D_CUDA_MAX_DEVICES];
static pthread_once_t   g_once = PTHREAD_ONCE_INIT;
static int              g_count = -1;     /* cudaGetDeviceCount, or 0   */
static cudaError_t      g_count_error = cudaSuccess;

static void
devices_init (void)
{
  for (int i = 0; i < BM3D_CUDA_MAX_DEVICES; i++)
    {
      pthread_mutex_init (&g_devices[i].lock, NULL);
      g_devices[i].ordinal = i;
    }
  g_count_error = cudaGetDeviceCount (&g_count);
  if (g_count_error != cudaSuccess || g_count < 0)
    {
      g_count = 0;
      (void) cudaGetLastError ();
    }
  if (g_count > BM3D_CUDA_MAX_DEVICES)
    g_count = BM3D_CUDA_MAX_DEVICES;
}

/* ---- errors ------------------------------------------------------------ */

/* Faults after which the context cannot be trusted again.  */
static int
error_is_sticky (cudaError_t e)
{
  switch (e)
    {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnknown:
      return 1;
    default:
      return 0;
    }
}

bm3d_status
bm3d_cuda_fail (bm3d_job *job, cudaError_t error, const char *what)
{
  bm3d_cuda_device *dev = job ? bm3d_cuda_device_of (job) : NULL;
  bm3d_status status;

  (void) cudaGetLastError ();   /* clear an error that is not sticky */
  switch (error)
    {
    case cudaErrorMemoryAllocation:
      status = BM3D_ERR_OUT_OF_MEMORY;
      break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      status = BM3D_ERR_BACKEND_UNAVAILABLE;
      break;
    default:
      status = BM3D_ERR_BACKEND_FAILED;
      break;
    }
  if (job)
    bm3d_job_message (job, "CUDA error in %s: %s", what,
                      cudaGetErrorString (error));
  if (dev && (error_is_sticky (error)
              || status == BM3D_ERR_BACKEND_UNAVAILABLE))
    {
      /* The device is gone for this process: later calls fall back at
       * once instead of failing again.  */
      dev->state = -1;
      snprintf (dev->why, sizeof dev->why, "an earlier CUDA error: %s",
                cudaGetErrorString (error));
      dev->workspace = NULL;
      dev->workspace_bytes = 0;
      dev->bounce = NULL;
    }
  return status;
}

/* Tiles each device has begun in this process, counted under its lock
 * for BM3D_TEST_FAIL_DEVICE.  */
static long g_tiles_begun[BM3D_CUDA_MAX_DEVICES];

bm3d_status
bm3d_cuda_tile_begins (bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const long begun = g_tiles_begun[dev->ordinal]++;

  if (!job->env.test_fail_set || job->env.test_fail_device != dev->ordinal
      || begun < job->env.test_fail_after)
    return BM3D_OK;
  /* What a fault in a kernel gives: a sticky error, the device lost.  */
  return bm3d_cuda_fail (job, cudaErrorLaunchFailure,
                         "a tile (BM3D_TEST_FAIL_DEVICE)");
}

static void
set_why (bm3d_cuda_device *dev, const char *what, cudaError_t e)
{
  dev->state = -1;
  if (e == cudaErrorNoDevice)
    snprintf (dev->why, sizeof dev->why, "no CUDA device found");
  else if (e == cudaErrorInsufficientDriver)
    {
      int driver = 0;

      (void) cudaDriverGetVersion (&driver);
      if (driver == 0)
        snprintf (dev->why, sizeof dev->why, "no NVIDIA driver found");
      else
        snprintf (dev->why, sizeof dev->why,
                  "the NVIDIA driver (CUDA %d.%d) is older than this "
                  "build's CUDA %d.%d runtime", driver / 1000,
                  driver % 1000 / 10, CUDART_VERSION / 1000,
                  CUDART_VERSION % 1000 / 10);
    }
  else
    snprintf (dev->why, sizeof dev->why, "%s: %s", what,
              cudaGetErrorString (e));
}

/* ---- probing ----------------------------------------------------------- */

/* Present in the fat binary for every architecture it targets: whether
 * this kernel has attributes on a device says whether we have code for
 * it.  */
__global__ void
probe_kernel (void)
{
}

/* Find and initialise `dev`; called with its lock held.  */
static int
probe (bm3d_cuda_device *dev)
{
  cudaError_t e;
  cudaFuncAttributes attr;
  cudaDeviceProp prop;

  if (dev->state != 0)
    return dev->state > 0;
  if (g_count < 1)
    {
      set_why (dev, "cudaGetDeviceCount",
               g_count_error == cudaSuccess ? cudaErrorNoDevice
                                            : g_count_error);
      return 0;
    }
  if (dev->ordinal >= g_count)
    {
      snprintf (dev->why, sizeof dev->why, "no CUDA device %d (found %d)",
                dev->ordinal, g_count);
      dev->state = -1;
      return 0;
    }
  if ((e = cudaSetDevice (dev->ordinal)) != cudaSuccess
      || (e = cudaGetDeviceProperties (&prop, dev->ordinal)) != cudaSuccess)
    {
      set_why (dev, "cudaSetDevice", e);
      return 0;
    }
  snprintf (dev->name, sizeof dev->name, "%s", prop.name);
  e = cudaFuncGetAttributes (&attr, probe_kernel);
  if (e != cudaSuccess)
    {
      snprintf (dev->why, sizeof dev->why,
                "no code for %.64s (compute capability %d.%d): %s", prop.name,
                prop.major, prop.minor, cudaGetErrorString (e));
      dev->state = -1;
      (void) cudaGetLastError ();
      return 0;
    }
  dev->sm_count = prop.multiProcessorCount;
  if ((e = cudaDeviceGetAttribute (&dev->smem_optin,
                                   cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                   dev->ordinal)) != cudaSuccess
      || (e = cudaStreamCreateWithFlags (&dev->stream,
                                         cudaStreamNonBlocking)) != cudaSuccess)
    {
      set_why (dev, "device set-up", e);
      return 0;
    }
  for (int i = 0; i < 4; i++)
    if ((e = cudaEventCreate (&dev->ev[i])) != cudaSuccess)
      {
        set_why (dev, "cudaEventCreate", e);
        return 0;
      }
  for (int i = 0; i < 2; i++)
    if ((e = cudaEventCreateWithFlags (&dev->batch_done[i],
                                       cudaEventDisableTiming)) != cudaSuccess)
      {
        set_why (dev, "cudaEventCreate", e);
        return 0;
      }
  dev->bm3d_tables_for = -1;
  dev->state = 1;
  return 1;
}

static bm3d_cuda_device *
device_at (int ordinal)
{
  pthread_once (&g_once, devices_init);
  if (ordinal < 0 || ordinal >= BM3D_CUDA_MAX_DEVICES)
    return NULL;
  return &g_devices[ordinal];
}

/* ---- start-up on a thread of its own ----------------------------------
 *
 * Creating a context costs about 0.2 s (driver initialisation, the
 * primary context, the module's code), as long as the engine takes for a
 * small photo.  bm3d_backend_warm_up () does it on a detached thread
 * while the caller reads its input.  The thread takes the device's lock
 * for the probe, so the first engine call simply waits on that lock for
 * whatever is left; a probe already done returns at once.  */

typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t  done;
  int             started;   /* a warm-up thread was asked for      */
  int             running;   /* ... and has not finished yet        */
  int             device;
  /* The devices to start after it, one after the other (n_others
   * BM3D_ALL_DEVICES: every device), for an image split over them.  */
  int             others[BM3D_MAX_DEVICES];
  int             n_others;
} warm_up_state;

static warm_up_state g_warm = { PTHREAD_MUTEX_INITIALIZER,
                                PTHREAD_COND_INITIALIZER, 0, 0, 0, { 0 },
                                0 };

/* Set once a device's probe is done (whatever it found): from then on
 * bm3d_cuda_wait_ready () returns without the device's lock, which an
 * engine call on that device holds throughout (a batch's second worker
 * prepares its image meanwhile).  */
static int g_probed[BM3D_CUDA_MAX_DEVICES];

static void
device_probe_locked (bm3d_cuda_device *dev)
{
  if (__atomic_load_n (&g_probed[dev->ordinal], __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock (&dev->lock);
  (void) probe (dev);
  pthread_mutex_unlock (&dev->lock);
  __atomic_store_n (&g_probed[dev->ordinal], 1, __ATOMIC_RELEASE);
}

static void warm_up_wait_at_exit (void);

/* The devices beyond the first, in turn (a device's probe is done
 * once, whoever asks).  */
static void
warm_up_others (void)
{
  const int all = g_warm.n_others == BM3D_ALL_DEVICES;
  const int n = all ? bm3d_cuda_device_count () : g_warm.n_others;

  for (int i = 0; i < n; i++)
    {
      bm3d_cuda_device *dev = device_at (all ? i : g_warm.others[i]);

      if (dev && dev->ordinal < g_count)
        device_probe_locked (dev);
    }
}

static void *
warm_up_thread (void *data)
{
  bm3d_cuda_device *dev;

  (void) data;
  /* The runtime and the driver start here (cudaGetDeviceCount), and may
   * register exit handlers of their own as they do: registered again
   * after them, ours runs before theirs for the long part, the
   * context's creation.  A second run of it does nothing.  */
  (void) bm3d_cuda_device_count ();
  (void) atexit (warm_up_wait_at_exit);
  dev = device_at (g_warm.device);
  if (dev)
    device_probe_locked (dev);
  warm_up_others ();
  pthread_mutex_lock (&g_warm.lock);
  g_warm.running = 0;
  pthread_cond_broadcast (&g_warm.done);
  pthread_mutex_unlock (&g_warm.lock);
  return NULL;
}

/* Registered before the thread starts, so it runs before the CUDA
 * runtime's exit handlers registered when the program's code was loaded
 * (and again by the thread, see there): a process that ends early, on a
 * bad file say, waits for the driver call in flight instead of tearing
 * the runtime down under it.  */
static void
warm_up_wait_at_exit (void)
{
  pthread_mutex_lock (&g_warm.lock);
  while (g_warm.running)
    pthread_cond_wait (&g_warm.done, &g_warm.lock);
  pthread_mutex_unlock (&g_warm.lock);
}

extern "C" void
bm3d_cuda_warm_up (int device, const int *others, int n_others)
{
  pthread_attr_t attr;
  pthread_t thread;

  if (device < 0 || device >= BM3D_CUDA_MAX_DEVICES)
    return;
  pthread_mutex_lock (&g_warm.lock);
  if (g_warm.started)
    {
      pthread_mutex_unlock (&g_warm.lock);
      return;
    }
  g_warm.started = 1;
  g_warm.device = device;
  if (n_others == BM3D_ALL_DEVICES)
    g_warm.n_others = BM3D_ALL_DEVICES;
  for (int i = 0; others && i < n_others && i < BM3D_MAX_DEVICES; i++)
    g_warm.others[g_warm.n_others++] = others[i];
  if (atexit (warm_up_wait_at_exit) == 0
      && pthread_attr_init (&attr) == 0)
    {
      g_warm.running = 1;
      /* Without a thread the first engine call starts the device, as
       * it always did.  */
      if (pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED) != 0
          || pthread_create (&thread, &attr, warm_up_thread, NULL) != 0)
        g_warm.running = 0;
      pthread_attr_destroy (&attr);
    }
  pthread_mutex_unlock (&g_warm.lock);
}

extern "C" double
bm3d_cuda_wait_ready (int device)
{
  struct timespec t0, t1;
  bm3d_cuda_device *dev;

  clock_gettime (CLOCK_MONOTONIC, &t0);
  dev = device_at (device);
  if (dev)
    device_probe_locked (dev);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  return (double) (t1.tv_sec - t0.tv_sec)
         + (double) (t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

extern "C" int
bm3d_cuda_device_count (void)
{
  pthread_once (&g_once, devices_init);
  return g_count;
}

extern "C" int
bm3d_cuda_device_name (int device, char *name, size_t name_len)
{
  bm3d_cuda_device *dev = device_at (device);
  int ok;

  if (!dev)
    {
      if (name && name_len)
        snprintf (name, name_len, "no CUDA device %d", device);
      return 0;
    }
  pthread_mutex_lock (&dev->lock);
  ok = probe (dev);
  if (name && name_len)
    snprintf (name, name_len, "%s", ok ? dev->name : dev->why);
  pthread_mutex_unlock (&dev->lock);
  return ok;
}

extern "C" int
bm3d_cuda_available (char *why, size_t why_len)
{
  bm3d_cuda_device *dev = device_at (0);
  int ok;

  pthread_mutex_lock (&dev->lock);
  ok = probe (dev);
  if (!ok && why && why_len)
    snprintf (why, why_len, "%s", dev->why);
  pthread_mutex_unlock (&dev->lock);
  return ok;
}

/* ---- a call's hold on its device --------------------------------------- */

bm3d_status
bm3d_cuda_enter (bm3d_job *job, bm3d_cuda_device **out)
{
  bm3d_cuda_device *dev = device_at (job->params->device);
  cudaError_t e;

  job->cuda = NULL;
  if (!dev)
    {
      bm3d_job_message (job, "CUDA backend unavailable: no CUDA device %d",
                        job->params->device);
      return BM3D_ERR_BACKEND_UNAVAILABLE;
    }
  pthread_mutex_lock (&dev->lock);
  if (!probe (dev))
    {
      bm3d_job_message (job, "CUDA backend unavailable: %s", dev->why);
      pthread_mutex_unlock (&dev->lock);
      return BM3D_ERR_BACKEND_UNAVAILABLE;
    }
  /* The calling thread's current device may be another one.  */
  if ((e = cudaSetDevice (dev->ordinal)) != cudaSuccess)
    {
      bm3d_job_message (job, "CUDA error in cudaSetDevice: %s",
                        cudaGetErrorString (e));
      pthread_mutex_unlock (&dev->lock);
      return BM3D_ERR_BACKEND_FAILED;
    }
  job->cuda = dev;
  *out = dev;
  return BM3D_OK;
}

bm3d_status
bm3d_cuda_leave (bm3d_job *job, bm3d_status status)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);

  if (!dev)
    return status;
  if (status != BM3D_OK && status != BM3D_ERR_NOT_IMPLEMENTED
      && dev->state == 1)
    {
      (void) cudaStreamSynchronize (dev->stream);
      (void) cudaGetLastError ();
    }
  job->cuda = NULL;
  pthread_mutex_unlock (&dev->lock);
  return status;
}

/* ---- memory ------------------------------------------------------------- */

size_t
bm3d_cuda_budget (bm3d_cuda_device *dev)
{
  size_t free_b = 0, total_b = 0, budget = BM3D_CUDA_DEVICE_BUDGET;

  if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      return budget;
    }
  /* Memory the backend already holds counts as free for it.  */
  free_b += dev->workspace_bytes;
  if (free_b / 10 * 8 < budget)
    budget = free_b / 10 * 8;
  return budget;
}

size_t
bm3d_cuda_budget_for (const bm3d_job *job)
{
  bm3d_cuda_device *dev = device_at (job->params->device);
  size_t budget = BM3D_CUDA_DEVICE_BUDGET;

  if (!dev)
    return budget;
  pthread_mutex_lock (&dev->lock);
  if (probe (dev) && cudaSetDevice (dev->ordinal) == cudaSuccess)
    budget = bm3d_cuda_budget (dev);
  else
    (void) cudaGetLastError ();
  pthread_mutex_unlock (&dev->lock);
  return budget;
}

bm3d_status
bm3d_cuda_reserve (bm3d_job *job, size_t bytes)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  cudaError_t e;

  if (!(dev->workspace && dev->workspace_bytes >= bytes
        && dev->workspace_bytes <= bytes + bytes / 2))
    {
      if (dev->workspace)
        {
          BM3D_CUDA_CHECK (job, cudaFree (dev->workspace));
          dev->workspace = NULL;
          dev->workspace_bytes = 0;
        }
      e = cudaMalloc (&dev->workspace, bytes);
      if (e != cudaSuccess)
        {
          dev->workspace = NULL;
          return bm3d_cuda_fail (job, e, "cudaMalloc of the work buffers");
        }
      dev->workspace_bytes = bytes;
    }
  if (dev->workspace_bytes > job->report->peak_device_bytes)
    job->report->peak_device_bytes = dev->workspace_bytes;
  return BM3D_OK;
}

/* ---- colour transform ---------------------------------------------------- */

/* Threads of a colour transform block (a grid-stride loop over pixels).  */
#define COLOUR_THREADS 256

/* The unclip table of the call under way (bm3d_cuda_unclip_upload).  */
__constant__ bm3d_unclip_table unclip_const;

/* The stabilising transform of the call under way (bm3d_cuda_vst_upload,
 * job->vst): the forward tables the input goes through, the inverse
 * ones the result does, a colour channel each.  In global memory: the
 * threads of a warp read different entries, which constant memory
 * would serialise.  The device is held for the whole call, so one set
 * serves.  */
__device__ bm3d_vst_table vst_fwd_dev[BM3D_NOISE_PLANES];
__device__ bm3d_vst_table vst_inv_dev[BM3D_NOISE_PLANES];

/* A pixel value of type T on the engine's 0..255 scale and back, by
 * pixels.h's rules: float as it is.  */
template <typename T> __device__ __forceinline__ float to_float (T v);
template <> __device__ __forceinline__ float
to_float<float> (float v) { return v; }
template <> __device__ __forceinline__ float
to_float<uint8_t> (uint8_t v) { return bm3d_u8_to_float (v); }
template <> __device__ __forceinline__ float
to_float<uint16_t> (uint16_t v) { return bm3d_u16_to_float (v); }

template <typename T> __device__ __forceinline__ T from_float (float f);
template <> __device__ __forceinline__ float
from_float<float> (float f) { return f; }
template <> __device__ __forceinline__ uint8_t
from_float<uint8_t> (float f) { return bm3d_float_to_u8 (f); }
template <> __device__ __forceinline__ uint16_t
from_float<uint16_t> (float f) { return bm3d_float_to_u16 (f); }

/* bm3d_unclip's mapping of one result, rounded as the host rounds it
 * (no fused multiply-add).  */
__device__ __forceinline__ float
unclip_value (float v)
{
  const bm3d_unclip_table &t = unclip_const;
  float pos;
  int k;

  if (v >= t.pass_lo && v <= t.pass_hi)
    return v;
  if (!(v > t.lo))
    return 0.0f;
  if (!(v < t.hi))
    return 255.0f;
  pos = __fmul_rn (__fsub_rn (v, t.lo), t.per_step);
  k = (int) pos;
  if (k >= BM3D_UNCLIP_STEPS)
    return t.u[BM3D_UNCLIP_STEPS];
  return __fadd_rn (t.u[k], __fmul_rn (__fsub_rn (pos, (float) k),
                                       __fsub_rn (t.u[k + 1], t.u[k])));
}

/* bm3d_vst_lookup () rounded as the host rounds it (no fused
 * multiply-add), so that both backends filter the same stabilised
 * values.  */
__device__ __forceinline__ float
vst_lerp_rn (float lo, float hi, float frac)
{
  return __fadd_rn (lo, __fmul_rn (__fsub_rn (hi, lo), frac));
}

__device__ __forceinline__ float
vst_lookup_rn (const float *t, float x)
{
  const float step = 255.0f / BM3D_VST_STEPS;
  const float p = __fdiv_rn (x, step);
  int i;

  if (!(p > 0.0f))
    return vst_lerp_rn (__ldg (&t[0]), __ldg (&t[1]), p);
  if (p >= (float) BM3D_VST_STEPS)
    return __fadd_rn (__ldg (&t[BM3D_VST_STEPS]),
                      __fmul_rn (__fsub_rn (__ldg (&t[BM3D_VST_STEPS]),
                                            __ldg (&t[BM3D_VST_STEPS - 1])),
                                 __fsub_rn (p, (float) BM3D_VST_STEPS)));
  i = (int) p;
  return vst_lerp_rn (__ldg (&t[i]), __ldg (&t[i + 1]),
                      __fsub_rn (p, (float) i));
}

typedef struct
{
  float        m[3][3];
  const void  *src;                  /* tile, interleaved, `channels`   */
  float       *plane[BM3D_MAX_CHANNELS];
  size_t       count;
  int          channels;             /* values per pixel (alpha too)    */
  int          colour;               /* 1 or 3                          */
  int          vst;                  /* through vst_fwd_dev first       */
} colour_forward_args;

/* Interleaved pixels of type T to float planes, rounding exactly as the
 * host's conversion and transform do (no fused multiply-add).  */
template <typename T>
__global__ void __launch_bounds__ (COLOUR_THREADS)
colour_forward (colour_forward_args a)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < a.count;
       i += (size_t) gridDim.x * blockDim.x)
    {
      const T *px = (const T *) a.src + i * a.channels;
      float p[3];

      for (int c = 0; c < a.colour; c++)
        {
          p[c] = to_float<T> (px[c]);
          if (a.vst)
            p[c] = vst_lookup_rn (vst_fwd_dev[c], p[c]);
        }
      if (a.colour == 1)
        a.plane[0][i] = p[0];
      else
        {
          const float p0 = p[0], p1 = p[1], p2 = p[2];
#pragma unroll
          for (int c = 0; c < 3; c++)
            a.plane[c][i] = __fadd_rn (__fadd_rn (__fmul_rn (a.m[c][0], p0),
                                                  __fmul_rn (a.m[c][1], p1)),
                                       __fmul_rn (a.m[c][2], p2));
        }
    }
}

typedef struct
{
  float           m[3][3];
  const float    *plane[BM3D_MAX_CHANNELS];  /* result planes of the tile */
  const void     *src;               /* the tile's input (for alpha)    */
  void           *dst;               /* whole image, interleaved        */
  bm3d_cuda_core  core;
  int             channels, colour;
  int             unclip;            /* map through unclip_const first  */
  int             vst;               /* map through vst_inv_dev first   */
} colour_inverse_args;

/* The tile's core back to interleaved pixels of type T of the image,
 * unclipped first when asked, then rounded and clipped to T; alpha is
 * copied bit for bit from the input.  */
template <typename T>
__global__ void __launch_bounds__ (COLOUR_THREADS)
colour_inverse (colour_inverse_args a)
{
  const bm3d_cuda_core &k = a.core;
  const size_t count = (size_t) k.core_w * k.core_h;

  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    {
      const int y = (int) (i / k.core_w), x = (int) (i - (size_t) y * k.core_w);
      const size_t t = (size_t) (k.oy + y) * k.tile_width + k.ox + x;
      T *px = (T *) a.dst + ((size_t) (k.gy + y) * k.width + k.gx + x)
                            * a.channels;
      float v[3];

      if (a.colour == 1)
        v[0] = a.plane[0][t];
      else
        {
          const float p0 = a.plane[0][t], p1 = a.plane[1][t], p2 = a.plane[2][t];
#pragma unroll
          for (int c = 0; c < 3; c++)
            v[c] = __fadd_rn (__fadd_rn (__fmul_rn (a.m[c][0], p0),
                                         __fmul_rn (a.m[c][1], p1)),
                              __fmul_rn (a.m[c][2], p2));
        }
      for (int c = 0; c < a.colour; c++)
        px[c] = from_float<T> (a.vst ? vst_lookup_rn (vst_inv_dev[c], v[c])
                               : a.unclip ? unclip_value (v[c]) : v[c]);
      if (a.channels > a.colour)
        px[a.colour] = ((const T *) a.src)[t * a.channels + a.colour];
    }
}

/* The kernel of `type` for each of the two transforms.  */
#define COLOUR_LAUNCH(kernel, type, dev, a)                                  \
  do                                                                         \
    {                                                                        \
      dim3 grid ((dev)->sm_count * 8), block (COLOUR_THREADS);               \
      if ((type) == BM3D_PIXELS_U8)                                          \
        kernel<uint8_t><<<grid, block, 0, (dev)->stream>>> (a);              \
      else if ((type) == BM3D_PIXELS_U16)                                    \
        kernel<uint16_t><<<grid, block, 0, (dev)->stream>>> (a);             \
      else                                                                   \
        kernel<float><<<grid, block, 0, (dev)->stream>>> (a);                \
    }                                                                        \
  while (0)

bm3d_status
bm3d_cuda_colour_forward (bm3d_job *job, const void *src,
                          bm3d_pixel_type type, int channels, int colour,
                          float *const *plane, size_t count)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  colour_forward_args a;

  memset (&a, 0, sizeof a);
  memcpy (a.m, bm3d_job_colour_fwd (job), sizeof a.m);
  a.src = src;
  for (int c = 0; c < colour; c++)
    a.plane[c] = plane[c];
  a.count = count;
  a.channels = channels;
  a.colour = colour;
  a.vst = job->vst != NULL;
  COLOUR_LAUNCH (colour_forward, type, dev, a);
  BM3D_CUDA_CHECK_LAUNCH (job, "colour_forward");
  return BM3D_OK;
}

bm3d_status
bm3d_cuda_colour_inverse (bm3d_job *job, const float *const *plane,
                          const void *src, void *dst, bm3d_pixel_type type,
                          int channels, int colour,
                          const bm3d_cuda_core *core)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  colour_inverse_args a;

  memset (&a, 0, sizeof a);
  memcpy (a.m, bm3d_job_colour_inv (job), sizeof a.m);
  for (int c = 0; c < colour; c++)
    a.plane[c] = plane[c];
  a.src = src;
  a.dst = dst;
  a.core = *core;
  a.channels = channels;
  a.colour = colour;
  /* Floats go back as they are; the dispatcher unclips them.  The
   * stabilising transform's inverse replaces the unclipping.  */
  a.vst = job->vst != NULL;
  a.unclip = !a.vst && type != BM3D_PIXELS_FLOAT && job->unclip != NULL;
  COLOUR_LAUNCH (colour_inverse, type, dev, a);
  BM3D_CUDA_CHECK_LAUNCH (job, "colour_inverse");
  return BM3D_OK;
}

bm3d_status
bm3d_cuda_vst_upload (bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  size_t bytes;

  if (!job->vst)
    return BM3D_OK;
  bytes = sizeof (bm3d_vst_table) * job->vst->channels;
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (vst_fwd_dev, job->vst->fwd,
                                                 bytes, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (vst_inv_dev, job->vst->inv,
                                                 bytes, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  return BM3D_OK;
}

bm3d_status
bm3d_cuda_unclip_upload (bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);

  if (!job->unclip)
    return BM3D_OK;
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (unclip_const, job->unclip,
                                                 sizeof unclip_const, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  return BM3D_OK;
}
