/* BM3D Denoise — the engine's options in one table: each one's name,
 * type, range, default and one-line help, and for a choice its values
 * and their labels.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The engine checks its parameters against this table, and every front
 * end builds its own from it: the command's argument checks and --help,
 * the GIMP procedures' arguments and the dialog's widgets.  A range
 * changed here changes everywhere.  The help texts and labels are
 * English, marked for translation (a front end with a catalogue passes
 * them through gettext); the engine itself never translates.  */
#ifndef BM3D_OPTIONS_H
#define BM3D_OPTIONS_H

#include <stddef.h>

#include "bm3d.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  /* The noise model and the run (bm3d_params).  */
  BM3D_OPTION_SIGMA,
  BM3D_OPTION_MODE,
  BM3D_OPTION_BACKEND,
  BM3D_OPTION_NOISE,
  BM3D_OPTION_STRENGTH,
  BM3D_OPTION_CHROMA_STRENGTH,
  /* bm3d_bm3d_options.  */
  BM3D_OPTION_SEARCH,
  BM3D_OPTION_GROUP_MAX_HARD,
  BM3D_OPTION_GROUP_MAX_WIENER,
  BM3D_OPTION_STEP,
  BM3D_OPTION_LAMBDA_3D,
  BM3D_OPTION_CHROMA_SCALE,
  /* bm3d_nlm_options.  */
  BM3D_OPTION_NLM_PATCH,
  BM3D_OPTION_NLM_SEARCH,
  BM3D_OPTION_NLM_H,
  BM3D_OPTION_NLM_GAUSSIAN,
  /* bm3d_isoline_options.  */
  BM3D_OPTION_ISOLINE_VARIANT,
  BM3D_OPTION_ISOLINE_LENGTH,
  BM3D_OPTION_ISOLINE_SEGMENT,
  BM3D_OPTION_ISOLINE_T_MAX,
  BM3D_OPTION_ISOLINE_T2_MAX,
  BM3D_OPTION_COUNT
} bm3d_option_id;

typedef enum
{
  BM3D_OPTION_REAL,     /* a number from min to max                     */
  BM3D_OPTION_INT,      /* an integer from min to max                   */
  BM3D_OPTION_ODD,      /* an odd integer from min to max               */
  BM3D_OPTION_POW2,     /* a power of two from min to max               */
  BM3D_OPTION_FLAG,     /* 0 or 1                                       */
  BM3D_OPTION_CHOICE    /* one of `choices` (min 0, max n_choices - 1)  */
} bm3d_option_type;

/* One value of a choice: the name the command line and GIMP 3's
 * procedures take, the engine's value, and a label for a menu.  */
typedef struct
{
  const char *nick;
  int         value;
  const char *label;
} bm3d_option_choice;

typedef struct
{
  const char               *name;      /* "search", "chroma-strength"    */
  bm3d_option_type          type;
  double                    min, max;
  /* min itself is refused: the range is (min, max].  */
  int                       min_open;
  /* 0 is accepted too, and stands for the default the mode derives
   * from the noise level (the published settings).  */
  int                       zero_is_default;
  double                    default_value;  /* bm3d_params_init ()'s  */
  const char               *help;           /* one line, N_()         */
  const bm3d_option_choice *choices;        /* BM3D_OPTION_CHOICE     */
  int                       n_choices;
} bm3d_option;

extern const bm3d_option bm3d_options[BM3D_OPTION_COUNT];

/* The option of that name, or NULL.  */
const bm3d_option *bm3d_option_find (const char *name);

/* 1 when `value` is one `option` takes: finite, in range (or 0 where 0
 * is the default), odd, a power of two or a choice's value as its type
 * says; else 0.  */
int          bm3d_option_accepts    (const bm3d_option *option,
                                     double             value);

/* The range as a message says it: "9 to 75", "0.25 to 4", "above 0
 * and at most 255"; a choice lists its nicks ("auto, cpu or cuda").
 * Returns what snprintf does.  */
int          bm3d_option_range_text (const bm3d_option *option,
                                     char              *text,
                                     size_t             text_len);

/* A choice's value for `nick`, or -1; the nick of `value`, or NULL.  */
int          bm3d_option_choice_parse (const bm3d_option *option,
                                       const char        *nick);
const char  *bm3d_option_choice_nick  (const bm3d_option *option,
                                       int                value);
/* The label of `value` (untranslated), or NULL.  */
const char  *bm3d_option_choice_label (const bm3d_option *option,
                                       int                value);

#ifdef __cplusplus
}
#endif

#endif /* BM3D_OPTIONS_H */
