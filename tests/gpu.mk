# The CUDA backend against the CPU backend (skipped without a device).
TESTS += tests/gpu-tests.sh tests/gpu-nlm.sh tests/gpu-isoline.sh
EXTRA_DIST += tests/gpu-tests.sh \
	tests/gpu-nlm.sh \
	tests/gpu-isoline.sh \
	tests/data/camera.png \
	tests/data/astronaut.png \
	tests/data/LICENSE-images.md
