/* Noise profiles (camera noise): the model's derived values, the text
 * file's round trip and refusals, the blind estimator's accuracy on
 * synthetic correlated noise of known spectrum, and camera mode against
 * white mode.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Synthetic correlated noise: white Gaussian noise of deviation s in
 * each RGB channel, independently, filtered by a small kernel h.  Its
 * autocovariance is s^2 (h * h)(d) in each channel, and in each plane
 * of the engine's colour transform that times the plane's gain squared:
 * the truth the estimate is held to (deviation within 15 %, share of
 * power below 0.25 cycles/pixel within 0.05, as the issue asks).  */
#include "config.h"

#include "bm3d.h"
#include "noise/noise.h"
#include "image_io.h"
#include "engine-tap.h"

#include <unistd.h>

#define LAG   BM3D_NOISE_LAG
#define SIDE  BM3D_NOISE_SIDE

static const float gains[3] = { 0.57735027f, 0.70710678f, 0.61237244f };

/* ---- the model ------------------------------------------------------- */

static void
test_white_profile (void)
{
  for (int ch = 1; ch <= 3; ch += 2)
    {
      bm3d_noise_profile p;
      double worst = 0.0;

      bm3d_noise_profile_init_white (&p, ch, 20.0f);
      for (int c = 0; c < ch; c++)
        {
          double want = 20.0 * (ch == 3 ? gains[c] : 1.0);

          want *= want;
          for (int k = 0; k < BM3D_NOISE_COEFS; k++)
            {
              double e1 = fabs (p.var_hard[c][k] / want - 1.0);
              double e2 = fabs (p.var_wiener[c][k] / want - 1.0);

              worst = e1 > worst ? e1 : worst;
              worst = e2 > worst ? e2 : worst;
            }
        }
      tap_ok (worst < 1e-4 && fabs (p.sigma_white - 20.0f) < 1e-3f
              && fabs (p.low_share[0] - M_PI / 16.0) < 0.01,
              "white profile, %d channel(s): every coefficient's variance "
              "sigma^2 (worst relative error %.1e), white sigma %.4f, low "
              "share %.3f (pi/16 = 0.196)", ch, worst, (double) p.sigma_white,
              (double) p.low_share[0]);
    }
}

/* The truth for RGB noise of deviation s through the separable kernel
 * k (taps -r..r) in both directions.  */
static void
kernel_profile (const double *k, int r, double s, int ch,
                bm3d_noise_profile *p)
{
  double a[SIDE];

  /* (k * k)(d) of the 1D kernel.  */
  for (int d = -LAG; d <= LAG; d++)
    {
      double v = 0.0;

      for (int i = -r; i <= r; i++)
        if (i + d >= -r && i + d <= r)
          v += k[i + r] * k[i + d + r];
      a[d + LAG] = v;
    }
  memset (p, 0, sizeof *p);
  p->channels = ch;
  for (int c = 0; c < ch; c++)
    for (int dy = 0; dy < SIDE; dy++)
      for (int dx = 0; dx < SIDE; dx++)
        p->autocov[c][dy][dx] = (float) (s * s * a[dy] * a[dx]
                                         * (ch == 3 ? gains[c] * gains[c]
                                                    : 1.0));
  bm3d_noise_profile_update (p, NULL, 0);
}

/* ---- the text file --------------------------------------------------- */

static void
test_round_trip (const char *tmpdir)
{
  static const double k[3] = { 0.25, 0.5, 0.25 };
  bm3d_noise_profile p, q, f;
  char text[16384], path[4096], error[256];
  size_t n;
  int same;

  kernel_profile (k, 1, 12.0, 3, &p);
  n = bm3d_noise_profile_format (&p, text, sizeof text);
  tap_ok (n > 0 && n < sizeof text
          && bm3d_noise_profile_parse (&q, text, error, sizeof error)
             == BM3D_OK
          && memcmp (p.autocov, q.autocov, sizeof p.autocov) == 0
          && memcmp (p.var_hard, q.var_hard, sizeof p.var_hard) == 0
          && memcmp (p.var_wiener, q.var_wiener, sizeof p.var_wiener) == 0,
          "profile text round trip: %zu bytes, every value read back "
          "exactly", n);

  snprintf (path, sizeof path, "%s/engine-profile-%ld.txt", tmpdir,
            (long) getpid ());
  same = bm3d_noise_profile_save (&p, path, error, sizeof error) == BM3D_OK
         && bm3d_noise_profile_load (&f, path, error, sizeof error)
            == BM3D_OK
         && memcmp (p.autocov, f.autocov, sizeof p.autocov) == 0
         && p.sigma_white == f.sigma_white;
  tap_ok (same, "profile file round trip (save, load)%s%s",
          same ? "" : ": ", same ? "" : error);
  remove (path);
}

