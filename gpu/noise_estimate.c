/* Estimating the level of additive white Gaussian noise from the image
 * itself (bm3d_estimate_sigma in engine.c hands the luminance here).
 * Not implemented yet.  */
#include "config.h"

#include "engine.h"

bm3d_status
bm3d_estimate_cpu (const bm3d_planes *luma, bm3d_job *job, float *sigma)
{
  (void) luma;
  (void) sigma;
  bm3d_job_message (job, "noise estimation is not implemented yet");
  return BM3D_ERR_NOT_IMPLEMENTED;
}
