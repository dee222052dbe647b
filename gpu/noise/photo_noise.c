/* BM3D Denoise: a photograph's processed noise.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Which noise a photograph has (white, or the processed noise of a
 * camera, whose profile needs a gain), the white sigma that suits it,
 * and the per-coefficient tables BM3D reads for a profile.  The
 * dispatcher (core/engine.c) calls these for camera mode and for
 * bm3d_estimate_sigma (); the estimators themselves are
 * noise_estimate.c (white) and noise_profile_estimate.c (profiles).  */
#include "config.h"

#include "noise/noise.h"
#include "noise/noise_vst.h"
#include "bm3d/bm3d_tables.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* White noise has a fifth of its power below 0.25 cycles/pixel, a
 * photograph's noise two thirds and more.  */
#define PHOTO_LOW_SHARE 0.35f
/* A camera's noise reduction and JPEG leave a photograph almost no
 * noise at the finest scale (0.2 to 0.9 where its noise wants a sigma
 * of 10 to 25); white noise of any use keeps its sigma there.  */
#define PHOTO_FINE_MAX  1.5f
/* PHOTO_SIGMA_MAX, the most a photograph's white sigma can be, is in
 * noise.h: job_noise () caps the fast modes' sigma with it too.  */
/* A photograph's processed noise (bm3d_photo_gain ()).  The estimate
 * measures the flattest blocks, which a camera's noise reduction and
 * JPEG cleaned most: over the whole frame the noise is larger, rising
 * with the local texture (docs/camera-noise.md).  The level BM3D is
 * given is the measured one times PHOTO_GAIN (at most: the gain follows
 * the finest scale's sparsity, below), a ratio fitted on a
 * quarter of the shared PolyU photographs and checked on the rest and
 * on the synthetic phone set (docs/camera-noise.md): it scales with
 * the measurement, pulling no photograph towards a typical level.  */
#define PHOTO_GAIN      2.0f
/* How much JPEG and a noise reduction cleaned the flattest blocks is
 * read in their finest scale: what they leave there is sparse, most
 * coefficients rounded to 0 (its kurtosis, FINE_SPARSE_MIN below),
 * and the sparser, the more of the noise the flattest blocks lost.
 * Noise as Gaussian there as a sensor left it (FINE_SPARSE_MIN) lost
 * none: the profile reads it as it is, and the gain is 1, as for noise
 * no processing touched; from there it rises with the kurtosis to
 * PHOTO_GAIN at PHOTO_SPARSE_FULL and more, so that it no longer
 * jumps from 1 to 2 at FINE_SPARSE_MIN.  A camera JPEG's noise reads
 * 3.6 to 6.9 there, and 28 where JPEG rounded nearly all of it (the
 * shared PolyU photographs); a clean photograph saved as JPEG, whose
 * flattest blocks hold texture that JPEG kept, 3.4 to 4.1 (Kodak24 at
 * quality 92, kodim18 4.85).  Fitted on the quarter of the shared PolyU
 * photographs PHOTO_GAIN was fitted on (4.5, 5.5, 7, 9 tried, with
 * processed_sigma ()'s colour test); shown on
 * the other 37, Kodak24 saved as JPEG and probes of a phone's
 * processing (docs/camera-noise.md, "The gain follows the finest
 * scale's sparsity, texture held under the cap").  */
#define PHOTO_SPARSE_FULL 5.5f

/* A photograph's processed noise: the luminance keeps its profile's
 * shape, each coefficient's variance at least PROCESSED_FLOOR times the
 * largest; the chrominances get white noise's, at the luminance's
 * white level.  Measured on the shared real photographs
 * (docs/camera-noise.md): the profile of the flattest blocks, where
 * the camera's noise reduction and JPEG left least, underrates the
 * noise of textured areas at the higher frequencies, and its chroma
 * levels (JPEG flattens the chroma of flat areas to its rounding) far
 * more: 0.5 dB of the blind result's 0.6 dB gap to the best single
 * sigma.  Like the gain, the floor makes up for what the processing
 * took, and where the profile holds no colour noise (which a sensor's
 * noise keeps: processed_sigma ()) it follows the same reading of it:
 * none at FINE_SPARSE_MIN, PROCESSED_FLOOR at PHOTO_SPARSE_FULL and
 * more, linear between.  On a clean photograph saved as JPEG, whose
 * flattest blocks hold the luminance's texture (kurtosis 3.4 to 4.1,
 * above), the whole floor turned the texture's profile, steep towards
 * its lowest frequencies, into one near white, and its finer detail
 * was filtered as noise everywhere (Kodak24's kodim15 at JPEG 92:
 * 36.74 dB against the JPEG, 44.26 with the floor following the
 * sparsity).  The ramp's end was tried at 4.5, 5.0, 5.5 and 7 on the
 * quarter of the shared PolyU photographs the gain was fitted on
 * (38.564, 38.574, 38.572, 38.548 dB, the whole floor 38.562): the
 * gain's own end serves, and no constant is added; shown on the other
 * 37 and on clean photographs saved as JPEG at four qualities
 * (docs/camera-noise.md, "The luminance's floor follows the finest
 * scale's sparsity").  */
#define PROCESSED_FLOOR   0.5f

/* Texture taken for noise.  The profile is measured in the flattest
 * 32x32 blocks; the finest scale's reading (noise_estimate.c) in the
 * flattest 8x8 patches, on the high frequencies of their DCT (u + v >= 8),
 * as the fifth smallest of those 28 variances.  Stationary noise, white
 * or correlated, shows there what its profile predicts for the same
 * statistic: the profile's own DCT variances (var_wiener) give that
 * prediction exactly, lags to 7 covering an 8x8 patch.  When the
 * profile predicts TEXTURE_RATIO times what the finest scale measures
 * and TEXTURE_EXCESS more (0..255, luminance plane), the flattest
 * blocks held texture that no patch of the photograph's flattest parts
 * shows: the noise is the finest scale's.  Measured (docs/camera-noise.md):
 * the shared PolyU photographs, noisy and their clean means, excess at
 * most 0.45; the synthetic phone set, ratio at most 1.7; clean Kodak
 * and Set12 photographs whose texture reads as noise, ratio 2.2 to 6
 * and excess 1.1 to 4.5.  */
#define TEXTURE_RATIO   2.0f
#define TEXTURE_EXCESS  0.75f

/* Grain, not a camera's processing.  What a camera's noise reduction
 * and JPEG leave at the finest scale is not only weak but sparse: most
 * of a flat patch's high-frequency DCT coefficients rounded to 0, a few
 * kept (the band's kurtosis per patch, noise_estimate.c: 3.6 to 28 on
 * the 50 shared PolyU photographs).  Film grain, a scanner's noise and
 * a sensor's noise that no processing touched are Gaussian there (2.8
 * expected; 2.73 to 3.17 on Kodak24's scans).  A weak finest scale that
 * is Gaussian is that grain, measured as it is: the image is no
 * photograph's processed noise, whose flattest blocks would need the
 * gain.  FINE_SPARSE_MIN sits between Kodak24 (largest 3.17) and every
 * other PolyU photograph (smallest 3.58), where it was fitted; shown on
 * Set12, tests/data and the other PolyU photographs
 * (docs/camera-noise.md).  */
