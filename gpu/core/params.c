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

static const char *const mode_names[] = { "bm3d", "bm3d-fast", "nlm", "isoline" };
static const char *const backend_names[] = { "auto", "cpu", "cuda" };

const char *
bm3d_mode_name (bm3d_mode mode)
{
  return (unsigned) mode < 4 ? mode_names[mode] : "unknown";
}

const char *
bm3d_backend_name (bm3d_backend backend)
{
  return (unsigned) backend < 3 ? backend_names[backend] : "unknown";
}

static int
parse_name (const char *name, const char *const *names, int n)
{
  for (int i = 0; name && i < n; i++)
    if (strcmp (name, names[i]) == 0)
      return i;
  return -1;
}

int
bm3d_mode_parse (const char *name)
{
  return parse_name (name, mode_names, 4);
}

int
bm3d_backend_parse (const char *name)
{
  return parse_name (name, backend_names, 3);
}

static const char *const variant_names[] = { "hybrid", "pipd" };

const char *
bm3d_isoline_variant_name (bm3d_isoline_variant variant)
{
  return (unsigned) variant < 2 ? variant_names[variant] : "unknown";
}

int
bm3d_isoline_variant_parse (const char *name)
{
  return parse_name (name, variant_names, 2);
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
