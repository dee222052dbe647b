/* The engine's dispatcher: checks the call, picks the backend, falls back
 * from CUDA to the CPU, and feeds the backend tile by tile in a planar,
 * colour-transformed form.  The algorithms live in their backends.  */
#include "config.h"

#include "engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Width and height above this are refused: the engine indexes pixels with
 * int and a plane with size_t, and no photograph is this large.  */
#define BM3D_MAX_SIDE   (1 << 20)
#define BM3D_MAX_PIXELS ((size_t) 1 << 31)

void
bm3d_params_init (bm3d_params *params)
{
  memset (params, 0, sizeof *params);
  params->sigma = 25.0f;
  params->mode = BM3D_MODE_BM3D;
  params->backend = BM3D_BACKEND_AUTO;
}

const char *
bm3d_status_string (bm3d_status status)
{
  switch (status)
    {
    case BM3D_OK:                      return "success";
    case BM3D_ERR_INVALID_SIZE:        return "invalid image size";
    case BM3D_ERR_INVALID_STRIDE:      return "invalid row stride";
    case BM3D_ERR_INVALID_SIGMA:       return "invalid sigma";
    case BM3D_ERR_INVALID_ARGUMENT:    return "invalid argument";
    case BM3D_ERR_OUT_OF_MEMORY:       return "out of memory";
    case BM3D_ERR_CANCELLED:           return "cancelled";
    case BM3D_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case BM3D_ERR_BACKEND_FAILED:      return "backend failed";
    case BM3D_ERR_NOT_IMPLEMENTED:     return "not implemented";
    }
  return "unknown error";
}

static const char *const mode_names[] = { "bm3d", "bm3d-fast", "nlm", "isoline" };
static const char *const backend_names[] = { "auto", "cpu", "cuda" };

const char *
bm3d_mode_name (bm3d_mode mode)
{
  return (unsigned) mode < 4 ? mode_names[mode] : "unknown";
}

const char *
bm3d_backend_name (bm3d_backend backend)
{
  return (unsigned) backend < 3 ? backend_names[backend] : "unknown";
}

static int
parse_name (const char *name, const char *const *names, int n)
{
  for (int i = 0; name && i < n; i++)
    if (strcmp (name, names[i]) == 0)
      return i;
  return -1;
}

int
bm3d_mode_parse (const char *name)
{
  return parse_name (name, mode_names, 4);
}

int
bm3d_backend_parse (const char *name)
{
  return parse_name (name, backend_names, 3);
}

double
bm3d_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void
bm3d_job_message (bm3d_job *job, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  vsnprintf (job->report->message, sizeof job->report->message, format, args);
  va_end (args);
}

void
bm3d_job_note_host_bytes (bm3d_job *job, size_t bytes)
{
  if (bytes > job->report->peak_host_bytes)
    job->report->peak_host_bytes = bytes;
}

void *
bm3d_alloc (bm3d_job *job, size_t bytes)
{
  /* 64-byte alignment: whole cache lines, and aligned vector loads.  */
  size_t rounded = (bytes + 63) & ~(size_t) 63;
  void  *ptr = rounded ? aligned_alloc (64, rounded) : NULL;

  if (ptr)
    {
      job->host_bytes_now += rounded;
      bm3d_job_note_host_bytes (job, job->host_bytes_now);
    }
  return ptr;
}

void
bm3d_free (bm3d_job *job, void *ptr, size_t bytes)
{
  if (!ptr)
    return;
  job->host_bytes_now -= (bytes + 63) & ~(size_t) 63;
  free (ptr);
}

/* ---- validation ------------------------------------------------------ */

