/* BM3D Denoise for GIMP — the GEGL operation's noise estimate: measured
 * once per input and shared by every area GEGL asks for.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program.  If not, see <https://www.gnu.org/licenses/>.
 *
 * GEGL asks for an image area by area, from several threads, and again
 * on every redraw.  Areas that each measured the noise on themselves
 * would disagree at their seams and with the procedure, so the estimate
 * is measured once on the sample the procedure uses and kept on the
 * operation.  What it was measured on is told by the node feeding the
 * input: GEGL signals "invalidated" on it whenever its pixels change,
 * and the estimates are then dropped.  One lock guards every
 * operation's estimates; a thread that finds none measures while
 * holding it, so the others wait for that one result instead of
 * measuring again.
 */

#include "config.h"

#include <string.h>

#include "bm3d-gegl-estimate.h"

typedef struct
{
  gint                generation;   /* the cache's when measured       */
  gint                level;
  gint                kind;         /* BM3D_NOISE_WHITE or _PROFILE    */
  gint                channels;
  GeglRectangle       bounds;
  bm3d_noise_profile  profile;
  gfloat              sigma;
} Estimate;

typedef struct
{
  GWeakRef  source;       /* the node the estimates were measured on */
  gint      generation;   /* bumped at each change of it (atomic)    */
  GSList   *estimates;    /* under the lock                          */
} EstimateCache;

static GMutex cache_lock;

static GQuark
cache_quark (void)
{
  return g_quark_from_static_string ("bm3d-gegl-estimate-cache");
}

static void
cache_free (gpointer data)
{
  EstimateCache *cache = data;

  g_slist_free_full (cache->estimates, g_free);
  g_weak_ref_clear (&cache->source);
  g_free (cache);
}

/* Called with the lock held.  */
static EstimateCache *
cache_of (GeglOperation *operation)
{
  EstimateCache *cache = g_object_get_qdata (G_OBJECT (operation),
                                             cache_quark ());

  if (! cache)
    {
      cache = g_new0 (EstimateCache, 1);
      g_weak_ref_init (&cache->source, NULL);
      g_object_set_qdata_full (G_OBJECT (operation), cache_quark (), cache,
                               cache_free);
    }
  return cache;
}

/* Called with the lock held.  */
static void
cache_drop (EstimateCache *cache)
{
  g_atomic_int_inc (&cache->generation);
  g_slist_free_full (cache->estimates, g_free);
  cache->estimates = NULL;
}

/* Only marks the estimates old, without the lock: a thread measuring
 * holds it for a while, and GEGL signals from wherever the input
 * changed (GIMP's main thread as the user paints).  The old ones are
 * freed at the next look.  The cache exists: made before the
 * connection.  */
static void
source_invalidated (GeglNode            *source,
                    const GeglRectangle *rect,
                    GeglOperation       *operation)
{
  EstimateCache *cache = g_object_get_qdata (G_OBJECT (operation),
                                             cache_quark ());

  if (cache)
    g_atomic_int_inc (&cache->generation);
}

void
bm3d_gegl_estimate_watch (GeglOperation *operation)
{
  GeglNode      *source = gegl_operation_get_source_node (operation,
                                                          "input");
  EstimateCache *cache;
  GeglNode      *watched;

  g_mutex_lock (&cache_lock);
  cache = cache_of (operation);
  watched = g_weak_ref_get (&cache->source);
  if (watched != source)
    {
      if (watched)
        g_signal_handlers_disconnect_by_func (watched, source_invalidated,
                                              operation);
      cache_drop (cache);
      g_weak_ref_set (&cache->source, source);
      /* Disconnected by GObject when the operation goes first.  */
      if (source)
        g_signal_connect_object (source, "invalidated",
                                 G_CALLBACK (source_invalidated), operation,
                                 0);
    }
  g_mutex_unlock (&cache_lock);
  g_clear_object (&watched);
}

/* Called with the lock held.  */
static Estimate *
cache_find (EstimateCache       *cache,
            gint                 kind,
            const Bm3dLayout    *layout,
            const GeglRectangle *bounds,
            gint                 level)
{
  gint    generation = g_atomic_int_get (&cache->generation);
  GSList *l, *next;

  /* The old ones go first.  */
  for (l = cache->estimates; l; l = next)
    {
      next = l->next;
      if (((Estimate *) l->data)->generation != generation)
        {
          g_free (l->data);
          cache->estimates = g_slist_delete_link (cache->estimates, l);
        }
    }
  for (l = cache->estimates; l; l = l->next)
    {
      Estimate *e = l->data;

      if (e->generation == generation && e->level == level
          && e->kind == kind && e->channels == layout->channels
          && gegl_rectangle_equal (&e->bounds, bounds))
        return e;
    }
  return NULL;
}

/* The estimate of `kind`, measured now unless kept: copied out, so that
 * a change of the input meanwhile frees nothing the caller reads.  */
static gboolean
estimate_get (GeglOperation       *operation,
              gint                 kind,
              GeglBuffer          *input,
              const Bm3dLayout    *layout,
              const GeglRectangle *bounds,
              gint                 level,
              const bm3d_params   *params,
              Estimate            *result,
              GError             **error)
{
  EstimateCache *cache;
  Estimate      *kept;
  bm3d_params    quiet = *params;
  gboolean       ok = TRUE;

  g_mutex_lock (&cache_lock);
  cache = cache_of (operation);
  kept = cache_find (cache, kind, layout, bounds, level);
  if (! kept)
    {
      kept = g_new0 (Estimate, 1);
      kept->generation = g_atomic_int_get (&cache->generation);
      kept->level = level;
      kept->kind = kind;
      kept->channels = layout->channels;
      kept->bounds = *bounds;
      /* The progress stays unreported: the lock is held.  */
      quiet.progress = NULL;
      quiet.progress_data = NULL;
      ok = bm3d_render_estimate_middle (input, layout, bounds, level, &quiet,
                                        kind == BM3D_NOISE_PROFILE
                                        ? &kept->profile : NULL,
                                        &kept->sigma, NULL, error);
      if (ok)
        cache->estimates = g_slist_prepend (cache->estimates, kept);
      else
        g_clear_pointer (&kept, g_free);
    }
  if (ok)
    *result = *kept;
  g_mutex_unlock (&cache_lock);
  return ok;
}

gboolean
bm3d_gegl_estimate (GeglOperation       *operation,
                    GeglBuffer          *input,
                    const Bm3dLayout    *layout,
                    const GeglRectangle *bounds,
                    gint                 level,
                    const bm3d_params   *params,
                    bm3d_noise_profile  *profile,
                    gfloat              *sigma,
                    GError             **error)
{
  Estimate estimate;

  if (! estimate_get (operation,
                      profile ? BM3D_NOISE_PROFILE : BM3D_NOISE_WHITE,
                      input, layout, bounds, level, params, &estimate,
                      error))
    return FALSE;
  if (profile)
    *profile = estimate.profile;
  else
    *sigma = estimate.sigma;
  return TRUE;
}
