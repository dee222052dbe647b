/* BM3D Denoise — many files in one process (see batch.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Threads: R readers, one engine worker per device, W writers, the main
 * thread (progress line, then the summary) and one thread that waits for
 * SIGINT, SIGTERM and SIGHUP, blocked everywhere else.  The first such
 * signal sets `stop`: readers take no new file, the engine is cancelled
 * through its progress callback, writers abandon their file at the next
 * row and remove it; the process then dies of the signal.  A second
 * signal removes the temporary files at once and exits.  */
#include "config.h"

#include "batch.h"
#include "batch_paths.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM "bm3d-denoise"

/* Redraws of the progress line, at most this often (seconds).  */
#define PROGRESS_PERIOD 0.25

typedef struct
{
  const char    *input;
  char          *output;        /* where the result goes               */
  char          *error;         /* known before reading: why it fails  */
  ImageFormat    format;
  Image          in;
  Image          out;
  int            depth;         /* of the input                        */
  float          sigma;
  int            worker;
  int            device;        /* the CUDA device it ran on, or -1    */
  bm3d_report    report;
  /* Camera noise measured by the reader (measure_noise ()).  */
  bm3d_noise_profile profile;
  int            has_profile;
  bm3d_report    measured;      /* the estimate's: its notice          */
  double         t_read, t_measure, t_engine, t_write;
} Job;

/* A bounded queue of jobs between two stages.  */
typedef struct
{
  Job              **items;
  int                capacity, head, count, closed;
  pthread_mutex_t    lock;
  pthread_cond_t     not_empty, not_full;
  const atomic_int  *stop;
} Queue;

typedef struct Batch Batch;

typedef struct
{
  Batch      *batch;
  int         index;            /* reader, worker or writer number     */
  int         device;           /* workers: the CUDA device            */
  pthread_t   thread;
  int         started;
} Stage;

struct Batch
{
  const BatchOptions *opt;
  Job                *jobs;
  int                 n;
  atomic_int          next;     /* the next file to read               */
  atomic_int          stop;     /* the signal that stopped us, or 0    */
  Queue               to_engine, to_writer;
  int                 readers_left, workers_left;
  int                 n_readers, n_workers, n_writers;
  int                 worker_threads;   /* the engine's CPU threads      */
  int                 reader_threads;   /* each reader's, for the noise  */
  int                 integer_io;       /* read 8/16-bit files as their
                                           integers (cli_integer_io)    */
  Stage              *readers, *workers, *writers;
  int                 cuda_workers;     /* the workers hold devices     */

  pthread_mutex_t     lock;     /* everything below                    */
  pthread_cond_t      changed;
  int                 done, failed;
  double              sum_read, sum_measure, sum_engine, sum_phase[2],
                      sum_write;
  int                 n_timed;
  int                 progress, progress_shown;
  int                 fallback_told;
  int                 dead[BATCH_MAX_DEVICES];  /* devices that failed   */
  int                 n_dead;
  double              t0;
  char              **temps;    /* each writer's temporary file, or "" */
  mode_t              file_mode;
};

/* ---- time and messages -------------------------------------------------- */

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One line on stderr, written whole, over the progress line if shown.
 * Call with b->lock held.  */
