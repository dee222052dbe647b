/* BM3D Denoise for GIMP — the plug-in-bm3d-denoise procedure for GIMP
 * 3 (libgimp-3.0): registration, arguments, last values, run.
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
 * The procedure's arguments come from one table, arguments[]: each row
 * is a row of the engine's table of options (bm3d-options.h: name,
 * range, default, help, choices) and a field of Bm3dValues, so
 * declaring the arguments, reading the config and writing it back after
 * the dialog are three loops over it.
 * The camera-noise model's noise choice and strengths are three such
 * rows.  GIMP keeps the last values itself (GimpProcedureConfig):
 * after an interactive OK, and for RUN-WITH-LAST-VALS.
 */

#include "config.h"

#include <string.h>

#include <libgimp/gimp.h>

#include "bm3d.h"
#include "bm3d-intl.h"
#include "bm3d-values.h"
#include "bm3d-run.h"
#include "bm3d-files.h"
#include "bm3d-save.h"
#include "bm3d-dialog.h"
#include "bm3d-filter.h"

#define BM3D_GIMP3_ERROR (g_quark_from_static_string ("bm3d-gimp3-error"))

/* Where the catalogues live, under the plug-in's own folder: GIMP 3
 * accepts no other (configure installs them there for this build).  */
#define CATALOG_DIR  "locale"

typedef enum
{
  ARG_DOUBLE,     /* a gdouble field                          */
  ARG_FLOAT,      /* a gfloat field, a double argument        */
  ARG_INT,        /* a gint32 field                           */
  ARG_BOOLEAN,    /* a gint32 field, 0 or 1                   */
  ARG_CHOICE      /* a gint32 field, a GimpChoice of nicks    */
} ArgType;

/* A procedure argument: a row of the engine's table of options (its
 * name, range, default, help and choices), or, for the dialog's own
 * state, a boolean of its own.  */
typedef struct
{
  gint             option;     /* bm3d_option_id, or -1               */
  const gchar     *name;       /* option -1: the config property      */
  const gchar     *label;      /* N_(), the dialog's label            */
  const gchar     *blurb;      /* N_(); NULL: the table's help         */
  ArgType          type;
  gboolean         aux;        /* dialog state: last values, not the
                                * PDB signature                       */
  gboolean         value;      /* option -1: the default              */
  gsize            offset;     /* into Bm3dValues                     */
} Argument;

#define FIELD(name) G_STRUCT_OFFSET (Bm3dValues, name)

/* An auxiliary argument, off until the dialog's first OK: GIMP saves it
 * with the last values, so an interactive run without it has no values
 * of the user's yet and opens the dialog at the dialog's defaults (as
 * GIMP 2.10 does), not at the procedure's.  */
#define DIALOG_ACCEPTED  "dialog-accepted"

/* The PDB's noise default is the table's, white noise, so that a
 * script's call with a sigma keeps its meaning; the dialog remembers the
 * user's choice, and opens the first time at its own defaults, camera
 * noise (DIALOG_ACCEPTED).  */
