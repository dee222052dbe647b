/* BM3D Denoise — the command's arguments: parsing, the checks of
 * each option and of their mix, --help and --version.  The engine's
 * options (sigma, mode, backend, the noise model and its strengths)
 * are checked, named and described by the engine's table of options
 * (bm3d-options.h): a range changed there changes here.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "options.h"
#include "bm3d-options.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS  4096

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

void
cli_message (const char *format, ...)
{
  va_list args;

  fputs (PROGRAM ": ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
}

/* The row of the engine's table of options for `id`.  */
#define OPTION(id) (&bm3d_options[BM3D_OPTION_##id])

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
         "                       (estimated or read) to FILE, for a whole shoot\n", stdout);
  printf ("      --strength=K     camera noise: scale its levels by K, %g..%g\n"
          "                       (default %g; higher smooths more)\n"
          "      --chroma-strength=K  camera noise: scale the colour noise's\n"
          "                       levels by K on top, %g..%g (default %g)\n"
          "  -s, --sigma=S        white noise: its standard deviation on the\n"
          "                       0..%g scale, above %g and at most %g (default\n"
          "                       %g), or auto: estimate the sigma that suits\n"
          "                       INPUT's noise first\n",
          OPTION (STRENGTH)->min, OPTION (STRENGTH)->max,
          OPTION (STRENGTH)->default_value,
          OPTION (CHROMA_STRENGTH)->min, OPTION (CHROMA_STRENGTH)->max,
          OPTION (CHROMA_STRENGTH)->default_value,
          OPTION (SIGMA)->max, OPTION (SIGMA)->min, OPTION (SIGMA)->max,
          OPTION (SIGMA)->default_value);
  fputs ("  -m, --mode=MODE      bm3d (both phases, default), bm3d-fast (first\n"
         "                       phase only), nlm, isoline\n"
         "  -b, --backend=NAME   auto (CUDA when usable, default; one photo\n"
         "                       small enough for the CPU's cores to finish\n"
         "                       before the GPU starts: the CPU), cpu, cuda\n"
         "  -t, --threads=N      CPU threads, 0 = all cores (default 0)\n"
         "      --devices=LIST   CUDA devices to use, e.g. 0,1 (default: all\n"
         "                       visible); a batch spreads its files over\n"
         "                       them, a single image of 32 megapixels or\n"
         "                       more its bands, a smaller one uses the first\n"
         "      --isoline-variant=V  hybrid (default) or pipd, with --mode isoline\n", stdout);
  printf ("      --nlm-patch=N    NL-means patch side (odd, %g..%g), with --mode nlm\n"
          "      --nlm-search=N   NL-means search window side (odd, %g..%g)\n"
          "      --nlm-h=H        NL-means filtering parameter (0..255 scale)\n",
          OPTION (NLM_PATCH)->min, OPTION (NLM_PATCH)->max,
          OPTION (NLM_SEARCH)->min, OPTION (NLM_SEARCH)->max);
  fputs ("      --nlm-gaussian   NL-means: Gaussian-weighted patch distance\n"
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

/* The engine's options, by their rows of the table of options.  */

/* A choice's value for `arg`, or -1 after saying which names it takes.  */
static int
choice_parse (bm3d_option_id id, const char *what, const char *arg)
{
  char error[300];
  int v = engine_option_choice (id, what, arg, error, sizeof error);

  if (v < 0)
    cli_message ("%s", error);
  return v;
}

/* A number the option takes into `*value`, or -1 after saying which
 * ones it does (and `also`, what else the command takes).  */
static int
number_parse (bm3d_option_id id, const char *what, const char *also,
              const char *arg, double *value)
{
  char error[300];

  if (engine_option_number (id, what, also, arg, value, error,
                            sizeof error) == 0)
    return 0;
  cli_message ("%s", error);
  return -1;
}

/* "0", "0,1", "2,0": CUDA device ordinals.  A device given twice takes
 * two shares of the work (a batch's workers, an image's bands), which
 * tests the split of an image on one GPU.  */
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
          cli_message ("invalid device list '%s': expected CUDA device numbers "
                   "separated by commas, e.g. 0,1", arg);
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
      if ((v = choice_parse (BM3D_OPTION_NOISE, "noise model", arg)) < 0)
        return -1;
      opt->params.noise = (bm3d_noise_kind) v;
      opt->seen_noise = 1;
      opt->seen_denoise_option = 1;
      return 0;
    case OPT_NOISE_PROFILE:
    case OPT_SAVE_NOISE_PROFILE:
      if (!*arg)
        {
          cli_message ("%s needs a file name", c == OPT_NOISE_PROFILE
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
      if (number_parse (c == OPT_STRENGTH ? BM3D_OPTION_STRENGTH
                                          : BM3D_OPTION_CHROMA_STRENGTH,
                        c == OPT_STRENGTH ? "strength" : "chroma strength",
                        "", arg, &d) < 0)
        return -1;
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
      if (number_parse (BM3D_OPTION_SIGMA, "sigma", ", or auto", arg,
                        &d) < 0)
        return -1;
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
            cli_message ("%s", error);
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
      if ((v = choice_parse (BM3D_OPTION_MODE, "mode", arg)) < 0)
        return -1;
      opt->params.mode = (bm3d_mode) v;
      opt->seen_denoise_option = 1;
      return 0;
    case 'b':
      if ((v = choice_parse (BM3D_OPTION_BACKEND, "backend", arg)) < 0)
        return -1;
      opt->params.backend = (bm3d_backend) v;
      opt->seen_denoise_option = 1;
      return 0;
    case 't':
      if (parse_long (arg, 0, MAX_THREADS, &l) < 0)
        {
          cli_message ("invalid thread count '%s': expected 0 (all cores) to %d",
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
          cli_message ("invalid noise deviation '%s': expected a number from 0 "
                   "to 255", arg);
          return -1;
        }
      opt->noise_sigma = d;
      opt->action = ACTION_ADD_NOISE;
      return 0;
    case OPT_SEED:
      if (parse_seed (arg, &opt->seed) < 0)
        {
          cli_message ("invalid seed '%s': expected an unsigned integer", arg);
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
          cli_message ("invalid depth '%s': expected 8, 16 or 32", arg);
          return -1;
        }
      opt->depth = (int) l;
      return 0;
    case OPT_QUALITY:
      if (parse_long (arg, 1, 100, &l) < 0)
        {
          cli_message ("invalid JPEG quality '%s': expected 1 to 100", arg);
          return -1;
        }
      opt->write.quality = (int) l;
      return 0;
    case OPT_PNG_LEVEL:
      if (parse_long (arg, 0, 9, &l) < 0)
        {
          cli_message ("invalid PNG level '%s': expected 0 to 9", arg);
          return -1;
        }
      opt->write.png_level = (int) l;
      return 0;
    case 'o':
      if (!*arg)
        {
          cli_message ("invalid output folder '': expected a folder name");
          return -1;
        }
      opt->batch.output_dir = arg;
      opt->is_batch = 1;
      return 0;
    case OPT_SUFFIX:
      if (strchr (arg, '/'))
        {
          cli_message ("invalid suffix '%s': it may not contain '/'", arg);
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
          cli_message ("invalid worker count '%s': expected 1 to %d", arg,
                   BATCH_MAX_PER_DEVICE);
          return -1;
        }
      opt->batch.per_device = (int) l;
      return 0;
    case OPT_IO_THREADS:
      if (parse_long (arg, 1, BATCH_MAX_IO_THREADS, &l) < 0)
        {
          cli_message ("invalid I/O thread count '%s': expected 1 to %d", arg,
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
      cli_message ("--noise-profile and --save-noise-profile apply to --noise "
               "camera");
      return -1;
    }
  if (opt->profile_in || opt->profile_out)
    camera = 1;
  if (camera && opt->seen_sigma)
    {
      cli_message ("--sigma applies to --noise white (camera noise takes "
               "--strength and --chroma-strength)");
      return -1;
    }
  if (!camera && opt->seen_strength)
    {
      cli_message ("--strength and --chroma-strength apply to --noise camera");
      return -1;
    }
  if (opt->profile_out && opt->is_batch)
    {
      cli_message ("--save-noise-profile applies only to one INPUT OUTPUT");
      return -1;
    }
  if (opt->profile_in && opt->profile_out
      && strcmp (opt->profile_in, opt->profile_out) == 0)
    {
      cli_message ("--save-noise-profile would overwrite the profile read");
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
      cli_message ("--add-noise, --compare and --convert exclude each other");
      return -1;
    }
  if (opt->action != ACTION_DENOISE && opt->seen_denoise_option)
    {
      cli_message ("--sigma, --mode, --backend, --threads, --psnr and the mode "
               "options apply only to denoising");
      return -1;
    }
  if (opt->seen_nlm_option && opt->params.mode != BM3D_MODE_NLM)
    {
      cli_message ("--nlm-patch, --nlm-search, --nlm-h and --nlm-gaussian apply "
               "only to --mode nlm");
      return -1;
    }
  if (opt->seen_isoline_option && opt->params.mode != BM3D_MODE_ISOLINE)
    {
      cli_message ("--isoline-variant applies only to --mode isoline");
      return -1;
    }
  if (check_noise_options (opt) < 0)
    return -1;
  if (opt->seen_seed && opt->action != ACTION_ADD_NOISE)
    {
      cli_message ("--seed applies only to --add-noise");
      return -1;
    }
  if (opt->depth && opt->action == ACTION_COMPARE)
    {
      cli_message ("--depth does not apply to --compare");
      return -1;
    }
  if ((opt->seen_devices || opt->batch.per_device)
      && opt->params.backend == BM3D_BACKEND_CPU)
    {
      cli_message ("--devices and --workers-per-device apply to the CUDA "
               "backend, not to --backend cpu");
      return -1;
    }
  if (opt->is_batch)
    {
      if (opt->action != ACTION_DENOISE)
        {
          cli_message ("-o and --suffix apply only to denoising");
          return -1;
        }
      if (opt->reference)
        {
          cli_message ("--psnr applies only to one INPUT OUTPUT");
          return -1;
        }
      if (positional < 1)
        {
          cli_message ("missing FILE... to denoise (see --help)");
          return -1;
        }
      return 0;
    }
  if (opt->batch.io_threads || opt->batch.per_device)
    {
      cli_message ("--io-threads and --workers-per-device apply only to many "
               "files (-o or --suffix)");
      return -1;
    }
  if (positional != 2)
    {
      /* Name what is missing: after one file, the second.  */
      const int compare = opt->action == ACTION_COMPARE;
      if (positional > 2)
        cli_message ("too many arguments (see --help)");
      else if (positional == 1)
        cli_message (compare ? "missing the second image to compare "
                               "(see --help)"
                             : "missing OUTPUT after INPUT (see --help; "
                               "-o DIR writes into a folder)");
      else
        cli_message ("missing %s (see --help)",
                     compare ? "the two images to compare"
                             : "INPUT and OUTPUT");
      return -1;
    }
  return 0;
}

int
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
          cli_message ("option '%s' needs a value", argv[optind - 1]);
          return -1;
        case '?':
          /* "--verbose=1" also lands here, with optopt set.  */
          if (strncmp (argv[optind - 1], "--", 2) == 0)
            cli_message (strchr (argv[optind - 1], '=')
                     ? "option '%s' is unknown or takes no value (see --help)"
                     : "unknown option '%s' (see --help)", argv[optind - 1]);
          else
            cli_message ("unknown option '-%c' (see --help)", optopt);
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
  /* One image spreads over the devices given, or every one.  */
  if (opt->seen_devices)
    {
      opt->params.device = opt->batch.devices[0];
      opt->params.devices = opt->batch.devices;
      opt->params.n_devices = opt->batch.n_devices;
    }
  else if (opt->params.backend != BM3D_BACKEND_CPU)
    opt->params.n_devices = BM3D_ALL_DEVICES;
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
