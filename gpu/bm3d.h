/* BM3D Denoise — the denoising engine's public interface.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The engine knows nothing of GIMP or GTK: float images in, float images
 * out.  Every entry point returns a status and never aborts or exits.
 */
#ifndef BM3D_H
#define BM3D_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  BM3D_OK = 0,
  BM3D_ERR_INVALID_SIZE,          /* width or height < 1, or too large   */
  BM3D_ERR_INVALID_STRIDE,        /* row stride smaller than a row       */
  BM3D_ERR_INVALID_SIGMA,         /* sigma not finite, <= 0 or > 255     */
  BM3D_ERR_INVALID_ARGUMENT,      /* NULL image, bad channels, bad mode  */
  BM3D_ERR_OUT_OF_MEMORY,
  BM3D_ERR_CANCELLED,
  BM3D_ERR_BACKEND_UNAVAILABLE,   /* e.g. CUDA asked for, none usable    */
  BM3D_ERR_BACKEND_FAILED,        /* a backend fault (kernel error, ...) */
  BM3D_ERR_NOT_IMPLEMENTED
} bm3d_status;

typedef enum
{
  BM3D_MODE_BM3D = 0,       /* both phases: hard threshold, then Wiener */
  BM3D_MODE_BM3D_FAST = 1,  /* first phase only                         */
  BM3D_MODE_NLM = 2,        /* non-local means                          */
  BM3D_MODE_ISOLINE = 3     /* PI-PD isoline filter                     */
} bm3d_mode;

/* The isoline filter's two variants (Perrot et al.).  */
typedef enum
{
  BM3D_ISOLINE_HYBRID = 0,  /* edge detector picks mean, half-plane or PI-PD */
  BM3D_ISOLINE_PIPD = 1     /* poly-isoline with partial directions alone    */
} bm3d_isoline_variant;

typedef enum
{
  BM3D_BACKEND_AUTO = 0,    /* CUDA when a usable device exists, else CPU */
  BM3D_BACKEND_CPU = 1,
  BM3D_BACKEND_CUDA = 2
} bm3d_backend;

/* Interleaved image: `channels` values per pixel (1..4), `stride` floats
 * between the starts of two rows (>= width * channels).  Values are on
 * the 0..255 scale whatever the source precision; they need not be
 * clipped.  When `has_alpha` is set the last channel is alpha: it is not
 * denoised and is copied bit-exact to the output.  */
typedef struct
{
  int     width;
  int     height;
  int     channels;
  int     has_alpha;
  size_t  stride;
  float  *data;
} bm3d_image;

/* Called now and then with the fraction done (0..1).  Return non-zero to
 * cancel: the call then returns BM3D_ERR_CANCELLED and the output image
 * is left exactly as it was.  May be called from the calling thread
 * only.  */
typedef int (*bm3d_progress_func) (double fraction, void *user_data);

/* Expert settings of each mode.  A field left 0 takes the default the
 * mode derives from sigma, so bm3d_params_init () gives the published
 * parameters; bm3d_denoise () refuses values outside the ranges given.  */
typedef struct
{
  int    search;            /* search window side, odd, 9..75            */
  int    group_max_hard;    /* largest group, phase 1: 1, 2, 4 .. 32      */
  int    group_max_wiener;  /* largest group, phase 2: 1, 2, 4 .. 32      */
  int    step;              /* reference patch spacing, 1..8 (both phases) */
  float  lambda_3d;         /* hard threshold in multiples of sigma, 1..5 */
  float  chroma_scale;      /* chroma planes' sigma multiplier, 0.25..4   */
} bm3d_bm3d_options;

typedef struct
{
  int    patch;             /* patch side, odd, 1..15                     */
  int    search;            /* search window side, odd, 3..71             */
  float  h;                 /* filtering parameter (0..255 scale), > 0    */
  int    gaussian;          /* non-zero: Gaussian-weighted patch distance */
} bm3d_nlm_options;

typedef struct
{
  bm3d_isoline_variant variant;
  int    length_max;        /* n: most pixels on an isoline, 2..64        */
  int    segment;           /* l: pixels of a segment, 2..16              */
  float  t_max;             /* GLRT threshold for lengthening, > 0        */
  float  t2_max;            /* hybrid's edge-detector threshold, > 0      */
  int    thicken;           /* non-zero: thicken isolines                 */
} bm3d_isoline_options;

