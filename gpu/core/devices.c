/* BM3D Denoise: the CUDA backend's run of one image, on one device or
 * over several.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * An image of at least BM3D_SPLIT_MIN_PIXELS with several devices given
 * (params->devices) is cut into horizontal bands, one a device: a
 * band's core rows, aligned as tile sides are so that BM3D's reference
 * grid falls where it falls in the whole image, and the job's margin of
 * rows above and below as context.  A host thread a device runs the
 * one-device path on its band (the device sizes its tiles to its own
 * memory, as for a whole image) with the job's rows window
 * (job->rows_y0, _y1) set to the core, so that each band writes its
 * core's rows of `out` and no other: no copy of the image is made,
 * and the bands are stitched where they lie.  The noise (a camera's
 * profile and gain included) was settled on the whole image before,
 * so every band filters the same noise.
 *
 * A band whose device fails goes back to the queue and the device's
 * thread stops; a thread whose device is still working takes it.  When
 * no device is left, backend "auto" redoes the bands left on the CPU
 * (integer pixels on a device cannot: the call fails and
 * bm3d_denoise_pixels redoes the image on the CPU).  Progress and
 * cancelling stay on the calling thread, which adds the bands' progress
 * up while it waits.  */
#include "config.h"

#include "engine.h"
#include "noise/noise_vst.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* How often the calling thread reports the bands' progress (s).  */
#define PROGRESS_PERIOD 0.05
/* The fewest core rows a band has: below, its margins outweigh it.  */
#define BAND_MIN_ROWS 64
/* The "device" of the thread that redoes bands on the CPU.  */
#define ON_CPU (-1)

typedef enum
{
  BAND_PENDING,
  BAND_RUNNING,
  BAND_DONE
} band_state;

typedef struct split split;

typedef struct
{
  split       *split;
  int          r0, r1;          /* the rows read: core and context     */
  int          c0, c1;          /* the core: the rows written          */
  band_state   state;
  int          failed_before;   /* a device failed on it               */
  double       fraction;        /* of its work, while it runs          */
} band;

typedef struct
{
  split       *split;
  int          device;          /* an ordinal, or ON_CPU               */
  pthread_t    thread;
} worker;

struct split
{
  const bm3d_image *in;
  bm3d_image       *out;
  bm3d_job         *job;
  band              bands[BM3D_MAX_DEVICES];
  int               n_bands;

  pthread_mutex_t   lock;       /* everything below                    */
  pthread_cond_t    changed;
  int               running;    /* bands under way                     */
  int               workers;    /* threads not finished                */
  int               cancel;
  bm3d_status       fatal;      /* an error no device can recover from */
  char              fatal_message[sizeof ((bm3d_report *) 0)->message];
  int               failed_device, more_failed;
  char              failed_message[sizeof ((bm3d_report *) 0)->message];
  bm3d_status       failed_status;
  int               redone_on;  /* a device that took a failed band, or
                                   ON_CPU, or -2 for none yet          */
};

/* The devices a job may spread over: params->devices, every device
 * (BM3D_ALL_DEVICES), or none.  */
static int
job_devices (const bm3d_job *job, int *devices)
{
  const bm3d_params *params = job->params;
  int n = params->n_devices;

  if (n == BM3D_ALL_DEVICES)
    {
      n = bm3d_cuda_device_count ();
      if (n > BM3D_MAX_DEVICES)
        n = BM3D_MAX_DEVICES;
      for (int i = 0; i < n; i++)
        devices[i] = i;
      return n;
    }
  for (int i = 0; i < n; i++)
    devices[i] = params->devices[i];
  return n > 0 ? n : 0;
}

/* Bands for an image over `n` devices: one a device when the image is
 * large enough to pay (BM3D_SPLIT_MIN_PIXELS, or the test switch
 * BM3D_SPLIT_MIN_PIXELS) and tall enough for bands of BAND_MIN_ROWS;
 * 1 means no split.  */
