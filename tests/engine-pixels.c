/* Tests of bm3d_denoise_pixels (): 8- and 16-bit pixels give bit for
 * bit what converting them to floats around bm3d_denoise () gives, for
 * every mode and layout, with strides wider than a row; bad calls are
 * refused and leave the output alone.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "engine-tap.h"

#include "bm3d.h"

/* Beyond each row: values the call must never write.  */
#define STRIDE_PAD 3
#define SENTINEL   0x5a

typedef struct
{
  bm3d_pixels px;
  size_t      bytes;
} test_pixels;

static void
pixels_new (test_pixels *t, int w, int h, int ch, int alpha,
            bm3d_pixel_type type)
{
  t->px.width = w;
  t->px.height = h;
  t->px.channels = ch;
  t->px.has_alpha = alpha;
  t->px.stride = (size_t) w * ch + STRIDE_PAD;
  t->px.type = type;
  t->bytes = t->px.stride * h * bm3d_pixel_size (type);
  t->px.data = malloc (t->bytes);
  memset (t->px.data, SENTINEL, t->bytes);
}

/* Value i of row y as the engine's 0..255 float (bm3d.h's rule).  */
static float
value_at (const bm3d_pixels *px, int y, size_t i)
{
  size_t k = (size_t) y * px->stride + i;

  if (px->type == BM3D_PIXELS_U8)
    return (float) ((const uint8_t *) px->data)[k];
  return (float) ((const uint16_t *) px->data)[k] / 257.0f;
}

/* A scene of ramps rising `slope` a pixel and an edge, Gaussian noise
 * of `sigma`, clipped and stored at the type's depth; alpha a ramp
 * using the whole range.  */
static void
fill_noisy (test_pixels *t, double slope, float sigma, uint64_t seed)
{
  bm3d_pixels *px = &t->px;
  const int colour = px->channels - (px->has_alpha ? 1 : 0);
  const double top = px->type == BM3D_PIXELS_U8 ? 255.0 : 65535.0;

  for (int y = 0; y < px->height; y++)
    for (int x = 0; x < px->width; x++)
      for (int c = 0; c < px->channels; c++)
        {
          size_t k = (size_t) y * px->stride + (size_t) x * px->channels + c;
          double v;

          if (c < colour)
            {
              v = 40.0 + slope * (x + 0.5 * c * y) + (x > px->width / 2 ? 90 : 0)
                  + sigma * rng_gauss (&seed);
              v = (v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : v) * top / 255.0;
            }
          else
            v = (double) ((x * 7919 + y * 104729) % 65536) * top / 65535.0;
          if (px->type == BM3D_PIXELS_U8)
            ((uint8_t *) px->data)[k] = (uint8_t) floor (v + 0.5);
          else
            ((uint16_t *) px->data)[k] = (uint16_t) floor (v + 0.5);
        }
}

/* Noise that follows brightness, as a sensor's does, spread as
 * demosaicing spreads it: a ramp from dark to bright across the width,
 * white noise blurred by [1 2 1] both ways (unit variance), deviation
 * 4 + 0.05 v; RGB.  Camera mode reads a level function there and
 * filters through its stabilising transform.  `clean` gets the ramp
 * alone.  */
static void
fill_shot_noisy (test_pixels *noisy, test_pixels *clean, uint64_t seed)
{
  const int w = noisy->px.width, h = noisy->px.height;
  const double top = noisy->px.type == BM3D_PIXELS_U8 ? 255.0 : 65535.0;
  double *n = malloc (sizeof (double) * (w + 2) * (h + 2));

  for (int c = 0; c < 3; c++)
    {
      for (int i = 0; i < (w + 2) * (h + 2); i++)
        n[i] = rng_gauss (&seed);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          {
            const double *p = n + (size_t) y * (w + 2) + x;
            double blur = 0.0, v = 20.0 + 1.1 * x + 5.0 * c, s;
            size_t k = (size_t) y * noisy->px.stride + (size_t) x * 3 + c;

            for (int dy = 0; dy < 3; dy++)
              for (int dx = 0; dx < 3; dx++)
                blur += (dy == 1 ? 2 : 1) * (dx == 1 ? 2 : 1)
                        * p[dy * (w + 2) + dx];
            s = v + (4.0 + 0.05 * v) * blur / 6.0;
            s = (s < 0.0 ? 0.0 : s > 255.0 ? 255.0 : s) * top / 255.0;
            if (noisy->px.type == BM3D_PIXELS_U8)
              {
                ((uint8_t *) noisy->px.data)[k] = (uint8_t) floor (s + 0.5);
                ((uint8_t *) clean->px.data)[k]
                  = (uint8_t) floor (v * top / 255.0 + 0.5);
              }
            else
              {
                ((uint16_t *) noisy->px.data)[k] = (uint16_t) floor (s + 0.5);
                ((uint16_t *) clean->px.data)[k]
                  = (uint16_t) floor (v * top / 255.0 + 0.5);
              }
          }
    }
  free (n);
}

