/* The engine's table of options (bm3d-options.h) against the engine
 * itself: every range the table gives is the one bm3d_denoise ()
 * enforces (its ends accepted, a step beyond refused), and a help text
 * that states a range states the table's.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d.h"
#include "bm3d-options.h"
#include "engine-tap.h"

/* Sets option `id` of `params` to `v` (choosing the mode it belongs
 * to); returns 0 for an option this test does not set.  */
static int
set_option (bm3d_params *params, bm3d_option_id id, double v)
{
  bm3d_params_init (params);
  switch (id)
    {
    case BM3D_OPTION_SIGMA:
      params->sigma = (float) v;
      return 1;
    case BM3D_OPTION_SEARCH:
      params->bm3d.search = (int) v;
      return 1;
    case BM3D_OPTION_GROUP_MAX_HARD:
      params->bm3d.group_max_hard = (int) v;
      return 1;
    case BM3D_OPTION_GROUP_MAX_WIENER:
      params->bm3d.group_max_wiener = (int) v;
      return 1;
    case BM3D_OPTION_STEP:
      params->bm3d.step = (int) v;
      return 1;
    case BM3D_OPTION_LAMBDA_3D:
      params->bm3d.lambda_3d = (float) v;
      return 1;
    case BM3D_OPTION_CHROMA_SCALE:
      params->bm3d.chroma_scale = (float) v;
      return 1;
    case BM3D_OPTION_NLM_PATCH:
      params->mode = BM3D_MODE_NLM;
      params->nlm.patch = (int) v;
      return 1;
    case BM3D_OPTION_NLM_SEARCH:
      params->mode = BM3D_MODE_NLM;
      params->nlm.search = (int) v;
      return 1;
    case BM3D_OPTION_NLM_H:
      params->mode = BM3D_MODE_NLM;
      params->nlm.h = (float) v;
      return 1;
    case BM3D_OPTION_ISOLINE_LENGTH:
      /* The segment may not be longer than the isoline.  */
      params->mode = BM3D_MODE_ISOLINE;
      params->isoline.length_max = (int) v;
      params->isoline.segment = 2;
      return 1;
    case BM3D_OPTION_ISOLINE_SEGMENT:
      params->mode = BM3D_MODE_ISOLINE;
      params->isoline.segment = (int) v;
      params->isoline.length_max = 64;
      return 1;
    case BM3D_OPTION_ISOLINE_T_MAX:
      params->mode = BM3D_MODE_ISOLINE;
      params->isoline.t_max = (float) v;
      return 1;
    case BM3D_OPTION_ISOLINE_T2_MAX:
      params->mode = BM3D_MODE_ISOLINE;
      params->isoline.t2_max = (float) v;
      return 1;
    default:
      return 0;
    }
}

/* Does the engine take `v` for option `id`?  */
static int
engine_takes (bm3d_option_id id, double v)
{
  bm3d_params params;
  int margin, align;

  set_option (&params, id, v);
  return bm3d_context_margin (&params, 3, &margin, &align, NULL) == BM3D_OK;
}

/* The value one step beyond `v` (away from the range) for the option's
 * type: 2 for odd sizes, a doubling for powers of two.  */
static double
beyond (const bm3d_option *option, double v, int up)
{
  switch (option->type)
    {
    case BM3D_OPTION_ODD:
      return up ? v + 2 : v - 2;
    case BM3D_OPTION_POW2:
      return up ? v * 2 : v / 2;
    case BM3D_OPTION_INT:
      return up ? v + 1 : v - 1;
    default:
      return up ? v * 1.01 : v * 0.99;
    }
}

static void
check_engine_ranges (void)
{
  for (int id = 0; id < BM3D_OPTION_COUNT; id++)
    {
      const bm3d_option *o = &bm3d_options[id];
      bm3d_params params;
      double below = beyond (o, o->min, 0);

      if (!set_option (&params, (bm3d_option_id) id, o->max))
        continue;
      tap_ok (engine_takes (id, o->max) && engine_takes (id, o->min)
              != o->min_open,
              "%s: the engine takes %g and %s %g", o->name, o->max,
              o->min_open ? "refuses" : "takes", o->min);
      /* Below 1 an integer is 0, the default: nothing to refuse.  */
      if (below == 0.0 || (o->type != BM3D_OPTION_REAL && below < 1.0
                           && below > 0.0))
        below = 0.0;
      tap_ok (!engine_takes (id, beyond (o, o->max, 1))
              && (below == 0.0 || !engine_takes (id, below)),
              "%s: the engine refuses %g and %g", o->name,
              beyond (o, o->max, 1), below);
    }
}

