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
#include "output_file.h"
#include "bm3d.h"
#include "image_io.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM "bm3d-denoise"

#define EXIT_RUNTIME 1
#define EXIT_USAGE   2

#define MAX_THREADS  4096
#define TWO_PI       6.28318530717958647692

typedef enum
{
  ACTION_DENOISE,
  ACTION_ADD_NOISE,
  ACTION_COMPARE,
  ACTION_CONVERT
} Action;

typedef struct
{
  Action        action;
  bm3d_params   params;
  int           verbose;
  int           depth;          /* 8 or 16, 0 = follow the input       */
  double        noise_sigma;    /* --add-noise                          */
  uint64_t      seed;
  const char   *reference;      /* --psnr                               */
  const char   *input;
  const char   *output;
  ImageWriteOptions write;      /* --quality, --png-level               */
  BatchOptions  batch;          /* -o, --suffix, --devices, --io-threads */
  int           is_batch;
  char *const  *files;          /* the batch's FILE...                  */
  int           n_files;
  int           seen_devices;
  /* Options seen, to refuse those that do not apply to the action.  */
  int           seen_denoise_option;
  int           seen_seed;
  int           estimate_sigma; /* --sigma auto                         */
  int           seen_nlm_option;
  int           seen_isoline_option;
  /* Camera noise: --noise, --noise-profile, --save-noise-profile,
   * --strength, --chroma-strength.  */
  int           seen_noise;         /* --noise given                    */
  int           seen_sigma;
  int           seen_strength;
  const char   *profile_in;
  const char   *profile_out;
  bm3d_noise_profile profile;       /* loaded from profile_in           */
} Options;

enum
{
  OPT_ADD_NOISE = 256,
  OPT_SEED,
  OPT_PSNR,
  OPT_COMPARE,
  OPT_CONVERT,
  OPT_DEPTH,
  OPT_ISOLINE_VARIANT,
  OPT_NLM_PATCH,
  OPT_NLM_SEARCH,
  OPT_NLM_H,
  OPT_NLM_GAUSSIAN,
  OPT_SUFFIX,
  OPT_DEVICES,
  OPT_IO_THREADS,
  OPT_QUALITY,
  OPT_PNG_LEVEL,
  OPT_PER_DEVICE,
  OPT_NOISE,
  OPT_NOISE_PROFILE,
  OPT_SAVE_NOISE_PROFILE,
  OPT_STRENGTH,
  OPT_CHROMA_STRENGTH
};

static const struct option long_options[] =
{
  { "sigma",     required_argument, NULL, 's' },
  { "mode",      required_argument, NULL, 'm' },
  { "backend",   required_argument, NULL, 'b' },
  { "threads",   required_argument, NULL, 't' },
  { "verbose",   no_argument,       NULL, 'v' },
  { "add-noise", required_argument, NULL, OPT_ADD_NOISE },
  { "seed",      required_argument, NULL, OPT_SEED },
  { "psnr",      required_argument, NULL, OPT_PSNR },
  { "compare",   no_argument,       NULL, OPT_COMPARE },
  { "convert",   no_argument,       NULL, OPT_CONVERT },
  { "depth",     required_argument, NULL, OPT_DEPTH },
  { "isoline-variant", required_argument, NULL, OPT_ISOLINE_VARIANT },
  { "nlm-patch",  required_argument, NULL, OPT_NLM_PATCH },
  { "nlm-search", required_argument, NULL, OPT_NLM_SEARCH },
  { "nlm-h",      required_argument, NULL, OPT_NLM_H },
  { "nlm-gaussian", no_argument,     NULL, OPT_NLM_GAUSSIAN },
  { "output-dir", required_argument, NULL, 'o' },
  { "suffix",     required_argument, NULL, OPT_SUFFIX },
  { "devices",    required_argument, NULL, OPT_DEVICES },
  { "io-threads", required_argument, NULL, OPT_IO_THREADS },
  { "workers-per-device", required_argument, NULL, OPT_PER_DEVICE },
  { "quality",    required_argument, NULL, OPT_QUALITY },
  { "png-level",  required_argument, NULL, OPT_PNG_LEVEL },
  { "noise",      required_argument, NULL, OPT_NOISE },
  { "noise-profile", required_argument, NULL, OPT_NOISE_PROFILE },
  { "save-noise-profile", required_argument, NULL, OPT_SAVE_NOISE_PROFILE },
  { "strength",   required_argument, NULL, OPT_STRENGTH },
  { "chroma-strength", required_argument, NULL, OPT_CHROMA_STRENGTH },
  { "help",      no_argument,       NULL, 'h' },
  { "version",   no_argument,       NULL, 'V' },
  { NULL, 0, NULL, 0 }
};