/* What the caller would do without bm3d_denoise_pixels: floats out,
 * bm3d_denoise () with clipped set, and back rounded and clipped, alpha
 * copied.  Returns the status.  */
static bm3d_status
denoise_outside (const bm3d_pixels *in, bm3d_pixels *out,
                 const bm3d_params *params)
{
  const int ch = in->channels, colour = ch - (in->has_alpha ? 1 : 0);
  const size_t row = (size_t) in->width * ch;
  bm3d_image fin = { in->width, in->height, ch, in->has_alpha, row, NULL };
  bm3d_image fout = fin;
  bm3d_params p = *params;
  bm3d_status status;

  fin.data = malloc (row * in->height * sizeof (float));
  fout.data = malloc (row * in->height * sizeof (float));
  for (int y = 0; y < in->height; y++)
    for (size_t i = 0; i < row; i++)
      fin.data[y * row + i] = value_at (in, y, i);
  p.clipped = 1;
  status = bm3d_denoise (&fin, &fout, &p, NULL);
  for (int y = 0; status == BM3D_OK && y < in->height; y++)
    for (size_t i = 0; i < row; i++)
      {
        size_t k = (size_t) y * out->stride + i;
        float f = fout.data[y * row + i];
        int is_alpha = (int) (i % ch) >= colour;

        /* bm3d.h's rule: clipped, then rounded half up exactly (in
         * double, where f * 257 + 0.5 has no rounding error).  */
        double c = !(f > 0.0f) ? 0.0 : f > 255.0f ? 255.0 : (double) f;

        if (out->type == BM3D_PIXELS_U8)
          ((uint8_t *) out->data)[k] = is_alpha
            ? ((const uint8_t *) in->data)[(size_t) y * in->stride + i]
            : (uint8_t) floor (c + 0.5);
        else
          ((uint16_t *) out->data)[k] = is_alpha
            ? ((const uint16_t *) in->data)[(size_t) y * in->stride + i]
            : (uint16_t) floor (c * 257.0 + 0.5);
      }
  free (fin.data);
  free (fout.data);
  return status;
}

static const char *
type_name (bm3d_pixel_type type)
{
  return type == BM3D_PIXELS_U8 ? "u8" : type == BM3D_PIXELS_U16 ? "u16"
                                                                  : "float";
}

/* Largest difference between two images' values (padding too).  */
static long
max_value_diff (const test_pixels *a, const test_pixels *b)
{
  const size_t n = a->bytes / bm3d_pixel_size (a->px.type);
  long most = 0;

  for (size_t i = 0; i < n; i++)
    {
      long d = a->px.type == BM3D_PIXELS_U8
               ? (long) ((const uint8_t *) a->px.data)[i]
                 - ((const uint8_t *) b->px.data)[i]
               : (long) ((const uint16_t *) a->px.data)[i]
                 - ((const uint16_t *) b->px.data)[i];

      if (labs (d) > most)
        most = labs (d);
    }
  return most;
}

/* Levels of an 8-bit value the result may differ by from the float
 * path's: 0 on the CPU; on a device (BM3D_PIXELS_TEST_BACKEND=cuda, from
 * tests/gpu-tests.sh) its float path is the reference, converted on the
 * host where the device converts itself, and one level (257 of a 16-bit
 * value) is allowed: BM3D's aggregation on the GPU sums in an order that
 * differs from run to run (up to 0.15 levels seen).  */
static long tolerance;

