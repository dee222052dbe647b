/* The GEGL operation bm3d:denoise through GEGL itself: an image rendered
 * in small chunks equals the whole image rendered at once (no seams),
 * the whole image equals the engine's own result on it (the procedure's
 * pixels), camera noise is measured once for every chunk, alpha comes
 * out bit-exact, gray works, and a zoomed-out (mipmap) render runs.
 *
 * The module is loaded from BM3D_GEGL_MODULE_DIR (the build's plugin/
 * folder, set by tests/gegl.mk).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */

#include "config.h"

#include <gegl.h>

#include "bm3d.h"
#include "engine-tap.h"

#define WIDTH   300
#define HEIGHT  220
#define SIGMA   20.0
/* Chunks smaller than the engine's margin and not dividing the image.  */
#define CHUNK_W 56
#define CHUNK_H 40

/* A smooth picture with an edge, white noise of SIGMA (0..255 scale)
 * unless `clean`, and an alpha that varies, on GEGL's 0..1 scale.  */
static float *
test_image (int channels, int has_alpha, int clean)
{
  float    *data = malloc (sizeof (float) * WIDTH * HEIGHT * channels);
  uint64_t  seed = 39;
  int       colour = channels - (has_alpha ? 1 : 0);

  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      {
        float *px = data + ((size_t) y * WIDTH + x) * channels;

        for (int c = 0; c < colour; c++)
          {
            double value = 60.0 + 0.4 * x + 30.0 * c + (y > 110 ? 70.0 : 0.0);
            double noise = SIGMA * rng_gauss (&seed);

            px[c] = (float) ((value + (clean ? 0.0 : noise)) / 255.0);
          }
        if (has_alpha)
          px[colour] = (float) ((x * 7 + y * 3) % 256) / 255.0f;
      }
  return data;
}

static GeglNode *
denoise_graph (GeglBuffer *source, const char *noise, GeglNode **op)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *input = gegl_node_new_child (graph, "operation",
                                         "gegl:buffer-source", "buffer",
                                         source, NULL);

  *op = gegl_node_new_child (graph, "operation", "bm3d:denoise",
                             "backend", 1 /* cpu */, NULL);
  /* 0 white, 1 camera (the property's default).  */
  gegl_node_set (*op, "sigma", SIGMA, "noise",
                 noise && strcmp (noise, "camera") == 0 ? 1 : 0, NULL);
  gegl_node_link (input, *op);
  return graph;
}

/* The operation's result on `format`, rendered whole or chunk by
 * chunk, each through a graph of its own (no cache shared).  */
static float *
render (const float *image, const Babl *format, int channels,
        const char *noise, int chunked)
{
  GeglRectangle whole = { 0, 0, WIDTH, HEIGHT };
  GeglBuffer   *source = gegl_buffer_new (&whole, format);
  float        *out = calloc ((size_t) WIDTH * HEIGHT * channels,
                              sizeof (float));
  GeglNode     *op;
  GeglNode     *graph;
  size_t        stride = (size_t) WIDTH * channels * sizeof (float);

  gegl_buffer_set (source, &whole, 0, format, image, GEGL_AUTO_ROWSTRIDE);
  graph = denoise_graph (source, noise, &op);
  if (! chunked)
    gegl_node_blit (op, 1.0, &whole, format, out, stride, GEGL_BLIT_DEFAULT);
  else
    for (int y = 0; y < HEIGHT; y += CHUNK_H)
      for (int x = 0; x < WIDTH; x += CHUNK_W)
        {
          GeglRectangle chunk = { x, y, MIN (CHUNK_W, WIDTH - x),
                                  MIN (CHUNK_H, HEIGHT - y) };

          gegl_node_blit (op, 1.0, &chunk, format,
                          out + ((size_t) y * WIDTH + x) * channels, stride,
                          GEGL_BLIT_DEFAULT);
        }
  g_object_unref (graph);
  g_object_unref (source);
  return out;
}

