# The CUDA backend against the CPU backend (skipped without a device).
TESTS += tests/gpu-tests.sh tests/gpu-nlm.sh
EXTRA_DIST += tests/gpu-tests.sh \
	tests/gpu-nlm.sh \
	tests/data/camera.png \
	tests/data/astronaut.png \
	tests/data/LICENSE-images.md