/* Differing bytes between two buffers (0: bit for bit the same).  */
static size_t
bytes_differing (const test_pixels *a, const test_pixels *b)
{
  size_t n = 0;

  for (size_t i = 0; i < a->bytes; i++)
    n += ((const uint8_t *) a->px.data)[i] != ((const uint8_t *) b->px.data)[i];
  return n;
}

static void
check_same_as_outside (bm3d_params *params, int w, int h, int ch, int alpha,
                       bm3d_pixel_type type, double slope, const char *what)
{
  test_pixels in, got, want;
  bm3d_report report;
  bm3d_status status, ref;

  pixels_new (&in, w, h, ch, alpha, type);
  pixels_new (&got, w, h, ch, alpha, type);
  pixels_new (&want, w, h, ch, alpha, type);
  fill_noisy (&in, slope, 20.0f, 0x1234 + (uint64_t) ch * 7 + type);
  status = bm3d_denoise_pixels (&in.px, &got.px, params, &report);
  ref = denoise_outside (&in.px, &want.px, params);
  /* Denoised, not copied: the result differs from the input.  */
  tap_ok (status == BM3D_OK && ref == BM3D_OK
          && max_value_diff (&got, &want)
             <= tolerance * (type == BM3D_PIXELS_U16 ? 257 : 1)
          && bytes_differing (&got, &in) > got.bytes / 10,
          "%s %s %d channel(s)%s %dx%d on %s: as converted outside "
          "(status %d/%d, %zu bytes differ, by at most %ld; %zu of %zu from "
          "the input%s%s)", what, type_name (type), ch,
          alpha ? " with alpha" : "", w, h,
          bm3d_backend_name (report.backend_used), (int) status, (int) ref,
          bytes_differing (&got, &want), max_value_diff (&got, &want),
          bytes_differing (&got, &in), got.bytes, status ? ": " : "",
          status ? report.message : "");
  free (in.px.data);
  free (got.px.data);
  free (want.px.data);
}

/* Each bad call: its status, a message, `out` as it was.  */
static void
check_refused (const bm3d_pixels *in, bm3d_pixels *out,
               const bm3d_params *params, bm3d_status expected,
               const char *what)
{
  bm3d_report report;
  test_pixels before;
  bm3d_status status;
  const int saved = out && out->data;
  int same = 1;

  memset (&before, 0, sizeof before);
  if (saved)
    {
      pixels_new (&before, out->width, out->height, out->channels,
                  out->has_alpha, out->type);
      memcpy (before.px.data, out->data, before.bytes);
    }
  status = bm3d_denoise_pixels (in, out, params, &report);
  if (saved)
    {
      same = memcmp (before.px.data, out->data, before.bytes) == 0;
      free (before.px.data);
    }
  tap_ok (status == expected && report.message[0] && same,
          "%s: status %d (want %d), \"%s\", output %s", what, (int) status,
          (int) expected, report.message, same ? "untouched" : "WRITTEN");
}

