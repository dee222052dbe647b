/* BM3D Denoise for GIMP — the procedures plug-in-bm3d-denoise and
 * plug-in-bm3d-denoise-camera, and their forms for a list of files
 * (plug-in-bm3d-denoise-files, plug-in-bm3d-denoise-camera-files), for
 * GIMP 2.10 (libgimp-2.0): registration, arguments, last values, run.
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
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "bm3d.h"
#include "bm3d-intl.h"
#include "bm3d-values.h"
#include "bm3d-run.h"
#include "bm3d-files.h"
#include "bm3d-save.h"
#include "bm3d-dialog.h"

static void      query            (void);
static void      query_camera     (void);
static void      query_files      (void);
static void      run              (const gchar       *name,
                                   gint               nparams,
                                   const GimpParam   *param,
                                   gint              *nreturn_vals,
                                   GimpParam        **return_vals);


const GimpPlugInInfo PLUG_IN_INFO =
{
  NULL,  /* init_proc  */
  NULL,  /* quit_proc  */
  query, /* query_proc */
  run,   /* run_proc   */
};

MAIN ()


#define CAMERA_NPARAMS  7

/* The arguments every image procedure starts with.  */
#define RUN_MODE_ARG \
  { GIMP_PDB_INT32, "run-mode", "The run mode { RUN-INTERACTIVE (0), " \
                                "RUN-NONINTERACTIVE (1), " \
                                "RUN-WITH-LAST-VALS (2) }" }
#define IMAGE_ARG \
  { GIMP_PDB_IMAGE, "image", "Input image" }
#define DRAWABLE_ARG \
  { GIMP_PDB_DRAWABLE, "drawable", "Layer, layer mask or channel to " \
                                   "denoise (RGB or grayscale)" }

/* The argument of an engine option, from the engine's table of
 * options: its name, its PDB type (a choice is its value, an INT32),
 * and its help, the choices' values and names, and `more` when not
 * NULL.  Made once, in query (): the strings are never freed.  */
static GimpParamDef
option_param (bm3d_option_id  id,
              const gchar    *more)
{
  const bm3d_option *option = &bm3d_options[id];
  GString           *text = g_string_new (option->help);
  GimpParamDef       def;
  gint               i;

  for (i = 0; i < option->n_choices; i++)
    g_string_append_printf (text, "%s%s (%d)", i == 0 ? " { " : ", ",
                            option->choices[i].nick,
                            option->choices[i].value);
  if (option->n_choices > 0)
    g_string_append (text, " }");
  if (more)
    g_string_append_printf (text, "; %s", more);
  def.type = option->type == BM3D_OPTION_CHOICE ? GIMP_PDB_INT32
                                                : GIMP_PDB_FLOAT;
  def.name = (gchar *) option->name;
  def.description = g_string_free (text, FALSE);
  return def;
}

/* plug-in-bm3d-denoise-camera: a photograph's noise is not white
 * (demosaicing, the camera's own noise reduction and JPEG make it
 * coarse, its colour noise comes in blotches).  This procedure
 * measures it on the photo as a noise profile (gpu/bm3d.h) and
 * filters exactly that, so a script needs no sigma.  */
static void
query_camera (void)
{
  GimpParamDef args[] =
  {
    RUN_MODE_ARG,
    IMAGE_ARG,
    DRAWABLE_ARG,
    option_param (BM3D_OPTION_STRENGTH, NULL),
    option_param (BM3D_OPTION_CHROMA_STRENGTH, NULL),
    option_param (BM3D_OPTION_MODE, "modes nlm and isoline filter the "
                                    "white noise that best stands for "
                                    "the profile"),
    option_param (BM3D_OPTION_BACKEND, NULL)
  };

  gimp_install_procedure (PLUG_IN_CAMERA_PROC,
                          N_("Remove camera noise, measured on the photo, "
                             "with BM3D"),
                          N_("Removes the noise of a photograph without "
                             "asking for its level: the noise is measured "
                             "on the image (the middle of the selection) "
                             "as a noise profile, coarse grain and colour "
                             "blotches included, and BM3D removes exactly "
                             "that.  Strength 1 removes the noise "
                             "measured; lower keeps more grain and detail, "
                             "higher smooths more.  Chroma strength does "
                             "the same for the colour noise alone.  Mode "
                             "and backend are those of "
                             "plug-in-bm3d-denoise."),
                          "The BM3D Denoise for GIMP authors",
                          "The BM3D Denoise for GIMP authors",
                          "2026",
                          NULL,
                          "RGB*, GRAY*",
                          GIMP_PLUGIN,
                          G_N_ELEMENTS (args), 0,
                          args, NULL);
}