/* The engine on the whole image, as the procedure calls it: white
 * noise of SIGMA, or the profile measured on the image (the middle
 * 1024 x 1024 is all of it).  Back on GEGL's scale.  */
static float *
engine_result (const float *image, int channels, int has_alpha, int camera)
{
  size_t              n = (size_t) WIDTH * HEIGHT * channels;
  float              *in = malloc (n * sizeof (float));
  float              *out = malloc (n * sizeof (float));
  bm3d_image          a = { WIDTH, HEIGHT, channels, has_alpha,
                            (size_t) WIDTH * channels, in };
  bm3d_image          b = a;
  bm3d_params         params;
  bm3d_noise_profile  profile;
  int                 colour = channels - (has_alpha ? 1 : 0);

  b.data = out;
  for (size_t i = 0; i < n; i++)
    in[i] = (int) (i % channels) < colour ? image[i] * 255.0f : image[i];
  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  params.sigma = SIGMA;
  if (camera)
    {
      bm3d_estimate_noise_profile (&a, &params, &profile, NULL);
      params.noise = BM3D_NOISE_PROFILE;
      params.profile = &profile;
      params.strength = params.chroma_strength = 1.0f;
    }
  if (bm3d_denoise (&a, &b, &params, NULL) != BM3D_OK)
    memset (out, 0, n * sizeof (float));
  for (size_t i = 0; i < n; i++)
    if ((int) (i % channels) < colour)
      out[i] /= 255.0f;
  free (in);
  return out;
}

/* Largest difference of the colour values, on the 0..255 scale.  */
static double
max_colour_diff (const float *a, const float *b, int channels, int colour)
{
  double worst = 0.0;

  for (size_t i = 0; i < (size_t) WIDTH * HEIGHT * channels; i++)
    if ((int) (i % channels) < colour)
      worst = MAX (worst, fabs ((double) a[i] - b[i]) * 255.0);
  return worst;
}

static int
alpha_exact (const float *a, const float *b, int channels)
{
  for (size_t i = channels - 1; i < (size_t) WIDTH * HEIGHT * channels;
       i += channels)
    if (memcmp (&a[i], &b[i], sizeof (float)) != 0)
      return 0;
  return 1;
}

static double
psnr_255 (const float *ref, const float *got, int channels, int colour)
{
  double se = 0.0;
  size_t count = 0;

  for (size_t i = 0; i < (size_t) WIDTH * HEIGHT * channels; i++)
    if ((int) (i % channels) < colour)
      {
        double d = ((double) got[i] - ref[i]) * 255.0;

        se += d * d;
        count++;
      }
  return se == 0.0 ? INFINITY : 10.0 * log10 (255.0 * 255.0 * count / se);
}

/* Whole against chunks and against the engine, for one format.  */
static void
check_format (const char *name, int channels, int has_alpha,
              const char *noise)
{
  const Babl *format = babl_format (name);
  int         colour = channels - (has_alpha ? 1 : 0);
  float      *image = test_image (channels, has_alpha, 0);
  float      *whole = render (image, format, channels, noise, 0);
  float      *chunks = render (image, format, channels, noise, 1);
  float      *engine = engine_result (image, channels, has_alpha,
                                      noise && strcmp (noise, "camera") == 0);
  float      *clean = test_image (channels, has_alpha, 1);
  double      seam = max_colour_diff (whole, chunks, channels, colour);
  double      psnr = psnr_255 (engine, whole, channels, colour);
  double      psnr_whole = psnr_255 (clean, whole, channels, colour);
  double      psnr_chunks = psnr_255 (clean, chunks, channels, colour);

  /* As the procedure's strips (tests/gimp-strips.sh): each chunk sees
   * the engine's context around it, not the whole image, so a few
   * pixels may differ, by less than one step of an 8-bit image, and
   * the quality is the same.  */
  tap_ok (seam < 1.0 && fabs (psnr_chunks - psnr_whole) <= 0.05,
          "%s, %s noise: %d x %d chunks give the whole image's result "
          "(largest difference %.3g of 255; PSNR %.3f dB, whole %.3f dB)",
          name, noise ? noise : "white", CHUNK_W, CHUNK_H, seam,
          psnr_chunks, psnr_whole);
  tap_ok (psnr > 60.0, "%s, %s noise: the whole image is the engine's "
          "result on it (PSNR %.1f dB against it)", name,
          noise ? noise : "white", psnr);
  if (has_alpha)
    tap_ok (alpha_exact (image, whole, channels)
            && alpha_exact (image, chunks, channels),
            "%s: alpha comes out bit-exact", name);
  free (image);
  free (whole);
  free (chunks);
  free (engine);
  free (clean);
}