static int
band_count (const bm3d_job *job, const bm3d_image *in, int n)
{
  size_t least = job->env.split_min_pixels > 0
                 ? (size_t) job->env.split_min_pixels : BM3D_SPLIT_MIN_PIXELS;
  int most = in->height / BAND_MIN_ROWS;

  if (n < 2 || (size_t) in->width * in->height < least)
    return 1;
  return n < most ? n : most;
}

/* Cut the image's rows into `n` bands, the cores' edges on the job's
 * alignment.  */
static void
plan_bands (split *s, int n)
{
  const int H = s->in->height, margin = s->job->margin;
  const int align = s->job->align > 0 ? s->job->align : 1;

  s->n_bands = n;
  for (int b = 0; b < n; b++)
    {
      band *k = &s->bands[b];

      memset (k, 0, sizeof *k);
      k->split = s;
      k->c0 = b == 0 ? 0 : (int) ((long) H * b / n) / align * align;
      k->c1 = b == n - 1 ? H : (int) ((long) H * (b + 1) / n) / align * align;
      k->r0 = k->c0 - margin > 0 ? k->c0 - margin : 0;
      k->r1 = k->c1 + margin < H ? k->c1 + margin : H;
      k->state = BAND_PENDING;
    }
}

/* The band's job's progress callback, on its worker's thread: kept
 * for the calling thread to add up; non-zero once the call is
 * cancelled.  */
static int
band_progress (double fraction, void *data)
{
  band *k = (band *) data;
  split *s = k->split;
  int cancel;

  pthread_mutex_lock (&s->lock);
  k->fraction = fraction;
  cancel = s->cancel;
  pthread_mutex_unlock (&s->lock);
  return cancel;
}

/* A view of rows r0 .. r1 - 1 of `img`.  */
static bm3d_image
image_rows (const bm3d_image *img, int r0, int r1)
{
  bm3d_image v = *img;

  v.data = img->data + (size_t) r0 * img->stride;
  v.height = r1 - r0;
  return v;
}

static bm3d_pixels
pixels_rows (const bm3d_pixels *px, int r0, int r1)
{
  bm3d_pixels v = *px;

  v.data = (char *) px->data
           + (size_t) r0 * px->stride * bm3d_pixel_size (px->type);
  v.height = r1 - r0;
  return v;
}

/* The bands' costs into the call's report: memory at its peak on any
 * one device, the host's summed, and the time of each phase summed.  */
static void
merge_report (bm3d_report *into, const bm3d_report *r)
{
  if (r->peak_device_bytes > into->peak_device_bytes)
    into->peak_device_bytes = r->peak_device_bytes;
  into->peak_host_bytes += r->peak_host_bytes;
  into->seconds_phase[0] += r->seconds_phase[0];
  into->seconds_phase[1] += r->seconds_phase[1];
  into->seconds_transfer += r->seconds_transfer;
  if (r->seconds_startup > into->seconds_startup)
    into->seconds_startup = r->seconds_startup;
}

/* The host's tiles of `in` (the CPU's, or the device's tile by tile),
 * in camera mode with a level function on a stabilised copy, whose
 * result goes back through the inverse tables: the rows the job
 * writes alone, as a band's neighbours write the others.  */
static bm3d_status
run_host_tiles (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
                bm3d_backend backend)
{
  const bm3d_algorithm *a = job->algorithm;
  bm3d_image *stab = NULL;
  bm3d_status status;
  int y0, y1;

  if (job->vst && !(stab = bm3d_stabilised (in, job->vst->fwd, job)))
    return BM3D_ERR_OUT_OF_MEMORY;
  if (backend == BM3D_BACKEND_CUDA)
    status = bm3d_run_tiled (stab ? stab : in, out, job, a->cuda_tile, NULL,
                             1, a->cuda_tile_side (job));
  else
    status = bm3d_run_tiled (stab ? stab : in, out, job, a->cpu_tile,
                             a->cpu_tiles,
                             a->cpu_tiles ? a->cpu_tiles_in_flight (job) : 1,
                             a->cpu_tile_side (job));
  bm3d_stabilised_free (stab, job);
  bm3d_job_rows (job, out->height, &y0, &y1);
  bm3d_image written = image_rows (out, y0, y1);
  if (status == BM3D_OK && job->vst)
    bm3d_vst_apply (&written, &written, job->vst->inv, job->threads);
  return status;
}

