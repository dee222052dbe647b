# The CUDA backend; without CUDA, stubs with the same entry points.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# nvcc builds one fat object: machine code for each GPU generation that
# configure's --with-cuda-arch names (by default Turing sm_75, Ampere
# sm_80 and sm_86, Ada sm_89 and Hopper sm_90), plus PTX of the newest
# that later GPUs compile when loaded; NVCC_GENCODE comes from configure
# and may also be given on make's command line.
# Position-independent host code, since the GEGL module (a shared
# object) links the same objects.
# The runtime is linked statically (CUDA_LIBS), so only the NVIDIA
# driver is needed at run time.
if HAVE_CUDA
gpu_libbm3d_a_SOURCES += \
	gpu/core/cuda_check.cuh \
	gpu/core/cuda_device.cuh \
	gpu/core/cuda_device.cu \
	gpu/core/cuda_tiled_image.cu \
	gpu/bm3d/bm3d_cuda_kernels.cuh \
	gpu/bm3d/bm3d_cuda.cu \
	gpu/bm3d/bm3d_cuda_match.cu \
	gpu/bm3d/bm3d_cuda_match_rows.cu \
	gpu/bm3d/bm3d_cuda_filter.cu \
	gpu/bm3d/bm3d_cuda_aggregate.cu \
	gpu/noise/noise_profile_cuda.cuh \
	gpu/noise/noise_profile_cuda.cu \
	gpu/nlm/nlm_cuda.cu \
	gpu/isoline/isoline_cuda.cu

NVCC_BUILD_FLAGS = -std=c++17 -O3 -lineinfo $(NVCC_GENCODE) -Xcompiler -fPIC \
	-Xcompiler -Wall,-Wextra,-Wno-unused-parameter $(NVCC_WERROR) \
	-I$(top_srcdir)/gpu -I$(top_builddir)

# Header dependencies come from nvcc itself (-MD -MF), written beside
# each object as .o.d and read back on the next make; -MP adds an empty
# rule for each header, so a header removed or renamed does not stop
# make.  The benchmarks' CUDA objects (bench/local.mk) are read too.
SUFFIXES += .cu
.cu.o:
	$(AM_V_GEN)$(NVCC) $(NVCC_BUILD_FLAGS) $(NVCCFLAGS) \
	  -MD -MP -MF $@.d -c -o $@ $<

CUDA_OBJECTS = gpu/core/cuda_device.o gpu/core/cuda_tiled_image.o \
	gpu/bm3d/bm3d_cuda.o gpu/bm3d/bm3d_cuda_match.o \
	gpu/bm3d/bm3d_cuda_match_rows.o gpu/bm3d/bm3d_cuda_filter.o \
	gpu/bm3d/bm3d_cuda_aggregate.o gpu/noise/noise_profile_cuda.o \
	gpu/nlm/nlm_cuda.o gpu/isoline/isoline_cuda.o \
	bench/autocov-bench.o bench/transfer-bench.o
-include $(CUDA_OBJECTS:.o=.o.d)
CLEANFILES += $(CUDA_OBJECTS:.o=.o.d)
else
gpu_libbm3d_a_SOURCES += gpu/core/cuda_none.c
endif

EXTRA_DIST += gpu/core/cuda_check.cuh gpu/core/cuda_device.cuh \
	gpu/core/cuda_device.cu gpu/core/cuda_tiled_image.cu \
	gpu/bm3d/bm3d_cuda_kernels.cuh gpu/bm3d/bm3d_cuda.cu \
	gpu/bm3d/bm3d_cuda_match.cu gpu/bm3d/bm3d_cuda_match_rows.cu \
	gpu/bm3d/bm3d_cuda_filter.cu gpu/bm3d/bm3d_cuda_aggregate.cu \
	gpu/noise/noise_profile_cuda.cuh gpu/noise/noise_profile_cuda.cu \
	gpu/nlm/nlm_cuda.cu gpu/isoline/isoline_cuda.cu gpu/core/cuda_none.c