/* One refusal: `text` must be refused with a one-line reason and leave
 * the profile as it was.  */
static void
refuse (const char *what, const char *text)
{
  bm3d_noise_profile p, before;
  char error[256] = "";
  bm3d_status st;

  bm3d_noise_profile_init_white (&p, 3, 7.0f);
  before = p;
  st = bm3d_noise_profile_parse (&p, text, error, sizeof error);
  tap_ok (st == BM3D_ERR_INVALID_ARGUMENT && error[0]
          && !strchr (error, '\n')
          && memcmp (&p, &before, sizeof p) == 0,
          "malformed profile (%s) refused: %s", what, error);
}

/* A valid profile's text with `edit` applied: line `line` (1-based,
 * counting every line) replaced by `with` (NULL: removed).  */
static void
edited (char *out, size_t len, const char *text, int line, const char *with)
{
  int n = 1;
  size_t o = 0;

  for (const char *s = text; *s && o + 1 < len; )
    {
      const char *end = strchr (s, '\n');
      size_t l = end ? (size_t) (end - s + 1) : strlen (s);

      if (n == line)
        {
          if (with)
            o += (size_t) snprintf (out + o, len - o, "%s\n", with);
        }
      else
        {
          memcpy (out + o, s, l < len - o - 1 ? l : len - o - 1);
          o += l < len - o - 1 ? l : len - o - 1;
        }
      s += l;
      n++;
    }
  out[o] = '\0';
}

