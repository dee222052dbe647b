/* BM3D Denoise — the command line: denoise image files with the engine
 * the GIMP plug-in uses, add synthetic noise, and measure PSNR.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Exit status: 0 success, 1 a runtime error (files, engine), 2 a usage
 * error.  Every error is one line on stderr starting "bm3d-denoise: ".  */
#include "config.h"

#include "batch.h"
#include "options.h"
#include "output_file.h"
#include "bm3d.h"
#include "image_io.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TWO_PI       6.28318530717958647692

/* ---- measurements ---------------------------------------------------- */

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
colour_channels (const Image *img)
{
  return img->channels - (img->has_alpha ? 1 : 0);
}

/* PSNR (peak 255) over the colour channels.  Returns 0, or -1 when the
 * images cannot be compared.  */
static int
image_psnr (const Image *a, const Image *b, double *psnr)
{
  int colour = colour_channels (a);
  size_t pixels = (size_t) a->width * a->height;
  double sum = 0.0;

  if (a->width != b->width || a->height != b->height
      || colour != colour_channels (b))
    return -1;
  for (size_t i = 0; i < pixels; i++)
    {
      const float *pa = a->data + i * a->channels;
      const float *pb = b->data + i * b->channels;

      for (int c = 0; c < colour; c++)
        {
          double d = (double) pa[c] - pb[c];

          sum += d * d;
        }
    }
  *psnr = psnr_of_squared_error (sum, pixels * colour);
  return 0;
}

static void
print_psnr_value (double psnr)
{
  if (isinf (psnr))
    printf ("inf");
  else
    printf ("%.2f dB", psnr);
}

static double
mebibytes (double bytes)
{
  return bytes / (1024.0 * 1024.0);
}

/* The CPU threads the engine runs on: --threads, or every core.  */
static int
cpu_threads (const Options *opt)
{
  long cores = sysconf (_SC_NPROCESSORS_ONLN);

  return opt->params.threads > 0 ? opt->params.threads
                                 : (int) (cores > 0 ? cores : 1);
}

static void
print_verbose (const Options *opt, const bm3d_params *params, const Image *in,
               const bm3d_report *report, double t_startup, double t_read,
               double t_write, double t_total)
{
  struct rusage usage;
  int threads = cpu_threads (opt);
  char line[PATH_MAX + 256];

  cli_run_line (line, sizeof line, opt->input, in, in->depth, params,
                opt->estimate_sigma, report->backend_used);
  cli_message ("%s", line);
  if (report->backend_used == BM3D_BACKEND_CPU)
    cli_message ("CPU threads: %d", threads);
  cli_message ("time: read %.3f s, phase 1 (hard threshold) %.3f s, "
           "phase 2 (Wiener) %.3f s, engine %.3f s, write %.3f s, "
           "total %.3f s", t_read, report->seconds_phase[0],
           report->seconds_phase[1], report->seconds_total, t_write, t_total);
  /* The device's start-up left after reading the input: the part of
   * creating the CUDA context (bm3d_backend_warm_up) the user still
   * waits for, inside the engine's time.  */
  if (report->backend_used != BM3D_BACKEND_CPU || t_startup > 0.0)
    cli_message ("start-up wait: %.3f s", t_startup);
  if (getrusage (RUSAGE_SELF, &usage) == 0)
    cli_message ("peak memory: process %.1f MiB (max RSS), engine host %.1f MiB, "
             "device %.1f MiB", usage.ru_maxrss / 1024.0,
             mebibytes ((double) report->peak_host_bytes),
             mebibytes ((double) report->peak_device_bytes));
}

/* ---- noise ----------------------------------------------------------- */

/* xoshiro256** (Blackman and Vigna), its state filled by splitmix64 from
 * the seed: fixed integer arithmetic, so a seed means the same noise on
 * every platform.  */
typedef struct
{
  uint64_t s[4];
} Rng;

static uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static void
rng_seed (Rng *rng, uint64_t seed)
{
  for (int i = 0; i < 4; i++)
    rng->s[i] = splitmix64 (&seed);
}

static uint64_t
rng_next (Rng *rng)
{
  uint64_t *s = rng->s;
  uint64_t result = rotl (s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

/* Uniform in (0, 1]: never 0, so the logarithm below stays finite.  */
static double
rng_uniform (Rng *rng)
{
  return ((rng_next (rng) >> 11) + 1) * 0x1.0p-53;
}

/* Box-Muller: two independent standard normal samples.  */
static void
rng_gaussian_pair (Rng *rng, double *z0, double *z1)
{
  double r = sqrt (-2.0 * log (rng_uniform (rng)));
  double theta = TWO_PI * rng_uniform (rng);

  *z0 = r * cos (theta);
  *z1 = r * sin (theta);
}

/* Adds noise to the colour samples in raster order, channel by channel;
 * alpha is left alone and draws nothing.  */
static void
add_noise (Image *img, double sigma, uint64_t seed)
{
  size_t pixels = (size_t) img->width * img->height;
  int colour = colour_channels (img);
  double spare = 0.0;
  int have_spare = 0;
  Rng rng;

  rng_seed (&rng, seed);
  for (size_t i = 0; i < pixels; i++)
    for (int c = 0; c < colour; c++)
      {
        float *v = img->data + i * img->channels + c;
        double z;

        if (have_spare)
          z = spare;
        else
          rng_gaussian_pair (&rng, &z, &spare);
        have_spare = !have_spare;
        *v = (float) (*v + sigma * z);
      }
}

/* ---- actions --------------------------------------------------------- */

/* Quantizes `img` as OUTPUT will store it and writes it.  */
static int
write_output (const Options *opt, Image *img, const Image *in)
{
  char error[512];
  ImageFormat format = image_format_for_path (opt->output);
  ImageWriteOptions options = opt->write;

  options.depth = cli_output_depth (opt->depth, in, format);
  if (img->has_alpha && !image_format_has_alpha (format))
    cli_message ("%s: %s has no alpha channel; alpha dropped", opt->output,
             image_format_name (format));
  image_quantize (img, format, options.depth);
  if (output_file_write (opt->output, format, img, &options,
                         output_file_new_mode (), output_file_signal_note,
                         NULL, error, sizeof error) < 0)
    {
      cli_message ("%s", error);
      return -1;
    }
  return 0;
}

/* Catches a bad output name before any long computation: 0, or the
 * exit status.  A folder as OUTPUT, or OUTPUT the input by any path, is
 * a usage error (the command line must change); a name no format
 * writes is a runtime error, as it always was.  */
static int
check_output_name (const Options *opt)
{
  char error[512];
  struct stat st;

  if (stat (opt->output, &st) == 0 && S_ISDIR (st.st_mode))
    {
      cli_message ("%s: is a folder; to denoise into a folder, give it as "
                   "-o %s before the input files", opt->output, opt->output);
      return EXIT_USAGE;
    }
  if (output_file_is_input (opt->output, opt->input))
    {
      cli_message ("%s: is the input file %s; an input is never overwritten "
               "(choose another output name)", opt->output, opt->input);
      return EXIT_USAGE;
    }
  if (image_check_path (opt->output, error, sizeof error) < 0)
    {
      cli_message ("%s", error);
      return EXIT_RUNTIME;
    }
  return 0;
}

static int
read_input (const char *path, Image *img)
{
  char error[512];

  if (image_read (path, img, error, sizeof error) < 0)
    {
      cli_message ("%s", error);
      return -1;
    }
  return 0;
}

/* After reading the input, before the work: says what the read left
 * out, and refuses an image OUTPUT's format cannot hold.  */
static int
check_input_image (const Options *opt, const Image *img)
{
  char text[512];

  image_read_notes (opt->input, img, text, sizeof text);
  if (text[0])
    cli_message ("%s", text);
  if (image_check_size_for (opt->output, image_format_for_path (opt->output),
                            img->width, img->height, text, sizeof text) < 0)
    {
      cli_message ("%s", text);
      return -1;
    }
  return 0;
}

static int
run_compare (const Options *opt)
{
  Image a, b;
  double psnr;
  int status = EXIT_RUNTIME;

  if (read_input (opt->input, &a) < 0)
    return EXIT_RUNTIME;
  if (read_input (opt->output, &b) == 0)
    {
      if (image_psnr (&a, &b, &psnr) < 0)
        cli_message ("cannot compare %s (%dx%d %s) with %s (%dx%d %s)",
                 opt->input, a.width, a.height, cli_layout_name (&a),
                 opt->output, b.width, b.height, cli_layout_name (&b));
      else
        {
          print_psnr_value (psnr);
          putchar ('\n');
          status = EXIT_SUCCESS;
        }
      image_free (&b);
    }
  image_free (&a);
  return status;
}

static int
run_add_noise (const Options *opt, int convert_only)
{
  Image img;
  int status;

  if ((status = check_output_name (opt)) != 0)
    return status;
  if (read_input (opt->input, &img) < 0)
    return EXIT_RUNTIME;
  if (check_input_image (opt, &img) < 0)
    {
      image_free (&img);
      return EXIT_RUNTIME;
    }
  if (!convert_only)
    add_noise (&img, opt->noise_sigma, opt->seed);
  status = write_output (opt, &img, &img) < 0 ? EXIT_RUNTIME : EXIT_SUCCESS;
  image_free (&img);
  return status;
}

static int
read_reference (const Options *opt, const Image *in, Image *ref)
{
  double unused;

  if (read_input (opt->reference, ref) < 0)
    return -1;
  if (image_psnr (in, ref, &unused) < 0)
    {
      cli_message ("reference %s (%dx%d %s) does not match %s (%dx%d %s)",
               opt->reference, ref->width, ref->height, cli_layout_name (ref),
               opt->input, in->width, in->height, cli_layout_name (in));
      image_free (ref);
      return -1;
    }
  return 0;
}

static void
print_psnr_report (const Image *in, const Image *out, const Image *ref)
{
  double before, after;

  image_psnr (in, ref, &before);
  image_psnr (out, ref, &after);
  printf ("PSNR: input ");
  print_psnr_value (before);
  printf (", output ");
  print_psnr_value (after);
  putchar ('\n');
}

/* Catches a profile name that cannot be written before the work.  */
static int
check_profile_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  char dir[4096];

  if (slash)
    snprintf (dir, sizeof dir, "%.*s", (int) (slash - path + 1), path);
  else
    snprintf (dir, sizeof dir, ".");
  if (access (dir, W_OK) != 0)
    {
      cli_message ("cannot write noise profile %s: %s", path, strerror (errno));
      return -1;
    }
  return 0;
}

/* The camera-noise profile for `in`: read from --noise-profile (already
 * in opt->profile), or estimated; points params->profile at `profile`.
 * With --verbose, says what it is.  */
static int
camera_profile (const Options *opt, const bm3d_image *in,
                bm3d_params *params, bm3d_noise_profile *profile,
                double *t_startup)
{
  bm3d_report report;
  float luma, chroma;
  int colour = in->channels - (in->has_alpha ? 1 : 0);

  if (opt->profile_in)
    {
      *profile = opt->profile;
      if (profile->channels != colour)
        {
          cli_message ("noise profile %s is for %s images, %s is %s",
                   opt->profile_in, profile->channels == 3 ? "colour"
                   : "gray", opt->input, colour == 3 ? "colour" : "gray");
          return -1;
        }
    }
  else if (bm3d_estimate_noise_profile (in, params, profile, &report)
           != BM3D_OK)
    {
      cli_message ("%s: cannot estimate the noise profile: %s", opt->input,
               report.message);
      return -1;
    }
  else
    {
      *t_startup += report.seconds_startup;
      /* A photograph whose noise could not be measured is not returned
       * as it came in silence.  */
      if (report.noise_unmeasured)
        cli_message ("%s: %s", opt->input, report.notice);
    }
  params->profile = profile;
  if (opt->verbose)
    {
      bm3d_noise_profile_levels (profile, &luma, &chroma);
      if (colour == 3)
        cli_message ("noise profile (%s): luma %.2f, chroma %.2f (as white RGB "
                 "sigma)", opt->profile_in ? opt->profile_in : "estimated",
                 (double) luma, (double) chroma);
      else
        cli_message ("noise profile (%s): level %.2f",
                 opt->profile_in ? opt->profile_in : "estimated",
                 (double) luma);
      if (profile->has_fine)
        cli_message ("finest scale: level %.2f, kurtosis %.2f (2.8: "
                     "Gaussian grain; a camera's processing leaves it "
                     "sparse, higher)", (double) profile->sigma_fine,
                 (double) profile->fine_kurtosis);
      if (profile->has_fine && profile->jpeg_lattice > 0.0f)
        cli_message ("a camera's processed noise; JPEG's quantisation %s "
                     "(z %.0f): %s", profile->jpeg_lattice
                     >= BM3D_JPEG_LATTICE_MIN ? "found" : "not found",
                     (double) profile->jpeg_lattice, profile->jpeg_lattice
                     >= BM3D_JPEG_LATTICE_MIN
                     ? "the level raised for the flattest blocks it cleaned"
                     : "the level as measured");
      if (profile->has_fine && profile->block_isotropy > 0.0f)
        cli_message ("flattest blocks: %.2f of their gradients' energy "
                     "unoriented (noise 0.7 and more; the rest is "
                     "texture, and lowers the noise level)",
                     (double) profile->block_isotropy);
    }
  return 0;
}

/* The depth OUTPUT is written at.  */
static int
output_depth (const Options *opt, const Image *in)
{
  return cli_output_depth (opt->depth, in,
                           image_format_for_path (opt->output));
}

/* Reads INPUT for a denoise: an 8- or 16-bit file as its integers
 * unless something takes the input's floats (estimating the noise,
 * the reference's PSNR) or BM3D_CLI_FLOAT_IO asks for floats.  */
static int
read_denoise_input (const Options *opt, Image *img)
{
  char error[512];
  int estimates = opt->params.noise == BM3D_NOISE_PROFILE
                  ? !opt->profile_in : opt->estimate_sigma;

  if (!cli_integer_io () || estimates || opt->reference)
    return read_input (opt->input, img);
  if (image_read_native (opt->input, img, error, sizeof error) < 0)
    {
      cli_message ("%s", error);
      return -1;
    }
  return 0;
}

static int
run_denoise (const Options *opt)
{
  bm3d_noise_profile profile;
  Image in, out, ref = { 0 };
  bm3d_image in_view;
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;
  char error[512];
  double t0 = now_seconds (), t_read, t_write, t_startup = 0.0;
  int result = EXIT_RUNTIME;

  if ((result = check_output_name (opt)) != 0)
    return result;
  result = EXIT_RUNTIME;
  if ((opt->profile_out && check_profile_name (opt->profile_out) < 0)
      || read_denoise_input (opt, &in) < 0)
    return EXIT_RUNTIME;
  if (check_input_image (opt, &in) < 0
      || (opt->reference && read_reference (opt, &in, &ref) < 0))
    {
      image_free (&in);
      return EXIT_RUNTIME;
    }
  if (cli_alloc_output (&in, &out, output_depth (opt, &in), error,
                        sizeof error) < 0
      || image_copy_metadata (&out, &in) < 0)
    {
      cli_message ("%s", out.data || out.pixels ? "out of memory" : error);
      goto done;
    }
  t_read = now_seconds () - t0;

  in_view = engine_view (&in);
  params = opt->params;
  if (params.noise == BM3D_NOISE_PROFILE
      && camera_profile (opt, &in_view, &params, &profile, &t_startup) < 0)
    goto done;
  if (params.noise == BM3D_NOISE_WHITE && opt->estimate_sigma)
    {
      float sigma;

      status = bm3d_estimate_sigma (&in_view, &params, &sigma, &report);
      if (status != BM3D_OK)
        {
          cli_message ("%s: cannot estimate the noise level: %s", opt->input,
                   report.message[0] ? report.message
                                     : bm3d_status_string (status));
          goto done;
        }
      if (opt->verbose && report.processed_noise)
        cli_message ("estimated noise level: sigma %.2f for a photograph's "
                 "processed noise (%.2f at the finest scale; %.3f s)",
                 (double) sigma, (double) report.sigma_fine,
                 report.seconds_total);
      else if (opt->verbose)
        cli_message ("estimated noise level: sigma %.2f (finest scale's "
                 "kurtosis %.2f; %.3f s)", (double) sigma,
                 (double) report.fine_kurtosis, report.seconds_total);
      /* A clean image estimates to (almost) nothing: still denoise, at
       * the least level the engine takes.  */
      params.sigma = sigma > 0.1f ? sigma : 0.1f;
    }
  /* Integer formats hold only 0..255 (or 0..65535): their noise was
   * clipped when the file was written; a float file whose values all
   * lie in that range was most likely converted from one.  */
  params.clipped = in.samples != IMAGE_SAMPLES_FLOAT
                   || bm3d_image_within_range (&in_view);
  status = cli_denoise (&in, &out, output_depth (opt, &in), &params,
                        &report);
  t_startup += report.seconds_startup;
  if (status != BM3D_OK)
    {
      cli_message ("%s", report.message[0] ? report.message
                                       : bm3d_status_string (status));
      goto done;
    }
  /* What the filter did instead of the profile (weak grain:
   * photo_noise.c), said as the estimate says unmeasured noise.  */
  if (report.noise_unmeasured)
    cli_message ("%s: %s", opt->input, report.notice);
  /* A GPU that failed is news; a machine without one is told only on
   * request, so scripts on CPU-only machines stay quiet.  */
  if (report.message[0]
      && (report.fell_back == BM3D_FALLBACK_FAILED
          || report.fell_back == BM3D_FALLBACK_DEVICE
          || (report.fell_back && opt->verbose)))
    cli_message ("%s", report.message);

  t_write = now_seconds ();
  if (write_output (opt, &out, &in) < 0)
    goto done;
  t_write = now_seconds () - t_write;
  if (opt->profile_out
      && bm3d_noise_profile_save (&profile, opt->profile_out, error,
                                  sizeof error) != BM3D_OK)
    {
      cli_message ("%s", error);
      goto done;
    }

  if (opt->verbose)
    print_verbose (opt, &params, &in, &report, t_startup, t_read, t_write,
                   now_seconds () - t0);
  if (opt->reference)
    print_psnr_report (&in, &out, &ref);
  result = EXIT_SUCCESS;

done:
  image_free (&ref);
  image_free (&out);
  image_free (&in);
  return result;
}

/* Backend auto for one photo: the CPU when its cores are sure to finish
 * before the GPU could start (bm3d_backend_for_job), which is then not
 * started at all (an exit would wait for a context being created).  The
 * size comes from the file's header; a file that cannot be probed
 * keeps the device, and its read says what is wrong.  Returns non-zero
 * when the CPU was chosen.  */
static int
choose_cpu_for_photo (Options *opt)
{
  ImageProbe probe;
  char error[512];
  double cpu, startup;
  int threads;

  if (opt->is_batch || opt->action != ACTION_DENOISE
      || opt->params.backend != BM3D_BACKEND_AUTO
      || image_probe (opt->input, &probe, error, sizeof error) < 0
      || bm3d_backend_for_job (&opt->params, probe.width, probe.height,
                               probe.colour_channels, 1, &cpu, &startup)
         != BM3D_BACKEND_CPU
      || startup <= 0.0)
    return 0;
  /* With no device to start (a build without CUDA) the engine's own
   * fall-back says so, as it always did.  */
  opt->params.backend = BM3D_BACKEND_CPU;
  threads = cpu_threads (opt);
  if (opt->verbose)
    cli_message ("backend auto: the CPU for this %dx%d photo (about %.2f s on "
             "%d thread%s against %.2f s to start the GPU)", probe.width,
             probe.height, cpu, threads, threads == 1 ? "" : "s", startup);
  return 1;
}

/* --devices for one image: each one there, as a batch checks them.
 * Without any device, backend auto runs on the CPU and says why.
 * Returns -1 after saying which is missing.  */
static int
check_devices (const Options *opt)
{
  int visible;

  if (!opt->seen_devices || opt->params.backend == BM3D_BACKEND_CPU
      || (visible = bm3d_cuda_device_count ()) == 0)
    return 0;
  for (int i = 0; i < opt->batch.n_devices; i++)
    if (opt->batch.devices[i] >= visible)
      {
        cli_message ("--devices: there is no CUDA device %d (%d visible)",
                     opt->batch.devices[i], visible);
        return -1;
      }
  return 0;
}

/* Start the device while the input is read, and the other devices of
 * --devices (or every one) beside it only for a photo the engine will
 * split over them: an exit waits for the contexts being created.  */
static void
warm_up_for_photo (const Options *opt)
{
  bm3d_params params = opt->params;
  ImageProbe probe;
  char error[512];

  if (image_probe (opt->input, &probe, error, sizeof error) < 0
      || (size_t) probe.width * probe.height < BM3D_SPLIT_MIN_PIXELS)
    params.n_devices = 0;
  bm3d_backend_warm_up (&params);
}

int
main (int argc, char **argv)
{
  Options opt;
  int parsed = parse_arguments (argc, argv, &opt);

  if (parsed != 0)
    return parsed < 0 ? EXIT_USAGE : EXIT_SUCCESS;
  /* The results go to buffers of the command's own, written out only
   * on success: the engine may fill them tile by tile.  */
  opt.params.out_scratch = 1;
  if (opt.profile_in)
    {
      char error[512];

      if (bm3d_noise_profile_load (&opt.profile, opt.profile_in, error,
                                   sizeof error) != BM3D_OK)
        {
          cli_message ("%s", error);
          return EXIT_RUNTIME;
        }
      opt.params.profile = &opt.profile;
    }
  /* Create the CUDA context while the input is read.  */
  if (opt.is_batch)
    bm3d_backend_warm_up (&opt.params);
  else if (opt.action == ACTION_DENOISE && check_devices (&opt) < 0)
    return EXIT_RUNTIME;
  else if (opt.action == ACTION_DENOISE && !choose_cpu_for_photo (&opt))
    warm_up_for_photo (&opt);

  if (opt.is_batch)
    {
      opt.batch.params = opt.params;
      opt.batch.estimate_sigma = opt.estimate_sigma;
      opt.batch.verbose = opt.verbose;
      opt.batch.depth = opt.depth;
      opt.batch.write = opt.write;
      return batch_run (&opt.batch, opt.files, opt.n_files);
    }
  output_file_guard_signals ();
  switch (opt.action)
    {
    case ACTION_COMPARE:
      return run_compare (&opt);
    case ACTION_ADD_NOISE:
      return run_add_noise (&opt, 0);
    case ACTION_CONVERT:
      return run_add_noise (&opt, 1);
    default:
      return run_denoise (&opt);
    }
}