static void
query (void)
{
  GimpParamDef args[] =
  {
    RUN_MODE_ARG,
    IMAGE_ARG,
    DRAWABLE_ARG,
    option_param (BM3D_OPTION_SIGMA, "or 0: estimate it from the image "
                                     "(the middle of the selection, at "
                                     "most 1024 x 1024 pixels) first"),
    option_param (BM3D_OPTION_MODE, NULL),
    option_param (BM3D_OPTION_BACKEND, NULL)
  };

  gimp_plugin_domain_register (GETTEXT_PACKAGE, PLUGIN_LOCALEDIR);

  gimp_install_procedure (PLUG_IN_PROC,
                          N_("Remove sensor noise with block matching "
                             "and 3D filtering (BM3D)"),
                          N_("Removes random noise while keeping edges and "
                             "fine texture.  Sigma is the noise level: how "
                             "far, on a 0 to 255 scale, pixels stray from "
                             "their true value.  Start near 5 for a clean "
                             "photograph, 15 to 25 for a high-ISO shot, and "
                             "raise it until the grain is gone; too high "
                             "smooths real detail away.  Mode 0 (BM3D) gives "
                             "the best result in two passes and treats colour "
                             "images as one (CBM3D); mode 1 runs the first "
                             "pass only, faster and a little softer.  The "
                             "backend chooses where the work is done: "
                             "automatic uses an NVIDIA GPU through CUDA when "
                             "one is usable and the CPU otherwise.  Pixels "
                             "are denoised in their perceptual (gamma) "
                             "encoding, as they look, whatever the image "
                             "precision; alpha is kept exactly, and only the "
                             "selection changes."),
                          "The BM3D Denoise for GIMP authors",
                          "The BM3D Denoise for GIMP authors",
                          "2026",
                          N_("_BM3D Denoise..."),
                          "RGB*, GRAY*",
                          GIMP_PLUGIN,
                          G_N_ELEMENTS (args), 0,
                          args, NULL);

  gimp_plugin_menu_register (PLUG_IN_PROC, "<Image>/Filters/Enhance");

  query_camera ();
  query_files ();
}

/* The arguments the two files procedures share before their noise
 * arguments.  */
#define FILES_ARGS_HEAD \
    { GIMP_PDB_INT32,       "run-mode",  "The run mode { RUN-INTERACTIVE " \
                                         "(0), RUN-NONINTERACTIVE (1) }" }, \
    { GIMP_PDB_INT32,       "num-files", "The number of files" }, \
    { GIMP_PDB_STRINGARRAY, "files",     "The files to denoise (any format " \
                                         "GIMP loads)" }, \
    { GIMP_PDB_STRING,      "out-dir",   "An existing folder for the " \
                                         "results, saved under the same " \
                                         "names in the same formats; a " \
                                         "file that would overwrite an " \
                                         "input is refused" }
#define FILES_NPARAMS         7
#define CAMERA_FILES_NPARAMS  8

/* plug-in-bm3d-denoise-files and plug-in-bm3d-denoise-camera-files: the
 * Script-Fu batch hands its whole list to one call, so that the plug-in
 * (GEGL, babl, CUDA) starts once for the batch, not once per image.  */
