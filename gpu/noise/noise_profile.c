/* The noise profile: a stationary noise model per filtering plane, what
 * both BM3D phases derive their per-coefficient variances from, and its
 * text file.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The file format, version 1 (a profile of a colour image):
 *
 *   # any comment: '#' to the end of the line; blank lines are ignored
 *   bm3d-noise-profile 1
 *   channels 3
 *   plane 0
 *   <15 rows of 15 numbers: the autocovariance of plane 0's noise,
 *    row dy = -7 .. 7, column dx = -7 .. 7, 0..255 scale squared>
 *   plane 1
 *   ...
 *   plane 2
 *   ...
 *
 * Version 2 adds the noise level function (bm3d.h) after the planes:
 *
 *   nlf 0
 *   <16 numbers above 0: the relative noise deviation of channel 0 (R,
 *    or gray) in 16 even bins of brightness 0..255>
 *   nlf 1
 *   ...
 *
 * one per colour channel; the autocovariances are then those of the
 * variance-stabilised image.  The writer writes version 1 for a profile
 * without a level function, so files stay readable by older builds.
 *
 * Planes are those of the engine's colour transform (luminance
 * (R + G + B) / 3, chrominances (R - B) / 2 and (R - 2G + B) / 4); a
 * gray image's profile has "channels 1" and plane 0 alone.  Numbers are
 * C floating-point literals.  The writer adds comments with the derived
 * values (deviations, low-frequency shares, the white sigma); readers
 * ignore them and derive them again.  */
#include "config.h"

#include "noise/noise.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define L    BM3D_NOISE_LAG
#define SIDE BM3D_NOISE_SIDE
#define K    BM3D_PATCH

/* Frequencies per axis the power spectrum is sampled at for the
 * low-frequency share.  */
#define PSD_GRID 64
/* Cut-off of the low-frequency share, cycles per pixel.  */
#define LOW_FREQUENCY 0.25
/* A coefficient variance below this share of the lag-0 variance is no
 * noise's: the table is not a covariance.  */
#define VARIANCE_FLOOR 1e-6
/* Largest text file a profile may be (a written one is about 8 KB).  */
#define PROFILE_FILE_MAX 65536

static void
set_error (char *error, size_t error_len, const char *format, ...)
  __attribute__ ((format (printf, 3, 4)));

static void
set_error (char *error, size_t error_len, const char *format, ...)
{
  va_list args;

  if (!error || error_len == 0)
    return;
  va_start (args, format);
  vsnprintf (error, error_len, format, args);
  va_end (args);
}

/* ---- derived values -------------------------------------------------- */

/* Variance of every coefficient of coef = F X F^T for noise of
 * autocovariance r: var[u][v] = sum F[u][i] F[v][j] F[u][i'] F[v][j']
 * r(i' - i, j' - j), done as two passes through the lag table.  */
static void
transform_variances (const float (*r)[SIDE], bm3d_transform_kind kind,
                     float *var)
{
  bm3d_transform_2d t;
  /* a[u][dy] = sum over i, i' with i' - i = dy of F[u][i] F[u][i']:
   * the lag profile of row u of the transform.  */
  double a[K][SIDE];

  bm3d_transform_2d_init (kind, &t);
  for (int u = 0; u < K; u++)
    for (int d = -L; d <= L; d++)
      {
        double s = 0.0;

        for (int i = 0; i < K; i++)
          if (i + d >= 0 && i + d < K)
            s += (double) t.fwd[u][i] * t.fwd[u][i + d];
        a[u][d + L] = s;
      }
  for (int u = 0; u < K; u++)
    for (int v = 0; v < K; v++)
      {
        double s = 0.0;

        for (int dy = 0; dy < SIDE; dy++)
          for (int dx = 0; dx < SIDE; dx++)
            s += a[u][dy] * a[v][dx] * r[dy][dx];
        var[u * K + v] = (float) s;
      }
}