static void
test_refusals (void)
{
  bm3d_noise_profile p;
  char good[16384], bad[16400], row[512];
  int first_row, header;

  bm3d_noise_profile_init_white (&p, 3, 5.0f);
  bm3d_noise_profile_format (&p, good, sizeof good);
  /* Lines: 3 comments, magic, channels, a comment, "plane 0", a comment,
   * then plane 0's 15 rows.  */
  header = 4;
  first_row = 9;

  refuse ("empty", "");
  refuse ("comments only", "# nothing\n\n# here\n");
  refuse ("not a profile", "P6\n3 3\n255\n");
  edited (bad, sizeof bad, good, header, "bm3d-noise-profile 2");
  refuse ("version 2", bad);
  edited (bad, sizeof bad, good, header + 1, "channels 2");
  refuse ("2 channels", bad);
  edited (bad, sizeof bad, good, header + 1, "channels three");
  refuse ("channels not a number", bad);
  edited (bad, sizeof bad, good, first_row - 2, "plane 1");
  refuse ("planes out of order", bad);
  edited (bad, sizeof bad, good, first_row, "0 0 0 0 0 0 0 0 0 0 0 0 0 0");
  refuse ("a row of 14 numbers", bad);
  edited (bad, sizeof bad, good, first_row,
          "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
  refuse ("a row of 16 numbers", bad);
  edited (bad, sizeof bad, good, first_row,
          "0 0 0 0 0 0 0 x 0 0 0 0 0 0 0");
  refuse ("a word among the numbers", bad);
  edited (bad, sizeof bad, good, first_row,
          "0 0 0 0 0 0 0 nan 0 0 0 0 0 0 0");
  refuse ("nan", bad);
  edited (bad, sizeof bad, good, first_row,
          "0 0 0 0 0 0 0 1e999 0 0 0 0 0 0 0");
  refuse ("a number out of range", bad);
  snprintf (row, sizeof row, "0 0 0 0 0 0 0 -4 0 0 0 0 0 0 0");
  edited (bad, sizeof bad, good, first_row + LAG, row);
  refuse ("negative variance", bad);
  /* Neighbours more alike than a value with itself: a frequency with
   * negative power.  */
  edited (bad, sizeof bad, good, first_row + LAG,
          "0 0 0 0 0 0 20 1 20 0 0 0 0 0 0");
  refuse ("not a covariance", bad);
  edited (bad, sizeof bad, good, first_row + 3, NULL);
  refuse ("a row missing", bad);
  {
    size_t n = strlen (good);

    memcpy (bad, good, n);
    memcpy (bad + n, "extra\n", 7);
  }
  refuse ("text after the last plane", bad);
  {
    size_t n = strlen (good);

    memcpy (bad, good, n / 2);
    bad[n / 2] = '\0';
    refuse ("cut in the middle", bad);
  }
}

/* ---- the estimator --------------------------------------------------- */

/* `clean` plus RGB noise of deviation s through the separable kernel k
 * (edges: the kernel reads the noise field mirrored).  */
static float *
add_filtered_noise (const Image *clean, const double *k, int r, double s,
                    uint64_t seed)
{
  int w = clean->width, h = clean->height, ch = clean->channels;
  size_t n = (size_t) w * h * ch;
  float *white = malloc (n * sizeof (float));
  float *tmp = malloc (n * sizeof (float));
  float *out = malloc (n * sizeof (float));

  for (size_t i = 0; i < n; i++)
    white[i] = (float) (s * rng_gauss (&seed));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        {
          double v = 0.0;

          for (int i = -r; i <= r; i++)
            {
              int xx = x + i < 0 ? -(x + i) : x + i >= w ? 2 * w - 2 - x - i
                                                        : x + i;
              v += k[i + r] * white[((size_t) y * w + xx) * ch + c];
            }
          tmp[((size_t) y * w + x) * ch + c] = (float) v;
        }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        {
          double v = 0.0;

          for (int i = -r; i <= r; i++)
            {
              int yy = y + i < 0 ? -(y + i) : y + i >= h ? 2 * h - 2 - y - i
                                                        : y + i;
              v += k[i + r] * tmp[((size_t) yy * w + x) * ch + c];
            }
          out[((size_t) y * w + x) * ch + c]
            = clean->data[((size_t) y * w + x) * ch + c] + (float) v;
        }
  free (white);
  free (tmp);
  return out;
}

static bm3d_image
view (float *data, const Image *like)
{
  bm3d_image v;

  v.width = like->width;
  v.height = like->height;
  v.channels = like->channels;
  v.has_alpha = 0;
  v.stride = (size_t) like->width * like->channels;
  v.data = data;
  return v;
}

static void
test_estimator (const Image *img, const char *name, const char *kname,
                const double *k, int r, double s)
{
  bm3d_noise_profile truth, est;
  bm3d_params params;
  bm3d_report report;
  float *noisy = add_filtered_noise (img, k, r, s, 4242);
  bm3d_image in = view (noisy, img);
  bm3d_status st;
  int ch = img->channels;
  const char *todo;

  kernel_profile (k, r, s, ch, &truth);
  bm3d_params_init (&params);
  params.threads = 2;
  st = bm3d_estimate_noise_profile (&in, &params, &est, &report);
  /* Known issue (docs/camera-noise.md): on a textured photo the level
   * function can read texture as a brightness dependence of this
   * stationary noise; the profile is then that of the transformed
   * image, which the truth here is not.  */
  todo = est.nlf[0][0] > 0.0f
         ? "level function read from texture: profile after the transform"
         : NULL;
  for (int c = 0; c < ch; c++)
    {
      double ratio = est.sigma[c] / truth.sigma[c];
      double dlow = est.low_share[c] - truth.low_share[c];

      int ok = st == BM3D_OK && fabs (ratio - 1.0) <= 0.15
               && fabs (dlow) <= 0.05;

      tap_ok_todo (ok, todo,
                   "estimate on %s, %s noise of sigma %g, plane %d: "
                   "deviation %.3f (truth %.3f, ratio %.3f), low share "
                   "%.3f (truth %.3f) in %.3f s", name, kname, s, c,
                   (double) est.sigma[c], (double) truth.sigma[c], ratio,
                   (double) est.low_share[c], (double) truth.low_share[c],
                   report.seconds_total);
    }
  if (est.nlf[0][0] > 0.0f)
    {
      float lo = est.nlf[0][0], hi = lo;

      for (int i = 1; i < BM3D_NLF_BINS; i++)
        lo = fminf (lo, est.nlf[0][i]), hi = fmaxf (hi, est.nlf[0][i]);
      tap_diag ("%s, %s noise: a level function (channel 0 ranges %.2f)",
                name, kname, (double) (hi / lo));
    }
  free (noisy);
}

/* ---- camera mode ----------------------------------------------------- */

static double
denoise_psnr (const Image *clean, float *noisy, bm3d_params *params,
              bm3d_report *report, float *out)
{
  bm3d_image in = view (noisy, clean), o = view (out, clean);
  size_t n = (size_t) clean->width * clean->height * clean->channels;

  if (bm3d_denoise (&in, &o, params, report) != BM3D_OK)
    return -1.0;
  return psnr_strided (clean->data, out, n, 1, 0);
}

static void
test_camera_mode (const Image *img, const char *name)
{
  static const double white_k[1] = { 1.0 };
  size_t n = (size_t) img->width * img->height * img->channels;
  float *noisy = add_filtered_noise (img, white_k, 0, 20.0, 77);
  float *out = malloc (n * sizeof (float));
  float *out2 = malloc (n * sizeof (float));
  bm3d_params params;
  bm3d_report report;
  bm3d_noise_profile white;
  double p_white, p_camera, p_model;

  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  params.threads = 2;
  params.sigma = 20.0f;
  p_white = denoise_psnr (img, noisy, &params, &report, out);

  /* The white profile of the true sigma: the same filter.  */
  bm3d_noise_profile_init_white (&white, img->channels, 20.0f);
  params.noise = BM3D_NOISE_PROFILE;
  params.profile = &white;
  p_model = denoise_psnr (img, noisy, &params, &report, out);
  tap_ok (p_model > 0.0 && fabs (p_model - p_white) <= 0.05,
          "%s, white noise sigma 20: camera mode with the white profile "
          "%.3f dB, white mode %.3f dB (within 0.05)", name, p_model,
          p_white);

  /* Blind: the profile estimated from the photograph.  */
  params.profile = NULL;
  p_camera = denoise_psnr (img, noisy, &params, &report, out);
  tap_ok (p_camera > 0.0 && p_camera >= p_white - 0.1,
          "%s, white noise sigma 20: camera mode (estimated) %.3f dB, white "
          "mode at the true sigma %.3f dB (at most 0.1 below)", name,
          p_camera, p_white);

  /* Bit-identical for any thread count.  */
  params.threads = 1;
  denoise_psnr (img, noisy, &params, &report, out2);
  tap_ok (memcmp (out, out2, n * sizeof (float)) == 0,
          "%s: camera mode bit-identical on 1 and 2 threads", name);

  /* Backend auto: camera noise on the GPU where there is one (the same
   * filter, within 0.05 dB: tests/gpu-tests.sh compares them closer),
   * else on the CPU, saying so.  */
  params.backend = BM3D_BACKEND_AUTO;
  params.threads = 2;
  {
    double p = denoise_psnr (img, noisy, &params, &report, out2);

    if (report.backend_used == BM3D_BACKEND_CUDA)
      tap_ok (p > 0.0 && fabs (p - p_camera) <= 0.05,
              "%s: camera mode on CUDA %.4f dB, CPU %.4f dB (within 0.05)",
              name, p, p_camera);
    else
      tap_ok (p > 0.0 && report.fell_back && report.message[0]
              && memcmp (out, out2, n * sizeof (float)) == 0,
              "%s: camera mode, backend auto without CUDA: on the CPU (%s)",
              name, report.message);
  }

  /* Refusals leave the output alone.  */
  memset (out2, 0, n * sizeof (float));
  params.backend = BM3D_BACKEND_CPU;
  params.strength = 5.0f;
  {
    bm3d_image in = view (noisy, img), o = view (out2, img);
    bm3d_status st = bm3d_denoise (&in, &o, &params, &report);
    int untouched = 1;

    for (size_t i = 0; i < n; i++)
      untouched &= out2[i] == 0.0f;
    tap_ok (st == BM3D_ERR_INVALID_ARGUMENT && untouched,
            "%s: strength 5 refused (%s), output untouched", name,
            report.message);
    params.strength = 0.0f;
    bm3d_noise_profile_init_white (&white, img->channels == 3 ? 1 : 3,
                                   20.0f);
    params.profile = &white;
    st = bm3d_denoise (&in, &o, &params, &report);
    untouched = 1;
    for (size_t i = 0; i < n; i++)
      untouched &= out2[i] == 0.0f;
    tap_ok (st == BM3D_ERR_INVALID_ARGUMENT && untouched,
            "%s: a profile of the other kind of image refused (%s)", name,
            report.message);
  }
  free (noisy);
  free (out);
  free (out2);
}

/* Coarse noise whose finest scale is weak ([1 2 1] noise reads a sixth
 * of its level there): camera mode takes it for noise, not for weak
 * grain (photo_noise.c's is_grain ()), and removes it.  */
static void
test_coarse_noise (const Image *img, const char *name, const double *k,
                   int r, double s)
{
  size_t n = (size_t) img->width * img->height * img->channels;
  float *noisy = add_filtered_noise (img, k, r, s, 99);
  float *out = malloc (n * sizeof (float));
  bm3d_params params;
  bm3d_report report;
  double p_noisy = psnr_strided (img->data, noisy, n, 1, 0), p_camera;

  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  params.threads = 2;
  params.noise = BM3D_NOISE_PROFILE;
  p_camera = denoise_psnr (img, noisy, &params, &report, out);
  tap_ok (p_camera >= p_noisy + 2.0 && !report.noise_unmeasured,
          "%s, [1 2 1]/4 x [1 2 1]/4 noise of sigma %.0f (finest scale "
          "%.2f): camera mode %.2f dB, noisy %.2f (2 dB gained, not read "
          "as weak grain)", name, s, (double) report.sigma_fine, p_camera,
          p_noisy);
  free (noisy);
  free (out);
}

/* The flattest blocks' measures (block_scales.c).  Against their own
 * quarters: one level of noise, white or coarse, reads about 1 to 1.6
 * there, a soft bend of shading under weak noise well above
 * QUARTER_TEXTURE_RATIO (4, photo_noise.c), as the soft background of a
 * clean photograph does.  Their unoriented share: noise has no
 * direction (0.84 for white noise, 0.82 for [1 2 1]-blurred noise,
 * both above NOISE_ISOTROPY, 0.7), fine stripes and a bend of shading
 * have one.  */
static void
test_flat_blocks (void)
{
  static const double k_white[1] = { 1.0 };
  static const double k121[3] = { 0.25, 0.5, 0.25 };
  static const struct
  {
    const char   *what;
    double        bend;         /* the shading's amplitude             */
    double        stripes;      /* the stripes' amplitude              */
    const double *k;
    int           r;
    double        sigma;
    double        low, high;    /* the quarters' ratio expected          */
    double        iso_low, iso_high;   /* the unoriented share expected */
  } cases[] = {
    { "white noise of sigma 5 on flat grey", 0.0, 0.0, k_white, 0, 5.0,
      0.9, 1.2, 0.78, 0.9 },
    { "[1 2 1]/4 x [1 2 1]/4 noise of sigma 16 on flat grey", 0.0, 0.0,
      k121, 1, 16.0, 0.9, 1.8, 0.72, 0.9 },
    { "soft shading (amplitude 100, period 200) under white noise of "
      "sigma 0.5", 100.0, 0.0, k_white, 0, 0.5, 4.0, 1e9, 0.0, 0.3 },
    { "stripes (amplitude 4, period 6, at 30 degrees) under white noise "
      "of sigma 1", 0.0, 4.0, k_white, 0, 1.0, 0.0, 1e9, 0.0, 0.35 },
  };
  Image flat = { 0 };

  flat.width = flat.height = 256;
  flat.channels = 1;
  flat.data = malloc ((size_t) 256 * 256 * sizeof (float));
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      float *noisy;
      bm3d_flat_blocks m;
      bm3d_image in;

      for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++)
          flat.data[y * 256 + x]
            = (float) (128.0 + cases[c].bend * cos (2.0 * M_PI * x / 200.0)
                                             * cos (2.0 * M_PI * y / 200.0)
                       + cases[c].stripes
                         * sin (2.0 * M_PI * (x * cos (M_PI / 6.0)
                                              + y * sin (M_PI / 6.0)) / 6.0));
      noisy = add_filtered_noise (&flat, cases[c].k, cases[c].r,
                                  cases[c].sigma, 7 + c);
      in = view (noisy, &flat);
      bm3d_flat_block_measures (&in, 1, &m);
      tap_ok (m.within >= cases[c].low && m.within <= cases[c].high,
              "%s: the flattest blocks read %.2f times their own quarters "
              "(%.1f to %.1f)", cases[c].what, (double) m.within,
              cases[c].low, cases[c].high > 1e8 ? INFINITY : cases[c].high);
      tap_ok (m.isotropy >= cases[c].iso_low
              && m.isotropy <= cases[c].iso_high,
              "%s: the flattest blocks' gradients are %.2f unoriented "
              "(%.2f to %.2f)", cases[c].what, (double) m.isotropy,
              cases[c].iso_low, cases[c].iso_high);
      free (noisy);
    }
  free (flat.data);
}