/* A help text that names a range names the table's.  */
static void
check_help_ranges (void)
{
  for (int id = 0; id < BM3D_OPTION_COUNT; id++)
    {
      const bm3d_option *o = &bm3d_options[id];
      char range[100];

      if (o->type == BM3D_OPTION_CHOICE || o->type == BM3D_OPTION_FLAG)
        continue;
      if (o->type == BM3D_OPTION_POW2)
        snprintf (range, sizeof range, "up to %g", o->max);
      else
        bm3d_option_range_text (o, range, sizeof range);
      if (strstr (o->help, " to ") || strstr (o->help, "at most"))
        tap_ok (strstr (o->help, range) != NULL,
                "%s: its help says %s", o->name, range);
    }
}

static void
check_table (void)
{
  int ok = 1;

  for (int id = 0; id < BM3D_OPTION_COUNT; id++)
    {
      const bm3d_option *o = &bm3d_options[id];

      ok = ok && o->name && o->help && bm3d_option_find (o->name) == o
           && o->min <= o->max
           && (o->type != BM3D_OPTION_CHOICE || o->n_choices > 1);
      for (int i = 0; ok && i < o->n_choices; i++)
        ok = bm3d_option_choice_parse (o, o->choices[i].nick)
             == o->choices[i].value && o->choices[i].label;
    }
  tap_ok (ok, "every row named, found by its name, its choices by theirs");
  tap_ok (bm3d_option_find ("no-such-option") == NULL,
          "an unknown name finds nothing");
  tap_ok (bm3d_option_choice_parse (&bm3d_options[BM3D_OPTION_MODE],
                                    "nlm") == BM3D_MODE_NLM
          && bm3d_option_choice_parse (&bm3d_options[BM3D_OPTION_BACKEND],
                                       "cuda") == BM3D_BACKEND_CUDA
          && bm3d_option_choice_parse (&bm3d_options[BM3D_OPTION_NOISE],
                                       "camera") == BM3D_NOISE_PROFILE,
          "the choices' nicks give the engine's values");
  tap_ok (bm3d_option_accepts (&bm3d_options[BM3D_OPTION_SEARCH], 0)
          && bm3d_option_accepts (&bm3d_options[BM3D_OPTION_SEARCH], 39)
          && !bm3d_option_accepts (&bm3d_options[BM3D_OPTION_SEARCH], 40)
          && bm3d_option_accepts (&bm3d_options[BM3D_OPTION_GROUP_MAX_HARD],
                                  16)
          && !bm3d_option_accepts (&bm3d_options[BM3D_OPTION_GROUP_MAX_HARD],
                                   12)
          && !bm3d_option_accepts (&bm3d_options[BM3D_OPTION_STRENGTH], 0)
          && !bm3d_option_accepts (&bm3d_options[BM3D_OPTION_SIGMA], 0)
          && !bm3d_option_accepts (&bm3d_options[BM3D_OPTION_SIGMA], NAN)
          && !bm3d_option_accepts (&bm3d_options[BM3D_OPTION_MODE], 4),
          "odd sizes, powers of two, open ends and choices are checked");
}

int
main (void)
{
  bm3d_params defaults;

  check_table ();
  bm3d_params_init (&defaults);
  tap_ok (defaults.sigma == bm3d_options[BM3D_OPTION_SIGMA].default_value
          && (double) defaults.mode
             == bm3d_options[BM3D_OPTION_MODE].default_value
          && (double) defaults.backend
             == bm3d_options[BM3D_OPTION_BACKEND].default_value
          && (double) defaults.noise
             == bm3d_options[BM3D_OPTION_NOISE].default_value,
          "bm3d_params_init () gives the table's defaults");
  check_engine_ranges ();
  check_help_ranges ();
  return tap_done ();
}
