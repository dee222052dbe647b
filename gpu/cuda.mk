# The CUDA backend; without CUDA, stubs with the same entry points.
#
# nvcc builds one fat object: machine code for Turing (sm_75), Ampere
# (sm_80, sm_86), Ada (sm_89) and Hopper (sm_90), plus compute_90 PTX
# that newer GPUs compile when loaded.  The runtime is linked
# statically (CUDA_LIBS), so only the NVIDIA driver is needed at run
# time.
if HAVE_CUDA
gpu_libbm3d_a_SOURCES += \
	gpu/cuda_check.cuh \
	gpu/cuda_device.cuh \
	gpu/cuda_device.cu \
	gpu/cuda_tiled_image.cu \
	gpu/bm3d_cuda_kernels.cuh \
	gpu/bm3d_cuda.cu \
	gpu/bm3d_cuda_match.cu \
	gpu/bm3d_cuda_match_rows.cu \
	gpu/bm3d_cuda_filter.cu \
	gpu/bm3d_cuda_aggregate.cu \
	gpu/noise_profile_cuda.cuh \
	gpu/noise_profile_cuda.cu \
	gpu/nlm_cuda.cu \
	gpu/isoline_cuda.cu

NVCC_GENCODE = \
	-gencode arch=compute_75,code=sm_75 \
	-gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_86,code=sm_86 \
	-gencode arch=compute_89,code=sm_89 \
	-gencode arch=compute_90,code=[sm_90,compute_90]
NVCC_BUILD_FLAGS = -std=c++17 -O3 -lineinfo $(NVCC_GENCODE) \
	-Xcompiler -Wall,-Wextra,-Wno-unused-parameter \
	-I$(top_srcdir)/gpu -I$(top_builddir)

SUFFIXES += .cu
.cu.o:
	$(AM_V_GEN)$(NVCC) $(NVCC_BUILD_FLAGS) $(NVCCFLAGS) -c -o $@ $<

# nvcc objects get no automatic header dependencies: the project headers
# each one includes, directly or through another.
CUDA_ENGINE_INCLUDES = gpu/engine.h gpu/bm3d.h gpu/bm3d_tables.h gpu/job.h
CUDA_DEVICE_INCLUDES = gpu/cuda_device.cuh gpu/cuda_check.cuh \
	$(CUDA_ENGINE_INCLUDES)
gpu/cuda_device.o gpu/cuda_tiled_image.o: $(CUDA_DEVICE_INCLUDES) gpu/pixels.h
gpu/bm3d_cuda.o: $(CUDA_DEVICE_INCLUDES) gpu/bm3d_cuda_kernels.cuh
gpu/bm3d_cuda_match.o gpu/bm3d_cuda_match_rows.o gpu/bm3d_cuda_filter.o \
gpu/bm3d_cuda_aggregate.o: gpu/bm3d_cuda_kernels.cuh $(CUDA_ENGINE_INCLUDES)
gpu/nlm_cuda.o: $(CUDA_DEVICE_INCLUDES)
gpu/noise_profile_cuda.o: $(CUDA_DEVICE_INCLUDES) gpu/noise_profile_cuda.cuh
gpu/isoline_cuda.o: $(CUDA_DEVICE_INCLUDES) gpu/isoline_core.h
else
gpu_libbm3d_a_SOURCES += gpu/cuda_none.c
endif

EXTRA_DIST += gpu/cuda_check.cuh gpu/cuda_device.cuh gpu/cuda_device.cu \
	gpu/cuda_tiled_image.cu \
	gpu/bm3d_cuda_kernels.cuh gpu/bm3d_cuda.cu gpu/bm3d_cuda_match.cu \
	gpu/bm3d_cuda_match_rows.cu gpu/bm3d_cuda_filter.cu \
	gpu/bm3d_cuda_aggregate.cu gpu/noise_profile_cuda.cuh \
	gpu/noise_profile_cuda.cu gpu/nlm_cuda.cu \
	gpu/isoline_cuda.cu gpu/cuda_none.c