static const Argument arguments[] =
{
  { BM3D_OPTION_SIGMA, NULL, N_("Noise level (sigma)"),
    N_("The standard deviation of the noise on a 0..255 scale whatever "
       "the image precision, or 0: estimate it from the image (the middle "
       "of the selection, at most 1024 x 1024 pixels) first"),
    ARG_DOUBLE, FALSE, 0, FIELD (sigma) },
  { BM3D_OPTION_MODE, NULL, N_("Mode"), NULL, ARG_CHOICE, FALSE, 0,
    FIELD (mode) },
  { BM3D_OPTION_BACKEND, NULL, N_("Backend"), NULL, ARG_CHOICE, FALSE, 0,
    FIELD (backend) },
  { BM3D_OPTION_NOISE, NULL, N_("Noise type"),
    N_("camera: the photo's own noise, measured on it (the middle of the "
       "selection) as a noise profile and removed times the strengths; "
       "sigma is then not used.  white: white noise of sigma"),
    ARG_CHOICE, FALSE, 0, FIELD (noise) },
  { BM3D_OPTION_STRENGTH, NULL, N_("Strength"), NULL, ARG_FLOAT, FALSE, 0,
    FIELD (strength) },
  { BM3D_OPTION_CHROMA_STRENGTH, NULL, N_("Chroma strength"), NULL,
    ARG_FLOAT, FALSE, 0, FIELD (chroma_strength) },

  /* The dialog's own state and the BM3D expert options: 0 is the
   * published default.  */
  { -1, "fast-preview", N_("Fast preview while dragging"),
    N_("Preview with the fastest mode while the noise level slider moves"),
    ARG_BOOLEAN, TRUE, TRUE, FIELD (fast_preview) },
  { BM3D_OPTION_SEARCH, NULL, N_("Search window"), NULL, ARG_INT, TRUE, 0,
    FIELD (search) },
  { BM3D_OPTION_GROUP_MAX_HARD, NULL, N_("Group size, first phase"), NULL,
    ARG_INT, TRUE, 0, FIELD (group_max_hard) },
  { BM3D_OPTION_GROUP_MAX_WIENER, NULL, N_("Group size, Wiener phase"),
    NULL, ARG_INT, TRUE, 0, FIELD (group_max_wiener) },
  { BM3D_OPTION_STEP, NULL, N_("Reference step"), NULL, ARG_INT, TRUE, 0,
    FIELD (step) },
  { BM3D_OPTION_LAMBDA_3D, NULL, N_("Hard threshold (λ3D)"), NULL,
    ARG_FLOAT, TRUE, 0, FIELD (lambda_3d) },
  { BM3D_OPTION_CHROMA_SCALE, NULL, N_("Chroma sigma scale"), NULL,
    ARG_FLOAT, TRUE, 0, FIELD (chroma_scale) },
};

typedef struct _Bm3dPlugIn      Bm3dPlugIn;
typedef struct _Bm3dPlugInClass Bm3dPlugInClass;

struct _Bm3dPlugIn
{
  GimpPlugIn parent_instance;
};

struct _Bm3dPlugInClass
{
  GimpPlugInClass parent_class;
};

#define BM3D_TYPE_PLUG_IN (bm3d_plug_in_get_type ())

GType bm3d_plug_in_get_type (void) G_GNUC_CONST;

G_DEFINE_TYPE (Bm3dPlugIn, bm3d_plug_in, GIMP_TYPE_PLUG_IN)

GIMP_MAIN (BM3D_TYPE_PLUG_IN)


/* ---- the table --------------------------------------------------------- */

static gpointer
field_of (Bm3dValues     *vals,
          const Argument *arg)
{
  return G_STRUCT_MEMBER_P (vals, arg->offset);
}

static const bm3d_option *
option_of (const Argument *arg)
{
  return arg->option >= 0 ? &bm3d_options[arg->option] : NULL;
}

static const gchar *
arg_name (const Argument *arg)
{
  return arg->option >= 0 ? bm3d_options[arg->option].name : arg->name;
}

/* The argument's range and default from the table.  Where 0 stands for
 * the default (the expert options) it is the lowest value; sigma's 0
 * asks for an estimate.  */
static void
arg_range (const Argument *arg,
           gdouble        *min,
           gdouble        *max,
           gdouble        *value)
{
  const bm3d_option *option = option_of (arg);

  if (! option)
    {
      *min = 0.0, *max = 1.0, *value = arg->value;
      return;
    }
  *min = option->zero_is_default ? 0.0 : option->min;
  *max = option->max;
  *value = option->default_value;
}

static const gchar *
choice_nick (const Argument *arg,
             gint            id)
{
  const bm3d_option *option = option_of (arg);
  const gchar       *nick = bm3d_option_choice_nick (option, id);

  return nick ? nick : option->choices[0].nick;
}

static GimpChoice *
choice_new (const Argument *arg)
{
  const bm3d_option *option = option_of (arg);
  GimpChoice        *choice = gimp_choice_new ();
  gint               i;

  for (i = 0; i < option->n_choices; i++)
    gimp_choice_add (choice, option->choices[i].nick,
                     option->choices[i].value,
                     bm3d_values_choice_label (option,
                                               option->choices[i].value),
                     NULL);
  return choice;
}

