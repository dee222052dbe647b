/* The GEGL operation bm3d:denoise against the engine alone, on one
 * image: the time to the first canvas tile (a fresh graph, so the
 * noise estimate is in it), to the whole image in one request, to the
 * whole image in square chunks (as a canvas or GIMP's merge asks for
 * it), and the engine's own time on the same pixels (estimate and
 * denoise).  What the operation costs beyond the engine is the
 * difference.
 *
 *   bm3d-gegl-op-bench [--width W] [--height H] [--noise white|camera]
 *                      [--tile N] [--chunk N] [--backend auto|cpu|cuda]
 *
 * The image is synthetic (a smooth picture with edges and white noise
 * of sigma 20), R'G'B'A float.  The module is loaded from
 * BM3D_GEGL_MODULE_DIR, else from GEGL's usual folders.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gegl.h>

#include "bm3d.h"

typedef struct
{
  int         width, height, tile, chunk;
  int         camera;
  bm3d_backend backend;
} Options;

static float *
make_image (const Options *o)
{
  size_t   n = (size_t) o->width * o->height;
  float   *data = malloc (n * 4 * sizeof (float));
  unsigned state = 12345;

  for (int y = 0; y < o->height; y++)
    for (int x = 0; x < o->width; x++)
      {
        float *px = data + ((size_t) y * o->width + x) * 4;

        for (int c = 0; c < 3; c++)
          {
            /* Sum of 4 uniforms: near-Gaussian, deviation ~ 20.  */
            double noise = 0.0;

            for (int k = 0; k < 4; k++)
              {
                state = state * 1664525u + 1013904223u;
                noise += (state >> 8) / 16777216.0 - 0.5;
              }
            px[c] = (float) ((60.0 + 100.0 * ((x / 97 + y / 61 + c) % 2)
                              + 0.01 * x + 69.3 * noise) / 255.0);
          }
        px[3] = 1.0f;
      }
  return data;
}

static GeglNode *
graph_new (GeglBuffer *source, const Options *o, GeglNode **op)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *input = gegl_node_new_child (graph, "operation",
                                         "gegl:buffer-source", "buffer",
                                         source, NULL);

  *op = gegl_node_new_child (graph, "operation", "bm3d:denoise",
                             "noise", o->camera ? 1 : 0, "sigma", 20.0,
                             "backend", (int) o->backend, NULL);
  gegl_node_link (input, *op);
  return graph;
}

/* Seconds to render `rect` of a fresh graph, in chunks of `chunk`
 * pixels a side (0: one request).  */