#define FINE_SPARSE_MIN 3.4f

/* Weak grain.  Under a weak Gaussian finest scale (not a camera's
 * processed noise, above) the profile's flattest blocks read more than
 * that scale: 1.3 to 8.3 times on Kodak24's film scans, whose grain
 * reads 1.0 to 3.1 there.  At such a level the excess, the grain's own
 * colour and the texture of the flattest blocks, cannot be told apart,
 * and filtering a scan at its profile costs it detail: three of them
 * fall to 43 to 45 dB against themselves, 45.6 to 48.8 at the finest
 * scale's reading.  So noise weak at the finest scale (under
 * WEAK_FINE_MAX), nearly white there (its profile at most GRAIN_RATIO
 * times that reading) and weak in its profile too (under GRAIN_MAX) is
 * filtered as white noise of the finest scale's reading: strength 1
 * removes what is measured as noise, and the grain's coarser part stays
 * the photograph's own.  Coarse noise, as demosaicing or an enlargement
 * leaves it, keeps its profile however weak its finest scale: blurred
 * noise on the test photographs reads 3.2 to 6.9 times it.  A phone's
 * noise in better light is nearly white too (the synthetic phone set's
 * noise at a quarter of its level: 1.9 to 2.6 times) but reads 5.06
 * and more in its profile, where Kodak24's grain reads 1.8 to 4.3 (and
 * kodim18 5.35).  WEAK_FINE_MAX sits between Kodak24's grain (finest
 * scale 3.1 at most) and the synthetic phone set (8.9 at least);
 * GRAIN_RATIO between the Kodak24 scans it takes (1.26 to 2.46) and
 * that blurred noise; GRAIN_MAX between Kodak24's grain and the phone
 * set's quartered noise: fitted there, shown on Set12 and tests/data
 * (docs/camera-noise.md, "Weak grain").  */
#define WEAK_FINE_MAX   5.0f
#define GRAIN_RATIO     2.5f
#define GRAIN_MAX       5.0f

/* Texture at the profile's scale.  Noise (no camera's processed
 * noise, weak or strong) whose profile reads more than GRAIN_RATIO
 * times its finest scale is coarse noise, or the flattest 32x32 blocks
 * held texture.  Noise is the same at every
 * block size, texture grows with it (block_scales.c): when the flattest
 * 32x32 blocks read BLOCK_TEXTURE_RATIO times the flattest 16x16 ones,
 * the profile is texture, and the photograph is filtered as white noise
 * of its finest scale's reading, as misses_fine_scale () has it.  Noise
 * reads 1.2 to 1.85 (blurred noise on the test photographs, sigma 4 to
 * 48 before the blur), 1.1 to 2.14 on the synthetic phone set; the
 * clean Kodak24 photographs whose profile is texture 3.3 (kodim14) and
 * 5.0 (kodim01).  Fitted between the two; shown on Set12 and tests/data
 * (docs/camera-noise.md, "Weak grain").  */
#define BLOCK_TEXTURE_RATIO 2.5f

/* Shading in a camera's processed noise.  A camera's processed noise is
 * read in the flattest 32x32 blocks, with the processed-noise gain; on
 * a clean photograph whose flattest blocks are a soft background, such
 * as an out-of-focus one, those blocks hold the background's bends of
 * shading, which a plane does not take.  The blocks' own quarters, each
 * less its own plane, take most of a bend and little of noise, as the
 * noise inside one block is one level (block_scales.c): the flattest
 * blocks read 1.0 to 1.9 times their quarters on the noise of 49 of
 * PolyU's 50 noisy photographs (3.59 on reciever_1, where they hold
 * some shading too), the synthetic phone set (at most 1.16) and blurred
 * noise (1.64), and 4.53 on tests/data/chelsea.png, whose fur's finest
 * scale is as sparse as a camera's.  At QUARTER_TEXTURE_RATIO or more
 * the profile is the shading's, and processed noise gives way to white
 * noise of the finest scale's reading, as texture does.  Set between
 * those two photographs, the only ones near it; no photograph of
 * Kodak24, Set12, PolyU's 50 clean means or Kodak24 saved as JPEG
 * reads above 3.3 (docs/camera-noise.md, "Shading in the flattest
 * blocks").  */
#define QUARTER_TEXTURE_RATIO 4.0f

/* Texture with a direction in the flattest blocks.  Noise has
 * none: in the flattest blocks the smaller eigenvalue of its gradients'
 * local structure tensor holds NOISE_ISOTROPY of their mean or more
 * (block_scales.c: 0.84 for white noise, 0.71 for noise blurred by a
 * Gaussian of deviation 1.5, coarser than a camera's processed noise
 * reads).  What the flattest blocks hold beyond that is oriented:
 * edges, fibres, the bends of a soft background, which camera mode
 * would smooth as noise.  Where those blocks are read (a camera's
 * processed noise, and weak noise whose profile reads well above its
 * finest scale: needs_block_scales ()), the level is scaled by the
 * square root of the share measured over NOISE_ISOTROPY (at most 1:
 * noise is never raised), down to ISOTROPY_SCALE_MIN.  Strong noise
 * is read only when its profile reads well above its finest scale:
 * elsewhere texture is a small part of its flattest blocks.  The
 * constant is the blurred noise's, not fitted on photographs; what it
 * does on them is in docs/camera-noise.md ("Oriented texture").  */
#define NOISE_ISOTROPY      0.70f
#define ISOTROPY_SCALE_MIN  0.5f

/* Noise whose finest scale a noise reduction took.  A phone's (or a
 * camera's) noise reduction is adaptive: it smooths the flattest 8x8
 * patches, where the finest scale is read, more than the flattest
 * 32x32 blocks, where the profile is, so its noise can miss the finest
 * scale as texture does (TEXTURE_RATIO above: ratio 2.0 to 3.5 on the
 * synthetic phone set given a phone's luma noise reduction, whose dark
 * shots the texture verdict left 1 to 2.4 dB short of the best white
 * sigma).  Three readings tell that noise from texture, each of a
 * different kind: what the noise reduction left at the finest scale is
 * sparse (kurtosis FINE_SPARSE_MIN or more, as a camera's processing
 * leaves it; film grain and sensor noise read 2.8 to 3.2), the
 * flattest blocks read alike at two block sizes (under
 * BLOCK_TEXTURE_RATIO: noise is stationary, texture grows), and they
 * hold colour noise: a sensor's noise is born independent at each
 * photosite, so even after a phone's chroma smoothing its chroma level
 * is NOISE_CHROMA_SHARE of its luma level or more, where the texture of
 * a clean photograph's flattest blocks is shading and grain of the
 * luminance.  NOISE_CHROMA_SHARE sits between Kodak24's clean photos
 * and their JPEGs (0.19 at most among those the texture verdict takes)
 * and the phone set given a phone's luma noise reduction (0.53 and
 * more), where it was set; shown on the same photos given a stronger
 * chroma smoothing too (0.31 and more), Set12 and tests/data and their
 * JPEGs (0.24 at most) and the shared phone set (kodim13's texture,
 * 0.26, kept as texture) (docs/camera-noise.md, "Noise a phone's noise
 * reduction left").  Gray images have no chroma: their verdict stays
 * texture.  */