static void
add_argument (GimpProcedure  *procedure,
              const Argument *arg)
{
  const gchar *name = arg_name (arg);
  const gchar *label = _(arg->label);
  const gchar *blurb = _(arg->blurb ? arg->blurb : option_of (arg)->help);
  const gchar *nick;
  gdouble      min, max, value;

  arg_range (arg, &min, &max, &value);

  switch (arg->type)
    {
    case ARG_DOUBLE:
    case ARG_FLOAT:
      if (arg->aux)
        gimp_procedure_add_double_aux_argument (procedure, name, label,
                                                blurb, min, max,
                                                value,
                                                G_PARAM_READWRITE);
      else
        gimp_procedure_add_double_argument (procedure, name, label,
                                            blurb, min, max,
                                            value, G_PARAM_READWRITE);
      break;

    case ARG_INT:
      if (arg->aux)
        gimp_procedure_add_int_aux_argument (procedure, name, label,
                                             blurb, (gint) min,
                                             (gint) max,
                                             (gint) value,
                                             G_PARAM_READWRITE);
      else
        gimp_procedure_add_int_argument (procedure, name, label, blurb,
                                         (gint) min, (gint) max,
                                         (gint) value,
                                         G_PARAM_READWRITE);
      break;

    case ARG_BOOLEAN:
      if (arg->aux)
        gimp_procedure_add_boolean_aux_argument (procedure, name, label,
                                                 blurb, value != 0.0,
                                                 G_PARAM_READWRITE);
      else
        gimp_procedure_add_boolean_argument (procedure, name, label,
                                             blurb, value != 0.0,
                                             G_PARAM_READWRITE);
      break;

    case ARG_CHOICE:
      nick = choice_nick (arg, (gint) value);
      if (arg->aux)
        gimp_procedure_add_choice_aux_argument (procedure, name, label,
                                                blurb, choice_new (arg), nick,
                                                G_PARAM_READWRITE);
      else
        gimp_procedure_add_choice_argument (procedure, name, label,
                                            blurb, choice_new (arg), nick,
                                            G_PARAM_READWRITE);
      break;
    }
}

/* `vals` from the config; with `arguments_only`, the auxiliary ones at
 * their defaults (a script's call depends on its arguments alone).  */
static void
values_from_config (GimpProcedureConfig *config,
                    gboolean             arguments_only,
                    Bm3dValues          *vals)
{
  guint i;

  bm3d_values_set_defaults (vals);
  for (i = 0; i < G_N_ELEMENTS (arguments); i++)
    {
      const Argument *arg = &arguments[i];
      gpointer        field = field_of (vals, arg);
      gdouble         d;
      gint            n;
      gboolean        b;

      if (arg->aux && arguments_only)
        continue;
      switch (arg->type)
        {
        case ARG_DOUBLE:
          g_object_get (config, arg_name (arg), &d, NULL);
          *(gdouble *) field = d;
          break;
        case ARG_FLOAT:
          g_object_get (config, arg_name (arg), &d, NULL);
          *(gfloat *) field = (gfloat) d;
          break;
        case ARG_INT:
          g_object_get (config, arg_name (arg), &n, NULL);
          *(gint32 *) field = n;
          break;
        case ARG_BOOLEAN:
          g_object_get (config, arg_name (arg), &b, NULL);
          *(gint32 *) field = b ? 1 : 0;
          break;
        case ARG_CHOICE:
          *(gint32 *) field = gimp_procedure_config_get_choice_id (config,
                                                                   arg_name (arg));
          break;
        }
    }
}

/* The dialog's choice back into the config, which GIMP saves as the
 * last values after the run succeeds.  */
static void
values_to_config (const Bm3dValues    *vals,
                  GimpProcedureConfig *config)
{
  Bm3dValues copy = *vals;
  guint      i;

  for (i = 0; i < G_N_ELEMENTS (arguments); i++)
    {
      const Argument *arg = &arguments[i];
      gpointer        field = field_of (&copy, arg);

      switch (arg->type)
        {
        case ARG_DOUBLE:
          g_object_set (config, arg_name (arg), *(gdouble *) field, NULL);
          break;
        case ARG_FLOAT:
          g_object_set (config, arg_name (arg), (gdouble) *(gfloat *) field, NULL);
          break;
        case ARG_INT:
          g_object_set (config, arg_name (arg), (gint) *(gint32 *) field, NULL);
          break;
        case ARG_BOOLEAN:
          g_object_set (config, arg_name (arg), (gboolean) (*(gint32 *) field != 0),
                        NULL);
          break;
        case ARG_CHOICE:
          g_object_set (config, arg_name (arg),
                        choice_nick (arg, *(gint32 *) field), NULL);
          break;
        }
    }
}