static void
check_errors (bm3d_params *params)
{
  test_pixels in, out, out16;
  bm3d_pixels bad;

  pixels_new (&in, 40, 36, 3, 0, BM3D_PIXELS_U8);
  pixels_new (&out, 40, 36, 3, 0, BM3D_PIXELS_U8);
  pixels_new (&out16, 40, 36, 3, 0, BM3D_PIXELS_U16);
  fill_noisy (&in, 3.0, 20.0f, 99);

  check_refused (NULL, &out.px, params, BM3D_ERR_INVALID_ARGUMENT,
                 "no input");
  check_refused (&in.px, NULL, params, BM3D_ERR_INVALID_ARGUMENT,
                 "no output");
  check_refused (&in.px, &out.px, NULL, BM3D_ERR_INVALID_ARGUMENT,
                 "no parameters");
  bad = in.px;
  bad.type = (bm3d_pixel_type) 7;
  check_refused (&bad, &out.px, params, BM3D_ERR_INVALID_ARGUMENT,
                 "unknown input type");
  check_refused (&in.px, &out16.px, params, BM3D_ERR_INVALID_ARGUMENT,
                 "u8 in, u16 out");
  bad = in.px;
  bad.data = NULL;
  check_refused (&bad, &out.px, params, BM3D_ERR_INVALID_ARGUMENT,
                 "input without data");
  bad = in.px;
  bad.stride = (size_t) in.px.width * 3 - 1;
  check_refused (&bad, &out.px, params, BM3D_ERR_INVALID_STRIDE,
                 "stride short of a row");
  bad = in.px;
  bad.width = 41;
  check_refused (&bad, &out.px, params, BM3D_ERR_INVALID_ARGUMENT,
                 "sizes differ");
  check_refused (&in.px, &in.px, params, BM3D_ERR_INVALID_ARGUMENT,
                 "output is the input");
  {
    bm3d_params p = *params;

    p.sigma = -1.0f;
    check_refused (&in.px, &out.px, &p, BM3D_ERR_INVALID_SIGMA,
                   "negative sigma");
    p = *params;
    p.progress = cancel_at_once;
    check_refused (&in.px, &out.px, &p, BM3D_ERR_CANCELLED, "cancelled");
  }
  tap_ok (bm3d_pixel_size (BM3D_PIXELS_U8) == 1
          && bm3d_pixel_size (BM3D_PIXELS_U16) == 2
          && bm3d_pixel_size (BM3D_PIXELS_FLOAT) == 4
          && bm3d_pixel_size ((bm3d_pixel_type) 7) == 0,
          "bm3d_pixel_size: 1, 2, 4, and 0 for no type");
  free (in.px.data);
  free (out.px.data);
  free (out16.px.data);
}

/* Float pixels are bm3d_denoise () itself.  */
static void
check_float (bm3d_params *params)
{
  const int w = 37, h = 29, ch = 3;
  bm3d_image in = { w, h, ch, 0, (size_t) w * ch + 5, NULL };
  bm3d_image want = in;
  bm3d_pixels pin = { w, h, ch, 0, in.stride, BM3D_PIXELS_FLOAT, NULL };
  bm3d_pixels got = pin;
  uint64_t seed = 5;
  bm3d_status a, b;

  in.data = calloc (in.stride * h, sizeof (float));
  want.data = calloc (in.stride * h, sizeof (float));
  got.data = calloc (in.stride * h, sizeof (float));
  pin.data = in.data;
  for (size_t i = 0; i < in.stride * h; i++)
    in.data[i] = (float) (100.0 + 30.0 * rng_gauss (&seed));
  a = bm3d_denoise (&in, &want, params, NULL);
  b = bm3d_denoise_pixels (&pin, &got, params, NULL);
  tap_ok (a == BM3D_OK && b == BM3D_OK
          && memcmp (want.data, got.data, in.stride * h * sizeof (float)) == 0,
          "float pixels: bm3d_denoise () bit for bit, values outside "
          "0..255 kept");
  free (in.data);
  free (want.data);
  free (got.data);
}

/* v / 257.0f, the engine's 16-bit rule, is the command's s * 255 / 65535
 * in double rounded once to float (imageio/image_io.c, io_from_int), for
 * every value: files read either way give the same floats.  */
static void
check_u16_rule (void)
{
  int differ = 0;

  for (unsigned v = 0; v <= 65535; v++)
    differ += (float) v / 257.0f != (float) (v * 255.0 / 65535);
  tap_ok (differ == 0, "u16 v / 257.0f is (float) (v * 255.0 / 65535) for "
          "every v (%d differ)", differ);
}

/* PSNR of `got` against `ref` on the 0..255 scale, colour values.  */
static double
psnr_pixels (const bm3d_pixels *ref, const bm3d_pixels *got)
{
  const size_t row = (size_t) ref->width * ref->channels;
  double se = 0.0;

  for (int y = 0; y < ref->height; y++)
    for (size_t i = 0; i < row; i++)
      {
        double d = value_at (got, y, i) - value_at (ref, y, i);

        se += d * d;
      }
  if (se == 0.0)
    return INFINITY;
  return 10.0 * log10 (255.0 * 255.0 * row * ref->height / se);
}

/* On a device: its integer result against the CPU's, by the tolerance
 * tests/gpu-tests.sh holds the float path to (PSNR against the clean
 * image within 0.05 dB, and the two results 40 dB apart or closer).  */