#define NOISE_CHROMA_SHARE  0.3f

/* A profile made of the finest scale's reading (white noise of it, or
 * its luminance beside colour noise as measured: texture_only ()) and
 * given back reads that scale again, within its float's rounding: no
 * more than it.  */
#define FINE_ROUNDING       1.0001f

/* White noise under texture.  Noise is in every flat block, texture
 * only in some: the flattest 16x16 blocks find the flat spots between
 * the texture that the flattest 32x32 blocks, where the profile is
 * measured, do not.  White noise of the finest scale's reading s gives
 * those blocks a plane-residual variance of FLAT_SMALL_WHITE s^2 (the
 * flattest twentieth of blocks whose variance has 253 degrees of
 * freedom: 1 - 2.0627 sqrt (2 / 253), as noise_profile_estimate.c's
 * seed); noise coarser than its finest scale (a sensor's noise through
 * demosaicing, a phone's, noise made larger) gives them its power at
 * the coarser scales too, several times that.  When they hold less
 * than FLAT_WHITE_RATIO times white noise of the finest scale's
 * reading, the noise is that white noise, and what the profile reads
 * beyond it is the texture of the flattest 32x32 blocks: the photograph
 * is filtered as white noise of that reading.  Measured
 * (docs/camera-noise.md, "White noise under texture"): Kodak24 given
 * white noise of sigma 10 reads 0.71 to 1.51 (kodim05 3.0 and kodim13
 * 4.6, whose flattest 16x16 blocks hold texture too), the synthetic
 * phone set 2.36 to 6.5, noise blurred by [1 2 1]^2 3.8 and more.
 * Fitted between Kodak24 and the phone set at sigma 10; shown on
 * Kodak24 at sigma 25, Set12 and tests/data.  The flattest blocks are
 * read on the photograph as it is, at their own brightness; where the
 * profile has a level function, the finest scale's reading it is
 * compared with is made on the photograph as it is too (fine_as_is ()),
 * not through the function, whose stabilised domain holds the noise of
 * every brightness at one average level: a dim shot's noise, strong in
 * its shadows, read 1.6 to 1.7 times that level's white noise in
 * flattest blocks that were bright, and 2.2 to 2.5 times their own
 * brightness's (docs/camera-noise.md, "White noise under a level
 * function").  */
#define FLAT_SMALL_WHITE    0.817f
#define FLAT_WHITE_RATIO    2.0f

/* White noise where no flat block can be read.  Strong noise clips in
 * a bright or dark photograph's flat parts, and where fewer than 20 of
 * the 32x32 blocks are unclipped enough to read (block_scales.c) the
 * flattest 16x16 blocks cannot tell white noise under texture
 * (FLAT_WHITE_RATIO above).  For noise of one level (no level
 * function) the profile's own level then does: a sensor's noise through
 * demosaicing reads 1.82 to 2.34 times its finest scale (the synthetic
 * phone set), white noise under the texture of the flattest 32x32
 * blocks 0.99 to 1.63 at sigma 25 and 50 (Kodak24, Set12; Kodak24's
 * kodim13 the most).  Strong noise, Gaussian at its finest scale,
 * whose profile reads under NEAR_WHITE_RATIO times that scale there is
 * white noise of that scale's reading.  Noise that follows brightness
 * is left to its level function: read through it, the dark clipped
 * test photograph's noise reads 1.45 times its finest scale, and white
 * noise of that reading would cost it 4.3 dB.  Set between the two
 * sets; what it changes is in docs/camera-noise.md ("White noise where
 * no flat block can be read").  */
#define NEAR_WHITE_RATIO    1.7f

/* Texture everywhere under strong noise.  Where even the flattest
 * 16x16 blocks hold texture (foliage, water, gravel), no block tells
 * noise from texture, and the profile reads both.  What noise can be
 * bounds it instead.  A sensor's noise is born white at each
 * photosite; demosaicing spreads it over two or three pixels, and its
 * profile then reads 1.8 to 2.3 times its finest scale (the synthetic
 * phone set), Gaussian there (kurtosis under FINE_SPARSE_MIN), with a
 * plateau below its demosaicing's cut: the profile's lowest
 * frequencies (8x8 DCT, u + v of 1 and 2) hold 1.05 to 2.15 times its
 * middle ones (u + v of 3 to 5) on that set, the most on its
 * photographs of texture (kodim17, kodim13 and kodim05 dim: 1.84 to
 * 2.15).  Texture's power rises towards the lowest frequencies, and
 * white noise holds the same at all: white noise under texture
 * everywhere reads 2.29 to 4.47 there (Kodak24's kodim13 at sigma 10
 * and 15, kodim05 at 15, Set12's 04 at 10).  Noise spread
 * further keeps its Gaussian finest scale only when it is weak there
 * (blurred noise: finest scale 1.5 to 2.9, WEAK_FINE_MAX above, where
 * the block sizes decide); an enlargement's, a camera's processing's
 * and JPEG's finest scale is sparse (a photograph enlarged 1.3 and 2
 * times, bicubic: kurtosis 4.1 to 6.5).  So noise strong and Gaussian
 * at its finest scale whose profile reads coarser than a sensor's noise
 * is, more than GRAIN_RATIO times that scale or its lowest frequencies
 * LOW_BAND_TEXTURE times its middle ones, holds texture in its profile,
 * and the photograph is filtered as white noise of the finest scale's
 * reading.  LOW_BAND_TEXTURE was set between the phone set (2.15 at
 * most) and Kodak24's texture (2.29 at least); shown on Set12 at
 * sigma 10 and 25, tests/data, PolyU's clean means given white noise of
 * sigma 10 and 25, Kodak24 at sigma 50 and the probes of a phone's
 * noise reduction (docs/camera-noise.md, "Texture everywhere").  */
#define LOW_BAND_TEXTURE 2.2f

/* The fifth smallest of the luminance plane's high-frequency DCT
 * variances (u + v >= 8) that `profile` predicts, as a deviation.  */
static float
profile_fine_luma (const bm3d_noise_profile *profile)
{
  float v[28], t;
  int n = 0;

  for (int u = 0; u < 8; u++)
    for (int w = 8 - u; w < 8; w++)
      v[n++] = profile->var_wiener[0][u * 8 + w];
  /* Five passes of selection: the five smallest in front.  */
  for (int i = 0; i < 5; i++)
    for (int j = i + 1; j < n; j++)
      if (v[j] < v[i])
        {
          t = v[i];
          v[i] = v[j];
          v[j] = t;
        }
  return sqrtf (v[4] > 0.0f ? v[4] : 0.0f);
}