static void
query_files (void)
{
  GimpParamDef white_args[] =
  {
    FILES_ARGS_HEAD,
    option_param (BM3D_OPTION_SIGMA, "or 0: estimated on each file"),
    option_param (BM3D_OPTION_MODE, NULL),
    option_param (BM3D_OPTION_BACKEND, NULL)
  };
  GimpParamDef camera_args[] =
  {
    FILES_ARGS_HEAD,
    option_param (BM3D_OPTION_STRENGTH, NULL),
    option_param (BM3D_OPTION_CHROMA_STRENGTH, NULL),
    option_param (BM3D_OPTION_MODE, NULL),
    option_param (BM3D_OPTION_BACKEND, NULL)
  };

  gimp_install_procedure (PLUG_IN_FILES_PROC,
                          N_("Remove noise of one level from a list of "
                             "files with BM3D, in one plug-in process"),
                          N_("Loads each file, denoises its active layer "
                             "as plug-in-bm3d-denoise does and saves it "
                             "under the output folder, same name and "
                             "format.  A file that fails is told on one "
                             "line and the others go on; the call fails "
                             "at the end if any did.  An input is never "
                             "overwritten."),
                          "The BM3D Denoise for GIMP authors",
                          "The BM3D Denoise for GIMP authors",
                          "2026",
                          NULL,
                          "",
                          GIMP_PLUGIN,
                          G_N_ELEMENTS (white_args), 0,
                          white_args, NULL);
  gimp_install_procedure (PLUG_IN_CAMERA_FILES_PROC,
                          N_("Remove camera noise, measured on each photo, "
                             "from a list of files with BM3D, in one "
                             "plug-in process"),
                          N_("As plug-in-bm3d-denoise-files, with the noise "
                             "of each photo measured and removed as "
                             "plug-in-bm3d-denoise-camera does."),
                          "The BM3D Denoise for GIMP authors",
                          "The BM3D Denoise for GIMP authors",
                          "2026",
                          NULL,
                          "",
                          GIMP_PLUGIN,
                          G_N_ELEMENTS (camera_args), 0,
                          camera_args, NULL);
}

/* ---- parameters ------------------------------------------------------ */

/* Values saved by another version, or damaged, are never misread: the
 * defaults are used instead, and FALSE says so.  */
static gboolean
values_load_last (Bm3dValues *vals)
{
  Bm3dValues saved;
  gchar     *problem;

  bm3d_values_set_defaults (vals);

  if (gimp_get_data_size (PLUG_IN_PROC) != sizeof saved)
    return FALSE;
  if (! gimp_get_data (PLUG_IN_PROC, &saved))
    return FALSE;
  if (saved.version != BM3D_VALUES_VERSION)
    return FALSE;

  problem = bm3d_values_check (&saved);
  if (problem)
    {
      g_free (problem);
      return FALSE;
    }
  *vals = saved;
  return TRUE;
}

/* ---- run ------------------------------------------------------------- */

static void
set_error_return (GimpParam         *values,
                  gint              *nreturn_vals,
                  GimpPDBStatusType  status,
                  const gchar       *message)
{
  static gchar *kept = NULL;

  /* The message must outlive run (): GIMP reads it afterwards.  */
  g_free (kept);
  kept = g_strdup (message);

  values[0].data.d_status = status;
  values[1].type = GIMP_PDB_STRING;
  values[1].data.d_string = kept;
  *nreturn_vals = 2;
}

/* TRUE when `vals` (read from a call's arguments) are in range, else
 * FALSE after setting the calling error with the reason.  */
static gboolean
values_checked (const Bm3dValues *vals,
                GimpParam        *values,
                gint             *nreturn_vals)
{
  gchar *problem = bm3d_values_check (vals);

  if (!problem)
    return TRUE;
  set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR, problem);
  g_free (problem);
  return FALSE;
}

/* The arguments of plug-in-bm3d-denoise into `vals`: white noise, as
 * it always was.  With nothing saved, RUN-WITH-LAST-VALS keeps its old
 * meaning (sigma 25, BM3D, automatic); the dialog opens on the
 * defaults, camera noise.  FALSE after setting the return values.  */