/* ---- the noise model -------------------------------------------------
 *
 * White noise is one sigma.  A photograph's noise is not white:
 * demosaicing, the camera's own noise reduction and JPEG make it
 * spatially correlated (coarse grain, chroma in blotches).  A noise
 * profile describes it per plane of the space the engine filters
 * colour in (bm3d_colour_fwd in bm3d_tables.h: plane 0 the luminance
 * (R + G + B) / 3, planes 1 and 2 the chrominances (R - B) / 2 and
 * (R - 2G + B) / 4; a gray image has its one plane), as stationary
 * Gaussian noise with an autocovariance over the lags an 8x8 patch
 * spans:
 *
 *   autocov[c][dy + 7][dx + 7] = E[n_c(x, y) n_c(x + dx, y + dy)],
 *   |dx|, |dy| <= 7, 0..255 scale squared, symmetric under (dx, dy) ->
 *   (-dx, -dy).
 *
 * That is the whole model; everything else is derived from it by
 * bm3d_noise_profile_update ().  For any linear transform of a patch
 * the noise variance of a coefficient with basis vector t is t^T C t,
 * C(p, q) = autocov (p - q): exact, 64 numbers per plane and 2D
 * transform (Maekinen, Azzari & Foi 2020).  Both phases threshold or
 * shrink each coefficient by its own variance, from var_hard (the hard
 * phase's bior1.5) and var_wiener (the Wiener phase's DCT), in the
 * transforms' coefficient order (coef = F X F^T, index u * 8 + v, u
 * down, v across; F = bm3d_transform_2d's fwd).  These small per-plane
 * tables are all a backend reads: a GPU keeps them in constant memory.
 *
 * White noise of deviation s is the profile with autocov s^2 at lag 0
 * and 0 elsewhere (bm3d_noise_profile_init_white): every variance is
 * then s^2 and the filter is the white one.
 *
 * The RGB noise of a camera is cross-correlated, but mostly as a common
 * component with the same level in R, G and B, which the luminance /
 * chrominance transform separates: the profile models the planes as
 * independent.
 *
 * The noise of a photograph follows its brightness (shot noise, then
 * the camera's tone curve).  A profile may carry a noise level function
 * (NLF): nlf[c][i], the relative noise deviation of colour channel c
 * (R, G, B, or gray) at brightness in bin i of BM3D_NLF_BINS even bins
 * of 0..255.  The engine then filters the image after a
 * variance-stabilising transform built from it (gpu/noise/noise_vst.h:
 * per channel f (x) proportional to the integral of 1 / nlf, scaled so
 * that f (0) = 0 and f (255) = 255), where the noise is the same at
 * every brightness, and the autocovariance above is the noise's in
 * that domain; the result goes back through the transform's unbiased
 * inverse.  All zero (version 1 files, white profiles): the same level
 * at every brightness, no transform.  */

/* Brightness bins of a noise level function.  */
#define BM3D_NLF_BINS     16

/* bm3d_noise_profile's jpeg_lattice from which an image was saved as
 * JPEG: about 4 for one never saved as JPEG (a chance of about 1e-7 to
 * read this much), tens to hundreds for a JPEG of quality up to 98.  */
#define BM3D_JPEG_LATTICE_MIN 20.0f

/* Lags either side and side of the autocovariance table.  */
#define BM3D_NOISE_LAG    7
#define BM3D_NOISE_SIDE   (2 * BM3D_NOISE_LAG + 1)
/* Planes and 2D transform coefficients per plane.  */
#define BM3D_NOISE_PLANES 3
#define BM3D_NOISE_COEFS  64