static void
check_device_vs_cpu (bm3d_params *params, bm3d_pixel_type type)
{
  const int w = 160, h = 120, ch = 3;
  test_pixels clean, in, gpu, cpu;
  bm3d_params on_cpu = *params;
  bm3d_report report;
  bm3d_status a, b;
  double p_gpu, p_cpu, p_between;

  pixels_new (&clean, w, h, ch, 0, type);
  pixels_new (&in, w, h, ch, 0, type);
  pixels_new (&gpu, w, h, ch, 0, type);
  pixels_new (&cpu, w, h, ch, 0, type);
  fill_noisy (&clean, 0.6, 0.0f, 1);
  fill_noisy (&in, 0.6, 20.0f, 1);
  on_cpu.backend = BM3D_BACKEND_CPU;
  a = bm3d_denoise_pixels (&in.px, &gpu.px, params, &report);
  b = bm3d_denoise_pixels (&in.px, &cpu.px, &on_cpu, NULL);
  p_gpu = psnr_pixels (&clean.px, &gpu.px);
  p_cpu = psnr_pixels (&clean.px, &cpu.px);
  p_between = psnr_pixels (&cpu.px, &gpu.px);
  tap_ok (a == BM3D_OK && b == BM3D_OK
          && report.backend_used == BM3D_BACKEND_CUDA
          && fabs (p_gpu - p_cpu) <= 0.05 && p_between >= 40.0
          && p_gpu > psnr_pixels (&clean.px, &in.px),
          "%s %s %dx%d RGB on %s: PSNR %.3f dB, the CPU's %.3f, noisy %.3f; "
          "device against CPU %.1f dB%s%s", bm3d_mode_name (params->mode),
          type_name (type), w, h, bm3d_backend_name (report.backend_used),
          p_gpu, p_cpu, psnr_pixels (&clean.px, &in.px), p_between,
          a ? ": " : "", a ? report.message : "");
  free (clean.px.data);
  free (in.px.data);
  free (gpu.px.data);
  free (cpu.px.data);
}

/* What the camera-mode checks share: camera mode's parameters and the
 * CPU's, a 192x128 RGB noisy image `in` (the caller fills it and its
 * `clean` one), the results, `in` as the floats the estimate reads
 * (camera_case_floats ()) and, on a device, the CPU's result
 * (camera_case_cpu ()).  */
typedef struct
{
  bm3d_params  camera, on_cpu;
  test_pixels  clean, in, got, own, want, cpu;
  bm3d_image   fin;
  double       p_cpu;
  char         cpu_part[32];
} camera_case;

enum { CAMERA_W = 192, CAMERA_H = 128 };

static void
camera_case_new (camera_case *k, const bm3d_params *params,
                 bm3d_pixel_type type)
{
  test_pixels *all[] = { &k->clean, &k->in, &k->got, &k->own, &k->want,
                         &k->cpu };

  k->camera = *params;
  k->camera.mode = BM3D_MODE_BM3D;
  k->camera.noise = BM3D_NOISE_PROFILE;
  k->camera.profile = NULL;
  k->on_cpu = k->camera;
  k->on_cpu.backend = BM3D_BACKEND_CPU;
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    pixels_new (all[i], CAMERA_W, CAMERA_H, 3, 0, type);
  k->fin = (bm3d_image) { CAMERA_W, CAMERA_H, 3, 0, (size_t) CAMERA_W * 3,
                          NULL };
  k->p_cpu = 0.0;
  k->cpu_part[0] = '\0';
}

/* k->fin: `in` as floats, once it is filled.  */
static void
camera_case_floats (camera_case *k)
{
  k->fin.data = malloc (sizeof (float) * CAMERA_W * CAMERA_H * 3);
  for (int y = 0; y < CAMERA_H; y++)
    for (size_t i = 0; i < (size_t) CAMERA_W * 3; i++)
      k->fin.data[y * k->fin.stride + i] = value_at (&k->in.px, y, i);
}

/* On a device, the CPU's result with k->on_cpu, its PSNR into k->p_cpu
 * and said in k->cpu_part; nothing on the CPU.  */
