/* BM3D Denoise: the API's defaults, names and sizes.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * bm3d_params_init (), the names of statuses, modes, backends and
 * isoline variants, both ways, and bm3d_pixel_size (): what every part
 * of the engine may call, calling nothing back.  */
#include "config.h"

#include "engine.h"
#include "bm3d-options.h"

#include <stdint.h>
#include <string.h>

void
bm3d_params_init (bm3d_params *params)
{
  memset (params, 0, sizeof *params);
  params->sigma = 25.0f;
  params->mode = BM3D_MODE_BM3D;
  params->backend = BM3D_BACKEND_AUTO;
}

const char *
bm3d_status_string (bm3d_status status)
{
  switch (status)
    {
    case BM3D_OK:                      return "success";
    case BM3D_ERR_INVALID_SIZE:        return "invalid image size";
    case BM3D_ERR_INVALID_STRIDE:      return "invalid row stride";
    case BM3D_ERR_INVALID_SIGMA:       return "invalid sigma";
    case BM3D_ERR_INVALID_ARGUMENT:    return "invalid argument";
    case BM3D_ERR_OUT_OF_MEMORY:       return "out of memory";
    case BM3D_ERR_CANCELLED:           return "cancelled";
    case BM3D_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case BM3D_ERR_BACKEND_FAILED:      return "backend failed";
    case BM3D_ERR_NOT_IMPLEMENTED:     return "not implemented";
    }
  return "unknown error";
}

/* The names are the table of options' choice nicks (bm3d-options.h):
 * one list for the engine, the command and the procedures.  */
static const char *
choice_name (bm3d_option_id id, int value)
{
  const char *nick = bm3d_option_choice_nick (&bm3d_options[id], value);

  return nick ? nick : "unknown";
}

const char *
bm3d_mode_name (bm3d_mode mode)
{
  return choice_name (BM3D_OPTION_MODE, mode);
}

const char *
bm3d_backend_name (bm3d_backend backend)
{
  return choice_name (BM3D_OPTION_BACKEND, backend);
}

int
bm3d_mode_parse (const char *name)
{
  return bm3d_option_choice_parse (&bm3d_options[BM3D_OPTION_MODE], name);
}

int
bm3d_backend_parse (const char *name)
{
  return bm3d_option_choice_parse (&bm3d_options[BM3D_OPTION_BACKEND], name);
}

const char *
bm3d_noise_name (bm3d_noise_kind noise)
{
  return choice_name (BM3D_OPTION_NOISE, noise);
}

int
bm3d_noise_parse (const char *name)
{
  return bm3d_option_choice_parse (&bm3d_options[BM3D_OPTION_NOISE], name);
}

const char *
bm3d_isoline_variant_name (bm3d_isoline_variant variant)
{
  return choice_name (BM3D_OPTION_ISOLINE_VARIANT, variant);
}

int
bm3d_isoline_variant_parse (const char *name)
{
  return bm3d_option_choice_parse (&bm3d_options[BM3D_OPTION_ISOLINE_VARIANT],
                                   name);
}

size_t
bm3d_pixel_size (bm3d_pixel_type type)
{
  switch (type)
    {
    case BM3D_PIXELS_FLOAT:
      return sizeof (float);
    case BM3D_PIXELS_U8:
      return sizeof (uint8_t);
    case BM3D_PIXELS_U16:
      return sizeof (uint16_t);
    }
  return 0;
}