typedef struct
{
  int    channels;    /* 1: gray images, 3: colour (RGB) images            */
  float  autocov[BM3D_NOISE_PLANES][BM3D_NOISE_SIDE][BM3D_NOISE_SIDE];

  /* Derived by bm3d_noise_profile_update (); read-only for callers.  */
  float  var_hard[BM3D_NOISE_PLANES][BM3D_NOISE_COEFS];   /* bior1.5 */
  float  var_wiener[BM3D_NOISE_PLANES][BM3D_NOISE_COEFS]; /* DCT     */
  float  sigma[BM3D_NOISE_PLANES];  /* noise RMS of each plane: sqrt of
                                       autocov at lag 0                 */
  /* Share of each plane's noise power below 0.25 cycles per pixel
   * (|fx|, |fy| radially: sqrt (fx^2 + fy^2) < 0.25), from the power
   * spectrum the autocovariance gives; 0.196 for white noise.  */
  float  low_share[BM3D_NOISE_PLANES];
  /* The single sigma a white-noise filter of the RGB (or gray) image
   * should be given for this noise: the one bm3d_estimate_sigma ()
   * reports for photographs.  Equals s on white noise of deviation s.  */
  float  sigma_white;
  /* The noise level function, or all 0 (see above).  */
  float  nlf[BM3D_NOISE_PLANES][BM3D_NLF_BINS];
  /* Set by the estimate (has_fine non-zero): the finest scale's white
   * sigma of the image it read, which a call given this profile takes
   * for the photograph's gain instead of reading the image (a tile, a
   * strip) it is given: one reading for every tile of one photograph.
   * 0 in profiles read from files or made by hand: the call reads it.  */
  int    has_fine;
  float  sigma_fine;
  /* With has_fine: how sparse that finest scale is (the kurtosis of
   * its DCT coefficients per patch: 2.8 for Gaussian noise or grain,
   * higher for what a camera's noise reduction and JPEG leave).  */
  float  fine_kurtosis;
  /* With has_fine, for noise the profile reads well above that finest
   * scale, no camera's processed noise (else 0): the flattest 32x32
   * blocks' variance over the flattest 16x16 blocks' (1.1 to 1.5 for
   * noise, more for texture).  */
  float  block_scale_ratio;
  /* With has_fine, for that noise and for a camera's processed noise
   * (else 0): the flattest 32x32 blocks' variance over their own 16x16
   * quarters' (1.0 to 1.9 for noise, more for a bend of shading).  */
  float  block_quarter_ratio;
  /* With has_fine, likewise: the unoriented share of the flattest 32x32
   * blocks' gradient energy (about 0.7 to 0.84 for noise, less for
   * texture with a direction: edges, fibres, bends of shading).  */
  float  block_isotropy;
  /* With has_fine, for noise the profile reads above that finest scale,
   * no camera's processed noise (else 0): the flattest 16x16 blocks'
   * plane-residual variance of the luminance (0..255 squared), which
   * white noise of the finest scale's level predicts.  */
  float  block_small_variance;
  /* With has_fine, for a camera's processed noise (else 0): how sure it
   * is that the image was saved as JPEG, whose quantisation cleaned its
   * flattest blocks most (the Rayleigh z of jpeg_lattice.c: about 4 for
   * an image never saved as JPEG, 20 and more for a JPEG).  */
  float  jpeg_lattice;
  /* With has_fine, for noise whose profile has a level function and
   * whose flattest 16x16 blocks hold white noise of the finest scale's
   * level read through it (else 0): the finest scale's reading of the
   * image as it is, without the function, where those blocks are read
   * (gpu/noise/photo_noise.c, fine_as_is ()).  */
  float  sigma_fine_as_is;
} bm3d_noise_profile;

/* What params->noise selects.  */
typedef enum
{
  BM3D_NOISE_WHITE = 0,     /* white Gaussian noise of params->sigma      */
  BM3D_NOISE_PROFILE = 1    /* params->profile (camera noise)             */
} bm3d_noise_kind;

/* Strength range (params->strength, ->chroma_strength; 0 = 1).  */
#define BM3D_STRENGTH_MIN  0.25f
#define BM3D_STRENGTH_MAX  4.0f