/* The finest scale's reading `fine` (white RGB sigma, or gray) as the
 * deviation of `profile`'s luminance plane.  */
static float
fine_luma (const bm3d_noise_profile *profile, float fine)
{
  return fine * (profile->channels == 3 ? bm3d_colour_noise_gain[0] : 1.0f);
}

/* Does `profile`, measured on an image whose finest scale reads `fine`
 * (white RGB sigma, or gray), predict more at that scale than it shows
 * (TEXTURE_RATIO, TEXTURE_EXCESS): texture, or a noise reduction's
 * work (is_reduced_noise ())?  */
static int
misses_fine_scale (const bm3d_noise_profile *profile, float fine)
{
  float measured = fine_luma (profile, fine);
  float predicted = profile_fine_luma (profile);

  return predicted > TEXTURE_RATIO * measured
         && predicted > measured + TEXTURE_EXCESS;
}

/* Does `profile` hold colour noise: chroma of NOISE_CHROMA_SHARE of
 * its luma or more (a gray profile holds none)?  */
static int
holds_colour_noise (const bm3d_noise_profile *profile)
{
  float luma, chroma;

  if (profile->channels != 3)
    return 0;
  bm3d_noise_profile_levels (profile, &luma, &chroma);
  return chroma >= NOISE_CHROMA_SHARE * luma;
}

/* Is `profile`, whose finest scale's band has kurtosis `kurtosis` and
 * whose flattest blocks read `m`, noise that a noise reduction took
 * from the finest scale (NOISE_CHROMA_SHARE above) rather than
 * texture?  */
static int
is_reduced_noise (const bm3d_noise_profile *profile, float kurtosis,
                  const bm3d_flat_blocks *m)
{
  return kurtosis >= FINE_SPARSE_MIN
         && m->across > 0.0f && m->across < BLOCK_TEXTURE_RATIO
         && holds_colour_noise (profile);
}

/* The share of a noise level kept for flattest blocks whose
 * unoriented share is `isotropy` (0: not measured, all kept).  */
static float
unoriented_scale (float isotropy)
{
  float r = isotropy / NOISE_ISOTROPY;

  if (!(isotropy > 0.0f) || r >= 1.0f)
    return 1.0f;
  return fmaxf (sqrtf (r), ISOTROPY_SCALE_MIN);
}

/* How much of processed noise whose finest scale's band has kurtosis
 * `kurtosis` the processing took, as a share: 0 at FINE_SPARSE_MIN,
 * 1 at PHOTO_SPARSE_FULL and more, linear between.  */
static float
sparse_share (float kurtosis)
{
  float t = (kurtosis - FINE_SPARSE_MIN)
            / (PHOTO_SPARSE_FULL - FINE_SPARSE_MIN);

  return fminf (fmaxf (t, 0.0f), 1.0f);
}

/* The gain for processed noise whose finest scale's band has kurtosis
 * `kurtosis` (PHOTO_SPARSE_FULL above): 1 at FINE_SPARSE_MIN, PHOTO_GAIN
 * at PHOTO_SPARSE_FULL and more, linear between.  */
static float
processed_gain (float kurtosis)
{
  return 1.0f + (PHOTO_GAIN - 1.0f) * sparse_share (kurtosis);
}

/* The white RGB sigma BM3D is given for processed noise of `profile`,
 * whose finest scale has kurtosis `kurtosis`, in flattest blocks whose
 * unoriented share is `isotropy`.  A measured level (sigma_white) over
 * what the flattest blocks of fully processed noise hold under the cap
 * (PHOTO_SIGMA_MAX / PHOTO_GAIN) is strong noise, or texture those
 * blocks hold; the colour tells them apart.  A sensor's noise is born
 * in colour, and strong noise keeps colour noise after a phone's chroma
 * smoothing (NOISE_CHROMA_SHARE): its level goes to the gain whole, up
 * to the cap.  Without it the excess is the luminance's texture (fur,
 * the detail a clean photograph's JPEG kept): the level is held at that
 * share of the cap first, and the gain, which follows the finest
 * scale's sparsity, scales what is held.  The oriented share is taken
 * from the result.  */
static float
processed_sigma (const bm3d_noise_profile *profile, float kurtosis,
                 float isotropy)
{
  float measured = profile->sigma_white;
  float s;

  if (! holds_colour_noise (profile))
    measured = fminf (measured, PHOTO_SIGMA_MAX / PHOTO_GAIN);
  s = processed_gain (kurtosis) * measured;
  return fminf (s, PHOTO_SIGMA_MAX) * unoriented_scale (isotropy);
}

/* The luminance's floor for processed noise of `profile`, whose
 * finest scale's band has kurtosis `kurtosis` (PROCESSED_FLOOR above):
 * whole for colour noise, which a sensor's is (processed_sigma ()),
 * else following the finest scale's sparsity.  */
static float
processed_floor_share (const bm3d_noise_profile *profile, float kurtosis)
{
  if (holds_colour_noise (profile))
    return PROCESSED_FLOOR;
  return PROCESSED_FLOOR * sparse_share (kurtosis);
}

/* Is noise of profile `profile`, whose finest scale measures `fine`
 * (the white estimator's sigma) with kurtosis `kurtosis`, a
 * photograph's processed noise: next to none at the finest scale, and
 * what is left there sparse (a camera's noise reduction and JPEG took
 * it), and coarse (a third and more of its power below 0.25
 * cycles/pixel)?  The estimate then measured the flattest blocks, which
 * the noise reduction cleaned most, and white BM3D wants the level of
 * processed_sigma ().  */
static int
is_processed (const bm3d_noise_profile *profile, float fine,
              float kurtosis)
{
  return fine < PHOTO_FINE_MAX && kurtosis >= FINE_SPARSE_MIN
         && profile->sigma_white > 0.01f
         && profile->low_share[0] >= PHOTO_LOW_SHARE;
}

/* Was the image `in` of profile `profile`, whose noise reads as a
 * camera's processed noise (is_processed ()), saved as JPEG
 * (jpeg_lattice.c)?  JPEG's quantisation is what cleaned its flattest
 * blocks most, which PHOTO_GAIN, PROCESSED_FLOOR and the chrominances'
 * white level make up for.  An image never saved as JPEG, a raw
 * development saved as PNG or TIFF, has noise as weak at its finest
 * scale where demosaicing averaged it, and as strong in its flattest
 * blocks as anywhere else at their brightness: the filter takes its
 * profile as measured.  */
static int
was_jpeg (const bm3d_noise_profile *profile, const bm3d_image *in)
{
  float z = profile->has_fine ? profile->jpeg_lattice
                              : bm3d_jpeg_lattice (in);

  return z >= BM3D_JPEG_LATTICE_MIN;
}