/* ---- run --------------------------------------------------------------- */

static GimpValueArray *
return_error (GimpProcedure     *procedure,
              GimpPDBStatusType  status,
              GError            *error)
{
  return gimp_procedure_new_return_values (procedure, status, error);
}

static GimpValueArray *
bm3d_run (GimpProcedure        *procedure,
          GimpRunMode           run_mode,
          GimpImage            *image,
          GimpDrawable        **drawables,
          GimpProcedureConfig  *config,
          gpointer              run_data)
{
  GimpDrawable *drawable = drawables ? drawables[0] : NULL;
  Bm3dValues    vals;
  gchar        *problem;
  gboolean      keep_editable = FALSE;
  gboolean      accepted = FALSE;
  GError       *error = NULL;

  gegl_init (NULL, NULL);

  if (! drawable || drawables[1])
    return return_error (procedure, GIMP_PDB_CALLING_ERROR,
                         g_error_new_literal (BM3D_GIMP3_ERROR, 0,
                           _("BM3D Denoise works on one drawable at a "
                             "time; select a single layer")));
  if (! bm3d_run_check_drawable (drawable, &error))
    return return_error (procedure, GIMP_PDB_EXECUTION_ERROR, error);

  values_from_config (config, run_mode == GIMP_RUN_NONINTERACTIVE, &vals);
  if (run_mode == GIMP_RUN_INTERACTIVE)
    g_object_get (config, DIALOG_ACCEPTED, &accepted, NULL);
  problem = bm3d_values_check (&vals);
  if (problem && run_mode == GIMP_RUN_NONINTERACTIVE)
    {
      error = g_error_new_literal (BM3D_GIMP3_ERROR, 0, problem);
      g_free (problem);
      return return_error (procedure, GIMP_PDB_CALLING_ERROR, error);
    }
  if (problem || (run_mode == GIMP_RUN_INTERACTIVE && ! accepted))
    {
      /* No values of the user's for the dialog yet, or saved values
       * from another version or damaged (never misread): the dialog
       * opens at its own defaults (camera noise, as Reset gives, as
       * GIMP 2.10 opens it); RUN-WITH-LAST-VALS runs the procedure's
       * declared defaults (white noise, as a call with nothing saved
       * gets).  */
      bm3d_values_set_defaults (&vals);
      if (run_mode != GIMP_RUN_INTERACTIVE)
        vals.noise = (gint32) bm3d_options[BM3D_OPTION_NOISE].default_value;
    }
  g_free (problem);

  g_object_get (config, "keep-editable", &keep_editable, NULL);
  if (run_mode == GIMP_RUN_INTERACTIVE)
    {
      /* The preview's first tile then finds the device started.  */
      bm3d_run_warm_up (&vals);
      if (! bm3d_dialog_run (drawable, &vals,
                             bm3d_filter_offer (config, &keep_editable)
                             ? &keep_editable : NULL))
        return gimp_procedure_new_return_values (procedure, GIMP_PDB_CANCEL,
                                                 NULL);
      values_to_config (&vals, config);
      g_object_set (config, DIALOG_ACCEPTED, TRUE, NULL);
      bm3d_filter_to_config (keep_editable, config);
    }

  if (keep_editable)
    {
      if (! bm3d_filter_attach (drawable, &vals, &error))
        return return_error (procedure, GIMP_PDB_EXECUTION_ERROR, error);
      if (run_mode != GIMP_RUN_NONINTERACTIVE)
        gimp_displays_flush ();
      return gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS,
                                               NULL);
    }

  bm3d_run_progress_init (_("BM3D denoising"));
  if (! bm3d_run_denoise (drawable, &vals, run_mode, &error))
    return return_error (procedure, GIMP_PDB_EXECUTION_ERROR, error);
  bm3d_run_progress_update (1.0);
  if (run_mode != GIMP_RUN_NONINTERACTIVE)
    gimp_displays_flush ();

  return gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
}

/* plug-in-bm3d-denoise-files: the Script-Fu batch hands its whole list
 * to one call, so that the plug-in (GEGL, babl, CUDA) starts once for
 * the batch, not once per image.  Fails at the end, with the count, when
 * any file failed.  */