static void
say_locked (Batch *b, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

static void
say_locked (Batch *b, const char *format, ...)
{
  char line[1536];
  va_list args;
  int n;

  n = snprintf (line, sizeof line, "%s" PROGRAM ": ",
                b->progress_shown ? "\r\033[K" : "");
  va_start (args, format);
  vsnprintf (line + n, sizeof line - n, format, args);
  va_end (args);
  fprintf (stderr, "%s\n", line);
  b->progress_shown = 0;
}

static void
draw_progress_locked (Batch *b)
{
  double elapsed = now_seconds () - b->t0;
  double rate = elapsed > 0.0 ? b->done / elapsed : 0.0;
  int left = b->n - b->done - b->failed;

  fprintf (stderr, "\r\033[K" PROGRAM ": %d/%d files", b->done + b->failed,
           b->n);
  if (b->failed)
    fprintf (stderr, " (%d failed)", b->failed);
  if (b->done > 0)
    {
      double eta = rate > 0.0 ? left / rate : 0.0;

      fprintf (stderr, ", %.2f photos/s, %d:%02d left", rate,
               (int) (eta / 60.0), (int) eta % 60);
    }
  fflush (stderr);
  b->progress_shown = 1;
}

/* ---- queues ------------------------------------------------------------- */

static int
queue_init (Queue *q, int capacity, const atomic_int *stop)
{
  memset (q, 0, sizeof *q);
  q->items = calloc ((size_t) capacity, sizeof *q->items);
  if (!q->items)
    return -1;
  q->capacity = capacity;
  q->stop = stop;
  pthread_mutex_init (&q->lock, NULL);
  pthread_cond_init (&q->not_empty, NULL);
  pthread_cond_init (&q->not_full, NULL);
  return 0;
}

static void
queue_destroy (Queue *q)
{
  free (q->items);
  pthread_mutex_destroy (&q->lock);
  pthread_cond_destroy (&q->not_empty);
  pthread_cond_destroy (&q->not_full);
}

/* Waits for room; returns -1 when the batch was stopped.  */
static int
queue_push (Queue *q, Job *job)
{
  int status = 0;

  pthread_mutex_lock (&q->lock);
  while (q->count == q->capacity && !atomic_load (q->stop))
    pthread_cond_wait (&q->not_full, &q->lock);
  if (atomic_load (q->stop))
    status = -1;
  else
    {
      q->items[(q->head + q->count) % q->capacity] = job;
      q->count++;
      pthread_cond_signal (&q->not_empty);
    }
  pthread_mutex_unlock (&q->lock);
  return status;
}

/* Waits for a job; NULL when the queue is closed and empty, or the batch
 * was stopped.  */
static Job *
queue_pop (Queue *q)
{
  Job *job = NULL;

  pthread_mutex_lock (&q->lock);
  while (q->count == 0 && !q->closed && !atomic_load (q->stop))
    pthread_cond_wait (&q->not_empty, &q->lock);
  if (q->count > 0 && !atomic_load (q->stop))
    {
      job = q->items[q->head];
      q->head = (q->head + 1) % q->capacity;
      q->count--;
      pthread_cond_signal (&q->not_full);
    }
  pthread_mutex_unlock (&q->lock);
  return job;
}

/* No more jobs will come; also wakes every waiter after a stop.  */
static void
queue_close (Queue *q, int close)
{
  pthread_mutex_lock (&q->lock);
  if (close)
    q->closed = 1;
  pthread_cond_broadcast (&q->not_empty);
  pthread_cond_broadcast (&q->not_full);
  pthread_mutex_unlock (&q->lock);
}

/* ---- the end of a job --------------------------------------------------- */

static void
job_failed (Batch *b, Job *job, const char *error)
{
  image_free (&job->in);
  image_free (&job->out);
  pthread_mutex_lock (&b->lock);
  /* After a stop, the files cut short are not failures of their own.  */
  if (!atomic_load (&b->stop))
    {
      b->failed++;
      say_locked (b, "%s", error);
    }
  pthread_cond_broadcast (&b->changed);
  pthread_mutex_unlock (&b->lock);
}

static void
job_done (Batch *b, Job *job)
{
  const BatchOptions *opt = b->opt;

  pthread_mutex_lock (&b->lock);
  b->done++;
  b->sum_read += job->t_read;
  b->sum_measure += job->t_measure;
  b->sum_engine += job->t_engine;
  b->sum_phase[0] += job->report.seconds_phase[0];
  b->sum_phase[1] += job->report.seconds_phase[1];
  b->sum_write += job->t_write;
  b->n_timed++;
  if (opt->verbose)
    {
      char where[32] = "";
      char startup[48] = "";
      char measure[48] = "";

      if (job->report.backend_used == BM3D_BACKEND_CUDA)
        snprintf (where, sizeof where, " on device %d", job->device);
      /* The first file on a device waits for its context.  */
      if (job->report.seconds_startup >= 0.0005)
        snprintf (startup, sizeof startup, " (start-up wait %.3f s)",
                  job->report.seconds_startup);
      if (job->has_profile)
        snprintf (measure, sizeof measure, ", noise measured %.3f s",
                  job->t_measure);
      char line[PATH_MAX + 256];
      bm3d_params p = opt->params;

      p.sigma = job->sigma;
      cli_run_line (line, sizeof line, job->input, &job->out, job->depth,
                    &p, opt->estimate_sigma, job->report.backend_used);
      say_locked (b, "%s%s: read %.3f s%s, engine %.3f s%s, write %.3f s",
                  line, where, job->t_read, measure, job->t_engine, startup,
                  job->t_write);
    }
  pthread_cond_broadcast (&b->changed);
  pthread_mutex_unlock (&b->lock);
  image_free (&job->out);
}

/* ---- readers ------------------------------------------------------------ */

/* The engine's progress callback: stop when the batch is stopped.  */
static int
engine_cancel (double fraction, void *data)
{
  Batch *b = data;

  (void) fraction;
  return atomic_load (&b->stop) != 0;
}

/* Camera noise with no profile given, measured here rather than by the
 * engine worker: on a device the workers set the pace, and the measure
 * (the estimate on the reader's share of the cores, from a float copy
 * of an 8- or 16-bit file's integers) then runs beside them, as the
 * reading does.  The profile is the one a single file's run estimates
 * (bm3d_estimate_noise_profile (), bit for bit on any backend and
 * thread count), so each result and notice are that run's.  When it
 * cannot be measured here (out of memory, a size the estimate refuses)
 * the worker's engine measures it as before, and says why it fails.  */
static void
measure_noise (Batch *b, Job *job)
{
  bm3d_params p = b->opt->params;
  bm3d_image view = engine_view (&job->in);
  float *copy = NULL;
  double t = now_seconds ();

  job->has_profile = 0;
  if (p.noise != BM3D_NOISE_PROFILE || p.profile)
    return;
  if (job->in.samples != IMAGE_SAMPLES_FLOAT
      && !(view.data = copy = image_float_copy (&job->in)))
    return;
  p.backend = BM3D_BACKEND_CPU;
  p.threads = b->reader_threads;
  p.progress = engine_cancel;
  p.progress_data = b;
  job->has_profile = bm3d_estimate_noise_profile (&view, &p, &job->profile,
                                                  &job->measured) == BM3D_OK;
  free (copy);
  job->t_measure = now_seconds () - t;
}

static void *
reader_main (void *arg)
{
  Stage *stage = arg;
  Batch *b = stage->batch;
  char error[1024];

  while (!atomic_load (&b->stop))
    {
      int i = atomic_fetch_add (&b->next, 1);
      Job *job;
      double t;

      if (i >= b->n)
        break;
      job = &b->jobs[i];
      if (job->error)
        {
          job_failed (b, job, job->error);
          continue;
        }
      t = now_seconds ();
      if ((b->integer_io
           ? image_read_native (job->input, &job->in, error, sizeof error)
           : image_read (job->input, &job->in, error, sizeof error)) < 0
          || image_check_size_for (job->output, job->format,
                                   job->in.width, job->in.height, error,
                                   sizeof error) < 0)
        {
          job_failed (b, job, error);
          continue;
        }
      image_read_notes (job->input, &job->in, error, sizeof error);
      if (error[0])
        {
          pthread_mutex_lock (&b->lock);
          say_locked (b, "%s", error);
          pthread_mutex_unlock (&b->lock);
        }
      /* The result's memory too, touched here so that its page faults
       * are not paid by the engine worker, which sets the pace.  */
      if (cli_alloc_output (&job->in, &job->out,
                            cli_output_depth (b->opt->depth, &job->in,
                                              job->format),
                            error, sizeof error) < 0)
        {
          job_failed (b, job, error);
          continue;
        }
      memset (job->out.data ? (void *) job->out.data : job->out.pixels, 0,
              (size_t) job->out.width * job->out.height * job->out.channels
              * image_sample_size (job->out.samples));
      job->t_read = now_seconds () - t;
      job->depth = job->in.depth;
      measure_noise (b, job);
      if (queue_push (&b->to_engine, job) < 0)
        break;
    }
  pthread_mutex_lock (&b->lock);
  if (--b->readers_left == 0)
    queue_close (&b->to_engine, 1);
  pthread_mutex_unlock (&b->lock);
  return NULL;
}

/* ---- engine workers ----------------------------------------------------- */

/* The reader allocated job->out.  */
static bm3d_status
denoise_job (Batch *b, const bm3d_params *params, Job *job, char *error,
             size_t error_len)
{
  bm3d_image in_view;
  bm3d_params p = *params;
  bm3d_status status;

  in_view = engine_view (&job->in);
  if (b->opt->estimate_sigma)
    {
      float sigma;

      status = bm3d_estimate_sigma (&in_view, &p, &sigma, &job->report);
      if (status != BM3D_OK)
        {
          snprintf (error, error_len, "%s: cannot estimate the noise level: "
                    "%s", job->input, job->report.message[0]
                    ? job->report.message : bm3d_status_string (status));
          return status;
        }
      /* A clean image estimates to (almost) nothing: still denoise, at
       * the least level the engine takes.  */
      p.sigma = sigma > 0.1f ? sigma : 0.1f;
    }
  if (job->has_profile)
    p.profile = &job->profile;
  job->sigma = p.sigma;
  /* As for a single file: values all within 0..255 were clipped, as
   * integers always are.  */
  p.clipped = job->in.samples != IMAGE_SAMPLES_FLOAT
              || bm3d_image_within_range (&in_view);
  status = cli_denoise (&job->in, &job->out,
                        cli_output_depth (b->opt->depth, &job->in,
                                          job->format), &p, &job->report);
  if (status != BM3D_OK)
    snprintf (error, error_len, "%s: %s", job->input,
              job->report.message[0] ? job->report.message
                                     : bm3d_status_string (status));
  return status;
}

/* ---- devices that fail -------------------------------------------------- */

static int
device_dead_locked (const Batch *b, int device)
{
  for (int i = 0; i < b->n_dead; i++)
    if (b->dead[i] == device)
      return 1;
  return 0;
}

/* The device for a worker's next file: its own while it works, else
 * another worker's that works; -1 when every one has failed.  */
static int
pick_device (Batch *b, int own)
{
  int device = -1;

  pthread_mutex_lock (&b->lock);
  if (!device_dead_locked (b, own))
    device = own;
  for (int i = 0; device < 0 && i < b->n_workers; i++)
    if (!device_dead_locked (b, b->workers[i].device))
      device = b->workers[i].device;
  pthread_mutex_unlock (&b->lock);
  return device;
}

/* No file goes to `device` again.  */
static void
mark_dead (Batch *b, int device)
{
  pthread_mutex_lock (&b->lock);
  if (!device_dead_locked (b, device) && b->n_dead < BATCH_MAX_DEVICES)
    b->dead[b->n_dead++] = device;
  pthread_mutex_unlock (&b->lock);
}

/* The report of a file whose device failed, redone on `device` (-1:
 * the CPU): the message the worker tells once.  A device that was
 * never usable is told as the engine's fall-back tells it, on request
 * only.  */
static void
note_redone (Job *job, int failed, bm3d_status why, const char *message,
             int device)
{
  char where[32];

  if (device >= 0)
    snprintf (where, sizeof where, "device %d", device);
  else
    snprintf (where, sizeof where, "the CPU");
  job->report.fell_back = why == BM3D_ERR_BACKEND_UNAVAILABLE
                          ? BM3D_FALLBACK_UNAVAILABLE
                          : device >= 0 ? BM3D_FALLBACK_DEVICE
                                        : BM3D_FALLBACK_FAILED;
  snprintf (job->report.message, sizeof job->report.message,
            "CUDA device %d failed (%.150s); its file was redone on %s",
            failed, message, where);
}

/* A file on a worker that holds a device: on that device while it
 * works, else on another worker's; under "auto", on the CPU when none
 * is left (or when the device's memory was short, as the engine's own
 * fall-back does).  A device that fails is used by no file after.  */
static bm3d_status
denoise_on_device (Batch *b, const Stage *stage, const bm3d_params *params,
                   Job *job, char *error, size_t error_len)
{
  const int may_cpu = params->backend == BM3D_BACKEND_AUTO;
  bm3d_params p = *params;
  char first[sizeof job->report.message] = "";
  bm3d_status status, why = BM3D_OK;
  int failed = -1, device;

  for (;;)
    {
      device = pick_device (b, stage->device);
      if (device < 0 && !may_cpu && failed >= 0)
        return why;             /* `error` says why, from the last try */
      if (device < 0 && !may_cpu)
        {
          snprintf (error, error_len, "%s: every CUDA device has failed",
                    job->input);
          return BM3D_ERR_BACKEND_UNAVAILABLE;
        }
      p.device = device >= 0 ? device : 0;
      p.backend = device >= 0 ? BM3D_BACKEND_CUDA : BM3D_BACKEND_CPU;
      job->device = device;
      status = denoise_job (b, &p, job, error, error_len);
      if (device < 0 || (status != BM3D_ERR_BACKEND_FAILED
                         && status != BM3D_ERR_BACKEND_UNAVAILABLE
                         && status != BM3D_ERR_OUT_OF_MEMORY))
        break;
      if (failed < 0)
        {
          failed = device;
          why = status;
          memcpy (first, job->report.message, sizeof first);
        }
      if (status == BM3D_ERR_OUT_OF_MEMORY)
        {
          /* Too large for the device, not a device that failed.  */
          if (!may_cpu)
            return status;
          p.backend = BM3D_BACKEND_CPU;
          job->device = device = -1;
          status = denoise_job (b, &p, job, error, error_len);
          break;
        }
      mark_dead (b, device);
    }
  if (status == BM3D_OK && failed >= 0)
    note_redone (job, failed, why, first, device);
  return status;
}

static void *
worker_main (void *arg)
{
  Stage *stage = arg;
  Batch *b = stage->batch;
  bm3d_params params = b->opt->params;
  char error[1024];
  Job *job;

  params.device = stage->device;
  /* One device a file: the batch spreads its files, not their tiles.  */
  params.n_devices = 0;
  params.devices = NULL;
  params.threads = b->worker_threads;
  params.progress = engine_cancel;
  params.progress_data = b;
  while ((job = queue_pop (&b->to_engine)))
    {
      double t = now_seconds ();
      int measured;

      job->worker = stage->index;
      job->device = stage->device;
      if ((b->cuda_workers
           ? denoise_on_device (b, stage, &params, job, error, sizeof error)
           : denoise_job (b, &params, job, error, sizeof error)) != BM3D_OK)
        {
          job_failed (b, job, error);
          continue;
        }
      job->t_engine = now_seconds () - t;
      /* A GPU that failed is news, once; a machine without one is told
       * only on request.  */
      if (job->report.message[0]
          && (job->report.fell_back == BM3D_FALLBACK_FAILED
              || job->report.fell_back == BM3D_FALLBACK_DEVICE
              || (job->report.fell_back && b->opt->verbose)))
        {
          pthread_mutex_lock (&b->lock);
          if (!b->fallback_told)
            say_locked (b, "%s", job->report.message);
          b->fallback_told = 1;
          pthread_mutex_unlock (&b->lock);
        }
      /* Camera noise that could not be measured, and what the filter
       * did instead: as a single file's run says it, what the estimate
       * found, then what the filter did.  */
      measured = job->has_profile && job->measured.noise_unmeasured;
      if (measured || job->report.noise_unmeasured)
        {
          pthread_mutex_lock (&b->lock);
          if (measured)
            say_locked (b, "%s: %s", job->input, job->measured.notice);
          if (job->report.noise_unmeasured)
            say_locked (b, "%s: %s", job->input, job->report.notice);
          pthread_mutex_unlock (&b->lock);
        }
      /* The metadata goes with the result; the input is done with.  */
      job->out.meta = job->in.meta;
      memset (&job->in.meta, 0, sizeof job->in.meta);
      image_free (&job->in);
      if (queue_push (&b->to_writer, job) < 0)
        break;
    }
  pthread_mutex_lock (&b->lock);
  if (--b->workers_left == 0)
    queue_close (&b->to_writer, 1);
  pthread_mutex_unlock (&b->lock);
  return NULL;
}

/* ---- writers ------------------------------------------------------------ */

static void
set_temp (Batch *b, int writer, const char *path)
{
  pthread_mutex_lock (&b->lock);
  snprintf (b->temps[writer], PATH_MAX, "%s", path ? path : "");
  pthread_mutex_unlock (&b->lock);
}

/* The writer's temporary file, for the signal thread.  */
static void
note_temp (const char *temp, void *data)
{
  Stage *stage = data;

  set_temp (stage->batch, stage->index, temp);
}

/* Writes the job's result to a temporary file beside its output and
 * renames it into place.  */
static int
write_job (Stage *stage, Job *job, char *error, size_t error_len)
{
  Batch *b = stage->batch;
  const BatchOptions *opt = b->opt;
  ImageWriteOptions options = opt->write;

  options.depth = cli_output_depth (opt->depth, &job->out, job->format);
  options.cancel = &b->stop;
  /* The writers share the cores a single write would take.  */
  if (options.threads == 0)
    {
      long cores = sysconf (_SC_NPROCESSORS_ONLN);

      options.threads = cores > b->n_writers ? (int) cores / b->n_writers : 1;
    }
  return output_file_write (job->output, job->format, &job->out, &options,
                            b->file_mode, note_temp, stage, error,
                            error_len);
}

static void *
writer_main (void *arg)
{
  Stage *stage = arg;
  Batch *b = stage->batch;
  char error[PATH_MAX + 1200];
  Job *job;

  while ((job = queue_pop (&b->to_writer)))
    {
      double t = now_seconds ();

      if (write_job (stage, job, error, sizeof error) < 0)
        {
          job_failed (b, job, error);
          continue;
        }
      job->t_write = now_seconds () - t;
      job_done (b, job);
    }
  return NULL;
}

/* ---- signals ------------------------------------------------------------ */

static void
signal_set (sigset_t *set)
{
  sigemptyset (set);
  sigaddset (set, SIGINT);
  sigaddset (set, SIGTERM);
  sigaddset (set, SIGHUP);
}

static void *
signal_main (void *arg)
{
  Batch *b = arg;
  sigset_t set;
  int sig;

  signal_set (&set);
  for (;;)
    {
      if (sigwait (&set, &sig) != 0)
        continue;
      if (!atomic_load (&b->stop))
        {
          atomic_store (&b->stop, sig);
          queue_close (&b->to_engine, 0);
          queue_close (&b->to_writer, 0);
          pthread_mutex_lock (&b->lock);
          pthread_cond_broadcast (&b->changed);
          pthread_mutex_unlock (&b->lock);
          continue;
        }
      /* Asked twice: no waiting for the threads.  */
      pthread_mutex_lock (&b->lock);
      for (int i = 0; i < b->n_writers; i++)
        if (b->temps[i][0])
          unlink (b->temps[i]);
      pthread_mutex_unlock (&b->lock);
      _exit (128 + sig);
    }
  return NULL;
}

/* ---- planning ----------------------------------------------------------- */

/* Gives every job its output path, or the reason it cannot be done:
 * an unknown format, an output that is an input of the batch, or an
 * output that another input of the batch also gets.  */
static int
plan_jobs (Batch *b, char *const *files)
{
  const BatchOptions *opt = b->opt;
  FileId *inputs = calloc ((size_t) b->n, sizeof *inputs);
  OutputKey *keys = calloc ((size_t) b->n, sizeof *keys);
  int n_inputs = 0, status = -1;
  char error[1024];

  if (!inputs || !keys)
    goto done;
  for (int i = 0; i < b->n; i++)
    {
      struct stat st;

      if (stat (files[i], &st) == 0)
        {
          inputs[n_inputs].dev = st.st_dev;
          inputs[n_inputs].ino = st.st_ino;
          inputs[n_inputs].index = i;
          n_inputs++;
        }
    }
  qsort (inputs, (size_t) n_inputs, sizeof *inputs, compare_file_ids);

  for (int i = 0; i < b->n; i++)
    {
      Job *job = &b->jobs[i];
      struct stat st;

      job->input = files[i];
      job->output = output_path (opt, files[i]);
      keys[i].index = i;
      keys[i].key = job->output ? output_key (job->output) : NULL;
      if (!job->output || !keys[i].key)
        goto done;
      job->format = image_format_for_path (files[i]);
      if (image_check_path (files[i], error, sizeof error) < 0)
        job->error = strdup (error);
      else if (stat (job->output, &st) == 0)
        {
          const FileId *hit = find_input (inputs, n_inputs, st.st_dev,
                                          st.st_ino);

          if (hit && hit->index == i)
            job->error = format_string ("%s: the output would overwrite the "
                                        "input (give --suffix or another "
                                        "-o folder)", files[i]);
          else if (hit)
            job->error = format_string ("%s: its output %s is another input "
                                        "of this batch (%s); not "
                                        "overwritten", files[i], job->output,
                                        files[hit->index]);
        }
    }

  /* Sorted by key, then by position: the first of a run of equal
   * keys is the input that keeps the output.  */
  qsort (keys, (size_t) b->n, sizeof *keys, compare_output_keys);
  for (int k = 1, first = 0; k < b->n; k++)
    {
      Job *job = &b->jobs[keys[k].index];

      if (strcmp (keys[k].key, keys[first].key) != 0)
        {
          first = k;
          continue;
        }
      if (!job->error)
        job->error = format_string ("%s: its output %s is also the output "
                                    "of %s; skipped", job->input,
                                    job->output, files[keys[first].index]);
    }
  status = 0;

done:
  if (keys)
    for (int i = 0; i < b->n; i++)
      free (keys[i].key);
  free (keys);
  free (inputs);
  if (status < 0)
    fprintf (stderr, PROGRAM ": out of memory\n");
  return status;
}

/* How many readers, engine workers and writers, and on which devices.  */
static int
plan_stages (Batch *b)
{
  const BatchOptions *opt = b->opt;
  long cores = sysconf (_SC_NPROCESSORS_ONLN);
  int io = opt->io_threads;
  int visible = opt->params.backend == BM3D_BACKEND_CPU
                ? 0 : bm3d_cuda_device_count ();

  if (io <= 0)
    {
      io = cores > 1 ? (int) (cores / 2) : 1;
      if (io > 8)
        io = 8;
    }
  b->n_readers = b->n_writers = io;
  b->reader_threads = cores > io ? (int) (cores / io) : 1;

  if (opt->params.backend == BM3D_BACKEND_CUDA && visible == 0)
    {
      char why[200] = "";

      bm3d_cuda_available (why, sizeof why);
      fprintf (stderr, PROGRAM ": --backend cuda: no usable CUDA device%s%s\n",
               why[0] ? ": " : "", why);
      return -1;
    }
  for (int i = 0; i < opt->n_devices; i++)
    if (visible > 0 && opt->devices[i] >= visible)
      {
        fprintf (stderr, PROGRAM ": --devices: there is no CUDA device %d "
                 "(%d visible)\n", opt->devices[i], visible);
        return -1;
      }
  if (visible == 0)
    b->n_workers = 1;           /* the CPU: one worker, every core     */
  else
    b->n_workers = (opt->n_devices ? opt->n_devices : visible)
                   * (opt->per_device > 0 ? opt->per_device
                                          : BATCH_PER_DEVICE);

  b->readers = calloc ((size_t) b->n_readers, sizeof *b->readers);
  b->workers = calloc ((size_t) b->n_workers, sizeof *b->workers);
  b->writers = calloc ((size_t) b->n_writers, sizeof *b->writers);
  b->temps = calloc ((size_t) b->n_writers, sizeof *b->temps);
  if (!b->readers || !b->workers || !b->writers || !b->temps)
    {
      fprintf (stderr, PROGRAM ": out of memory\n");
      return -1;
    }
  for (int i = 0; i < b->n_writers; i++)
    if (!(b->temps[i] = calloc (PATH_MAX, 1)))
      {
        fprintf (stderr, PROGRAM ": out of memory\n");
        return -1;
      }
  /* Estimating the noise level takes floats.  */
  b->integer_io = cli_integer_io () && !opt->estimate_sigma;
  /* GPU workers share the cores for the engine's host-side work.  */
  b->worker_threads = opt->params.threads;
  if (visible > 0 && b->worker_threads == 0)
    {
      long share = cores / b->n_workers;

      b->worker_threads = share > 1 ? (int) share : 1;
    }
  b->cuda_workers = visible > 0;
  /* Round robin, so that the first files go to different devices.  */
  for (int i = 0; i < b->n_workers; i++)
    {
      int n = opt->n_devices ? opt->n_devices : visible;

      b->workers[i].device = visible == 0 ? opt->params.device
                             : opt->n_devices ? opt->devices[i % n] : i % n;
    }
  return 0;
}

static int
start_stage (Batch *b, Stage *stages, int n, void *(*run) (void *))
{
  for (int i = 0; i < n; i++)
    {
      stages[i].batch = b;
      stages[i].index = i;
      if (pthread_create (&stages[i].thread, NULL, run, &stages[i]) != 0)
        return -1;
      stages[i].started = 1;
    }
  return 0;
}

static void
join_stage (Stage *stages, int n)
{
  for (int i = 0; i < n; i++)
    if (stages[i].started)
      pthread_join (stages[i].thread, NULL);
}

static void
print_summary (Batch *b, double elapsed)
{
  const BatchOptions *opt = b->opt;
  int n = b->n_timed;

  pthread_mutex_lock (&b->lock);
  if (b->failed)
    say_locked (b, "%d of %d files done, %d failed (%.1f s)", b->done, b->n,
                b->failed, elapsed);
  else
    say_locked (b, "%d files done in %.1f s, %.2f photos/s", b->done,
                elapsed, elapsed > 0.0 ? b->done / elapsed : 0.0);
  if (opt->verbose && n > 0)
    {
      double other = (b->sum_engine - b->sum_phase[0] - b->sum_phase[1]) / n;
      char measure[48] = "";

      if (b->sum_measure > 0.0)
        snprintf (measure, sizeof measure, ", noise measured %.3f s",
                  b->sum_measure / n);
      say_locked (b, "per photo: read %.3f s%s, engine %.3f s (phase 1 %.3f "
                  "s, phase 2 %.3f s, set-up and transfers %.3f s), write "
                  "%.3f s", b->sum_read / n, measure, b->sum_engine / n,
                  b->sum_phase[0] / n, b->sum_phase[1] / n,
                  other > 0.0 ? other : 0.0, b->sum_write / n);
      char devices[256] = "";
      size_t used = 0;

      for (int i = 0; i < b->n_workers && used + 16 < sizeof devices; i++)
        used += (size_t) snprintf (devices + used, sizeof devices - used,
                                   "%s%d", i ? "," : "",
                                   b->workers[i].device);
      say_locked (b, "stages: %d readers, %d engine workers (%s; devices "
                  "%s), %d writers", b->n_readers, b->n_workers,
                  bm3d_backend_name (opt->params.backend), devices,
                  b->n_writers);
    }
  pthread_mutex_unlock (&b->lock);
}

/* ---- the batch ---------------------------------------------------------- */

static void
free_batch (Batch *b)
{
  for (int i = 0; i < b->n; i++)
    {
      image_free (&b->jobs[i].in);
      image_free (&b->jobs[i].out);
      free (b->jobs[i].output);
      free (b->jobs[i].error);
    }
  if (b->temps)
    for (int i = 0; i < b->n_writers; i++)
      free (b->temps[i]);
  free (b->temps);
  free (b->jobs);
  free (b->readers);
  free (b->workers);
  free (b->writers);
}

static int
check_output_dir (const char *dir)
{
  struct stat st;

  if (stat (dir, &st) != 0)
    {
      fprintf (stderr, PROGRAM ": %s: cannot use as the output folder: %s\n",
               dir, strerror (errno));
      return -1;
    }
  if (!S_ISDIR (st.st_mode))
    {
      fprintf (stderr, PROGRAM ": %s: the output folder is not a folder\n",
               dir);
      return -1;
    }
  if (access (dir, W_OK | X_OK) != 0)
    {
      fprintf (stderr, PROGRAM ": %s: cannot write into the output folder: "
               "%s\n", dir, strerror (errno));
      return -1;
    }
  return 0;
}

int
batch_run (const BatchOptions *opt, char *const *files, int n_files)
{
  Batch b;
  sigset_t set, old;
  pthread_t signals;
  int signals_started = 0, status = 1, sig;
  double elapsed;

  memset (&b, 0, sizeof b);
  b.opt = opt;
  b.n = n_files;
  atomic_init (&b.next, 0);
  atomic_init (&b.stop, 0);
  pthread_mutex_init (&b.lock, NULL);
  pthread_cond_init (&b.changed, NULL);
  b.file_mode = output_file_new_mode ();
  b.progress = opt->progress < 0 ? isatty (STDERR_FILENO) : opt->progress;

  if (opt->output_dir && check_output_dir (opt->output_dir) < 0)
    return 1;
  b.jobs = calloc ((size_t) n_files, sizeof *b.jobs);
  if (!b.jobs || plan_jobs (&b, files) < 0 || plan_stages (&b) < 0)
    {
      free_batch (&b);
      return 1;
    }
  b.readers_left = b.n_readers;
  b.workers_left = b.n_workers;
  if (queue_init (&b.to_engine, b.n_workers, &b.stop) < 0
      || queue_init (&b.to_writer, b.n_workers, &b.stop) < 0)
    {
      fprintf (stderr, PROGRAM ": out of memory\n");
      free_batch (&b);
      return 1;
    }

  /* Signals go to one thread, which stops the others cleanly.  */
  signal_set (&set);
  pthread_sigmask (SIG_BLOCK, &set, &old);
  if (pthread_create (&signals, NULL, signal_main, &b) == 0)
    signals_started = 1;

  b.t0 = now_seconds ();
  if (start_stage (&b, b.writers, b.n_writers, writer_main) < 0
      || start_stage (&b, b.workers, b.n_workers, worker_main) < 0
      || start_stage (&b, b.readers, b.n_readers, reader_main) < 0)
    {
      /* Stop whatever started, as a signal would.  */
      fprintf (stderr, PROGRAM ": cannot start threads\n");
      atomic_store (&b.stop, -1);
      queue_close (&b.to_engine, 1);
      queue_close (&b.to_writer, 1);
    }

  /* The main thread draws the progress line until every file is done or
   * the batch is stopped.  */
  pthread_mutex_lock (&b.lock);
  while (b.done + b.failed < b.n && !atomic_load (&b.stop))
    {
      struct timespec until;

      if (b.progress)
        draw_progress_locked (&b);
      clock_gettime (CLOCK_REALTIME, &until);
      until.tv_nsec += (long) (PROGRESS_PERIOD * 1e9);
      if (until.tv_nsec >= 1000000000L)
        {
          until.tv_sec++;
          until.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (&b.changed, &b.lock, &until);
    }
  if (b.progress && !atomic_load (&b.stop))
    draw_progress_locked (&b);
  pthread_mutex_unlock (&b.lock);

  join_stage (b.readers, b.n_readers);
  join_stage (b.workers, b.n_workers);
  join_stage (b.writers, b.n_writers);
  elapsed = now_seconds () - b.t0;
  if (signals_started)
    {
      pthread_cancel (signals);
      pthread_join (signals, NULL);
    }

  sig = atomic_load (&b.stop);
  if (sig > 0)
    {
      pthread_mutex_lock (&b.lock);
      say_locked (&b, "interrupted: %d of %d files done; no partial file "
                  "left", b.done, b.n);
      pthread_mutex_unlock (&b.lock);
    }
  else
    {
      if (b.failed || opt->verbose || b.progress)
        print_summary (&b, elapsed);
      status = b.failed || sig ? 1 : 0;
    }
  queue_destroy (&b.to_engine);
  queue_destroy (&b.to_writer);
  free_batch (&b);
  pthread_mutex_destroy (&b.lock);
  pthread_cond_destroy (&b.changed);

  if (sig > 0)
    {
      /* Die of the signal, as the caller (a shell, xargs) expects.  */
      signal (sig, SIG_DFL);
      pthread_sigmask (SIG_SETMASK, &old, NULL);
      raise (sig);
      return 128 + sig;
    }
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  return status;
}