static double
render (GeglBuffer *source, const Options *o, const GeglRectangle *rect,
        int chunk, float *out)
{
  const Babl *format = babl_format ("R'G'B'A float");
  GeglNode   *op;
  GeglNode   *graph = graph_new (source, o, &op);
  gint64      t0 = g_get_monotonic_time ();
  size_t      stride = (size_t) rect->width * 4 * sizeof (float);

  if (chunk <= 0)
    gegl_node_blit (op, 1.0, rect, format, out, stride, GEGL_BLIT_DEFAULT);
  else
    for (int y = rect->y; y < rect->y + rect->height; y += chunk)
      for (int x = rect->x; x < rect->x + rect->width; x += chunk)
        {
          GeglRectangle c = { x, y, MIN (chunk, rect->x + rect->width - x),
                              MIN (chunk, rect->y + rect->height - y) };

          gegl_node_blit (op, 1.0, &c, format,
                          out + ((size_t) (y - rect->y) * rect->width
                                 + (x - rect->x)) * 4,
                          stride, GEGL_BLIT_DEFAULT);
        }
  g_object_unref (graph);
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* The engine alone as the operation calls it: estimate on the middle
 * 1024 x 1024 (camera noise), then the whole image.  */
static double
engine_alone (const float *image, const Options *o)
{
  size_t             n = (size_t) o->width * o->height * 4;
  float             *in = malloc (n * sizeof (float));
  float             *out = malloc (n * sizeof (float));
  bm3d_image         a = { o->width, o->height, 4, 1,
                           (size_t) o->width * 4, in };
  bm3d_image         b = a;
  bm3d_image         sample = a;
  bm3d_params        params;
  bm3d_noise_profile profile;
  int                sw = MIN (o->width, 1024), sh = MIN (o->height, 1024);
  gint64             t0;

  for (size_t i = 0; i < n; i++)
    in[i] = i % 4 < 3 ? image[i] * 255.0f : image[i];
  b.data = out;
  bm3d_params_init (&params);
  params.backend = o->backend;
  params.sigma = 20.0f;
  t0 = g_get_monotonic_time ();
  if (o->camera)
    {
      sample.width = sw;
      sample.height = sh;
      sample.data = in + ((size_t) ((o->height - sh) / 2) * o->width
                          + (o->width - sw) / 2) * 4;
      bm3d_estimate_noise_profile (&sample, &params, &profile, NULL);
      params.noise = BM3D_NOISE_PROFILE;
      params.profile = &profile;
      params.strength = params.chroma_strength = 1.0f;
    }
  bm3d_denoise (&a, &b, &params, NULL);
  free (in);
  free (out);
  return (g_get_monotonic_time () - t0) / 1e6;
}

static void
parse (int argc, char **argv, Options *o)
{
  o->width = 4000;
  o->height = 3000;
  o->tile = 256;
  o->chunk = 512;
  o->camera = 1;
  o->backend = BM3D_BACKEND_AUTO;
  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (strcmp (argv[i], "--width") == 0)
        o->width = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--height") == 0)
        o->height = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--tile") == 0)
        o->tile = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--chunk") == 0)
        o->chunk = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--noise") == 0)
        o->camera = strcmp (argv[i + 1], "camera") == 0;
      else if (strcmp (argv[i], "--backend") == 0)
        o->backend = (bm3d_backend) bm3d_backend_parse (argv[i + 1]);
    }
}

int
main (int argc, char **argv)
{
  const char   *dir = g_getenv ("BM3D_GEGL_MODULE_DIR");
  Options       o;
  GeglRectangle whole, tile;
  GeglBuffer   *source;
  float        *image, *out;
  double        first, one, chunks, engine;

  parse (argc, argv, &o);
  gegl_init (&argc, &argv);
  if (dir)
    gegl_load_module_directory (dir);
  if (! gegl_has_operation ("bm3d:denoise") || (int) o.backend < 0)
    {
      fprintf (stderr, "bm3d-gegl-op-bench: no bm3d:denoise (set "
               "BM3D_GEGL_MODULE_DIR), or a bad --backend\n");
      return 1;
    }
  gegl_rectangle_set (&whole, 0, 0, o.width, o.height);
  gegl_rectangle_set (&tile, (o.width - o.tile) / 2, (o.height - o.tile) / 2,
                      o.tile, o.tile);
  image = make_image (&o);
  out = malloc ((size_t) o.width * o.height * 4 * sizeof (float));
  source = gegl_buffer_new (&whole, babl_format ("R'G'B'A float"));
  gegl_buffer_set (source, &whole, 0, babl_format ("R'G'B'A float"), image,
                   GEGL_AUTO_ROWSTRIDE);

  printf ("%d x %d R'G'B'A float, %s noise, backend %s\n", o.width,
          o.height, o.camera ? "camera" : "white (sigma 20)",
          bm3d_backend_name (o.backend));
  fflush (stdout);
  first = render (source, &o, &tile, 0, out);
  printf ("first %d x %d tile (fresh graph, estimate included): %.3f s\n",
          o.tile, o.tile, first);
  fflush (stdout);
  engine = engine_alone (image, &o);
  printf ("engine alone (estimate and denoise): %.3f s\n", engine);
  fflush (stdout);
  one = render (source, &o, &whole, 0, out);
  printf ("operation, whole image in one request: %.3f s (%+.3f s, "
          "%.2fx the engine)\n", one, one - engine, one / engine);
  fflush (stdout);
  chunks = render (source, &o, &whole, o.chunk, out);
  printf ("operation, %d x %d chunks: %.3f s (%+.3f s, %.2fx the engine)\n",
          o.chunk, o.chunk, chunks, chunks - engine, chunks / engine);

  g_object_unref (source);
  free (image);
  free (out);
  gegl_exit ();
  return 0;
}