typedef struct
{
  float               sigma;     /* noise standard deviation, 0..255 scale */
  bm3d_mode           mode;
  bm3d_backend        backend;
  int                 threads;   /* CPU threads; 0 = all cores            */
  bm3d_progress_func  progress;  /* may be NULL                           */
  void               *progress_data;
  int                 device;    /* CUDA device ordinal, 0 = the first    */
  /* One image over several CUDA devices: `n_devices` ordinals at
   * `devices` (BM3D_ALL_DEVICES: every device the process sees,
   * `devices` unused; 0, the default: `device` alone).  An image of at
   * least BM3D_SPLIT_MIN_PIXELS is cut into horizontal bands, one a
   * device, with the filter's margin around each; every device runs
   * its band as one device runs a whole image (its memory as bounded),
   * and the host stitches the bands' cores.  The result is the one
   * device's within the tiles' rounding (BM3D's aggregation order).  A
   * device that fails has its band redone on another device given, or,
   * under "auto", on the CPU when none is left, and report->message
   * says so.  A device may be listed twice (two bands on it: tests on
   * one GPU).  Not used by the CPU backend, nor for smaller images.  */
  const int          *devices;
  int                 n_devices;
  /* Non-zero when the noisy values were clipped to 0..255 after the
   * noise was added, as in any image stored in an integer format (8 or
   * 16 bits) or converted from one.  Mode nlm then removes the bias
   * clipping leaves near black and white (its mean is lifted towards
   * grey by up to 0.4 sigma).  bm3d_image_within_range () tells.  */
  int                 clipped;
  bm3d_bm3d_options     bm3d;    /* modes bm3d and bm3d-fast              */
  bm3d_nlm_options      nlm;
  bm3d_isoline_options  isoline;

  /* The noise model.  BM3D_NOISE_WHITE (the default) is `sigma` above.
   * BM3D_NOISE_PROFILE filters modes bm3d and bm3d-fast with the
   * profile's per-coefficient variances (sigma is then not used):
   * `profile` is the one to use (its channels must match the image's
   * colour channels), or NULL to have bm3d_denoise () estimate it from
   * `in` first, as bm3d_estimate_noise_profile () would.  Modes nlm and
   * isoline, which have no transform, filter white noise of the
   * profile's sigma_white (at most 30, as --sigma auto gives, times the
   * strength).  A photograph's processed noise (`in` shows
   * next to none at the finest scale and the profile is coarse: a third
   * and more of its luma power below 0.25 cycles/pixel) is filtered at
   * up to twice the measured level (at most 30; twice where its finest
   * scale is as sparse as JPEG leaves it), the luminance keeping its
   * profile's shape with every variance at least half the largest (with
   * no colour noise in the profile, less as that scale is less sparse),
   * the chrominances white: the estimate measures the flattest blocks,
   * which a camera's noise reduction cleaned most, and the noise grows
   * with the texture (gpu/noise/photo_noise.c, processed_sigma,
   * processed_floor_share; docs/camera-noise.md).
   * A profile with a noise level function is filtered in its
   * variance-stabilised domain (see "the noise model").  */
  bm3d_noise_kind               noise;
  const bm3d_noise_profile     *profile;
  /* Multipliers of the profile's noise deviations (variances by their
   * square), BM3D_STRENGTH_MIN..MAX, 0 taken as 1: `strength` for every
   * plane, `chroma_strength` on top of it for the chrominance planes.
   * Used with BM3D_NOISE_PROFILE only.  */
  float                         strength;
  float                         chroma_strength;

  /* Non-zero when `out` is scratch to the caller: nothing in it has to
   * survive a call that fails (a buffer made for the result, as the
   * command's).  The CUDA backend may then bring each tile's result
   * back while the next tile is filtered, rather than the whole result
   * after the last one, where no work hides the download (isoline, 12
   * MP RGB 8-bit, H100 machine: docs/user-wait.md); a cancelled or
   * failed call may leave `out` partly written.  0 (the default): `out`
   * is written only on success, but for images too large for the
   * device.  */
  int                           out_scratch;
} bm3d_params;

/* params->n_devices for every CUDA device the process sees.  */
#define BM3D_ALL_DEVICES  (-1)
/* Most entries of params->devices.  */
#define BM3D_MAX_DEVICES  16
/* The least pixels (width x height) of an image split over several
 * devices: from there one device takes longer (BM3D RGB, about 0.25 s
 * on an H100) than a second device's start-up (0.2-0.3 s), so even a
 * device not started yet pays, and the bands' margins (2 x 48 rows
 * each) are a few per cent of their rows.  Below it the split would
 * cost more than it saves.  */