static const char *
long_option_name (int val)
{
  for (const struct option *o = long_options; o->name; o++)
    if (o->val == val)
      return o->name;
  return "";
}

/* ---- messages -------------------------------------------------------- */

static void
message (const char *format, ...) __attribute__ ((format (printf, 1, 2)));

static void
message (const char *format, ...)
{
  va_list args;

  fputs (PROGRAM ": ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
}

static void
print_help (void)
{
  fputs ("Usage: bm3d-denoise [OPTION]... INPUT OUTPUT\n"
         "       bm3d-denoise [OPTION]... -o OUTDIR FILE...\n"
         "       bm3d-denoise [OPTION]... --suffix S [-o OUTDIR] FILE...\n"
         "       bm3d-denoise --add-noise SIGMA [--seed N] INPUT OUTPUT\n"
         "       bm3d-denoise --compare IMAGE1 IMAGE2\n"
         "       bm3d-denoise --convert INPUT OUTPUT\n"
         "Remove Gaussian noise from INPUT with BM3D (CBM3D for colour images)\n"
         "and write the result to OUTPUT; or denoise many FILEs in one process,\n"
         "each written under the same name and format into OUTDIR, or beside it\n"
         "with the suffix S before the extension.\n"
         "\n"
         "Denoising:\n"
         "      --noise=MODEL    white (default): Gaussian noise of one sigma;\n"
         "                       camera: a photograph's correlated noise, its\n"
         "                       profile estimated from INPUT (modes bm3d and\n"
         "                       bm3d-fast; the others use the profile's sigma)\n"
         "      --noise-profile=FILE  camera noise with the profile saved in FILE\n"
         "      --save-noise-profile=FILE  write the camera-noise profile used\n"
         "                       (estimated or read) to FILE, for a whole shoot\n"
         "      --strength=K     camera noise: scale its levels by K, 0.25..4\n"
         "                       (default 1; higher smooths more)\n"
         "      --chroma-strength=K  camera noise: scale the colour noise's\n"
         "                       levels by K on top, 0.25..4 (default 1)\n"
         "  -s, --sigma=S        white noise: its standard deviation on the\n"
         "                       0..255 scale, above 0 and at most 255 (default\n"
         "                       25), or auto: estimate the sigma that suits\n"
         "                       INPUT's noise first\n"
         "  -m, --mode=MODE      bm3d (both phases, default), bm3d-fast (first\n"
         "                       phase only), nlm, isoline\n"
         "  -b, --backend=NAME   auto (CUDA when usable, default; one photo\n"
         "                       small enough for the CPU's cores to finish\n"
         "                       before the GPU starts: the CPU), cpu, cuda\n"
         "  -t, --threads=N      CPU threads, 0 = all cores (default 0)\n"
         "      --devices=LIST   CUDA devices to use, e.g. 0,1 (default: all\n"
         "                       visible); a batch spreads its files over\n"
         "                       them, a single image uses the first\n"
         "      --isoline-variant=V  hybrid (default) or pipd, with --mode isoline\n"
         "      --nlm-patch=N    NL-means patch side (odd, 1..15), with --mode nlm\n"
         "      --nlm-search=N   NL-means search window side (odd, 3..71)\n"
         "      --nlm-h=H        NL-means filtering parameter (0..255 scale)\n"
         "      --nlm-gaussian   NL-means: Gaussian-weighted patch distance\n"
         "                       (the NL-means defaults follow sigma, as published)\n"
         "      --psnr=REFERENCE after denoising, print the PSNR of INPUT and\n"
         "                       OUTPUT against the clean REFERENCE\n"
         "  -v, --verbose        print the backend, the time of each phase, the\n"
         "                       CUDA start-up still waited for and the peak\n"
         "                       memory on stderr (a batch: each file, and the\n"
         "                       time per photo of each stage); with camera\n"
         "                       noise, its luma and chroma levels\n"
         "\n"
         "Many files (a batch):\n"
         "  -o, --output-dir=DIR write the results into the folder DIR\n"
         "      --suffix=S       add S to each name before its extension (without\n"
         "                       -o: beside the input)\n"
         "      --io-threads=N   threads that read and threads that write, N each\n"
         "                       (default: half the cores, 1 to 8)\n"
         "      --workers-per-device=N  engine workers per CUDA device (default\n"
         "                       2: one prepares an image while the other's\n"
         "                       is on the GPU)\n"
         "\n"
         "A file that fails is reported and skipped; the exit status is then 1.\n"
         "On a terminal a progress line is shown.\n"
         "\n"
         "OUTPUT (and each result of a batch) is written under a temporary name\n"
         "in its folder and renamed over it only when complete, keeping the\n"
         "permissions of the file it replaces: a failed or interrupted write\n"
         "leaves that file as it was.  An input is never overwritten, by any\n"
         "path (./, symbolic or hard links); inputs must be regular files.\n"
         "\n"
         "Other actions:\n"
         "      --add-noise=S    add white Gaussian noise of deviation S (0..255)\n"
         "                       to the colour channels (alpha is kept); PFM output\n"
         "                       keeps it unclipped, other formats clip and round\n"
         "      --seed=N         seed of the noise (unsigned 64-bit, default 0);\n"
         "                       the same seed gives the same noise (xoshiro256**\n"
         "                       seeded through splitmix64, Box-Muller in double)\n"
         "      --compare        print the PSNR between two images (dB, peak 255,\n"
         "                       colour channels only; \"inf\" when equal)\n"
         "      --convert        copy INPUT to OUTPUT in OUTPUT's format\n"
         "\n"
         "Output:\n"
         "      --depth=BITS     8 or 16 bits per sample for PNG, TIFF, PGM and\n"
         "                       PPM, 32 for float TIFF (default: as the input)\n"
         "      --quality=Q      JPEG quality, 1..100 (default 95; 4:4:4 chroma\n"
         "                       from 90 up)\n"
         "      --png-level=L    zlib level of PNG and TIFF files, 0..9 (default 1:\n"
         "                       fast; 9: smallest)\n"
         "\n"
         "  -h, --help           show this help and exit\n"
         "  -V, --version        show the version and the format libraries\n"
         "\n"
         "Formats, chosen by the file name's extension: .png (8/16-bit gray,\n"
         "gray+alpha, RGB, RGBA, palette), .jpg/.jpeg (8-bit gray or colour),\n"
         ".tif/.tiff (8/16-bit or float, gray or RGB, with or without alpha),\n"
         ".pgm/.ppm/.pnm (binary P5/P6, 8 or 16 bits), .pfm (32-bit float, 0..1 =\n"
         "black..white).  Alpha is not denoised; formats without alpha drop it.\n"
         "The ICC profile and the EXIF block are copied to the output when both\n"
         "formats hold them (PNG, JPEG, TIFF), up to 16 MiB each.  Images have\n"
         "at most 2^28 pixels (16384 x 16384); one that size takes about 4 GB of\n"
         "memory just to read as RGB (1.3 GB gray), and about 14 GB and tens of\n"
         "minutes on a 2-core CPU to denoise.\n"
         "\n"
         "Exit status: 0 on success, 1 on a runtime error, 2 on a usage error.\n", stdout);
}

static void
print_version (void)
{
  char why[200] = "";
  int cuda = bm3d_cuda_available (why, sizeof why);

  printf (PROGRAM " (" PACKAGE_NAME ") " PACKAGE_VERSION "\n");
  static const ImageFormat formats[] = { IMAGE_FORMAT_PNG,
                                         IMAGE_FORMAT_JPEG,
                                         IMAGE_FORMAT_TIFF };

  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    {
      ImageFormat f = formats[i];

      if (image_format_supported (f))
        printf ("%s support: yes (%s)\n", image_format_name (f),
                image_format_library (f));
      else
        printf ("%s support: no\n", image_format_name (f));
    }
  if (cuda)
    {
      int n = bm3d_cuda_device_count ();

      printf ("CUDA: available, %d device%s", n, n == 1 ? "" : "s");
      for (int i = 0; i < n; i++)
        {
          char name[256];

          if (bm3d_cuda_device_name (i, name, sizeof name))
            printf ("%s %d: %s", i ? "," : ":", i, name);
        }
      putchar ('\n');
    }
  else
    printf ("CUDA: not available (%s)\n", why);
}

/* ---- argument parsing ------------------------------------------------ */

/* Strict number parsing: the whole string, finite.  */
static int
parse_double (const char *text, double *value)
{
  char *end;

  errno = 0;
  *value = strtod (text, &end);
  return end != text && *end == '\0' && errno == 0 && isfinite (*value)
         ? 0 : -1;
}

static int
parse_long (const char *text, long min, long max, long *value)
{
  char *end;

  errno = 0;
  *value = strtol (text, &end, 10);
  return end != text && *end == '\0' && errno == 0 && *value >= min
         && *value <= max ? 0 : -1;
}

static int
parse_seed (const char *text, uint64_t *value)
{
  char *end;
  unsigned long long v;

  /* strtoull accepts "-1" silently wrapped: refuse signs.  */
  if (*text < '0' || *text > '9')
    return -1;
  errno = 0;
  v = strtoull (text, &end, 10);
  if (*end != '\0' || errno != 0)
    return -1;
  *value = v;
  return 0;
}

/* "0", "0,1", "2,0": CUDA device ordinals, each once.  */
static int
parse_devices (Options *opt, const char *arg)
{
  const char *p = arg;

  opt->batch.n_devices = 0;
  for (;;)
    {
      char *end;
      long d;

      errno = 0;
      d = *p >= '0' && *p <= '9' ? strtol (p, &end, 10) : -1;
      if (d < 0 || errno || d >= 1024 || (*end != ',' && *end != '\0')
          || opt->batch.n_devices == BATCH_MAX_DEVICES)
        {
          message ("invalid device list '%s': expected CUDA device numbers "
                   "separated by commas, e.g. 0,1", arg);
          return -1;
        }
      for (int i = 0; i < opt->batch.n_devices; i++)
        if (opt->batch.devices[i] == (int) d)
          {
            message ("invalid device list '%s': device %ld given twice",
                     arg, d);
            return -1;
          }
      opt->batch.devices[opt->batch.n_devices++] = (int) d;
      if (*end == '\0')
        return 0;
      p = end + 1;
    }
}

static int
set_option (Options *opt, int c, const char *arg)
{
  double d;
  long l;
  int v;

  switch (c)
    {
    case OPT_NOISE:
      if ((v = bm3d_noise_parse (arg)) < 0)
        {
          message ("unknown noise model '%s' (expected white or camera)",
                   arg);
          return -1;
        }
      opt->params.noise = (bm3d_noise_kind) v;
      opt->seen_noise = 1;
      opt->seen_denoise_option = 1;
      return 0;
    case OPT_NOISE_PROFILE:
    case OPT_SAVE_NOISE_PROFILE:
      if (!*arg)
        {
          message ("%s needs a file name", c == OPT_NOISE_PROFILE
                   ? "--noise-profile" : "--save-noise-profile");
          return -1;
        }
      if (c == OPT_NOISE_PROFILE)
        opt->profile_in = arg;
      else
        opt->profile_out = arg;
      opt->seen_denoise_option = 1;
      return 0;
    case OPT_STRENGTH:
    case OPT_CHROMA_STRENGTH:
      if (parse_double (arg, &d) < 0 || d < BM3D_STRENGTH_MIN
          || d > BM3D_STRENGTH_MAX)
        {
          message ("invalid %s '%s': expected a number from %g to %g",
                   c == OPT_STRENGTH ? "strength" : "chroma strength", arg,
                   (double) BM3D_STRENGTH_MIN, (double) BM3D_STRENGTH_MAX);
          return -1;
        }
      if (c == OPT_STRENGTH)
        opt->params.strength = (float) d;
      else
        opt->params.chroma_strength = (float) d;
      opt->seen_strength = 1;
      opt->seen_denoise_option = 1;
      return 0;
    case 's':
      opt->seen_sigma = 1;
      opt->seen_denoise_option = 1;
      if (strcmp (arg, "auto") == 0)
        {
          opt->estimate_sigma = 1;
          return 0;
        }
      if (parse_double (arg, &d) < 0 || d <= BM3D_SIGMA_MIN_EXCLUSIVE
          || d > BM3D_SIGMA_MAX)
        {
          message ("invalid sigma '%s': expected a number above 0 and at "
                   "most 255, or auto", arg);
          return -1;
        }
      opt->params.sigma = (float) d;
      opt->estimate_sigma = 0;
      return 0;
    case OPT_ISOLINE_VARIANT:
    case OPT_NLM_PATCH:
    case OPT_NLM_SEARCH:
    case OPT_NLM_H:
    case OPT_NLM_GAUSSIAN:
      {
        const char *name = long_option_name (c);
        char error[200];

        if (engine_option_set (&opt->params, name, arg, error,
                               sizeof error) < 0)
          {
            message ("%s", error);
            return -1;
          }
        if (engine_option_mode (name) == BM3D_MODE_NLM)
          opt->seen_nlm_option = 1;
        else
          opt->seen_isoline_option = 1;
        opt->seen_denoise_option = 1;
        return 0;
      }
    case 'm':
      if ((v = bm3d_mode_parse (arg)) < 0)
        {
          message ("unknown mode '%s' (expected bm3d, bm3d-fast, nlm or "
                   "isoline)", arg);
          return -1;
        }
      opt->params.mode = (bm3d_mode) v;
      opt->seen_denoise_option = 1;
      return 0;
    case 'b':
      if ((v = bm3d_backend_parse (arg)) < 0)
        {
          message ("unknown backend '%s' (expected auto, cpu or cuda)", arg);
          return -1;
        }
      opt->params.backend = (bm3d_backend) v;
      opt->seen_denoise_option = 1;
      return 0;
    case 't':
      if (parse_long (arg, 0, MAX_THREADS, &l) < 0)
        {
          message ("invalid thread count '%s': expected 0 (all cores) to %d",
                   arg, MAX_THREADS);
          return -1;
        }
      opt->params.threads = (int) l;
      opt->seen_denoise_option = 1;
      return 0;
    case 'v':
      opt->verbose = 1;
      return 0;
    case OPT_ADD_NOISE:
      if (parse_double (arg, &d) < 0 || d < 0.0 || d > 255.0)
        {
          message ("invalid noise deviation '%s': expected a number from 0 "
                   "to 255", arg);
          return -1;
        }
      opt->noise_sigma = d;
      opt->action = ACTION_ADD_NOISE;
      return 0;
    case OPT_SEED:
      if (parse_seed (arg, &opt->seed) < 0)
        {
          message ("invalid seed '%s': expected an unsigned integer", arg);
          return -1;
        }
      opt->seen_seed = 1;
      return 0;
    case OPT_PSNR:
      opt->reference = arg;
      opt->seen_denoise_option = 1;
      return 0;
    case OPT_COMPARE:
      opt->action = ACTION_COMPARE;
      return 0;
    case OPT_CONVERT:
      opt->action = ACTION_CONVERT;
      return 0;
    case OPT_DEPTH:
      if (parse_long (arg, 8, 32, &l) < 0 || (l != 8 && l != 16 && l != 32))
        {
          message ("invalid depth '%s': expected 8, 16 or 32", arg);
          return -1;
        }
      opt->depth = (int) l;
      return 0;
    case OPT_QUALITY:
      if (parse_long (arg, 1, 100, &l) < 0)
        {
          message ("invalid JPEG quality '%s': expected 1 to 100", arg);
          return -1;
        }
      opt->write.quality = (int) l;
      return 0;
    case OPT_PNG_LEVEL:
      if (parse_long (arg, 0, 9, &l) < 0)
        {
          message ("invalid PNG level '%s': expected 0 to 9", arg);
          return -1;
        }
      opt->write.png_level = (int) l;
      return 0;
    case 'o':
      if (!*arg)
        {
          message ("invalid output folder '': expected a folder name");
          return -1;
        }
      opt->batch.output_dir = arg;
      opt->is_batch = 1;
      return 0;
    case OPT_SUFFIX:
      if (strchr (arg, '/'))
        {
          message ("invalid suffix '%s': it may not contain '/'", arg);
          return -1;
        }
      opt->batch.suffix = arg;
      opt->is_batch = 1;
      return 0;
    case OPT_DEVICES:
      opt->seen_denoise_option = 1;
      opt->seen_devices = 1;
      return parse_devices (opt, arg);
    case OPT_PER_DEVICE:
      if (parse_long (arg, 1, BATCH_MAX_PER_DEVICE, &l) < 0)
        {
          message ("invalid worker count '%s': expected 1 to %d", arg,
                   BATCH_MAX_PER_DEVICE);
          return -1;
        }
      opt->batch.per_device = (int) l;
      return 0;
    case OPT_IO_THREADS:
      if (parse_long (arg, 1, BATCH_MAX_IO_THREADS, &l) < 0)
        {
          message ("invalid I/O thread count '%s': expected 1 to %d", arg,
                   BATCH_MAX_IO_THREADS);
          return -1;
        }
      opt->batch.io_threads = (int) l;
      return 0;
    }
  return -1;
}

/* The noise model's options: --noise-profile and --save-noise-profile
 * mean camera noise; sigma belongs to white noise, strengths to camera
 * noise.  Sets params.noise.  */
static int
check_noise_options (Options *opt)
{
  int camera = opt->params.noise == BM3D_NOISE_PROFILE;

  if ((opt->profile_in || opt->profile_out) && opt->seen_noise && !camera)
    {
      message ("--noise-profile and --save-noise-profile apply to --noise "
               "camera");
      return -1;
    }
  if (opt->profile_in || opt->profile_out)
    camera = 1;
  if (camera && opt->seen_sigma)
    {
      message ("--sigma applies to --noise white (camera noise takes "
               "--strength and --chroma-strength)");
      return -1;
    }
  if (!camera && opt->seen_strength)
    {
      message ("--strength and --chroma-strength apply to --noise camera");
      return -1;
    }
  if (opt->profile_out && opt->is_batch)
    {
      message ("--save-noise-profile applies only to one INPUT OUTPUT");
      return -1;
    }
  if (opt->profile_in && opt->profile_out
      && strcmp (opt->profile_in, opt->profile_out) == 0)
    {
      message ("--save-noise-profile would overwrite the profile read");
      return -1;
    }
  opt->params.noise = camera ? BM3D_NOISE_PROFILE : BM3D_NOISE_WHITE;
  return 0;
}

/* Refuses option mixes that would be silently ignored.  */
static int
check_action (Options *opt, int actions, int positional)
{
  if (actions > 1)
    {
      message ("--add-noise, --compare and --convert exclude each other");
      return -1;
    }
  if (opt->action != ACTION_DENOISE && opt->seen_denoise_option)
    {
      message ("--sigma, --mode, --backend, --threads, --psnr and the mode "
               "options apply only to denoising");
      return -1;
    }
  if (opt->seen_nlm_option && opt->params.mode != BM3D_MODE_NLM)
    {
      message ("--nlm-patch, --nlm-search, --nlm-h and --nlm-gaussian apply "
               "only to --mode nlm");
      return -1;
    }
  if (opt->seen_isoline_option && opt->params.mode != BM3D_MODE_ISOLINE)
    {
      message ("--isoline-variant applies only to --mode isoline");
      return -1;
    }
  if (check_noise_options (opt) < 0)
    return -1;
  if (opt->seen_seed && opt->action != ACTION_ADD_NOISE)
    {
      message ("--seed applies only to --add-noise");
      return -1;
    }
  if (opt->depth && opt->action == ACTION_COMPARE)
    {
      message ("--depth does not apply to --compare");
      return -1;
    }
  if ((opt->seen_devices || opt->batch.per_device)
      && opt->params.backend == BM3D_BACKEND_CPU)
    {
      message ("--devices and --workers-per-device apply to the CUDA "
               "backend, not to --backend cpu");
      return -1;
    }
  if (opt->is_batch)
    {
      if (opt->action != ACTION_DENOISE)
        {
          message ("-o and --suffix apply only to denoising");
          return -1;
        }
      if (opt->reference)
        {
          message ("--psnr applies only to one INPUT OUTPUT");
          return -1;
        }
      if (positional < 1)
        {
          message ("missing FILE... to denoise (see --help)");
          return -1;
        }
      return 0;
    }
  if (opt->batch.io_threads || opt->batch.per_device)
    {
      message ("--io-threads and --workers-per-device apply only to many "
               "files (-o or --suffix)");
      return -1;
    }
  if (positional != 2)
    {
      message (positional < 2 ? "missing %s (see --help)"
                              : "too many arguments (see --help)",
               opt->action == ACTION_COMPARE ? "images to compare"
                                             : "INPUT and OUTPUT");
      return -1;
    }
  return 0;
}

/* Returns -1 to exit with a usage error, 1 to exit successfully (help,
 * version), 0 to go on.  */
static int
parse_arguments (int argc, char **argv, Options *opt)
{
  int actions = 0;
  int c;

  memset (opt, 0, sizeof *opt);
  bm3d_params_init (&opt->params);
  image_write_options_init (&opt->write);
  opt->batch.progress = -1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":s:m:b:t:o:vhV", long_options,
                           NULL)) != -1)
    {
      switch (c)
        {
        case 'h':
          print_help ();
          return 1;
        case 'V':
          print_version ();
          return 1;
        case ':':
          message ("option '%s' needs a value", argv[optind - 1]);
          return -1;
        case '?':
          /* "--verbose=1" also lands here, with optopt set.  */
          if (strncmp (argv[optind - 1], "--", 2) == 0)
            message (strchr (argv[optind - 1], '=')
                     ? "option '%s' is unknown or takes no value (see --help)"
                     : "unknown option '%s' (see --help)", argv[optind - 1]);
          else
            message ("unknown option '-%c' (see --help)", optopt);
          return -1;
        case OPT_ADD_NOISE:
        case OPT_COMPARE:
        case OPT_CONVERT:
          actions++;
          /* fall through */
        default:
          if (set_option (opt, c, optarg) < 0)
            return -1;
        }
    }
  if (check_action (opt, actions, argc - optind) < 0)
    return -1;
  if (opt->seen_devices)
    opt->params.device = opt->batch.devices[0];
  if (opt->is_batch)
    {
      opt->files = argv + optind;
      opt->n_files = argc - optind;
      return 0;
    }
  opt->input = argv[optind];
  opt->output = argv[optind + 1];
  return 0;
}

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