/* Share of the noise power below LOW_FREQUENCY cycles per pixel, from
 * the power spectrum the lag table gives (negative values, where the
 * truncated table rings, count as 0).  */
static float
low_frequency_share (const float (*r)[SIDE])
{
  double low = 0.0, all = 0.0;
  double cs[PSD_GRID][SIDE], sn[PSD_GRID][SIDE];
  /* Per row of lags dy, the row's sums over dx against the cosine and
   * the sine of each horizontal frequency.  */
  double rc[SIDE][PSD_GRID], rs[SIDE][PSD_GRID];

  /* The spectrum is the sum of r(d) cos (2 pi f.d), and the cosine of
   * the sum of the two axes' phases splits into per-axis tables:
   * cos (a + b) = cos a cos b - sin a sin b, so the sums run one axis
   * at a time (a sixth of the work of summing all lags at every
   * frequency; this runs on every profile a camera call sets up).  */
  for (int f = 0; f < PSD_GRID; f++)
    for (int d = -L; d <= L; d++)
      {
        double a = 2.0 * M_PI * (f - PSD_GRID / 2) * d / PSD_GRID;

        cs[f][d + L] = cos (a);
        sn[f][d + L] = sin (a);
      }
  for (int dy = 0; dy < SIDE; dy++)
    for (int fx = 0; fx < PSD_GRID; fx++)
      {
        double c = 0.0, s = 0.0;

        for (int dx = 0; dx < SIDE; dx++)
          {
            c += r[dy][dx] * cs[fx][dx];
            s += r[dy][dx] * sn[fx][dx];
          }
        rc[dy][fx] = c;
        rs[dy][fx] = s;
      }

  for (int fy = 0; fy < PSD_GRID; fy++)
    for (int fx = 0; fx < PSD_GRID; fx++)
      {
        double ny = (double) (fy - PSD_GRID / 2) / PSD_GRID;
        double nx = (double) (fx - PSD_GRID / 2) / PSD_GRID;
        double p = 0.0;

        for (int dy = 0; dy < SIDE; dy++)
          p += cs[fy][dy] * rc[dy][fx] - sn[fy][dy] * rs[dy][fx];
        if (p < 0.0)
          p = 0.0;
        all += p;
        if (nx * nx + ny * ny < LOW_FREQUENCY * LOW_FREQUENCY)
          low += p;
      }
  return all > 0.0 ? (float) (low / all) : 0.0f;
}

/* The white sigma for this noise: a white filter thresholds every
 * coefficient at one level, and what a photograph's noise asks of it is
 * set by its strongest coefficients, the patch's lowest frequencies.
 * The deviation of the luminance plane's patch DC (the mean of an 8x8
 * patch, times 8) is that level; divided by the luminance gain of white
 * RGB noise it reads as an RGB sigma.  On white noise it is sigma.  */
static float
white_sigma (const bm3d_noise_profile *p)
{
  float gain = p->channels == 3 ? bm3d_colour_noise_gain[0] : 1.0f;

  return sqrtf (p->var_wiener[0][0]) / gain;
}

