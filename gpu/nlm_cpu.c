/* Non-local means on the CPU: the reference for nlm_cuda.cu, with the same
 * steps.  Not implemented yet: the mode answers so.  */
#include "config.h"

#include "engine.h"

int
bm3d_nlm_cpu_tile_side (const bm3d_job *job)
{
  (void) job;
  return 1024;
}

bm3d_status
bm3d_nlm_cpu_tile (const bm3d_planes *noisy, bm3d_planes *out,
                      bm3d_job *job)
{
  (void) noisy;
  (void) out;
  bm3d_job_message (job, "mode \"nlm\" is not implemented yet");
  return BM3D_ERR_NOT_IMPLEMENTED;
}