static bm3d_status
camera_case_cpu (camera_case *k)
{
  bm3d_status status;

  if (k->camera.backend == BM3D_BACKEND_CPU)
    return BM3D_OK;
  status = bm3d_denoise_pixels (&k->in.px, &k->cpu.px, &k->on_cpu, NULL);
  k->p_cpu = psnr_pixels (&k->clean.px, &k->cpu.px);
  snprintf (k->cpu_part, sizeof k->cpu_part, ", the CPU's %.3f", k->p_cpu);
  return status;
}

/* Does a result of PSNR `p_got`, whose call reported `report`, gain 2
 * dB over the noisy image and, on a device, come from it within 0.05 dB
 * of the CPU?  */
static int
camera_case_good (const camera_case *k, const bm3d_report *report,
                  double p_got)
{
  return p_got > psnr_pixels (&k->clean.px, &k->in.px) + 2.0
         && (k->camera.backend == BM3D_BACKEND_CPU
             || (report->backend_used == BM3D_BACKEND_CUDA
                 && fabs (p_got - k->p_cpu) <= 0.05));
}

static void
camera_case_free (camera_case *k)
{
  free (k->fin.data);
  free (k->clean.px.data);
  free (k->in.px.data);
  free (k->got.px.data);
  free (k->own.px.data);
  free (k->want.px.data);
  free (k->cpu.px.data);
}

/* Camera mode on noise that follows brightness (fill_shot_noisy ()):
 * the profile has a level function, the filter runs through its
 * stabilising transform, and the pixels come out as converting them
 * outside gives (on a device: its float path, within the tolerance);
 * on a device also within 0.05 dB of the CPU.  The device measures the
 * noise on a float copy and filters the integers themselves.  */
static void
check_camera_level_function (const bm3d_params *params,
                             bm3d_pixel_type type)
{
  camera_case k;
  bm3d_noise_profile profile;
  bm3d_report report;
  bm3d_status a, b, c;
  long tol = tolerance * (type == BM3D_PIXELS_U16 ? 257 : 1);
  double p_got;
  int nlf;

  camera_case_new (&k, params, type);
  fill_shot_noisy (&k.in, &k.clean, 0x5eed + (uint64_t) type);
  camera_case_floats (&k);
  nlf = bm3d_estimate_noise_profile (&k.fin, &k.on_cpu, &profile, NULL)
        == BM3D_OK
        && profile.nlf[0][0] > 0.0f
        && fabsf (profile.nlf[0][BM3D_NLF_BINS - 1] / profile.nlf[0][0]
                  - 1.0f) > 0.3f;
  a = bm3d_denoise_pixels (&k.in.px, &k.got.px, &k.camera, &report);
  b = denoise_outside (&k.in.px, &k.want.px, &k.camera);
  p_got = psnr_pixels (&k.clean.px, &k.got.px);
  c = camera_case_cpu (&k);
  tap_ok (nlf && a == BM3D_OK && b == BM3D_OK && c == BM3D_OK
          && max_value_diff (&k.got, &k.want) <= tol
          && camera_case_good (&k, &report, p_got),
          "camera noise following brightness, %s RGB %dx%d on %s: level "
          "function %s; as converted outside (by at most %ld); PSNR %.3f "
          "dB, noisy %.3f%s%s%s", type_name (type), CAMERA_W, CAMERA_H,
          bm3d_backend_name (report.backend_used), nlf ? "read" : "MISSING",
          max_value_diff (&k.got, &k.want), p_got,
          psnr_pixels (&k.clean.px, &k.in.px), k.cpu_part, a ? ": " : "",
          a ? report.message : "");
  camera_case_free (&k);
}

/* Camera mode with its profile given, as the command gives it (its own
 * estimate on floats, or a batch reader's): a profile that carries its
 * finest scale's measures and no level function leaves the device path
 * nothing to read on the host (engine.c, pixels_camera ()).  The pixels
 * must come out as the engine's own estimate gives them and as
 * converting them outside does; on a device within 0.05 dB of the
 * CPU.  */