bm3d_status
bm3d_noise_profile_update (bm3d_noise_profile *p, char *error,
                           size_t error_len)
{
  if (!p || (p->channels != 1 && p->channels != 3))
    {
      set_error (error, error_len, "a noise profile has 1 or 3 channels");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  for (int c = 0; c < p->channels; c++)
    {
      float (*r)[SIDE] = p->autocov[c];

      for (int dy = 0; dy < SIDE; dy++)
        for (int dx = 0; dx < SIDE; dx++)
          if (!isfinite (r[dy][dx]))
            {
              set_error (error, error_len, "plane %d: a value is not a "
                         "finite number", c);
              return BM3D_ERR_INVALID_ARGUMENT;
            }
      if (!(r[L][L] > 0.0f) || r[L][L] > 255.0f * 255.0f)
        {
          set_error (error, error_len, "plane %d: the variance (lag 0) must "
                     "be above 0 and at most 65025 (got %g)", c,
                     (double) r[L][L]);
          return BM3D_ERR_INVALID_ARGUMENT;
        }
    }

  for (int c = 0; c < p->channels; c++)
    {
      float (*r)[SIDE] = p->autocov[c];

      /* r(d) and r(-d) are one value: make them so exactly.  */
      for (int dy = 0; dy < SIDE; dy++)
        for (int dx = 0; dx < SIDE; dx++)
          {
            float *a = &r[dy][dx], *b = &r[SIDE - 1 - dy][SIDE - 1 - dx];
            float m = 0.5f * (*a + *b);

            *a = *b = m;
          }
      transform_variances ((const float (*)[SIDE]) r, BM3D_TRANSFORM_BIOR15,
                           p->var_hard[c]);
      transform_variances ((const float (*)[SIDE]) r, BM3D_TRANSFORM_DCT,
                           p->var_wiener[c]);
      for (int k = 0; k < BM3D_NOISE_COEFS; k++)
        if (!(p->var_hard[c][k] > VARIANCE_FLOOR * r[L][L])
            || !(p->var_wiener[c][k] > VARIANCE_FLOOR * r[L][L]))
          {
            set_error (error, error_len, "plane %d: the autocovariance is not "
                       "one any noise can have (a frequency with negative "
                       "power)", c);
            return BM3D_ERR_INVALID_ARGUMENT;
          }
      p->sigma[c] = sqrtf (r[L][L]);
      p->low_share[c] = low_frequency_share ((const float (*)[SIDE]) r);
    }
  for (int c = p->channels; c < BM3D_NOISE_PLANES; c++)
    {
      memset (p->autocov[c], 0, sizeof p->autocov[c]);
      memset (p->var_hard[c], 0, sizeof p->var_hard[c]);
      memset (p->var_wiener[c], 0, sizeof p->var_wiener[c]);
      p->sigma[c] = p->low_share[c] = 0.0f;
    }
  p->sigma_white = white_sigma (p);
  return BM3D_OK;
}

void
bm3d_noise_profile_init_white (bm3d_noise_profile *p, int channels,
                               float sigma)
{
  memset (p, 0, sizeof *p);
  p->channels = channels == 3 ? 3 : 1;
  for (int c = 0; c < p->channels; c++)
    {
      float s = sigma * (p->channels == 3 ? bm3d_colour_noise_gain[c] : 1.0f);

      p->autocov[c][L][L] = s * s;
    }
  bm3d_noise_profile_update (p, NULL, 0);
}

void
bm3d_noise_profile_levels (const bm3d_noise_profile *p, float *luma,
                           float *chroma)
{
  if (p->channels != 3)
    {
      *luma = p->sigma[0];
      *chroma = 0.0f;
      return;
    }
  *luma = p->sigma[0] / bm3d_colour_noise_gain[0];
  *chroma = sqrtf (0.5f * (p->sigma[1] * p->sigma[1]
                           / (bm3d_colour_noise_gain[1]
                              * bm3d_colour_noise_gain[1])
                           + p->sigma[2] * p->sigma[2]
                             / (bm3d_colour_noise_gain[2]
                                * bm3d_colour_noise_gain[2])));
}

/* ---- the text file --------------------------------------------------- */

/* Append to a bounded buffer as snprintf would, counting what is
 * needed.  */
typedef struct
{
  char   *text;
  size_t  len;
  size_t  used;
} text_sink;

static void
sink_printf (text_sink *s, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

static void
sink_printf (text_sink *s, const char *format, ...)
{
  va_list args;
  size_t room = s->used < s->len ? s->len - s->used : 0;
  int n;

  va_start (args, format);
  n = vsnprintf (room ? s->text + s->used : NULL, room, format, args);
  va_end (args);
  if (n > 0)
    s->used += (size_t) n;
}

size_t
bm3d_noise_profile_format (const bm3d_noise_profile *p, char *text,
                           size_t text_len)
{
  static const char *const plane_names[3] = {
    "luminance (R + G + B) / 3", "chrominance (R - B) / 2",
    "chrominance (R - 2G + B) / 4"
  };
  text_sink s = { text, text_len, 0 };
  float luma, chroma;

  if (text && text_len)
    text[0] = '\0';
  bm3d_noise_profile_levels (p, &luma, &chroma);
  sink_printf (&s, "# BM3D Denoise noise profile: the autocovariance of the "
               "noise of each plane\n# the engine filters in, rows dy = -7 "
               "to 7, columns dx = -7 to 7, on the\n# 0..255 scale "
               "squared.\n");
  sink_printf (&s, "bm3d-noise-profile %d\nchannels %d\n",
               bm3d_nlf_present (p) ? 2 : 1, p->channels);
  sink_printf (&s, "# noise levels as white RGB sigma: luma %.3f, chroma "
               "%.3f; white-model sigma %.3f\n", (double) luma,
               (double) chroma, (double) p->sigma_white);
  for (int c = 0; c < p->channels; c++)
    {
      sink_printf (&s, "plane %d\n# %s: deviation %.4f, %.1f %% of the "
                   "power below 0.25 cycles/pixel\n", c,
                   p->channels == 3 ? plane_names[c] : "gray",
                   (double) p->sigma[c], 100.0 * p->low_share[c]);
      for (int dy = 0; dy < SIDE; dy++)
        for (int dx = 0; dx < SIDE; dx++)
          sink_printf (&s, "%.9g%c", (double) p->autocov[c][dy][dx],
                       dx == SIDE - 1 ? '\n' : ' ');
    }
  for (int c = 0; bm3d_nlf_present (p) && c < p->channels; c++)
    {
      sink_printf (&s, "nlf %d\n", c);
      for (int i = 0; i < BM3D_NLF_BINS; i++)
        sink_printf (&s, "%.9g%c", (double) p->nlf[c][i],
                     i == BM3D_NLF_BINS - 1 ? '\n' : ' ');
    }
  return s.used;
}

/* A reader of lines with comments and blank lines skipped.  */
typedef struct
{
  const char *next;
  int         line;
  char        buf[1024];
} line_reader;

/* The next line with content (comment cut off, surrounding blanks
 * trimmed), or NULL at the end.  A line too long for the buffer is
 * returned cut, which no valid line is.  */
static const char *
next_line (line_reader *lr)
{
  while (lr->next && *lr->next)
    {
      const char *end = strchr (lr->next, '\n');
      size_t n = end ? (size_t) (end - lr->next) : strlen (lr->next);
      char *hash, *s = lr->buf;

      lr->line++;
      if (n >= sizeof lr->buf)
        n = sizeof lr->buf - 1;
      memcpy (lr->buf, lr->next, n);
      lr->buf[n] = '\0';
      lr->next = end ? end + 1 : NULL;
      if ((hash = strchr (lr->buf, '#')))
        *hash = '\0';
      while (*s == ' ' || *s == '\t')
        s++;
      n = strlen (s);
      while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'
                       || s[n - 1] == '\r'))
        s[--n] = '\0';
      if (*s)
        return s;
    }
  return NULL;
}

