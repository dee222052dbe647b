/* BM3D Denoise for GIMP — a list of files denoised in one plug-in
 * process.
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
 * Why a procedure and not a Script-Fu loop: each call of
 * plug-in-bm3d-denoise starts the plug-in afresh, and with it GEGL and
 * babl (about half a second on 2 cores) and CUDA (about 0.2 s).  Here
 * they start once for the whole list.
 *
 * A PNG that imageio reads and writes with all GIMP would keep does not
 * go through GIMP at all (bm3d-own.c): no loader plug-in, no copies
 * through GIMP's core.  Every other file is loaded by GIMP, denoised as
 * a drawable and saved as bm3d-save.h says.
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>
#include <libgimp/gimp.h>

#include "bm3d-intl.h"
#include "bm3d-drawable.h"
#include "bm3d-values.h"
#include "bm3d-run.h"
#include "bm3d-save.h"
#include "bm3d-own.h"
#include "bm3d-files.h"

#define BM3D_FILES_ERROR (g_quark_from_static_string ("bm3d-files-error"))

/* ---- the plan: names and refusals ------------------------------------ */

/* Whether `a` and `b` name the same file: the same canonical name (the
 * file need not exist), or the same file on disk by another name (a
 * link, a folder given two ways).  */
static gboolean
same_file (const gchar *a,
           const gchar *b)
{
  gchar    *ca = g_canonicalize_filename (a, NULL);
  gchar    *cb = g_canonicalize_filename (b, NULL);
  gboolean  same = strcmp (ca, cb) == 0;
  GStatBuf  sa, sb;

  g_free (ca);
  g_free (cb);
  if (! same && g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0)
    same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return same;
}

/* Why `plan[i]` may not write its output, or NULL.  */
static gchar *
refusal_for (GArray             *plan,
             guint               i,
             const gchar *const *files,
             gint                n_files)
{
  Bm3dFilePlan *file = &g_array_index (plan, Bm3dFilePlan, i);
  guint         j;
  gint          k;

  for (k = 0; k < n_files; k++)
    if (same_file (file->output, files[k]))
      return g_strdup_printf (_("refusing to overwrite the input %s"),
                              files[k]);
  for (j = 0; j < i; j++)
    {
      Bm3dFilePlan *earlier = &g_array_index (plan, Bm3dFilePlan, j);

      if (! earlier->refusal && same_file (file->output, earlier->output))
        return g_strdup_printf (_("another file of the list has the same "
                                  "name; %s is not written twice"),
                                file->output);
    }
  return NULL;
}

GArray *
bm3d_files_plan (const gchar *const *files,
                 gint                n_files,
                 const gchar        *out_dir,
                 GError            **error)
{
  GArray *plan;
  gint    i;

  if (! out_dir || ! g_file_test (out_dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, BM3D_FILES_ERROR, 0,
                   _("BM3D batch: the output folder %s does not exist"),
                   out_dir ? out_dir : "");
      return NULL;
    }

  plan = g_array_sized_new (FALSE, TRUE, sizeof (Bm3dFilePlan), n_files);
  for (i = 0; i < n_files; i++)
    {
      Bm3dFilePlan  file = { files[i], NULL, NULL };
      gchar        *name = g_path_get_basename (files[i]);

      file.output = g_build_filename (out_dir, name, NULL);
      g_free (name);
      g_array_append_val (plan, file);
      g_array_index (plan, Bm3dFilePlan, i).refusal
        = refusal_for (plan, i, files, n_files);
    }
  return plan;
}

void
bm3d_files_plan_free (GArray *plan)
{
  guint i;

  for (i = 0; plan && i < plan->len; i++)
    {
      g_free (g_array_index (plan, Bm3dFilePlan, i).output);
      g_free (g_array_index (plan, Bm3dFilePlan, i).refusal);
    }
  if (plan)
    g_array_free (plan, TRUE);
}

/* ---- the batch ------------------------------------------------------- */

/* One line for the user about `file`: GIMP's own messages may hold line
 * breaks, which would split it.  */
static void
tell (const gchar *file,
      const gchar *why)
{
  gchar *line = g_strdup_printf (_("BM3D batch: %s: %s"), file, why);

  g_strdelimit (line, "\r\n", ' ');
  gimp_message (line);
  g_free (line);
}

/* Seconds since the timer's last lap.  */
static gdouble
lap (GTimer *timer)
{
  gdouble seconds = g_timer_elapsed (timer, NULL);

  g_timer_start (timer);
  return seconds;
}

/* Denoises the loaded `image` of `file` and saves it; FALSE after
 * telling why not.  The two stages' seconds go to `denoise` and `save`.  */