/* One device's whole image: on the device, or tiled on the host when
 * the device does not take it whole (floats only: integer pixels then
 * go back to the caller, which converts them).  */
static bm3d_status
run_one_device (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  bm3d_status status = job->algorithm->cuda_image (in, out, job);

  if (status != BM3D_ERR_NOT_IMPLEMENTED || job->pixels_in)
    return status;
  return run_host_tiles (in, out, job, BM3D_BACKEND_CUDA);
}

/* Band `k` on `device` (or the CPU), as its own call: a copy of the
 * job with the device, the band's rows and its own report.  */
static bm3d_status
run_band (split *s, band *k, int device, bm3d_report *report)
{
  bm3d_job job = *s->job;
  bm3d_params params = *s->job->params;
  bm3d_image in = image_rows (s->in, k->r0, k->r1);
  bm3d_image out = image_rows (s->out, k->r0, k->r1);
  bm3d_pixels pin, pout;

  params.device = device >= 0 ? device : 0;
  params.n_devices = 0;
  params.progress = band_progress;
  params.progress_data = k;
  memset (report, 0, sizeof *report);
  job.params = &params;
  job.report = report;
  job.cuda = NULL;
  job.tile_base = 0.0;
  job.tile_share = 1.0;
  job.host_bytes_now = 0;
  job.rows_y0 = k->c0 - k->r0;
  job.rows_y1 = k->c1 - k->r0;
  /* Neighbouring bands share rows: one band's images page-locked, then
   * unlocked while its neighbour copies from the rows they share, is
   * not safe.  The bounce buffers (the default) pin nothing anyway.  */
  job.env.cuda_pin_set = 1;
  job.env.cuda_pin = 0;
  if (s->job->pixels_in)
    {
      pin = pixels_rows (s->job->pixels_in, k->r0, k->r1);
      pout = pixels_rows (s->job->pixels_out, k->r0, k->r1);
      job.pixels_in = &pin;
      job.pixels_out = &pout;
    }
  report->backend_used = device >= 0 ? BM3D_BACKEND_CUDA : BM3D_BACKEND_CPU;
  return device >= 0 ? run_one_device (&in, &out, &job)
                     : bm3d_run_cpu (&in, &out, &job);
}

/* The first pending band, or NULL.  */
static band *
next_band (split *s)
{
  for (int b = 0; b < s->n_bands; b++)
    if (s->bands[b].state == BAND_PENDING)
      return &s->bands[b];
  return NULL;
}

/* After band `k` ran on `device` with `status` (lock held): done, or
 * back in the queue for another device.  Returns 1 when this device
 * is to take no more.  */
static int
band_ran (split *s, band *k, int device, bm3d_status status,
          const bm3d_report *report)
{
  merge_report (s->job->report, report);
  k->fraction = 0.0;
  if (status == BM3D_OK)
    {
      k->state = BAND_DONE;
      if (k->failed_before && s->redone_on == -2)
        s->redone_on = device;
      return 0;
    }
  k->state = BAND_PENDING;
  if (device >= 0 && !s->cancel && bm3d_cuda_error_recoverable (status))
    {
      k->failed_before = 1;
      if (s->failed_device < 0)
        {
          s->failed_device = device;
          s->failed_status = status;
          memcpy (s->failed_message, report->message,
                  sizeof s->failed_message);
        }
      else if (device != s->failed_device)
        s->more_failed++;
      return 1;
    }
  if (s->fatal == BM3D_OK)
    {
      s->fatal = status;
      memcpy (s->fatal_message, report->message, sizeof s->fatal_message);
    }
  return 1;
}

