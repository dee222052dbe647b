/* The CUDA backend's entry points in a build without CUDA: the engine
 * then always runs on the CPU, and asking for CUDA says why not.  */
#include "config.h"

#include "engine.h"

#include <stdio.h>

int
bm3d_cuda_available (char *why, size_t why_len)
{
  if (why && why_len)
    snprintf (why, why_len, "built without CUDA support");
  return 0;
}

int
bm3d_cuda_tile_side (const bm3d_job *job)
{
  (void) job;
  return 1024;
}

bm3d_status
bm3d_cuda_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  (void) noisy;
  (void) out;
  bm3d_job_message (job, "built without CUDA support");
  return BM3D_ERR_BACKEND_UNAVAILABLE;
}

bm3d_status
bm3d_cuda_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  (void) in;
  (void) out;
  bm3d_job_message (job, "built without CUDA support");
  return BM3D_ERR_BACKEND_UNAVAILABLE;
}