/* Is the noise of profile `profile`, whose finest scale measures `fine`
 * with kurtosis `kurtosis`, no camera's processed noise, and read
 * stronger by the profile than by that scale?  (A white profile made
 * of that reading, white_profile () below, holds at least 0.05.)  */
static int
above_fine_scale (const bm3d_noise_profile *profile, float fine,
                  float kurtosis, float *luma)
{
  float chroma;

  bm3d_noise_profile_levels (profile, luma, &chroma);
  return *luma > FINE_ROUNDING * fmaxf (fine, 0.05f)
         && ! is_processed (profile, fine, kurtosis);
}

/* Weak grain (above): noise weak at the finest scale (under
 * WEAK_FINE_MAX), its profile above that scale but at most GRAIN_RATIO
 * times it, and under GRAIN_MAX.  */
static int
is_grain (const bm3d_noise_profile *profile, float fine, float kurtosis)
{
  float luma;

  return fine < WEAK_FINE_MAX
         && above_fine_scale (profile, fine, kurtosis, &luma)
         && luma <= GRAIN_RATIO * fine && luma < GRAIN_MAX;
}

/* Noise whose profile reads more than GRAIN_RATIO times its finest
 * scale: coarse noise, or texture (BLOCK_TEXTURE_RATIO above), however
 * strong the noise.  Strong noise fills most of the flattest blocks;
 * but where no part of a photograph is flat (texture everywhere, or a
 * textured photograph made smaller with its noise), they hold texture
 * beside it, and the profile reads it.  */
static int
coarse_or_texture (const bm3d_noise_profile *profile, float fine,
                   float kurtosis)
{
  float luma;

  return above_fine_scale (profile, fine, kurtosis, &luma)
         && luma > GRAIN_RATIO * fine;
}

/* The mean of `profile`'s luminance DCT variances at the lowest
 * frequencies (u + v of 1 and 2) over their mean at the middle ones
 * (u + v of 3 to 5).  */
static float
low_over_middle (const bm3d_noise_profile *profile)
{
  float low = 0.0f, middle = 0.0f;
  int n_low = 0, n_middle = 0;

  for (int u = 0; u < 8; u++)
    for (int w = 0; w < 8; w++)
      {
        float v = profile->var_wiener[0][u * 8 + w];

        if (u + w >= 1 && u + w <= 2)
          low += v, n_low++;
        else if (u + w >= 3 && u + w <= 5)
          middle += v, n_middle++;
      }
  low /= n_low;
  middle /= n_middle;
  return middle > 0.0f ? low / middle : 0.0f;
}

/* Is the noise of `profile`, whose finest scale measures `fine` with
 * kurtosis `kurtosis`, strong and Gaussian there, and read coarser by
 * the profile than a sensor's noise can be, in level or in shape
 * (texture everywhere, above)?  */
static int
is_texture_everywhere (const bm3d_noise_profile *profile, float fine,
                       float kurtosis)
{
  float luma;

  return fine >= WEAK_FINE_MAX && kurtosis < FINE_SPARSE_MIN
         && above_fine_scale (profile, fine, kurtosis, &luma)
         && (luma > GRAIN_RATIO * fine
             || low_over_middle (profile) >= LOW_BAND_TEXTURE);
}

/* Noise whose flattest blocks bm3d_flat_block_measures () tells from
 * texture: noise its profile reads above its finest scale
 * (coarse_or_texture (), is_fine_white ()), or a camera's processed
 * noise.  */
static int
needs_block_scales (const bm3d_noise_profile *profile, float fine,
                    float kurtosis)
{
  float luma;

  return above_fine_scale (profile, fine, kurtosis, &luma)
         || is_processed (profile, fine, kurtosis);
}

/* The flattest blocks' measures (block_scales.c) for noise of
 * `profile` in `in`: the estimate's when the profile has them, else
 * read on `in`.  */
static void
flat_blocks (const bm3d_image *in, const bm3d_noise_profile *profile,
             bm3d_flat_blocks *m)
{
  if (profile->has_fine)
    {
      m->across = profile->block_scale_ratio;
      m->within = profile->block_quarter_ratio;
      m->isotropy = profile->block_isotropy;
      m->small = profile->block_small_variance;
    }
  else
    bm3d_flat_block_measures (in, ! bm3d_nlf_present (profile), m);
}

/* Do the flattest blocks `m`, under noise of `profile` whose finest
 * scale measures `fine` with kurtosis `kurtosis`, hold texture?  Weak
 * Gaussian noise reads it across block sizes (BLOCK_TEXTURE_RATIO), a
 * camera's processed noise, which follows brightness, inside the
 * blocks against their own quarters (QUARTER_TEXTURE_RATIO).  */
static int
blocks_hold_texture (const bm3d_flat_blocks *m,
                     const bm3d_noise_profile *profile, float fine,
                     float kurtosis)
{
  if (! needs_block_scales (profile, fine, kurtosis))
    return 0;
  return coarse_or_texture (profile, fine, kurtosis)
         ? m->across >= BLOCK_TEXTURE_RATIO
         : m->within >= QUARTER_TEXTURE_RATIO;
}

/* Do the flattest 16x16 blocks `m` hold no more than white noise of
 * the finest scale's reading `fine` of the image as it is
 * (FLAT_WHITE_RATIO above)?  */
static int
holds_fine_white (const bm3d_flat_blocks *m,
                  const bm3d_noise_profile *profile, float fine)
{
  float s = fine_luma (profile, fine);

  return m->small > 0.0f
         && m->small < FLAT_WHITE_RATIO * FLAT_SMALL_WHITE * s * s;
}

/* Is the noise of `profile`, whose finest scale measures `fine` with
 * kurtosis `kurtosis`, read above that scale by the profile but white
 * noise of that scale's reading in the flattest 16x16 blocks `m`?  */
static int
is_fine_white (const bm3d_flat_blocks *m, const bm3d_noise_profile *profile,
               float fine, float kurtosis)
{
  float luma;

  return above_fine_scale (profile, fine, kurtosis, &luma)
         && holds_fine_white (m, profile, fine);
}

/* Is the noise of `profile`, one level at every brightness (no level
 * function), whose finest scale measures `fine` with kurtosis
 * `kurtosis`, strong and Gaussian there, read by the profile above that
 * scale but under NEAR_WHITE_RATIO times it, where the flattest blocks
 * `m` could not be read (m->small 0)?  */
static int
is_white_unread (const bm3d_flat_blocks *m,
                 const bm3d_noise_profile *profile, float fine,
                 float kurtosis)
{
  float luma;

  return m->small == 0.0f && ! bm3d_nlf_present (profile)
         && fine >= WEAK_FINE_MAX && kurtosis < FINE_SPARSE_MIN
         && above_fine_scale (profile, fine, kurtosis, &luma)
         && luma < NEAR_WHITE_RATIO * fine;
}