/* A device's thread (or the CPU's): bands from the queue until none is
 * left to take, its device fails, or the call stops.  A thread with
 * nothing to take waits while bands run elsewhere, in case one comes
 * back.  */
static void *
worker_main (void *data)
{
  worker *w = (worker *) data;
  split *s = w->split;
  bm3d_report report;
  band *k;

  pthread_mutex_lock (&s->lock);
  for (;;)
    {
      while (!s->cancel && s->fatal == BM3D_OK && !next_band (s)
             && s->running > 0)
        pthread_cond_wait (&s->changed, &s->lock);
      if (s->cancel || s->fatal != BM3D_OK || !(k = next_band (s)))
        break;
      k->state = BAND_RUNNING;
      s->running++;
      pthread_mutex_unlock (&s->lock);
      bm3d_status status = run_band (s, k, w->device, &report);
      pthread_mutex_lock (&s->lock);
      s->running--;
      int stop = band_ran (s, k, w->device, status, &report);
      pthread_cond_broadcast (&s->changed);
      if (stop)
        break;
    }
  s->workers--;
  pthread_cond_broadcast (&s->changed);
  pthread_mutex_unlock (&s->lock);
  return NULL;
}

/* The bands' progress, as a share of the image (lock held).  */
static double
bands_done (const split *s)
{
  double rows = 0.0;

  for (int b = 0; b < s->n_bands; b++)
    {
      const band *k = &s->bands[b];
      double f = k->state == BAND_DONE ? 1.0 : k->fraction;

      rows += f * (k->c1 - k->c0);
    }
  return rows / s->in->height;
}

/* Wait on the calling thread until every worker has finished, passing
 * the bands' progress on to the caller and its cancelling back.  */
static void
wait_for_workers (split *s)
{
  const bm3d_params *params = s->job->params;

  pthread_mutex_lock (&s->lock);
  while (s->workers > 0)
    {
      struct timespec until;
      double done;

      clock_gettime (CLOCK_REALTIME, &until);
      until.tv_nsec += (long) (PROGRESS_PERIOD * 1e9);
      if (until.tv_nsec >= 1000000000L)
        {
          until.tv_sec++;
          until.tv_nsec -= 1000000000L;
        }
      (void) pthread_cond_timedwait (&s->changed, &s->lock, &until);
      if (!params->progress || s->cancel)
        continue;
      done = bands_done (s);
      pthread_mutex_unlock (&s->lock);
      int cancel = params->progress (done, params->progress_data) != 0;
      pthread_mutex_lock (&s->lock);
      if (cancel)
        {
          s->cancel = 1;
          pthread_cond_broadcast (&s->changed);
        }
    }
  pthread_mutex_unlock (&s->lock);
}

/* One thread for each of `n` devices (ON_CPU: the CPU), then wait for
 * them.  A thread that cannot start leaves its bands to the others.  */
static void
run_workers (split *s, const int *devices, int n)
{
  worker w[BM3D_MAX_DEVICES];
  int started[BM3D_MAX_DEVICES] = { 0 };

  for (int i = 0; i < n; i++)
    {
      w[i].split = s;
      w[i].device = devices[i];
      pthread_mutex_lock (&s->lock);
      s->workers++;
      pthread_mutex_unlock (&s->lock);
      started[i] = pthread_create (&w[i].thread, NULL, worker_main,
                                   &w[i]) == 0;
      if (!started[i])
        {
          pthread_mutex_lock (&s->lock);
          s->workers--;
          pthread_mutex_unlock (&s->lock);
        }
    }
  wait_for_workers (s);
  for (int i = 0; i < n; i++)
    if (started[i])
      pthread_join (w[i].thread, NULL);
}