static GimpValueArray *
bm3d_run_files (GimpProcedure        *procedure,
                GimpProcedureConfig  *config,
                gpointer              run_data)
{
  Bm3dValues   vals;
  gchar      **files = NULL;
  gchar       *out_dir = NULL;
  gchar       *problem;
  GError      *error = NULL;
  gint         png_level;
  gint         failed;

  gegl_init (NULL, NULL);
  /* A file that cannot be loaded or saved is told once, on our one line
   * (bm3d-files.c), not by GIMP as well.  */
  gimp_plug_in_set_pdb_error_handler (gimp_procedure_get_plug_in (procedure),
                                      GIMP_PDB_ERROR_HANDLER_PLUGIN);

  values_from_config (config, TRUE, &vals);
  problem = bm3d_values_check (&vals);
  if (problem)
    {
      error = g_error_new_literal (BM3D_GIMP3_ERROR, 0, problem);
      g_free (problem);
      return return_error (procedure, GIMP_PDB_CALLING_ERROR, error);
    }

  g_object_get (config, "files", &files, "out-dir", &out_dir,
                "png-compression", &png_level, NULL);
  failed = bm3d_files_denoise ((const gchar *const *) files,
                               files ? (gint) g_strv_length (files) : 0,
                               out_dir, &vals,
                               bm3d_save_png_level (png_level), &error);
  if (failed > 0)
    error = g_error_new (BM3D_GIMP3_ERROR, 0,
                         _("BM3D batch: %d of %d files failed"), failed,
                         (gint) g_strv_length (files));
  g_strfreev (files);
  g_free (out_dir);
  if (failed != 0)
    return return_error (procedure,
                         failed < 0 ? GIMP_PDB_CALLING_ERROR
                                    : GIMP_PDB_EXECUTION_ERROR, error);
  return gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
}

/* ---- registration ------------------------------------------------------ */

static GList *
bm3d_query_procedures (GimpPlugIn *plug_in)
{
  return g_list_append (g_list_append (NULL, g_strdup (PLUG_IN_PROC)),
                        g_strdup (PLUG_IN_FILES_PROC));
}

/* The files procedure: run-mode, files, out-dir, then the denoise
 * arguments of plug-in-bm3d-denoise (not its dialog's auxiliary ones).  */
static GimpProcedure *
files_procedure_new (GimpPlugIn  *plug_in,
                     const gchar *name)
{
  GimpProcedure *procedure;
  guint          i;

  procedure = gimp_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                  bm3d_run_files, NULL, NULL);
  gimp_procedure_set_documentation (procedure,
    _("Remove noise from a list of files with BM3D, in one plug-in "
      "process"),
    _("Loads each file, denoises its selected layer as "
      "plug-in-bm3d-denoise does and saves it under the output folder, "
      "same name and format.  A file that fails is told on one line and "
      "the others go on; the call fails at the end if any did.  An input "
      "is never overwritten."),
    name);
  gimp_procedure_set_attribution (procedure,
                                  "The BM3D Denoise for GIMP authors",
                                  "The BM3D Denoise for GIMP authors",
                                  "2026");
  gimp_procedure_add_enum_argument (procedure, "run-mode", _("Run mode"),
                                    _("The run mode"), GIMP_TYPE_RUN_MODE,
                                    GIMP_RUN_NONINTERACTIVE,
                                    G_PARAM_READWRITE);
  gimp_procedure_add_string_array_argument (procedure, "files", _("Files"),
                                            _("The files to denoise (any "
                                              "format GIMP loads)"),
                                            G_PARAM_READWRITE);
  gimp_procedure_add_string_argument (procedure, "out-dir",
                                      _("Output folder"),
                                      _("An existing folder for the "
                                        "results, saved under the same "
                                        "names in the same formats; a file "
                                        "that would overwrite an input is "
                                        "refused"),
                                      NULL, G_PARAM_READWRITE);
  for (i = 0; i < G_N_ELEMENTS (arguments); i++)
    if (! arguments[i].aux)
      add_argument (procedure, &arguments[i]);
  /* Last, so that calls made before it keep working (bm3d-save.h).  */
  gimp_procedure_add_int_argument (procedure, "png-compression",
                                   _("PNG compression"),
                                   _("The zlib level of PNG results, 0 "
                                     "to 9; -1: the gimprc setting "
                                     "bm3d-png-compression, else 1 (3 when "
                                     "GIMP's PNG export writes them)"),
                                   -1, BM3D_SAVE_PNG_LEVEL_MAX, -1,
                                   G_PARAM_READWRITE);
  return procedure;
}