/* The finest scale's white sigma of `in` and its band's kurtosis, for
 * is_processed ().  */
static bm3d_status
fine_sigma (const bm3d_image *in, const bm3d_job *job, float *fine,
            float *kurtosis)
{
  bm3d_job fine_job = *job;

  fine_job.threads = bm3d_params_threads (job->params);
  fine_job.channels = 1;
  fine_job.tile_share = 0.0;
  *fine = 0.0f;
  *kurtosis = 0.0f;
  return bm3d_estimate_cpu (in, &fine_job, fine, kurtosis);
}

/* The finest scale's reading of `in` as it is, not through the level
 * function job->read_through, into `*as_is`.  */
static bm3d_status
read_as_is (const bm3d_image *in, bm3d_job *job, float *as_is)
{
  const bm3d_vst_table *through = job->read_through;
  float kurtosis;
  bm3d_status status;

  job->read_through = NULL;
  status = fine_sigma (in, job, as_is, &kurtosis);
  job->read_through = through;
  return status;
}

/* The finest scale's reading of the image as it is into `*as_is`, for
 * noise of `profile` whose finest scale measures `fine`: `fine`, unless
 * that was read through the profile's level function
 * (job->read_through), whose stabilised domain holds the noise of every
 * brightness at one level; the flattest blocks are read on the image as
 * it is, at the brightness of its flattest parts.  The estimate's
 * reading of the whole photograph when the profile carries it
 * (check_texture ()), so that every tile has one verdict; else read on
 * `in`.  */
static bm3d_status
fine_as_is (const bm3d_image *in, bm3d_job *job,
            const bm3d_noise_profile *profile, float fine, float *as_is)
{
  *as_is = fine;
  if (!job->read_through)
    return BM3D_OK;
  if (profile->has_fine)
    {
      *as_is = profile->sigma_fine_as_is;
      return BM3D_OK;
    }
  return read_as_is (in, job, as_is);
}

/* White noise of the finest scale's reading `fine` (`channels` of it)
 * instead of a profile; the report's notice says so, between `lead`
 * and `tail`.  */
static void
white_profile (bm3d_job *job, bm3d_noise_profile *profile, int channels,
               float fine, const char *lead, const char *tail)
{
  if (!(fine > 0.05f))
    fine = 0.05f;
  bm3d_noise_profile_init_white (profile, channels, fine);
  job->report->noise_unmeasured = 1;
  job->report->sigma_fine = fine;
  snprintf (job->report->notice, sizeof job->report->notice,
            "%s: filtered as white noise of sigma %.2f, the finest scale's "
            "reading%s", lead, (double) fine, tail);
}

/* The notice's lead for a profile that is texture, not noise.  */
static const char texture_lead[] =
  "no camera noise could be measured (its flattest parts hold texture, "
  "not noise)";

/* White noise of the finest scale's reading `fine` of `in` as it is
 * (read again when it was read through the profile's level function),
 * `channels` of it, instead of `profile`, said in the report's notice
 * between `lead` and `tail`.  */
static bm3d_status
finest_scale_only (const bm3d_image *in, bm3d_job *job,
                   bm3d_noise_profile *profile, int channels, float fine,
                   const char *lead, const char *tail)
{
  bm3d_status status;

  if (job->read_through)
    {
      if ((status = read_as_is (in, job, &fine)) != BM3D_OK)
        return status;
      job->read_through = NULL;
    }
  white_profile (job, profile, channels, fine, lead, tail);
  return BM3D_OK;
}

/* Colour noise under texture.  The texture that makes a verdict of
 * texture is the luminance's: a clean photograph's flattest blocks
 * hold chroma of 0.09 to 0.24 of their luma (NOISE_CHROMA_SHARE above).
 * A sensor's noise through a camera's colour matrix, whose negative
 * terms make the channels' noise anticorrelated, is mostly colour, and
 * its luminance can read weaker at the finest scale than the texture
 * of the flattest blocks reads in the profile: a phone's pipeline with
 * no noise reduction and no JPEG gives chroma of 0.8 of the luma and
 * more there, and a finest scale of a tenth of the noise's luminance
 * (docs/camera-noise.md, "Colour noise under texture").  So where the
 * verdict is texture and the profile's chroma holds NOISE_CHROMA_SHARE
 * of its luma or more, each chrominance plane keeps the level the
 * profile measured for it, where that is above the finest scale's; the
 * luminance takes the finest scale's reading as before, and the notice
 * says both.  (A profile measured through a level function's transform
 * has its levels in the stabilised domain, which keeps the 0..255
 * scale: there they stand for the photograph's noise on average.)  */
static bm3d_status
texture_only (const bm3d_image *in, bm3d_job *job,
              bm3d_noise_profile *profile, int channels, float fine)
{
  const int lag = BM3D_NOISE_LAG;
  bm3d_noise_profile measured = *profile;
  float luma, chroma;
  size_t used;
  int kept = 0;
  bm3d_status status = finest_scale_only (in, job, profile, channels, fine,
                                          texture_lead, "");

  if (status != BM3D_OK || profile->channels != 3
      || ! holds_colour_noise (&measured))
    return status;
  for (int c = 1; c < 3; c++)
    if (measured.sigma[c] > profile->sigma[c])
      {
        profile->autocov[c][lag][lag] = measured.sigma[c] * measured.sigma[c];
        kept = 1;
      }
  if (!kept)
    return status;
  bm3d_noise_profile_update (profile, NULL, 0);
  bm3d_noise_profile_levels (profile, &luma, &chroma);
  used = strlen (job->report->notice);
  snprintf (job->report->notice + used, sizeof job->report->notice - used,
            "; its colour noise as measured, chroma %.2f", (double) chroma);
  return BM3D_OK;
}

/* For camera mode: when the noise of `in` is processed, the profile
 * takes the gain that brings its white sigma to processed_sigma ()
 * (job->photo_gain), job->processed_noise is set and the luminance
 * takes its floor (job->processed_floor; bm3d_noise_profile_tables ()
 * below).  Weak grain (is_grain ()),
 * flattest blocks that hold texture (blocks_hold_texture ()), white
 * noise under texture (is_fine_white (), is_white_unread ()) and
 * texture everywhere (is_texture_everywhere ()) give way to white
 * noise of the finest scale's reading; the report says so.
 * Flattest blocks whose gradients have a direction lower the gain
 * (unoriented_scale ()).  */