static const char *
layout_name (const Image *img)
{
  static const char *const names[] = { "gray", "gray+alpha", "RGB", "RGBA" };

  return names[img->channels - 1];
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

  message ("%s: %dx%d %s, %d bits", opt->input, in->width, in->height,
           layout_name (in), in->depth);
  if (params->noise == BM3D_NOISE_PROFILE)
    message ("mode %s, camera noise, strength %g, chroma strength %g, "
             "backend %s%s", bm3d_mode_name (params->mode),
             params->strength > 0.0f ? (double) params->strength : 1.0,
             params->chroma_strength > 0.0f
             ? (double) params->chroma_strength : 1.0,
             bm3d_backend_name (report->backend_used),
             report->backend_used == BM3D_BACKEND_CPU ? "" : " (GPU)");
  else
    message ("mode %s, sigma %g, backend %s%s", bm3d_mode_name (params->mode),
             (double) params->sigma,
             bm3d_backend_name (report->backend_used),
             report->backend_used == BM3D_BACKEND_CPU ? "" : " (GPU)");
  if (report->backend_used == BM3D_BACKEND_CPU)
    message ("CPU threads: %d", threads);
  message ("time: read %.3f s, phase 1 (hard threshold) %.3f s, "
           "phase 2 (Wiener) %.3f s, engine %.3f s, write %.3f s, "
           "total %.3f s", t_read, report->seconds_phase[0],
           report->seconds_phase[1], report->seconds_total, t_write, t_total);
  /* The device's start-up left after reading the input: the part of
   * creating the CUDA context (bm3d_backend_warm_up) the user still
   * waits for, inside the engine's time.  */
  if (report->backend_used != BM3D_BACKEND_CPU || t_startup > 0.0)
    message ("start-up wait: %.3f s", t_startup);
  if (getrusage (RUSAGE_SELF, &usage) == 0)
    message ("peak memory: process %.1f MiB (max RSS), engine host %.1f MiB, "
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
    message ("%s: %s has no alpha channel; alpha dropped", opt->output,
             image_format_name (format));
  image_quantize (img, format, options.depth);
  if (output_file_write (opt->output, format, img, &options,
                         output_file_new_mode (), output_file_signal_note,
                         NULL, error, sizeof error) < 0)
    {
      message ("%s", error);
      return -1;
    }
  return 0;
}

/* Catches a bad output name, or an output that is the input by any
 * path, before any long computation.  */
static int
check_output_name (const Options *opt)
{
  char error[512];

  if (image_check_path (opt->output, error, sizeof error) < 0)
    {
      message ("%s", error);
      return -1;
    }
  if (output_file_is_input (opt->output, opt->input))
    {
      message ("%s: is the input file %s; an input is never overwritten "
               "(choose another output name)", opt->output, opt->input);
      return -1;
    }
  return 0;
}

static int
read_input (const char *path, Image *img)
{
  char error[512];

  if (image_read (path, img, error, sizeof error) < 0)
    {
      message ("%s", error);
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
    message ("%s", text);
  if (image_check_size_for (opt->output, image_format_for_path (opt->output),
                            img->width, img->height, text, sizeof text) < 0)
    {
      message ("%s", text);
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
        message ("cannot compare %s (%dx%d %s) with %s (%dx%d %s)",
                 opt->input, a.width, a.height, layout_name (&a),
                 opt->output, b.width, b.height, layout_name (&b));
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

  if (check_output_name (opt) < 0 || read_input (opt->input, &img) < 0)
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
      message ("reference %s (%dx%d %s) does not match %s (%dx%d %s)",
               opt->reference, ref->width, ref->height, layout_name (ref),
               opt->input, in->width, in->height, layout_name (in));
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
      message ("cannot write noise profile %s: %s", path, strerror (errno));
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
          message ("noise profile %s is for %s images, %s is %s",
                   opt->profile_in, profile->channels == 3 ? "colour"
                   : "gray", opt->input, colour == 3 ? "colour" : "gray");
          return -1;
        }
    }
  else if (bm3d_estimate_noise_profile (in, params, profile, &report)
           != BM3D_OK)
    {
      message ("%s: cannot estimate the noise profile: %s", opt->input,
               report.message);
      return -1;
    }
  else
    {
      *t_startup += report.seconds_startup;
      /* A photograph whose noise could not be measured is not returned
       * as it came in silence.  */
      if (report.noise_unmeasured)
        message ("%s: %s", opt->input, report.notice);
    }
  params->profile = profile;
  if (opt->verbose)
    {
      bm3d_noise_profile_levels (profile, &luma, &chroma);
      if (colour == 3)
        message ("noise profile (%s): luma %.2f, chroma %.2f (as white RGB "
                 "sigma), white-model sigma %.2f",
                 opt->profile_in ? opt->profile_in : "estimated",
                 (double) luma, (double) chroma,
                 (double) profile->sigma_white);
      else
        message ("noise profile (%s): level %.2f, white-model sigma %.2f",
                 opt->profile_in ? opt->profile_in : "estimated",
                 (double) luma, (double) profile->sigma_white);
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
      message ("%s", error);
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

  if (check_output_name (opt) < 0
      || (opt->profile_out && check_profile_name (opt->profile_out) < 0)
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
      message ("%s", out.data || out.pixels ? "out of memory" : error);
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
          message ("%s: cannot estimate the noise level: %s", opt->input,
                   report.message[0] ? report.message
                                     : bm3d_status_string (status));
          goto done;
        }
      if (opt->verbose && report.processed_noise)
        message ("estimated noise level: sigma %.2f for a photograph's "
                 "processed noise (%.2f at the finest scale; %.3f s)",
                 (double) sigma, (double) report.sigma_fine,
                 report.seconds_total);
      else if (opt->verbose)
        message ("estimated noise level: sigma %.2f (%.3f s)",
                 (double) sigma, report.seconds_total);
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
      message ("%s", report.message[0] ? report.message
                                       : bm3d_status_string (status));
      goto done;
    }
  /* A GPU that failed is news; a machine without one is told only on
   * request, so scripts on CPU-only machines stay quiet.  */
  if (report.message[0]
      && (report.fell_back == BM3D_FALLBACK_FAILED
          || (report.fell_back && opt->verbose)))
    message ("%s", report.message);

  t_write = now_seconds ();
  if (write_output (opt, &out, &in) < 0)
    goto done;
  t_write = now_seconds () - t_write;
  if (opt->profile_out
      && bm3d_noise_profile_save (&profile, opt->profile_out, error,
                                  sizeof error) != BM3D_OK)
    {
      message ("%s", error);
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
    message ("backend auto: the CPU for this %dx%d photo (about %.2f s on "
             "%d thread%s against %.2f s to start the GPU)", probe.width,
             probe.height, cpu, threads, threads == 1 ? "" : "s", startup);
  return 1;
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
          message ("%s", error);
          return EXIT_RUNTIME;
        }
      opt.params.profile = &opt.profile;
    }
  /* Create the CUDA context while the input is read.  */
  if (opt.is_batch
      || (opt.action == ACTION_DENOISE && !choose_cpu_for_photo (&opt)))
    bm3d_backend_warm_up (&opt.params);

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