/* The call's message when a device failed: where its band went.  */
static void
say_failed (split *s)
{
  bm3d_job *job = s->job;
  char more[48] = "";
  char where[32];

  if (s->more_failed)
    snprintf (more, sizeof more, ", and %d other device%s", s->more_failed,
              s->more_failed == 1 ? "" : "s");
  if (s->redone_on == ON_CPU)
    snprintf (where, sizeof where, "the CPU");
  else
    snprintf (where, sizeof where, "device %d", s->redone_on);
  job->report->fell_back = s->redone_on == ON_CPU ? BM3D_FALLBACK_FAILED
                                                  : BM3D_FALLBACK_DEVICE;
  bm3d_job_message (job, "CUDA device %d failed (%s)%s; its tiles were "
                    "redone on %s", s->failed_device, s->failed_message,
                    more, where);
}

/* The bands over `devices`, then on the CPU for what no device could
 * do when the caller allows it.  */
static bm3d_status
run_split (split *s, const int *devices, int n)
{
  bm3d_job *job = s->job;
  const int cpu = ON_CPU;

  run_workers (s, devices, n);
  if (s->fatal == BM3D_OK && !s->cancel && next_band (s)
      && job->params->backend == BM3D_BACKEND_AUTO && !job->pixels_in)
    run_workers (s, &cpu, 1);
  if (s->cancel)
    {
      bm3d_job_message (job, "cancelled");
      return BM3D_ERR_CANCELLED;
    }
  if (s->fatal != BM3D_OK)
    {
      memcpy (job->report->message, s->fatal_message,
              sizeof job->report->message);
      return s->fatal;
    }
  if (next_band (s))
    {
      /* Every device failed, and the CPU may not take the rest here.  */
      bm3d_job_message (job, "CUDA device %d failed (%s); no device was "
                        "left for its tiles", s->failed_device,
                        s->failed_message);
      return s->failed_status;
    }
  if (s->failed_device >= 0)
    say_failed (s);
  return BM3D_OK;
}

static bm3d_status
run_bands (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
           const int *devices, int n, int bands)
{
  split s;
  bm3d_status status;

  memset (&s, 0, sizeof s);
  s.in = in;
  s.out = out;
  s.job = job;
  s.failed_device = -1;
  s.redone_on = -2;
  s.fatal = BM3D_OK;
  plan_bands (&s, bands);
  if (pthread_mutex_init (&s.lock, NULL) != 0)
    {
      bm3d_job_message (job, "could not start the devices' threads");
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  pthread_cond_init (&s.changed, NULL);
  bm3d_job_trace (job, "split %d bands over %d devices", bands, n);
  status = run_split (&s, devices, n);
  pthread_cond_destroy (&s.changed);
  pthread_mutex_destroy (&s.lock);
  if (status == BM3D_OK)
    {
      job->tile_base = 0.0;
      job->tile_share = 1.0;
      (void) job->tick (job, 1.0);
    }
  return status;
}

bm3d_status
bm3d_run_cpu (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  return run_host_tiles (in, out, job, BM3D_BACKEND_CPU);
}

bm3d_status
bm3d_run_cuda (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  int devices[BM3D_MAX_DEVICES];
  int n = job_devices (job, devices);
  int bands = band_count (job, in, n);

  if (bands < 2)
    return run_one_device (in, out, job);
  return run_bands (in, out, job, devices, n, bands);
}

int
bm3d_job_devices_exist (const bm3d_job *job, char *why, size_t why_len)
{
  int devices[BM3D_MAX_DEVICES];
  int n = job_devices (job, devices);
  int count = bm3d_cuda_device_count ();

  for (int i = 0; i < n; i++)
    if (devices[i] >= count)
      {
        snprintf (why, why_len, "no CUDA device %d (this machine has %d)",
                  devices[i], count);
        return 0;
      }
  return 1;
}
