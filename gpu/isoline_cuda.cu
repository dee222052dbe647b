/* The isoline filter (PI-PD and hybrid PI-PD) on CUDA, with the steps of isoline_cpu.c.  Not implemented
 * yet: the mode answers so.  */
#include "cuda_device.cuh"

extern "C" int
bm3d_isoline_cuda_tile_side (const bm3d_job *job)
{
  (void) job;
  return 2048;
}

extern "C" bm3d_status
bm3d_isoline_cuda_tile (const bm3d_planes *noisy, bm3d_planes *out,
                       bm3d_job *job)
{
  (void) noisy;
  (void) out;
  bm3d_job_message (job, "mode \"isoline\" is not implemented yet");
  return BM3D_ERR_NOT_IMPLEMENTED;
}

/* Until there is a whole-image path, the host tiles.  */
extern "C" bm3d_status
bm3d_isoline_cuda_image (const bm3d_image *in, bm3d_image *out,
                        bm3d_job *job)
{
  (void) in;
  (void) out;
  (void) job;
  return BM3D_ERR_NOT_IMPLEMENTED;
}