/* A bright flat grey (195) given white noise of sigma 25 and clipped
 * at 255, as an 8-bit file keeps it: about 2 of a 16x16 quarter's
 * pixels clipped, so that hardly a 32x32 block is free of them.  Read
 * with the few clipped pixels a quarter may hold (noise of one level),
 * the flattest 16x16 blocks hold what white noise gives them (0.817
 * sigma^2, a little less for the clipped values); read without (noise
 * that follows brightness), too few blocks are left to read.  */
static void
test_clipped_blocks (void)
{
  static const double k_white[1] = { 1.0 };
  const double sigma = 25.0, white = 0.817 * sigma * sigma;
  Image flat = { 0 };
  bm3d_flat_blocks tolerant, strict;
  bm3d_image in;
  float *noisy;
  size_t n = (size_t) 512 * 512;

  flat.width = flat.height = 512;
  flat.channels = 1;
  flat.data = malloc (n * sizeof (float));
  for (size_t i = 0; i < n; i++)
    flat.data[i] = 195.0f;
  noisy = add_filtered_noise (&flat, k_white, 0, sigma, 11);
  for (size_t i = 0; i < n; i++)
    noisy[i] = noisy[i] < 0.0f ? 0.0f : noisy[i] > 255.0f ? 255.0f
                                                          : noisy[i];
  in = view (noisy, &flat);
  bm3d_flat_block_measures (&in, 1, &tolerant);
  bm3d_flat_block_measures (&in, 0, &strict);
  tap_ok (tolerant.small >= 0.8 * white && tolerant.small <= 1.05 * white,
          "white noise of sigma 25 clipped on bright grey: its flattest "
          "16x16 blocks read %.1f, white noise gives %.1f (0.8 to 1.05 "
          "times)", (double) tolerant.small, white);
  tap_ok (strict.small == 0.0f,
          "... and none are read where noise follows brightness (%.1f)",
          (double) strict.small);
  free (noisy);
  free (flat.data);
}