#define BM3D_SPLIT_MIN_PIXELS  ((size_t) 32000000)

/* Why backend "auto" ran on the CPU (bm3d_report.fell_back), or part of
 * the work on another device.  */
#define BM3D_FALLBACK_NONE         0
#define BM3D_FALLBACK_UNAVAILABLE  1   /* no usable GPU, or no CUDA build   */
#define BM3D_FALLBACK_FAILED       2   /* CUDA started and failed: redone   */
#define BM3D_FALLBACK_DEVICE       3   /* of several devices, one failed: its
                                          band redone on another one (the
                                          backend stays CUDA)              */

/* What a call did, for messages and benchmarks.  */
typedef struct
{
  bm3d_backend  backend_used;     /* CPU or CUDA                            */
  int           fell_back;        /* auto ran on the CPU: one of below      */
  double        seconds_total;
  double        seconds_phase[2]; /* hard-threshold, Wiener (summed over
                                     the tiles, and the devices of a split
                                     image)                                */
  /* Part of seconds_total spent waiting for the CUDA device to start:
   * the context's creation, or what bm3d_backend_warm_up () had left of
   * it; 0 on the CPU backend and once the device is up.  */
  double        seconds_startup;
  size_t        peak_host_bytes;  /* engine allocations, high-water mark    */
  size_t        peak_device_bytes;
  /* The white-noise sigma the call followed: params->sigma, or with a
   * noise profile the one derived from it (all that modes nlm and
   * isoline filter).  */
  float         white_sigma;
  /* CUDA: the part of seconds_total the call spent waiting for copies
   * between host and device that no GPU work hid (the first tile's
   * upload, the result's download, pinning and unpinning the images).  */
  double        seconds_transfer;
  /* bm3d_estimate_sigma () and an estimated noise profile: the white
   * estimator's reading at the finest scale, and whether the noise read
   * as a photograph's processed noise (next to none at that scale, most
   * of its power coarse, in an image saved as JPEG), whose sigma comes
   * from its profile instead.
   * fine_kurtosis: how sparse that finest scale is (2.8 for Gaussian
   * noise or grain; what a camera's noise reduction and JPEG leave reads
   * higher, and only such noise is read as processed).  */
  float         sigma_fine;
  float         fine_kurtosis;
  int           processed_noise;
  /* Camera noise: the estimate found no block it could measure (the
   * photograph all clipped or flat), or found that its flattest blocks
   * hold texture, not noise (their fine scale is not in the flattest
   * patches); or the filter found the noise weak at the finest scale
   * (under 5) and either nearly white grain (the profile at most 2.5
   * times that, and under 5) or a profile of texture (its flattest 32x32 blocks
   * 2.5 times the flattest 16x16 ones); or a camera's processed noise
   * whose flattest 32x32 blocks read 4 times their own quarters (a soft
   * background's shading); or noise its profile reads above the finest
   * scale whose flattest 16x16 blocks hold less than twice what white
   * noise of that scale's reading gives them (white noise under
   * texture); the call then filtered white
   * noise of sigma_fine, the finest scale's reading, and says so in
   * `notice` (for texture whose profile holds colour noise, 0.3 of its
   * luma or more, the colour planes at the level measured, which the
   * notice adds).  */
  int           noise_unmeasured;
  char          notice[256];
  char          message[256];     /* error text, or the fall-back notice    */
} bm3d_report;

/* Fill `params` with the defaults: sigma 25, BM3D, automatic backend.  */
void         bm3d_params_init   (bm3d_params *params);

/* Denoise `in` into `out` (same size and channels; may not alias).  On
 * any error `out` is left untouched and, when `report` is non-NULL, its
 * message says what went wrong in one line.  One exception: on the CUDA
 * backend an image whose result does not fit the device's memory budget
 * (from about 30 megapixels RGB) is written into `out` tile by tile
 * while the next tile is filtered, so a cancelled or failed call leaves
 * `out` partly written (backend "auto" then redoes it all on the CPU).
 * The host then holds no copy of the image beyond `in` and `out`.  */
bm3d_status  bm3d_denoise       (const bm3d_image  *in,
                                 bm3d_image        *out,
                                 const bm3d_params *params,
                                 bm3d_report       *report);