/* "KEY N" with N an integer: returns 1 and sets *value.  */
static int
keyword_int (const char *s, const char *key, int *value)
{
  size_t n = strlen (key);
  char *end;
  long v;

  if (strncmp (s, key, n) != 0 || (s[n] != ' ' && s[n] != '\t'))
    return 0;
  errno = 0;
  v = strtol (s + n, &end, 10);
  while (*end == ' ' || *end == '\t')
    end++;
  if (errno || *end || end == s + n || v < -1000000 || v > 1000000)
    return 0;
  *value = (int) v;
  return 1;
}

/* `count` numbers separated by blanks, the whole of `s`: returns 1 and
 * fills `out`, else 0 (*more set when there were too many).  */
static int
parse_numbers (const char *s, float *out, int count, int *more)
{
  char *end;

  *more = 0;
  for (int i = 0; i < count; i++)
    {
      errno = 0;
      out[i] = strtof (s, &end);
      if (end == s || errno == ERANGE || (*end && *end != ' ' && *end != '\t'))
        return 0;
      s = end;
    }
  while (*s == ' ' || *s == '\t')
    s++;
  *more = *s != '\0';
  return !*more;
}

/* Version 2's level functions, one per channel, into p->nlf.  */
static bm3d_status
parse_nlf (line_reader *lr, bm3d_noise_profile *p, char *error,
           size_t error_len)
{
  for (int c = 0; c < p->channels; c++)
    {
      const char *s = next_line (lr);
      int channel, more;

      if (!s || !keyword_int (s, "nlf", &channel) || channel != c)
        {
          set_error (error, error_len, "line %d: expected \"nlf %d\"",
                     lr->line, c);
          return BM3D_ERR_INVALID_ARGUMENT;
        }
      s = next_line (lr);
      if (!s || !parse_numbers (s, p->nlf[c], BM3D_NLF_BINS, &more))
        {
          set_error (error, error_len, "line %d: expected %d numbers (the "
                     "level function of channel %d)", lr->line,
                     BM3D_NLF_BINS, c);
          return BM3D_ERR_INVALID_ARGUMENT;
        }
      for (int i = 0; i < BM3D_NLF_BINS; i++)
        if (!(p->nlf[c][i] > 0.0f && p->nlf[c][i] < 1e6f))
          {
            set_error (error, error_len, "line %d: a noise level function "
                       "holds positive numbers (got %g)", lr->line,
                       (double) p->nlf[c][i]);
            return BM3D_ERR_INVALID_ARGUMENT;
          }
    }
  return BM3D_OK;
}