static bm3d_status
check_image (const bm3d_image *img, const char *what, bm3d_job *job)
{
  int colour;

  if (!img || !img->data)
    {
      bm3d_job_message (job, "%s image is missing", what);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (img->width < 1 || img->height < 1
      || img->width > BM3D_MAX_SIDE || img->height > BM3D_MAX_SIDE
      || (size_t) img->width * img->height > BM3D_MAX_PIXELS)
    {
      bm3d_job_message (job, "%s image size %dx%d is not supported "
                        "(1x1 up to %zu pixels)", what, img->width,
                        img->height, BM3D_MAX_PIXELS);
      return BM3D_ERR_INVALID_SIZE;
    }
  colour = img->channels - (img->has_alpha ? 1 : 0);
  if (img->channels < 1 || img->channels > 4 || (colour != 1 && colour != 3))
    {
      bm3d_job_message (job, "%s image has %d channel(s)%s; expected gray, "
                        "gray+alpha, RGB or RGBA", what, img->channels,
                        img->has_alpha ? " with alpha" : "");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (img->stride < (size_t) img->width * img->channels)
    {
      bm3d_job_message (job, "%s image row stride %zu is smaller than a row "
                        "(%zu values)", what, img->stride,
                        (size_t) img->width * img->channels);
      return BM3D_ERR_INVALID_STRIDE;
    }
  return BM3D_OK;
}

static bm3d_status
check_call (const bm3d_image *in, const bm3d_image *out,
            const bm3d_params *params, bm3d_job *job)
{
  bm3d_status status;

  if (!params)
    {
      bm3d_job_message (job, "parameters are missing");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = check_image (in, "input", job)) != BM3D_OK
      || (status = check_image (out, "output", job)) != BM3D_OK)
    return status;
  if (in->width != out->width || in->height != out->height
      || in->channels != out->channels || in->has_alpha != out->has_alpha)
    {
      bm3d_job_message (job, "output image must have the input's size and "
                        "channels");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (in->data == out->data)
    {
      bm3d_job_message (job, "output image must not be the input image");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (!isfinite (params->sigma) || params->sigma <= BM3D_SIGMA_MIN_EXCLUSIVE
      || params->sigma > BM3D_SIGMA_MAX)
    {
      bm3d_job_message (job, "sigma must be a number above 0 and at most 255 "
                        "(got %g)", (double) params->sigma);
      return BM3D_ERR_INVALID_SIGMA;
    }
  if ((unsigned) params->mode > BM3D_MODE_ISOLINE)
    {
      bm3d_job_message (job, "unknown mode %d", (int) params->mode);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((unsigned) params->backend > BM3D_BACKEND_CUDA)
    {
      bm3d_job_message (job, "unknown backend %d", (int) params->backend);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (params->threads < 0)
    {
      bm3d_job_message (job, "thread count must be 0 (all cores) or more");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  return BM3D_OK;
}

/* ---- tiling and colour ----------------------------------------------- */

/* Index into [0, n) mirrored at the edges (…2 1 0 | 0 1 2 … n-1 | n-1 …),
 * so images smaller than a patch are padded with their own pixels.  */
static int
mirror (int i, int n)
{
  int period = 2 * n;

  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - 1 - i;
}

void
bm3d_tile_rect_for (int width, int height, int side, int ix, int iy,
                    bm3d_tile_rect *t)
{
  t->cx0 = ix * side;
  t->cy0 = iy * side;
  t->cx1 = t->cx0 + side < width ? t->cx0 + side : width;
  t->cy1 = t->cy0 + side < height ? t->cy0 + side : height;
  t->x0 = t->cx0 - BM3D_TILE_MARGIN > 0 ? t->cx0 - BM3D_TILE_MARGIN : 0;
  t->y0 = t->cy0 - BM3D_TILE_MARGIN > 0 ? t->cy0 - BM3D_TILE_MARGIN : 0;
  t->x1 = t->cx1 + BM3D_TILE_MARGIN < width
          ? t->cx1 + BM3D_TILE_MARGIN : width;
  t->y1 = t->cy1 + BM3D_TILE_MARGIN < height
          ? t->cy1 + BM3D_TILE_MARGIN : height;
  /* A tile narrower than a patch can only come from a tiny image.  */
  if (t->x1 - t->x0 < BM3D_PATCH)
    t->x1 = t->x0 + BM3D_PATCH;
  if (t->y1 - t->y0 < BM3D_PATCH)
    t->y1 = t->y0 + BM3D_PATCH;
}

/* Colour-transform the tile's read rectangle of `in` into planes.  */
static void
extract_tile (const bm3d_image *in, const bm3d_tile_rect *t, bm3d_planes *p)
{
  int colour = p->channels;

  for (int y = t->y0; y < t->y1; y++)
    {
      const float *row = in->data + (size_t) mirror (y, in->height) * in->stride;
      size_t o = (size_t) (y - t->y0) * p->width;

      for (int x = t->x0; x < t->x1; x++, o++)
        {
          const float *px = row + (size_t) mirror (x, in->width) * in->channels;

          if (colour == 1)
            p->plane[0][o] = px[0];
          else
            for (int c = 0; c < 3; c++)
              p->plane[c][o] = bm3d_colour_fwd[c][0] * px[0]
                               + bm3d_colour_fwd[c][1] * px[1]
                               + bm3d_colour_fwd[c][2] * px[2];
        }
    }
}

/* Copy the tile's core from `p` into the whole-image planes `dst`.  */
static void
store_tile_core (const bm3d_planes *p, const bm3d_tile_rect *t, float **dst,
                 int width)
{
  for (int c = 0; c < p->channels; c++)
    for (int y = t->cy0; y < t->cy1; y++)
      memcpy (dst[c] + (size_t) y * width + t->cx0,
              p->plane[c] + (size_t) (y - t->y0) * p->width + (t->cx0 - t->x0),
              sizeof (float) * (t->cx1 - t->cx0));
}

/* Inverse colour transform into `out`; alpha copied bit-exact.  */
static void
write_output (const bm3d_image *in, bm3d_image *out, float **planes,
              int colour)
{
  for (int y = 0; y < in->height; y++)
    {
      const float *src = in->data + (size_t) y * in->stride;
      float *dst = out->data + (size_t) y * out->stride;

      for (int x = 0; x < in->width; x++)
        {
          size_t o = (size_t) y * in->width + x;
          float *px = dst + (size_t) x * out->channels;

          if (colour == 1)
            px[0] = planes[0][o];
          else
            for (int c = 0; c < 3; c++)
              px[c] = bm3d_colour_inv[c][0] * planes[0][o]
                      + bm3d_colour_inv[c][1] * planes[1][o]
                      + bm3d_colour_inv[c][2] * planes[2][o];
          if (in->has_alpha)
            memcpy (px + colour, src + (size_t) x * in->channels + colour,
                    sizeof (float));
        }
    }
}

static int
job_tick (bm3d_job *job, double tile_fraction)
{
  const bm3d_params *params = job->params;
  double f;

  if (!params->progress)
    return 0;
  if (tile_fraction < 0.0)
    tile_fraction = 0.0;
  if (tile_fraction > 1.0)
    tile_fraction = 1.0;
  f = job->tile_base + job->tile_share * tile_fraction;
  return params->progress (f, params->progress_data) != 0;
}

static void
free_planes (bm3d_job *job, float **planes, int n, size_t count)
{
  for (int c = 0; c < n; c++)
    {
      bm3d_free (job, planes[c], count * sizeof (float));
      planes[c] = NULL;
    }
}

static int
alloc_planes (bm3d_job *job, float **planes, int n, size_t count)
{
  for (int c = 0; c < n; c++)
    if (!(planes[c] = bm3d_alloc (job, count * sizeof (float))))
      {
        free_planes (job, planes, c, count);
        return 0;
      }
  return 1;
}

bm3d_status
bm3d_run_tiled (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
                bm3d_tile_func func, int tile_side)
{
  int colour = in->channels - (in->has_alpha ? 1 : 0);
  int side = tile_side - tile_side % 3;   /* keep the reference grid aligned */
  float *result[BM3D_MAX_CHANNELS] = { NULL };
  size_t image_px = (size_t) in->width * in->height;
  bm3d_status status = BM3D_OK;
  int tiles_x, tiles_y;

  if (side < 3 * BM3D_PATCH)
    side = 3 * BM3D_PATCH;
  tiles_x = (in->width + side - 1) / side;
  tiles_y = (in->height + side - 1) / side;

  if (!alloc_planes (job, result, colour, image_px))
    {
      bm3d_job_message (job, "out of memory for a %dx%d image",
                        in->width, in->height);
      return BM3D_ERR_OUT_OF_MEMORY;
    }

  for (int iy = 0; iy < tiles_y && status == BM3D_OK; iy++)
    for (int ix = 0; ix < tiles_x && status == BM3D_OK; ix++)
      {
        bm3d_planes noisy = { 0 }, denoised = { 0 };
        bm3d_tile_rect t;
        size_t n;

        bm3d_tile_rect_for (in->width, in->height, side, ix, iy, &t);
        noisy.width = denoised.width = t.x1 - t.x0;
        noisy.height = denoised.height = t.y1 - t.y0;
        noisy.channels = denoised.channels = colour;
        for (int c = 0; c < colour; c++)
          noisy.sigma[c] = denoised.sigma[c] = job->params->sigma
            * (colour == 3 ? bm3d_colour_noise_gain[c] : 1.0f);
        n = (size_t) noisy.width * noisy.height;

        job->tile_share = (double) (t.cx1 - t.cx0) * (t.cy1 - t.cy0) / image_px;
        if (job_tick (job, 0.0))
          {
            bm3d_job_message (job, "cancelled");
            status = BM3D_ERR_CANCELLED;
            break;
          }
        if (!alloc_planes (job, noisy.plane, colour, n)
            || !alloc_planes (job, denoised.plane, colour, n))
          {
            free_planes (job, noisy.plane, colour, n);
            bm3d_job_message (job, "out of memory for a %dx%d tile",
                              noisy.width, noisy.height);
            status = BM3D_ERR_OUT_OF_MEMORY;
            break;
          }
        extract_tile (in, &t, &noisy);
        status = func (&noisy, &denoised, job);
        if (status == BM3D_OK)
          store_tile_core (&denoised, &t, result, in->width);
        free_planes (job, noisy.plane, colour, n);
        free_planes (job, denoised.plane, colour, n);
        job->tile_base += job->tile_share;
      }

  if (status == BM3D_OK)
    {
      write_output (in, out, result, colour);
      /* tile_base is already 1 here: report exactly 1, not 1 + share.  */
      job->tile_base = 1.0;
      job->tile_share = 0.0;
      job_tick (job, 1.0);
    }
  free_planes (job, result, colour, image_px);
  return status;
}

/* ---- backends -------------------------------------------------------- */

static int
default_threads (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);

  return n > 0 ? (int) n : 1;
}

static bm3d_status
run_backend (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
             bm3d_backend backend)
{
  job->tile_base = 0.0;
  job->report->backend_used = backend;
  if (backend == BM3D_BACKEND_CUDA)
    {
      /* Whole image on the device when it fits: no tiling or colour
       * transform on the host.  */
      bm3d_status status = bm3d_cuda_image (in, out, job);

      if (status != BM3D_ERR_NOT_IMPLEMENTED)
        return status;
      return bm3d_run_tiled (in, out, job, bm3d_cuda_tile,
                             bm3d_cuda_tile_side (job));
    }
  return bm3d_run_tiled (in, out, job, bm3d_cpu_tile,
                         bm3d_cpu_tile_side (job));
}

/* CUDA faults that the CPU can recover from under backend "auto".  */
static int
cuda_error_recoverable (bm3d_status status)
{
  return status == BM3D_ERR_BACKEND_UNAVAILABLE
         || status == BM3D_ERR_BACKEND_FAILED
         || status == BM3D_ERR_OUT_OF_MEMORY;
}

static bm3d_status
denoise_bm3d (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
              bm3d_backend wanted)
{
  char why[200] = "";
  bm3d_status status;

  if (wanted == BM3D_BACKEND_CPU)
    return run_backend (in, out, job, BM3D_BACKEND_CPU);

  if (!bm3d_cuda_available (why, sizeof why))
    {
      if (wanted == BM3D_BACKEND_CUDA)
        {
          bm3d_job_message (job, "CUDA backend unavailable: %s", why);
          return BM3D_ERR_BACKEND_UNAVAILABLE;
        }
      /* Automatic: say once why the work ran on the CPU, so a user who
       * expected the GPU learns what is missing.  */
      status = run_backend (in, out, job, BM3D_BACKEND_CPU);
      if (status == BM3D_OK)
        {
          job->report->fell_back = BM3D_FALLBACK_UNAVAILABLE;
          bm3d_job_message (job, "CUDA unavailable (%s); denoised on the CPU",
                            why);
        }
      return status;
    }

  status = run_backend (in, out, job, BM3D_BACKEND_CUDA);
  if (wanted == BM3D_BACKEND_AUTO && cuda_error_recoverable (status))
    {
      char cuda_message[sizeof job->report->message];

      memcpy (cuda_message, job->report->message, sizeof cuda_message);
      job->report->seconds_phase[0] = job->report->seconds_phase[1] = 0.0;
      status = run_backend (in, out, job, BM3D_BACKEND_CPU);
      job->report->fell_back = BM3D_FALLBACK_FAILED;
      if (status == BM3D_OK)
        bm3d_job_message (job, "CUDA failed (%s); denoised on the CPU instead",
                          cuda_message);
    }
  return status;
}

bm3d_status
bm3d_denoise (const bm3d_image *in, bm3d_image *out,
              const bm3d_params *params, bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_status status;
  double start = bm3d_seconds ();

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  memset (&job, 0, sizeof job);
  job.report = report;
  job.params = params;
  job.tick = job_tick;

  status = check_call (in, out, params, &job);
  if (status != BM3D_OK)
    return status;

  job.threads = params->threads > 0 ? params->threads : default_threads ();
  job.channels = in->channels - (in->has_alpha ? 1 : 0);
  bm3d_profile_for_sigma (params->sigma, &job.profile);

  switch (params->mode)
    {
    case BM3D_MODE_BM3D:
    case BM3D_MODE_BM3D_FAST:
      job.phases = params->mode == BM3D_MODE_BM3D ? 2 : 1;
      status = denoise_bm3d (in, out, &job, params->backend);
      break;
    default:
      bm3d_job_message (&job, "mode \"%s\" is not implemented yet",
                        bm3d_mode_name (params->mode));
      status = BM3D_ERR_NOT_IMPLEMENTED;
      break;
    }
  report->seconds_total = bm3d_seconds () - start;
  return status;
}