/* ---- integer pixels ---------------------------------------------------
 *
 * Most photographs are 8 or 16 bits a channel.  Handing their values to
 * the engine as they are, rather than as floats, spares the caller a
 * float copy of the image and, on the CUDA backend, moves half (16-bit)
 * or a quarter (8-bit) of the bytes between host and device: the
 * conversions run on the device.  */
typedef enum
{
  BM3D_PIXELS_FLOAT = 0,    /* float, 0..255 scale, as bm3d_image          */
  BM3D_PIXELS_U8 = 1,       /* unsigned char, 0..255                       */
  BM3D_PIXELS_U16 = 2       /* unsigned short, 0..65535 (v / 257 on the
                               engine's 0..255 scale)                      */
} bm3d_pixel_type;

/* An interleaved image of `type` values, laid out as bm3d_image is:
 * `channels` values per pixel (1..4, the last one alpha when
 * `has_alpha`), `stride` values (not bytes) between the starts of two
 * rows.  */
typedef struct
{
  int              width;
  int              height;
  int              channels;
  int              has_alpha;
  size_t           stride;
  bm3d_pixel_type  type;
  void            *data;
} bm3d_pixels;

/* bm3d_denoise () for pixels of any bm3d_pixel_type.  `in` and `out`
 * have the same type (and size and channels).  Float pixels are
 * bm3d_denoise () itself.  Integer ones are denoised as the float image
 * of their values on the 0..255 scale (U8 v as v, U16 v as v / 257.0f)
 * would be, with params->clipped set whatever the caller gave (integer
 * values are within range: bm3d_image_within_range's rule), and the
 * result comes back clipped to 0..255 and rounded half up to the type
 * (U8 floor (f + 0.5), U16 floor (f * 257 + 0.5), exactly, NaN to 0:
 * what bm3d-denoise writes to 8- and 16-bit files); alpha is copied
 * bit-exact.  The result is bit for bit the one the
 * caller would get by converting so around bm3d_denoise () on the same
 * backend.  Cancelling, failing, falling back, estimating the noise and
 * the report are bm3d_denoise ()'s: on any error `out` is untouched,
 * but for the CUDA backend's streamed images (params->out_scratch).  */
bm3d_status  bm3d_denoise_pixels (const bm3d_pixels *in,
                                  bm3d_pixels       *out,
                                  const bm3d_params *params,
                                  bm3d_report       *report);

/* Bytes one value of `type` takes (0 for a type that is none).  */
size_t       bm3d_pixel_size     (bm3d_pixel_type type);

/* 1 when every colour value of `img` (alpha aside) lies within 0..255,
 * the rule bm3d-denoise and the plug-in set params->clipped by: integer
 * data always does, and noise that was never clipped leaves the range
 * somewhere, unless it never came near its ends, where the correction
 * changes nothing.  Judge the whole image, not a part: a part may stay
 * inside the range where the rest does not.  */
int          bm3d_image_within_range (const bm3d_image *img);

/* Estimate the sigma (0..255 scale) a white-noise filter should be
 * given for the noise in `in` (alpha is ignored).  For additive white
 * Gaussian noise that is its standard deviation, read on the luminance
 * the engine matches on.  A photograph's processed noise (demosaiced,
 * cleaned by the camera, JPEG: next to none at the finest scale, and
 * coarse) gets the white sigma that suits it, from its noise profile
 * (report->processed_noise; report->sigma_fine keeps the finest
 * scale's reading); a clean photograph's texture may read as such noise
 * too.  Reads a bounded sample of the image on the host, so it uses
 * params->threads and ->progress only.  A constant image gives 0; an
 * image under 8x8 pixels is refused (BM3D_ERR_INVALID_SIZE).  On
 * success *sigma holds the estimate, else it is left untouched.  */
bm3d_status  bm3d_estimate_sigma (const bm3d_image  *in,
                                  const bm3d_params *params,
                                  float             *sigma,
                                  bm3d_report       *report);

/* ---- noise profiles --------------------------------------------------- */

/* The profile of white noise of deviation `sigma` (> 0) for images of
 * `channels` colour channels (1 or 3), as the engine's white model sees
 * it in its planes (deviation sigma times bm3d_colour_noise_gain).
 * Derived fields filled.  */