static gboolean
read_white_arguments (gint              nparams,
                      const GimpParam  *param,
                      Bm3dValues       *vals,
                      GimpParam        *values,
                      gint             *nreturn_vals)
{
  switch (param[0].data.d_int32)
    {
    case GIMP_RUN_NONINTERACTIVE:
      if (nparams != 6)
        {
          set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                            _("plug-in-bm3d-denoise takes 6 arguments: "
                              "run-mode, image, drawable, sigma, mode, "
                              "backend"));
          return FALSE;
        }
      bm3d_values_set_defaults (vals);
      vals->noise = BM3D_VALUES_NOISE_WHITE;
      vals->sigma = param[3].data.d_float;
      vals->mode = param[4].data.d_int32;
      vals->backend = param[5].data.d_int32;
      return values_checked (vals, values, nreturn_vals);

    case GIMP_RUN_INTERACTIVE:
      values_load_last (vals);
      return TRUE;

    case GIMP_RUN_WITH_LAST_VALS:
      if (! values_load_last (vals))
        vals->noise = BM3D_VALUES_NOISE_WHITE;
      return TRUE;

    default:
      values[0].data.d_status = GIMP_PDB_CALLING_ERROR;
      return FALSE;
    }
}

/* The arguments of plug-in-bm3d-denoise-camera into `vals`.
 * Interactive and last-values runs share plug-in-bm3d-denoise's values
 * and dialog, with camera noise chosen.  */
static gboolean
read_camera_arguments (gint              nparams,
                       const GimpParam  *param,
                       Bm3dValues       *vals,
                       GimpParam        *values,
                       gint             *nreturn_vals)
{
  switch (param[0].data.d_int32)
    {
    case GIMP_RUN_NONINTERACTIVE:
      if (nparams != CAMERA_NPARAMS)
        {
          set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                            _("plug-in-bm3d-denoise-camera takes 7 "
                              "arguments: run-mode, image, drawable, "
                              "strength, chroma-strength, mode, "
                              "backend"));
          return FALSE;
        }
      bm3d_values_set_defaults (vals);
      vals->noise = BM3D_VALUES_NOISE_CAMERA;
      vals->strength = param[3].data.d_float;
      vals->chroma_strength = param[4].data.d_float;
      vals->mode = param[5].data.d_int32;
      vals->backend = param[6].data.d_int32;
      return values_checked (vals, values, nreturn_vals);

    case GIMP_RUN_INTERACTIVE:
    case GIMP_RUN_WITH_LAST_VALS:
      values_load_last (vals);
      vals->noise = BM3D_VALUES_NOISE_CAMERA;
      return TRUE;

    default:
      values[0].data.d_status = GIMP_PDB_CALLING_ERROR;
      return FALSE;
    }
}

/* The files procedures: FALSE after setting the return values.  */
static gboolean
read_files_arguments (const gchar      *name,
                      gint              nparams,
                      const GimpParam  *param,
                      Bm3dValues       *vals,
                      GimpParam        *values,
                      gint             *nreturn_vals)
{
  gboolean  camera = strcmp (name, PLUG_IN_CAMERA_FILES_PROC) == 0;

  if (nparams != (camera ? CAMERA_FILES_NPARAMS : FILES_NPARAMS))
    {
      set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                        camera
                        ? _("plug-in-bm3d-denoise-camera-files takes 8 "
                            "arguments: run-mode, num-files, files, "
                            "out-dir, strength, chroma-strength, mode, "
                            "backend")
                        : _("plug-in-bm3d-denoise-files takes 7 "
                            "arguments: run-mode, num-files, files, "
                            "out-dir, sigma, mode, backend"));
      return FALSE;
    }
  bm3d_values_set_defaults (vals);
  if (camera)
    {
      vals->noise = BM3D_VALUES_NOISE_CAMERA;
      vals->strength = param[4].data.d_float;
      vals->chroma_strength = param[5].data.d_float;
      vals->mode = param[6].data.d_int32;
      vals->backend = param[7].data.d_int32;
    }
  else
    {
      vals->noise = BM3D_VALUES_NOISE_WHITE;
      vals->sigma = param[4].data.d_float;
      vals->mode = param[5].data.d_int32;
      vals->backend = param[6].data.d_int32;
    }
  return values_checked (vals, values, nreturn_vals);
}

/* Runs a files procedure: every file is tried; the call fails at the
 * end, saying how many failed, when any did.  */