static gboolean
denoise_and_save (Bm3dImage           image,
                  const Bm3dFilePlan *file,
                  const Bm3dValues   *vals,
                  gint                png_level,
                  GTimer             *timer,
                  gdouble            *denoise,
                  gdouble            *save)
{
  Bm3dDrawable  drawable = bm3d_image_active_drawable (image);
  GError       *error = NULL;
  gboolean      ok;

  if (bm3d_drawable_is_valid (drawable)
      && gimp_drawable_is_indexed (drawable))
    {
      /* As the batch script always did: a note, not a failure.  */
      tell (file->input, _("skipped (indexed image; convert it to RGB "
                           "first)"));
      return TRUE;
    }
  ok = bm3d_run_check_drawable (drawable, &error)
       && bm3d_run_denoise (drawable, vals, GIMP_RUN_NONINTERACTIVE, &error);
  *denoise = lap (timer);
  if (! ok)
    {
      tell (file->input, error->message);
      g_error_free (error);
      return FALSE;
    }
  ok = bm3d_save_result (image, drawable, file->output, png_level, &error);
  *save = lap (timer);
  if (! ok)
    {
      gchar *why = g_strdup_printf (_("cannot be saved as %s: %s"),
                                    file->output, error->message);

      tell (file->input, why);
      g_free (why);
      g_error_free (error);
    }
  return ok;
}

/* `file` through imageio alone (bm3d-own.c), when it is one imageio
 * takes: TRUE when done so, with `ok` saying whether it succeeded (FALSE
 * after telling why not).  */
static gboolean
denoise_own (const Bm3dFilePlan *file,
             const Bm3dValues   *vals,
             gint                png_level,
             gboolean           *ok)
{
  Bm3dOwnTimes   times;
  Bm3dOwnResult  result;
  GError        *error = NULL;
  gchar         *why;

  result = bm3d_own_denoise (file->input, file->output, vals,
                             png_level >= 0 ? png_level
                                            : BM3D_SAVE_PNG_LEVEL_OWN,
                             &times, &error);
  *ok = result == BM3D_OWN_DONE;
  switch (result)
    {
    case BM3D_OWN_DECLINED:
      return FALSE;
    case BM3D_OWN_DONE:
      if (bm3d_run_times_wanted ())
        g_printerr ("%s: %s: load %.3f s, denoise %.3f s, save %.3f s, "
                    "by imageio\n", PLUG_IN_BINARY, file->input, times.load,
                    times.denoise, times.save);
      break;
    case BM3D_OWN_FAILED_DENOISE:
      tell (file->input, error->message);
      break;
    case BM3D_OWN_FAILED_SAVE:
      why = g_strdup_printf (_("cannot be saved as %s: %s"), file->output,
                             error->message);
      tell (file->input, why);
      g_free (why);
      break;
    }
  g_clear_error (&error);
  return TRUE;
}

/* Loads, denoises and saves one file; FALSE after telling why not.  With
 * BM3D_PLUGIN_TIMES=1, one line on stderr with the three stages' times
 * and who loaded and saved the file (bench/gimp-batch-stages.sh, the
 * tests).  */
static gboolean
denoise_file (const Bm3dFilePlan *file,
              const Bm3dValues   *vals,
              gint                png_level)
{
  GTimer    *timer;
  Bm3dImage  image;
  gdouble    load, denoise = 0.0, save = 0.0;
  gboolean   ok = FALSE;

  if (denoise_own (file, vals, png_level, &ok))
    return ok;

  timer = g_timer_new ();
  image = bm3d_file_load (file->input);
  load = lap (timer);
  if (! bm3d_image_is_valid (image))
    {
      gchar *why = g_strdup_printf (_("cannot be loaded: %s"),
                                    bm3d_pdb_error ());

      tell (file->input, why);
      g_free (why);
    }
  else
    {
      ok = denoise_and_save (image, file, vals, png_level, timer, &denoise,
                             &save);
      bm3d_image_delete (image);
    }
  if (ok && bm3d_run_times_wanted ())
    g_printerr ("%s: %s: load %.3f s, denoise %.3f s, save %.3f s, "
                "by GIMP\n", PLUG_IN_BINARY, file->input, load, denoise,
                save);
  g_timer_destroy (timer);
  return ok;
}

gint
bm3d_files_denoise (const gchar *const *files,
                    gint                n_files,
                    const gchar        *out_dir,
                    const Bm3dValues   *vals,
                    gint                png_level,
                    GError            **error)
{
  GArray *plan;
  gint    failed = 0;
  guint   i;

  if (n_files < 1 || ! files)
    {
      g_set_error_literal (error, BM3D_FILES_ERROR, 0,
                           _("BM3D batch: no files given"));
      return -1;
    }
  plan = bm3d_files_plan (files, n_files, out_dir, error);
  if (! plan)
    return -1;
  /* One CUDA context for the list, started while the first file loads.  */
  bm3d_run_warm_up (vals);

  for (i = 0; i < plan->len; i++)
    {
      const Bm3dFilePlan *file = &g_array_index (plan, Bm3dFilePlan, i);

      gchar *message = g_strdup_printf (_("BM3D denoising %s"),
                                        file->input);

      bm3d_run_progress_init (message);
      g_free (message);
      if (file->refusal)
        {
          tell (file->input, file->refusal);
          failed++;
        }
      else if (! denoise_file (file, vals, png_level))
        failed++;
    }
  bm3d_files_plan_free (plan);
  return failed;
}