void         bm3d_noise_profile_init_white (bm3d_noise_profile *profile,
                                            int channels, float sigma);

/* Check `profile->channels` and ->autocov and fill the derived fields.
 * The table is made exactly symmetric first.  Refuses
 * (BM3D_ERR_INVALID_ARGUMENT, a one-line reason in `error` when not
 * NULL) a table with a value that is not finite, a lag-0 variance
 * outside (0, 255^2], or one no noise can have (a transform
 * coefficient's variance <= 0).  */
bm3d_status  bm3d_noise_profile_update (bm3d_noise_profile *profile,
                                        char *error, size_t error_len);

/* Estimate the noise profile of `in` (gray or RGB, alpha ignored) from
 * its low-texture regions, blind: robust to texture, edges and values
 * clipped at 0 or 255.  Reads a bounded sample of the image on the
 * host (params->threads and ->progress); its blocks' statistics are
 * computed on the GPU unless params->backend is the CPU or no device is
 * usable, the same values either way (report->backend_used says
 * which), in a small share of a BM3D run's time.  An image under 32x32 pixels is
 * refused (BM3D_ERR_INVALID_SIZE); a constant one gives a profile of
 * tiny white noise.  On success `*profile` is filled (derived fields
 * too), else left untouched.  */
bm3d_status  bm3d_estimate_noise_profile (const bm3d_image   *in,
                                          const bm3d_params  *params,
                                          bm3d_noise_profile *profile,
                                          bm3d_report        *report);

/* The profile as a small text file (format in gpu/noise/noise_profile.c and
 * the README): "bm3d-noise-profile 1", the channels, then each plane's
 * autocovariance as 15 rows of 15 numbers; '#' starts a comment.
 * bm3d_noise_profile_format () writes it into `text` (returns the
 * length it needs, as snprintf does); _parse () reads it.  _save ()
 * writes a file whole or not at all (a temporary file renamed), _load ()
 * reads one.  Parse and load leave `profile` untouched unless they
 * succeed, and refuse anything malformed or unreadable, and _save ()
 * anything it cannot write, with BM3D_ERR_INVALID_ARGUMENT and a
 * one-line reason in `error` (with the line number for a format
 * error).  */
size_t       bm3d_noise_profile_format (const bm3d_noise_profile *profile,
                                        char *text, size_t text_len);
bm3d_status  bm3d_noise_profile_parse  (bm3d_noise_profile *profile,
                                        const char *text,
                                        char *error, size_t error_len);
bm3d_status  bm3d_noise_profile_save   (const bm3d_noise_profile *profile,
                                        const char *path,
                                        char *error, size_t error_len);
bm3d_status  bm3d_noise_profile_load   (bm3d_noise_profile *profile,
                                        const char *path,
                                        char *error, size_t error_len);

/* The noise levels to show a user (status line, --verbose): the
 * luminance's and the chrominance's (the RMS of the two planes) noise
 * deviations, each divided by the gain white RGB noise has in that
 * plane, so both read as the sigma of white RGB noise with as much
 * noise there (0..255 scale).  A gray profile gives its plane's
 * deviation as luma and 0 as chroma.  */
void         bm3d_noise_profile_levels (const bm3d_noise_profile *profile,
                                        float *luma, float *chroma);

/* Names of the noise kinds for the command line: "white", "camera"
 * (BM3D_NOISE_PROFILE).  The parse function returns -1 for an unknown
 * name.  */
const char  *bm3d_noise_name  (bm3d_noise_kind noise);
int          bm3d_noise_parse (const char *name);

/* The context a call needs around an area to denoise it as it would be
 * denoised inside a larger image: `*margin` pixels on each side (the
 * overlap the engine gives its own tiles for this mode, sigma and
 * options), and an `*align` that the context's origin must keep, in
 * the larger image's coordinates, so that BM3D's grid of reference
 * patches falls where it falls there.  A preview reads its area plus
 * this context and matches the final run to within rounding.  Returns
 * BM3D_OK, or the error bm3d_denoise () would give for these
 * parameters (with a message in `report` when non-NULL).
 * `colour_channels` is 1 for gray or 3 for RGB, alpha not counted: some
 * modes' defaults differ between the two.  */