bm3d_status
bm3d_photo_gain (const bm3d_image *in, bm3d_job *job)
{
  bm3d_noise_profile *profile = &job->noise_profile;
  bm3d_flat_blocks blocks = { 0.0f, 0.0f, 0.0f, 0.0f };
  float fine, kurtosis, measured;
  bm3d_status status;

  if (profile->has_fine)
    {
      fine = profile->sigma_fine;
      kurtosis = profile->fine_kurtosis;
    }
  else if ((status = fine_sigma (in, job, &fine, &kurtosis)) != BM3D_OK)
    return status;
  job->report->sigma_fine = fine;
  job->report->fine_kurtosis = kurtosis;
  job->photo_gain = 1.0f;
  job->processed_noise = 0;
  job->processed_floor = 0.0f;
  if (needs_block_scales (profile, fine, kurtosis))
    flat_blocks (in, profile, &blocks);
  if (is_grain (profile, fine, kurtosis))
    return finest_scale_only (in, job, profile, profile->channels, fine,
                              "weak grain, no camera's processed noise",
                              "; its coarser grain is kept");
  if (blocks_hold_texture (&blocks, profile, fine, kurtosis))
    return texture_only (in, job, profile, profile->channels, fine);
  if (is_fine_white (&blocks, profile, fine, kurtosis))
    {
      /* Both readings of the image as it is: the flattest blocks'
       * noise is the brightness's there, not the level function's
       * average.  */
      float as_is;

      if ((status = fine_as_is (in, job, profile, fine, &as_is)) != BM3D_OK)
        return status;
      if (holds_fine_white (&blocks, profile, as_is))
        {
          job->read_through = NULL;
          return finest_scale_only (in, job, profile, profile->channels,
                                    as_is, "white noise (the flattest parts "
                                    "hold no coarser noise)", "");
        }
    }
  if (is_white_unread (&blocks, profile, fine, kurtosis))
    return finest_scale_only (in, job, profile, profile->channels, fine,
                              "white noise (its profile reads it near its "
                              "finest scale; no flat part could be read)",
                              "");
  if (is_texture_everywhere (profile, fine, kurtosis))
    return texture_only (in, job, profile, profile->channels, fine);
  job->processed_noise = is_processed (profile, fine, kurtosis)
                         && was_jpeg (profile, in);
  job->report->processed_noise = job->processed_noise;
  measured = profile->sigma_white > 0.01f ? profile->sigma_white : 0.01f;
  if (job->processed_noise)
    {
      job->photo_gain = processed_sigma (profile, kurtosis, blocks.isotropy)
                        / measured;
      job->processed_floor = processed_floor_share (profile, kurtosis);
    }
  else
    job->photo_gain = unoriented_scale (blocks.isotropy);
  return BM3D_OK;
}

/* bm3d_photo_gain () reads the image only for the finest scale's
 * reading and the flattest blocks' measures: when the profile does not
 * carry them (has_fine 0: a profile file, or white noise a verdict made
 * of that reading), or was measured through a level function, whose
 * verdicts of white noise read that scale again without it
 * (finest_scale_only ()).  */
int
bm3d_photo_gain_reads (const bm3d_noise_profile *profile)
{
  return ! profile->has_fine || bm3d_nlf_present (profile);
}

/* `*sigma`, the finest scale's white sigma of `in`, becomes the white
 * sigma for a photograph's processed noise when the profile says the
 * noise is that (is_processed ()).  White noise, and images too small
 * for a profile, keep it.  A clean photograph's texture can read as
 * processed noise: it then gets a photograph's sigma, as in camera
 * mode.  */
bm3d_status
bm3d_photo_sigma (const bm3d_image *in, bm3d_job *job, float *sigma,
                  float kurtosis)
{
  bm3d_noise_profile profile;
  bm3d_flat_blocks blocks;
  bm3d_status status;

  job->report->sigma_fine = *sigma;
  job->report->fine_kurtosis = kurtosis;
  if (*sigma >= PHOTO_FINE_MAX || in->width < 32 || in->height < 32)
    return BM3D_OK;
  /* A few milliseconds after the white estimate's progress reached 1:
   * progress stays there, a cancel still stops it.  */
  job->channels = in->channels - (in->has_alpha ? 1 : 0);
  job->tile_base = 1.0;
  job->tile_share = 0.0;
  status = bm3d_estimate_profile_cpu (in, job, &profile);
  if (status != BM3D_OK || ! is_processed (&profile, *sigma, kurtosis)
      || bm3d_jpeg_lattice (in) < BM3D_JPEG_LATTICE_MIN)
    return status;
  flat_blocks (in, &profile, &blocks);
  if (misses_fine_scale (&profile, *sigma)
      && ! is_reduced_noise (&profile, kurtosis, &blocks))
    return status;
  if (! blocks_hold_texture (&blocks, &profile, *sigma, kurtosis))
    {
      job->report->processed_noise = 1;
      *sigma = processed_sigma (&profile, kurtosis, blocks.isotropy);
    }
  return status;
}

/* No block could be measured (all clipped, or flat).  */
static bm3d_status
unmeasured_profile (const bm3d_image *in, bm3d_job *job,
                    bm3d_noise_profile *profile)
{
  float fine, kurtosis;
  bm3d_status status = fine_sigma (in, job, &fine, &kurtosis);

  if (status == BM3D_OK)
    white_profile (job, profile, job->channels, fine,
                   "no camera noise could be measured (the photograph is "
                   "clipped or flat where it could be)", "");
  return status;
}

/* The finest scale's reading of `in` (fine_sigma ()) and its flattest
 * blocks' measures (bm3d_flat_block_measures ()), each on a thread of
 * its own, beside the profile's estimate, which reads the same image
 * independently: milliseconds of a camera call's set-up that then hide
 * behind the estimate's (on the GPU's estimate, one after the other
 * would not).  The measures are taken whether check_texture () wants
 * them or not: beside the estimate they cost the call next to nothing.
 * The reading's job has no progress (ticks come from the calling
 * thread alone) and a report of its own.  */
typedef struct
{
  const bm3d_image *in;
  bm3d_job          job;
  bm3d_report       report;
  float             fine, kurtosis;
  bm3d_flat_blocks  blocks;
  bm3d_status       status;
  pthread_t         thread, blocks_thread;
  int               started, blocks_started;
} fine_reading;

static int
no_progress (bm3d_job *job, double fraction)
{
  (void) job;
  (void) fraction;
  return 0;
}

static void *
fine_reading_run (void *arg)
{
  fine_reading *r = arg;

  r->status = fine_sigma (r->in, &r->job, &r->fine, &r->kurtosis);
  return NULL;
}

static void *
flat_blocks_run (void *arg)
{
  fine_reading *r = arg;

  bm3d_flat_block_measures (r->in, r->job.read_through == NULL,
                            &r->blocks);
  return NULL;
}

static void
fine_reading_start (fine_reading *r, const bm3d_image *in,
                    const bm3d_job *job)
{
  r->in = in;
  r->job = *job;
  memset (&r->report, 0, sizeof r->report);
  r->job.report = &r->report;
  r->job.tick = no_progress;
  r->job.host_bytes_now = 0;
  r->started = pthread_create (&r->thread, NULL, fine_reading_run, r) == 0;
  r->blocks_started = pthread_create (&r->blocks_thread, NULL,
                                      flat_blocks_run, r) == 0;
}

/* The reading and the measures, when their threads are done (or made
 * here, had one not started); the reading's memory counts in the
 * call's peak beside the estimate's.  */