/* ---- JPEG's trace (jpeg_lattice.c) ------------------------------------ */

/* view () of `img` from pixel (x0, y0) on.  */
static bm3d_image
image_view (const Image *img, int x0, int y0)
{
  bm3d_image v = view (img->data + ((size_t) y0 * img->width + x0)
                                   * img->channels, img);

  v.width -= x0;
  v.height -= y0;
  return v;
}

/* A photo never saved as JPEG reads no lattice; saved as JPEG of
 * quality 90 and read back, it does, on the encoder's grid and on a
 * crop that moved it.  */
static void
test_jpeg_lattice (const Image *photo, const char *name, const char *tmpdir)
{
  ImageWriteOptions options;
  char path[4096], error[256];
  bm3d_image v = image_view (photo, 0, 0);
  float png = bm3d_jpeg_lattice (&v), jpeg, cropped;
  Image back;

  tap_ok (png < BM3D_JPEG_LATTICE_MIN,
          "%s, never a JPEG: JPEG's trace %.1f (under %.0f)", name,
          (double) png, (double) BM3D_JPEG_LATTICE_MIN);
  if (!image_format_supported (IMAGE_FORMAT_JPEG))
    {
      printf ("ok # SKIP %s saved as JPEG: built without libjpeg\n", name);
      return;
    }
  snprintf (path, sizeof path, "%s/engine-profile-%ld.jpg", tmpdir,
            (long) getpid ());
  image_write_options_init (&options);
  options.quality = 90;
  if (image_write_with (path, IMAGE_FORMAT_JPEG, photo, &options, error,
                        sizeof error) != 0
      || image_read (path, &back, error, sizeof error) != 0)
    {
      tap_ok (0, "%s saved as JPEG and read back: %s", name, error);
      unlink (path);
      return;
    }
  unlink (path);
  image_to_float (&back);
  v = image_view (&back, 0, 0);
  jpeg = bm3d_jpeg_lattice (&v);
  v = image_view (&back, 3, 5);
  cropped = bm3d_jpeg_lattice (&v);
  tap_ok (jpeg >= BM3D_JPEG_LATTICE_MIN && cropped >= BM3D_JPEG_LATTICE_MIN,
          "%s saved as JPEG of quality 90: JPEG's trace %.0f, %.0f on a "
          "crop 3 and 5 pixels in (%.0f and more)", name, (double) jpeg,
          (double) cropped, (double) BM3D_JPEG_LATTICE_MIN);
  image_free (&back);
}