/* Zoomed out to 50% (mipmap level 1): the operation runs there, and
 * its result is near the full result seen at that zoom.  */
static void
check_level_one (void)
{
  const Babl   *format = babl_format ("R'G'B'A float");
  float        *image = test_image (4, 1, 0);
  float        *whole = render (image, format, 4, NULL, 0);
  GeglRectangle full = { 0, 0, WIDTH, HEIGHT };
  GeglRectangle half = { 0, 0, WIDTH / 2, HEIGHT / 2 };
  GeglBuffer   *source = gegl_buffer_new (&full, format);
  GeglBuffer   *result = gegl_buffer_new (&full, format);
  float        *zoomed = calloc ((size_t) half.width * half.height * 4,
                                 sizeof (float));
  float        *expect = calloc ((size_t) half.width * half.height * 4,
                                 sizeof (float));
  GeglNode     *op;
  GeglNode     *graph;
  double        se = 0.0;
  size_t        n = (size_t) half.width * half.height;

  gegl_buffer_set (source, &full, 0, format, image, GEGL_AUTO_ROWSTRIDE);
  gegl_buffer_set (result, &full, 0, format, whole, GEGL_AUTO_ROWSTRIDE);
  graph = denoise_graph (source, NULL, &op);
  gegl_node_blit (op, 0.5, &half, format, zoomed, GEGL_AUTO_ROWSTRIDE,
                  GEGL_BLIT_DEFAULT);
  gegl_buffer_get (result, &half, 0.5, format, expect, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
  for (size_t i = 0; i < n * 4; i++)
    if (i % 4 < 3)
      se += ((double) zoomed[i] - expect[i]) * ((double) zoomed[i] - expect[i])
            * 255.0 * 255.0;
  tap_diag ("50%% zoom against the full result at 50%%: PSNR %.1f dB",
            10.0 * log10 (255.0 * 255.0 * n * 3 / MAX (se, 1e-12)));
  tap_ok (10.0 * log10 (255.0 * 255.0 * n * 3 / MAX (se, 1e-12)) > 30.0,
          "a zoomed-out (mipmap level 1) render looks like the full "
          "result at that zoom");
  g_object_unref (graph);
  g_object_unref (source);
  g_object_unref (result);
  free (image);
  free (whole);
  free (zoomed);
  free (expect);
}

int
main (int argc, char **argv)
{
  const char *dir = g_getenv ("BM3D_GEGL_MODULE_DIR");

  gegl_init (&argc, &argv);
  /* As GIMP renders a zoomed-out canvas.  */
  g_object_set (gegl_config (), "mipmap-rendering", TRUE, NULL);
  if (dir)
    gegl_load_module_directory (dir);
  if (! gegl_has_operation ("bm3d:denoise"))
    {
      printf ("1..0 # SKIP bm3d:denoise not found in %s\n",
              dir ? dir : "(BM3D_GEGL_MODULE_DIR unset)");
      gegl_exit ();
      return 77;
    }
  tap_ok (1, "GEGL loads bm3d:denoise");

  check_format ("R'G'B'A float", 4, 1, NULL);
  check_format ("R'G'B'A float", 4, 1, "camera");
  check_format ("Y' float", 1, 0, NULL);
  check_level_one ();

  gegl_exit ();
  return tap_done ();
}