static void
check_camera_profile_given (const bm3d_params *params, bm3d_pixel_type type)
{
  camera_case k;
  bm3d_noise_profile profile;
  bm3d_report report;
  bm3d_status a, b, c, d;
  long tol = tolerance * (type == BM3D_PIXELS_U16 ? 257 : 1);
  double p_got;
  int measures;

  camera_case_new (&k, params, type);
  fill_noisy (&k.clean, 0.6, 0.0f, 7);
  fill_noisy (&k.in, 0.6, 15.0f, 7);
  camera_case_floats (&k);
  measures = bm3d_estimate_noise_profile (&k.fin, &k.on_cpu, &profile, NULL)
             == BM3D_OK && profile.has_fine && !(profile.nlf[0][0] > 0.0f);
  a = bm3d_denoise_pixels (&k.in.px, &k.own.px, &k.camera, NULL);
  k.camera.profile = k.on_cpu.profile = &profile;
  b = bm3d_denoise_pixels (&k.in.px, &k.got.px, &k.camera, &report);
  c = denoise_outside (&k.in.px, &k.want.px, &k.camera);
  p_got = psnr_pixels (&k.clean.px, &k.got.px);
  d = camera_case_cpu (&k);
  tap_ok (measures && a == BM3D_OK && b == BM3D_OK && c == BM3D_OK
          && d == BM3D_OK
          && max_value_diff (&k.got, &k.own) <= tol
          && max_value_diff (&k.got, &k.want) <= tol
          && camera_case_good (&k, &report, p_got),
          "camera noise, its estimated profile given, %s RGB %dx%d on %s: "
          "the profile's measures %s; as the engine's own estimate (by at "
          "most %ld) and as converted outside (%ld); PSNR %.3f dB, noisy "
          "%.3f%s%s%s", type_name (type), CAMERA_W, CAMERA_H,
          bm3d_backend_name (report.backend_used),
          measures ? "carried" : "MISSING", max_value_diff (&k.got, &k.own),
          max_value_diff (&k.got, &k.want), p_got,
          psnr_pixels (&k.clean.px, &k.in.px), k.cpu_part, b ? ": " : "",
          b ? report.message : "");
  camera_case_free (&k);
}

int
main (void)
{
  static const bm3d_mode modes[] = { BM3D_MODE_BM3D, BM3D_MODE_NLM,
                                     BM3D_MODE_ISOLINE };
  static const struct { int ch, alpha; } layouts[] = { { 1, 0 }, { 3, 0 },
                                                        { 4, 1 } };

  const char *backend = getenv ("BM3D_PIXELS_TEST_BACKEND");
  bm3d_params params;

  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  if (backend && strcmp (backend, "cuda") == 0)
    {
      params.backend = BM3D_BACKEND_CUDA;
      tolerance = 1;
    }
  params.threads = 2;
  params.sigma = 20.0f;

  for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++)
      for (int t = BM3D_PIXELS_U8; t <= BM3D_PIXELS_U16; t++)
        {
          params.mode = modes[m];
          /* Caller's clipped flag 0: integer pixels set it anyway.  */
          params.clipped = 0;
          check_same_as_outside (&params, 45, 33, layouts[l].ch,
                                 layouts[l].alpha, (bm3d_pixel_type) t, 3.0,
                                 bm3d_mode_name (modes[m]));
        }

  if (params.backend == BM3D_BACKEND_CUDA)
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
      for (int t = BM3D_PIXELS_U8; t <= BM3D_PIXELS_U16; t++)
        {
          params.mode = modes[m];
          check_device_vs_cpu (&params, (bm3d_pixel_type) t);
        }

  /* The noise estimated from the pixels themselves: flat enough to
   * find it.  */
  params.mode = BM3D_MODE_BM3D;
  params.noise = BM3D_NOISE_PROFILE;
  params.profile = NULL;
  check_same_as_outside (&params, 64, 64, 3, 0, BM3D_PIXELS_U8, 0.2,
                         "bm3d camera noise");
  params.mode = BM3D_MODE_NLM;
  check_same_as_outside (&params, 64, 64, 1, 0, BM3D_PIXELS_U16, 0.2,
                         "nlm camera noise");
  params.noise = BM3D_NOISE_WHITE;
  for (int t = BM3D_PIXELS_U8; t <= BM3D_PIXELS_U16; t++)
    {
      check_camera_level_function (&params, (bm3d_pixel_type) t);
      check_camera_profile_given (&params, (bm3d_pixel_type) t);
    }

  check_float (&params);
  check_errors (&params);
  check_u16_rule ();
  return tap_done ();
}