static bm3d_status
fine_reading_finish (fine_reading *r, bm3d_job *job, float *fine,
                     float *kurtosis, bm3d_flat_blocks *blocks)
{
  if (r->started)
    pthread_join (r->thread, NULL);
  else
    fine_reading_run (r);
  if (r->blocks_started)
    pthread_join (r->blocks_thread, NULL);
  else
    flat_blocks_run (r);
  job->report->peak_host_bytes += r->report.peak_host_bytes;
  if (r->status != BM3D_OK)
    memcpy (job->report->message, r->report.message,
            sizeof job->report->message);
  *fine = r->fine;
  *kurtosis = r->kurtosis;
  *blocks = r->blocks;
  return r->status;
}

/* The profile measured on `in` (through job->read_through, when it
 * has a level function) is checked against `fine`, the finest scale's
 * reading made the same way, with kurtosis `kurtosis`, and the flattest
 * blocks' measures `m` of `in` (misses_fine_scale (),
 * is_reduced_noise ()): noise keeps that
 * reading (has_fine, sigma_fine: the gain takes it, in this call and in
 * those the profile is given to); texture gives way to white noise of
 * the finest scale's reading of `in` as it is (the report then says it
 * as it says unmeasured noise).  Where the flattest blocks would read
 * as white noise under a level function, the finest scale is read on
 * `in` as it is too, for the verdict (fine_as_is ()).  */
static bm3d_status
check_texture (const bm3d_image *in, float fine, float kurtosis,
               const bm3d_flat_blocks *m, bm3d_job *job,
               bm3d_noise_profile *profile)
{
  int missed = misses_fine_scale (profile, fine);
  int needs = needs_block_scales (profile, fine, kurtosis);

  if (missed && ! is_reduced_noise (profile, kurtosis, m))
    return texture_only (in, job, profile, job->channels, fine);
  profile->has_fine = 1;
  profile->sigma_fine = fine;
  profile->fine_kurtosis = kurtosis;
  profile->block_scale_ratio = 0.0f;
  profile->block_quarter_ratio = 0.0f;
  profile->block_isotropy = 0.0f;
  profile->block_small_variance = 0.0f;
  profile->sigma_fine_as_is = 0.0f;
  profile->jpeg_lattice = is_processed (profile, fine, kurtosis)
                          ? bm3d_jpeg_lattice (in) : 0.0f;
  if (needs)
    {
      profile->block_scale_ratio = m->across;
      profile->block_quarter_ratio = m->within;
      profile->block_isotropy = m->isotropy;
      profile->block_small_variance = m->small;
    }
  if (job->read_through && is_fine_white (m, profile, fine, kurtosis))
    return read_as_is (in, job, &profile->sigma_fine_as_is);
  return BM3D_OK;
}

/* The profile of `in`, as bm3d_estimate_noise_profile () gives it: its
 * level function, then the profile of the stabilised image, read
 * through the level function's forward tables (job->read_through, no
 * copy of the image); `share` is the part of the call's progress it
 * takes.  */
bm3d_status
bm3d_estimate_profile_job (const bm3d_image *in, bm3d_job *job,
                           bm3d_noise_profile *profile, double share)
{
  int colour = in->channels - (in->has_alpha ? 1 : 0);
  bm3d_vst_table fwd[BM3D_NOISE_PLANES];
  bm3d_noise_profile shape;
  fine_reading reading;
  bm3d_flat_blocks blocks;
  float fine, kurtosis;
  bm3d_status status, fine_status;

  if (in->width < 32 || in->height < 32)
    {
      bm3d_job_message (job, "a %dx%d image is too small to estimate its "
                        "noise profile (32x32 at least)", in->width,
                        in->height);
      return BM3D_ERR_INVALID_SIZE;
    }
  job->threads = bm3d_params_threads (job->params);
  job->channels = colour;
  job->tile_base = 0.0;
  job->tile_share = share;
  job->report->noise_unmeasured = 0;
  memset (&shape, 0, sizeof shape);
  shape.channels = colour;
  job->read_through = NULL;
  if (bm3d_nlf_estimate (in, job->threads, shape.nlf) > 0)
    {
      bm3d_vst_forward (&shape, fwd);
      job->read_through = fwd;
    }
  fine_reading_start (&reading, in, job);
  status = bm3d_estimate_profile_cpu (in, job, profile);
  fine_status = fine_reading_finish (&reading, job, &fine, &kurtosis,
                                     &blocks);
  if (status == BM3D_OK && job->report->noise_unmeasured)
    {
      job->read_through = NULL;
      status = unmeasured_profile (in, job, profile);
    }
  else if (status == BM3D_OK && (status = fine_status) == BM3D_OK)
    status = check_texture (in, fine, kurtosis, &blocks, job, profile);
  /* The profile keeps the level function its copy was measured
   * through: the filter's forward transform is the same.  */
  if (status == BM3D_OK && job->read_through)
    memcpy (profile->nlf, shape.nlf, sizeof shape.nlf);
  job->read_through = NULL;
  job->tile_base = share;
  job->tile_share = 1.0 - share;
  return status;
}

/* out = var * scale, each at least `share` times the largest
 * (job->processed_floor: 0 but for processed noise).  */
static void
processed_floor (const float *var, float share, float scale, float *out)
{
  float floor = 0.0f;

  for (int i = 0; i < BM3D_PATCH_AREA; i++)
    floor = fmaxf (floor, share * var[i]);
  for (int i = 0; i < BM3D_PATCH_AREA; i++)
    out[i] = fmaxf (var[i], floor) * scale;
}

/* The job's per-coefficient variances from its noise profile, times
 * the squared strengths (and the expert chroma scale).  */
void
bm3d_noise_profile_tables (bm3d_job *job, float chroma_scale)
{
  const bm3d_noise_profile *prof = bm3d_job_noise_profile (job);
  const bm3d_params *params = job->params;
  float k = params->strength > 0.0f ? params->strength : 1.0f;
  float kc = params->chroma_strength > 0.0f ? params->chroma_strength : 1.0f;

  if (chroma_scale > 0.0f)
    kc *= chroma_scale;
  for (int c = 0; c < job->channels; c++)
    {
      float g = (c == 0 ? k : k * kc) * job->photo_gain;

      if (job->processed_noise && c > 0)
        {
          /* White, at the luminance's level in RGB terms.  */
          float s = prof->sigma_white * g * bm3d_colour_noise_gain[c];

          for (int i = 0; i < BM3D_PATCH_AREA; i++)
            job->var_hard[c][i] = job->var_wiener[c][i] = s * s;
          job->sigma[c] = s;
          continue;
        }
      processed_floor (prof->var_hard[c], job->processed_floor, g * g,
                       job->var_hard[c]);
      processed_floor (prof->var_wiener[c], job->processed_floor, g * g,
                       job->var_wiener[c]);
      job->sigma[c] = prof->sigma[c] * g;
    }
}