/* ---- one verdict for every tile of a photograph ------------------------ */

/* tests/data/vng-astronaut-noisy.png: noise that follows brightness,
 * whose flattest blocks read as white noise of the finest scale read
 * through its level function, but not of the finest scale read on the
 * photograph as it is (photo_noise.c, fine_as_is ()).  The estimate
 * reads that once and the profile carries it: each 64x64 tile given
 * the photograph's profile, as the dialog's preview and GIMP 3's filter
 * give it, takes the photograph's verdict, not its own tile's (a dark
 * tile's noise reads stronger: read on each tile, 11 of the 24 were
 * filtered as white noise).  */
static void
test_tiles_one_verdict (const char *dir)
{
  char path[4200], error[512];
  bm3d_params params;
  bm3d_report report;
  bm3d_noise_profile profile;
  Image photo;
  float *out;
  int tiles = 0, white = 0;
  char said[400] = "";

  snprintf (path, sizeof path, "%s/vng-astronaut-noisy.png", dir);
  if (image_read (path, &photo, error, sizeof error) != 0)
    {
      tap_ok (0, "%s", error);
      return;
    }
  image_to_float (&photo);
  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  params.threads = 2;
  params.noise = BM3D_NOISE_PROFILE;
  {
    bm3d_image v = image_view (&photo, 0, 0);

    if (bm3d_estimate_noise_profile (&v, &params, &profile, &report)
        != BM3D_OK)
      {
        tap_ok (0, "vng-astronaut-noisy.png: estimate (%s)", report.message);
        image_free (&photo);
        return;
      }
  }
  tap_ok (profile.has_fine && profile.nlf[0][0] > 0.0f
          && profile.sigma_fine_as_is > 0.0f,
          "vng-astronaut-noisy.png: the profile has a level function and "
          "carries the finest scale read as it is (%.2f; %.2f through the "
          "function)", (double) profile.sigma_fine_as_is,
          (double) profile.sigma_fine);
  params.profile = &profile;
  out = malloc (64 * 64 * 3 * sizeof (float));
  for (int y = 0; y + 64 <= photo.height; y += 64)
    for (int x = 0; x + 64 <= photo.width; x += 64)
      {
        bm3d_image in = image_view (&photo, x, y), o;

        in.width = in.height = 64;
        o = in;
        o.data = out;
        o.stride = 64 * 3;
        tiles++;
        if (bm3d_denoise (&in, &o, &params, &report) != BM3D_OK
            || report.noise_unmeasured)
          {
            white++;
            snprintf (said, sizeof said, "tile (%d, %d): %.300s", x, y,
                      report.notice[0] ? report.notice : report.message);
          }
      }
  tap_ok (tiles == 24 && white == 0,
          "vng-astronaut-noisy.png: %d tiles of 64x64 given its profile, "
          "%d filtered as white noise of their own finest scale%s%s",
          tiles, white, white ? "; " : "", said);
  free (out);
  image_free (&photo);
}