static void
run_files (const gchar      *name,
           gint              nparams,
           const GimpParam  *param,
           GimpParam        *values,
           gint             *nreturn_vals)
{
  Bm3dValues  vals;
  GError     *error = NULL;
  gint        failed;

  if (! read_files_arguments (name, nparams, param, &vals, values,
                              nreturn_vals))
    return;
  /* A file that cannot be loaded or saved is told once, on our one line
   * (bm3d-files.c), not by GIMP as well.  */
  gimp_plugin_set_pdb_error_handler (GIMP_PDB_ERROR_HANDLER_PLUGIN);
  /* No argument chooses the PNG level: Script-Fu in GIMP 2.10 refuses a
   * call short of one, so one would break every existing script.  The
   * gimprc setting does (bm3d-save.h).  */
  failed = bm3d_files_denoise ((const gchar *const *)
                               param[2].data.d_stringarray,
                               param[1].data.d_int32,
                               param[3].data.d_string, &vals,
                               bm3d_save_png_level (-1), &error);
  if (failed < 0)
    {
      set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                        error->message);
      g_error_free (error);
    }
  else if (failed > 0)
    {
      gchar *message = g_strdup_printf (_("BM3D batch: %d of %d files "
                                          "failed"), failed,
                                        param[1].data.d_int32);

      set_error_return (values, nreturn_vals, GIMP_PDB_EXECUTION_ERROR,
                        message);
      g_free (message);
    }
}

static void
run (const gchar      *name,
     gint              nparams,
     const GimpParam  *param,
     gint             *nreturn_vals,
     GimpParam       **return_vals)
{
  static GimpParam  values[2];
  GimpRunMode       run_mode;
  gint32            drawable_id;
  Bm3dValues        vals;
  gchar            *problem = NULL;
  GError           *error = NULL;

  bindtextdomain (GETTEXT_PACKAGE, bm3d_run_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  gegl_init (NULL, NULL);

  *nreturn_vals = 1;
  *return_vals = values;
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = GIMP_PDB_SUCCESS;

  if (strcmp (name, PLUG_IN_FILES_PROC) == 0
      || strcmp (name, PLUG_IN_CAMERA_FILES_PROC) == 0)
    {
      run_files (name, nparams, param, values, nreturn_vals);
      return;
    }

  run_mode = param[0].data.d_int32;
  drawable_id = nparams >= 3 ? param[2].data.d_drawable : -1;

  if (strcmp (name, PLUG_IN_CAMERA_PROC) == 0
      ? ! read_camera_arguments (nparams, param, &vals, values, nreturn_vals)
      : ! read_white_arguments (nparams, param, &vals, values, nreturn_vals))
    return;

  /* The CUDA context starts while the dialog opens (its preview's
   * first tile then finds the device ready) or the drawable is read.  */
  bm3d_run_warm_up (&vals);
  if (! bm3d_run_check_drawable (drawable_id, &error))
    {
      /* As before the check moved: a bad id is the caller's mistake.  */
      if (! gimp_item_is_valid (drawable_id))
        {
          set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                            error->message);
          g_error_free (error);
          return;
        }
      problem = g_strdup (error->message);
      g_clear_error (&error);
    }
  else if (run_mode == GIMP_RUN_INTERACTIVE
           && ! bm3d_dialog_run (drawable_id, &vals, NULL))
    {
      values[0].data.d_status = GIMP_PDB_CANCEL;
      return;
    }
  else
    {
      bm3d_run_progress_init (_("BM3D denoising"));
      if (bm3d_run_denoise (drawable_id, &vals, run_mode, &error))
        {
          bm3d_run_progress_update (1.0);
          if (run_mode != GIMP_RUN_NONINTERACTIVE)
            gimp_displays_flush ();
          /* As GIMP's own filters do: only a choice made in the dialog
           * becomes the next run's starting point.  */
          if (run_mode == GIMP_RUN_INTERACTIVE)
            gimp_set_data (PLUG_IN_PROC, &vals, sizeof vals);
        }
      else
        {
          problem = g_strdup (error->message);
          g_error_free (error);
        }
    }

  if (problem)
    {
      /* Interactive: tell the user once.  Batch: the caller gets the
       * message with the status.  */
      if (run_mode == GIMP_RUN_NONINTERACTIVE)
        set_error_return (values, nreturn_vals, GIMP_PDB_EXECUTION_ERROR,
                          problem);
      else
        {
          gimp_message (problem);
          values[0].data.d_status = GIMP_PDB_EXECUTION_ERROR;
        }
      g_free (problem);
    }
}