bm3d_status
bm3d_noise_profile_parse (bm3d_noise_profile *profile, const char *text,
                          char *error, size_t error_len)
{
  bm3d_noise_profile p;
  line_reader lr;
  const char *s;
  int version, channels;
  bm3d_status status;

  if (!profile || !text)
    {
      set_error (error, error_len, "no noise profile text");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  memset (&p, 0, sizeof p);
  memset (&lr, 0, sizeof lr);
  lr.next = text;

  s = next_line (&lr);
  if (!s || !keyword_int (s, "bm3d-noise-profile", &version))
    {
      set_error (error, error_len, "line %d: not a noise profile (expected "
                 "\"bm3d-noise-profile 1\")", lr.line);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (version != 1 && version != 2)
    {
      set_error (error, error_len, "line %d: noise profile version %d is not "
                 "supported (this program reads versions 1 and 2)", lr.line,
                 version);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  s = next_line (&lr);
  if (!s || !keyword_int (s, "channels", &channels)
      || (channels != 1 && channels != 3))
    {
      set_error (error, error_len, "line %d: expected \"channels 1\" or "
                 "\"channels 3\"", lr.line);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  p.channels = channels;

  for (int c = 0; c < channels; c++)
    {
      int plane;

      s = next_line (&lr);
      if (!s || !keyword_int (s, "plane", &plane) || plane != c)
        {
          set_error (error, error_len, "line %d: expected \"plane %d\"",
                     lr.line, c);
          return BM3D_ERR_INVALID_ARGUMENT;
        }
      for (int dy = 0; dy < SIDE; dy++)
        {
          int more;

          s = next_line (&lr);
          if (!s)
            {
              set_error (error, error_len, "line %d: plane %d ends after %d "
                         "of its %d rows", lr.line, c, dy, SIDE);
              return BM3D_ERR_INVALID_ARGUMENT;
            }
          if (!parse_numbers (s, p.autocov[c][dy], SIDE, &more))
            {
              set_error (error, error_len, more
                         ? "line %d: more than %d numbers (row %d of plane %d)"
                         : "line %d: expected %d numbers (row %d of plane %d)",
                         lr.line, SIDE, dy, c);
              return BM3D_ERR_INVALID_ARGUMENT;
            }
        }
    }
  if (version == 2
      && (status = parse_nlf (&lr, &p, error, error_len)) != BM3D_OK)
    return status;
  if ((s = next_line (&lr)))
    {
      set_error (error, error_len, "line %d: unexpected text after the last "
                 "plane", lr.line);
      return BM3D_ERR_INVALID_ARGUMENT;
    }

  status = bm3d_noise_profile_update (&p, error, error_len);
  if (status != BM3D_OK)
    return status;
  *profile = p;
  return BM3D_OK;
}

bm3d_status
bm3d_noise_profile_load (bm3d_noise_profile *profile, const char *path,
                         char *error, size_t error_len)
{
  FILE *f;
  char *text;
  size_t n;
  bm3d_status status;
  char why[200];

  if (!path || !(f = fopen (path, "rb")))
    {
      set_error (error, error_len, "cannot read noise profile %s: %s",
                 path ? path : "(none)", path ? strerror (errno) : "no name");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  text = malloc (PROFILE_FILE_MAX + 1);
  if (!text)
    {
      fclose (f);
      set_error (error, error_len, "out of memory");
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  n = fread (text, 1, PROFILE_FILE_MAX + 1, f);
  if (ferror (f) || n > PROFILE_FILE_MAX)
    {
      set_error (error, error_len, ferror (f)
                 ? "cannot read noise profile %s" : "noise profile %s is "
                 "too large to be one", path);
      fclose (f);
      free (text);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  fclose (f);
  text[n] = '\0';
  if (memchr (text, '\0', n))
    {
      set_error (error, error_len, "noise profile %s is not a text file",
                 path);
      free (text);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  status = bm3d_noise_profile_parse (profile, text, why, sizeof why);
  free (text);
  if (status != BM3D_OK)
    set_error (error, error_len, "noise profile %s: %s", path, why);
  return status;
}

bm3d_status
bm3d_noise_profile_save (const bm3d_noise_profile *profile, const char *path,
                         char *error, size_t error_len)
{
  bm3d_noise_profile check;
  size_t n, tmp_len;
  char *text, *tmp;
  FILE *f;
  int ok;

  if (!profile || !path)
    {
      set_error (error, error_len, "no noise profile or file name");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  /* Write only what reads back.  */
  check = *profile;
  if (bm3d_noise_profile_update (&check, error, error_len) != BM3D_OK)
    return BM3D_ERR_INVALID_ARGUMENT;
  n = bm3d_noise_profile_format (&check, NULL, 0);
  text = malloc (n + 1);
  tmp_len = strlen (path) + 32;
  tmp = malloc (tmp_len);
  if (!text || !tmp)
    {
      free (text);
      free (tmp);
      set_error (error, error_len, "out of memory");
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  bm3d_noise_profile_format (&check, text, n + 1);
  snprintf (tmp, tmp_len, "%s.tmp-%ld", path, (long) getpid ());
  f = fopen (tmp, "wb");
  ok = f && fwrite (text, 1, n, f) == n;
  if (f && fclose (f) != 0)
    ok = 0;
  if (ok && rename (tmp, path) != 0)
    ok = 0;
  if (!ok)
    {
      set_error (error, error_len, "cannot write noise profile %s: %s", path,
                 strerror (errno));
      if (f)
        unlink (tmp);
    }
  free (text);
  free (tmp);
  return ok ? BM3D_OK : BM3D_ERR_INVALID_ARGUMENT;
}