static GimpProcedure *
bm3d_create_procedure (GimpPlugIn  *plug_in,
                       const gchar *name)
{
  GimpProcedure *procedure;
  guint          i;

  if (strcmp (name, PLUG_IN_FILES_PROC) == 0)
    return files_procedure_new (plug_in, name);
  if (strcmp (name, PLUG_IN_PROC) != 0)
    return NULL;

  procedure = gimp_image_procedure_new (plug_in, name,
                                        GIMP_PDB_PROC_TYPE_PLUGIN,
                                        bm3d_run, NULL, NULL);
  gimp_procedure_set_image_types (procedure, "RGB*, GRAY*");
  gimp_procedure_set_sensitivity_mask (procedure,
                                       GIMP_PROCEDURE_SENSITIVE_DRAWABLE);
  gimp_procedure_set_menu_label (procedure, _("_BM3D Denoise..."));
  gimp_procedure_add_menu_path (procedure, "<Image>/Filters/Enhance");
  gimp_procedure_set_documentation (procedure,
    _("Remove sensor noise with block matching and 3D filtering (BM3D)"),
    _("Removes random noise while keeping edges and fine texture.  Sigma "
      "is the noise level: how far, on a 0 to 255 scale, pixels stray "
      "from their true value.  Start near 5 for a clean photograph, 15 to "
      "25 for a high-ISO shot, and raise it until the grain is gone; too "
      "high smooths real detail away.  Mode “bm3d” gives the best result "
      "in two passes and treats colour images as one (CBM3D); “bm3d-fast” "
      "runs the first pass only, faster and a little softer.  The backend "
      "chooses where the work is done: “auto” uses an NVIDIA GPU through "
      "CUDA when one is usable and the CPU otherwise.  Pixels are "
      "denoised in their perceptual (gamma) encoding, as they look, "
      "whatever the image precision; alpha is kept exactly, and only the "
      "selection changes."),
    name);
  gimp_procedure_set_attribution (procedure,
                                  "The BM3D Denoise for GIMP authors",
                                  "The BM3D Denoise for GIMP authors",
                                  "2026");

  for (i = 0; i < G_N_ELEMENTS (arguments); i++)
    add_argument (procedure, &arguments[i]);
  bm3d_filter_add_arguments (procedure);
  gimp_procedure_add_boolean_aux_argument (procedure, DIALOG_ACCEPTED,
    _("Dialog accepted"),
    _("Whether the dialog has been accepted once: until then it opens at "
      "its own defaults (camera noise), not at the procedure's"),
    FALSE, G_PARAM_READWRITE);
  return procedure;
}

/* Our own domain, its catalogues in the plug-in's folder.  A plug-in
 * copied there without them speaks English, without GIMP's three lines
 * of complaint on every run.  */
static gboolean
bm3d_set_i18n (GimpPlugIn   *plug_in,
               const gchar  *procedure_name,
               gchar       **gettext_domain,
               gchar       **catalog_dir)
{
  gchar    *folder = g_path_get_dirname (gimp_get_progname ());
  gchar    *catalogues = g_build_filename (folder, CATALOG_DIR, NULL);
  gboolean  found = g_file_test (catalogues, G_FILE_TEST_IS_DIR);

  g_free (catalogues);
  g_free (folder);
  if (! found)
    return FALSE;
  *gettext_domain = g_strdup (GETTEXT_PACKAGE);
  *catalog_dir = g_strdup (CATALOG_DIR);
  return TRUE;
}

static void
bm3d_plug_in_class_init (Bm3dPlugInClass *klass)
{
  GimpPlugInClass *plug_in_class = GIMP_PLUG_IN_CLASS (klass);

  plug_in_class->query_procedures = bm3d_query_procedures;
  plug_in_class->create_procedure = bm3d_create_procedure;
  plug_in_class->set_i18n = bm3d_set_i18n;
}

static void
bm3d_plug_in_init (Bm3dPlugIn *plug_in)
{
}