bm3d_status  bm3d_context_margin (const bm3d_params *params,
                                  int                colour_channels,
                                  int               *margin,
                                  int               *align,
                                  bm3d_report       *report);

/* A short, fixed English description of a status.  */
const char  *bm3d_status_string (bm3d_status status);

/* Names used by the command line and messages ("bm3d", "cuda", ...).
 * The parse functions return -1 for an unknown name.  */
const char  *bm3d_mode_name     (bm3d_mode mode);
const char  *bm3d_backend_name  (bm3d_backend backend);
int          bm3d_mode_parse    (const char *name);
int          bm3d_backend_parse (const char *name);
const char  *bm3d_isoline_variant_name  (bm3d_isoline_variant variant);
int          bm3d_isoline_variant_parse (const char *name);

/* Non-zero when the CUDA backend was built in and a usable device
 * exists.  When it returns 0 and `why` is non-NULL, a one-line reason is
 * written there.  Cheap after the first call.  */
int          bm3d_cuda_available (char *why, size_t why_len);

/* Start the backend `params` may run on (CUDA under "auto" and "cuda",
 * device params->device, then, one after the other, the others of
 * params->devices (n_devices): set those only for an image the engine
 * splits, as a process that exits waits for the contexts being created;
 * NULL means "auto" on device 0) on a thread of its own and return at
 * once, so that creating the CUDA context (about
 * 0.2 s) overlaps the caller's own work, reading the image say.  The
 * first call that needs the device waits for what is left
 * (bm3d_report.seconds_startup).  Only the first call in a process
 * starts anything; a no-op for the CPU backend and in a build without
 * CUDA.  Never calling it is fine too: the first engine call then
 * starts the device itself.  A process that exits while the thread is
 * still at work waits for it first.  */
void         bm3d_backend_warm_up (const bm3d_params *params);

/* The backend "auto" should take for a job whose shape is known before
 * anything is started: `images` images of width x height with
 * `channels` colour channels (1 or 3; alpha is not filtered) under
 * `params` (its mode, expert settings, noise model and threads).
 *
 * Creating a CUDA context costs a process 0.2-0.33 s; one small photo
 * is done sooner on the host's cores.  Returns BM3D_BACKEND_CPU when
 * params->backend is "cpu", when the build has no CUDA backend, or
 * when params->backend is "auto", there is exactly one image and the
 * CPU's estimated time is below the device's start-up estimate;
 * otherwise BM3D_BACKEND_CUDA, meaning: start the device (a batch
 * keeps it for all its images, and "auto" still falls back to the CPU
 * when no device turns out to be usable).  The estimate is cost per
 * pixel and channel per thread, measured per mode, times the size,
 * divided by the threads the CPU backend would use (params->threads,
 * 0 = every core); its constants err towards the device
 * (gpu/core/backend_choice.c).
 * The environment variable BM3D_CUDA_STARTUP_SECONDS, a number >= 0,
 * replaces the start-up estimate (docs/environment.md lists every
 * switch).
 *
 * Cheap, and starts nothing: it does not ask the driver whether a
 * device exists (that is part of the cost being avoided).  Writes the
 * estimates, in seconds, where the pointers are not NULL: the CPU's,
 * and the device's start-up (0 in a build without CUDA, where there is
 * nothing to start).  */
bm3d_backend bm3d_backend_for_job (const bm3d_params *params,
                                   int width, int height, int channels,
                                   int images, double *cpu_seconds,
                                   double *startup_seconds);

/* CUDA devices this process can use (0 without CUDA), and the name of
 * device `device` ("NVIDIA H100 80GB HBM3").  The name function returns
 * 0 and writes the reason when that device is not usable.  */
int          bm3d_cuda_device_count (void);
int          bm3d_cuda_device_name  (int device, char *name, size_t name_len);

/* Sigma range accepted by bm3d_denoise ().  */
#define BM3D_SIGMA_MIN_EXCLUSIVE  0.0f
#define BM3D_SIGMA_MAX            255.0f

#ifdef __cplusplus
}
#endif

#endif /* BM3D_H */