/* The top-left w x h of `img`.  */
static void
crop (Image *img, int w, int h)
{
  int ch = img->channels;

  for (int y = 0; y < h; y++)
    memmove (img->data + (size_t) y * w * ch,
             img->data + (size_t) y * img->width * ch,
             (size_t) w * ch * sizeof (float));
  img->width = w;
  img->height = h;
}

int
main (void)
{
  static const double k121[3] = { 0.25, 0.5, 0.25 };
  static const double k_box5[5] = { 0.2, 0.2, 0.2, 0.2, 0.2 };
  static const double k_white[1] = { 1.0 };
  const char *top = getenv ("top_srcdir");
  const char *tmp = getenv ("TMPDIR");
  char dir[4096], path[4200], error[512];
  Image gray, colour;

  test_white_profile ();
  test_round_trip (tmp && *tmp ? tmp : "/tmp");
  test_refusals ();
  test_flat_blocks ();
  test_clipped_blocks ();

  if (!image_format_supported (IMAGE_FORMAT_PNG))
    {
      printf ("# SKIP the estimator and camera mode: built without libpng, "
              "cannot read the test images\n");
      return tap_done ();
    }
  snprintf (dir, sizeof dir, "%s/tests/data", top ? top : ".");
  snprintf (path, sizeof path, "%s/camera.png", dir);
  if (image_read (path, &gray, error, sizeof error) != 0)
    {
      tap_ok (0, "%s", error);
      return tap_done ();
    }
  snprintf (path, sizeof path, "%s/astronaut.png", dir);
  if (image_read (path, &colour, error, sizeof error) != 0)
    {
      tap_ok (0, "%s", error);
      return tap_done ();
    }

  test_estimator (&gray, "camera.png", "white", k_white, 0, 10.0);
  test_estimator (&gray, "camera.png", "[1 2 1]/4 x [1 2 1]/4", k121, 1,
                  16.0);
  test_estimator (&colour, "astronaut.png", "white", k_white, 0, 10.0);
  test_estimator (&colour, "astronaut.png", "[1 2 1]/4 x [1 2 1]/4", k121,
                  1, 16.0);
  test_estimator (&colour, "astronaut.png", "5-tap box x 5-tap box",
                  k_box5, 2, 20.0);

  test_jpeg_lattice (&colour, "astronaut.png", tmp && *tmp ? tmp : "/tmp");
  test_jpeg_lattice (&gray, "camera.png", tmp && *tmp ? tmp : "/tmp");
  test_tiles_one_verdict (dir);

  crop (&gray, 256, 256);
  crop (&colour, 256, 256);
  test_camera_mode (&gray, "camera.png 256x256");
  test_camera_mode (&colour, "astronaut.png 256x256");
  test_coarse_noise (&gray, "camera.png 256x256", k121, 1, 16.0);
  test_coarse_noise (&colour, "astronaut.png 256x256", k121, 1, 16.0);

  image_free (&gray);
  image_free (&colour);
  return tap_done ();
}
