# The two commands a newcomer runs (each installs what it needs on Debian 12):
#   make demo   builds kiln and runs the bundled digit classifier
#   make test   builds kiln and runs the unit tests and the conformance suites
SHARED ?= ../shared
# Let ccache reuse objects between checkouts in different folders.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
JOBS ?= $(shell nproc)
KILN := build/release/kiln
# Debian's python3: the interpreter its numpy, pybind11, pytest and Dask packages are for.
PYTHON ?= /usr/bin/python3

.PHONY: demo test test-unit test-python test-conformance test-asan test-tsan test-shared deps build build-demo build-asan build-tsan bench bench-ort bench-load-size docs clean python fuzz soak

deps:
	@scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# Only what the demo needs: the library, the command line and the demo program (not the unit
# tests or the examples).
build-demo: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target kiln_cli kiln_demo

demo: build-demo
	@build/release/kiln_demo demo/digits.onnx demo/samples

test: test-unit test-python test-conformance

test-unit: build
	@ctest --preset release -j $(JOBS)

# The Python binding as built (build/release/python), on all three backends.
test-python: build
	@PYTHONPATH=build/release/python $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

# Installs the Python package as built into $(PYTHON)'s user site-packages, or into PYTHON_SITE.
python: build
	@site="$${PYTHON_SITE:-$$($(PYTHON) -m site --user-site)}"; \
	  mkdir -p "$$site" && rm -rf "$$site/kiln" && \
	  cp -r build/release/python/kiln "$$site/" && rm -rf "$$site/kiln/__pycache__" && \
	  echo "kiln installed in $$site (python: $(PYTHON))"

# The ONNX backend tests and the public models in $(SHARED), on the CPU and on both GPU backends
# (Mesa's lavapipe and llvmpipe where there is no GPU); skipped when $(SHARED) is absent.
test-conformance: build
	@scripts/run-conformance.sh $(KILN) $(SHARED) cpu
	@scripts/run-conformance.sh $(KILN) $(SHARED) gpu-compute
	@scripts/run-conformance.sh $(KILN) $(SHARED) gpu-pixel

build-asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

# Every unit test runs under the sanitizers. The GPU tests (and the command-line and example
# tests, which list every device) run without the leak checker: Mesa's drivers JIT-compile with
# LLVM, and code it generates keeps an allocation per device that LeakSanitizer reports from an
# unnamed module, so no suppression can name it; the address and undefined-behaviour checks stay
# on. The GPU op harness is among them, every third case of it (CMakeLists.txt).
ASAN_NO_LEAK_CHECK_TESTS := ^GpuCompute|^GpuPixel|^gpu_op_harness_|^cli$$|^cli_debug_tools$$|^cli_test_onnx$$|^example_gpu_placements$$|^example_tokengen_gpu_compute$$
test-asan: build-asan
	@ctest --preset asan -j $(JOBS) -E "$(ASAN_NO_LEAK_CHECK_TESTS)"
	@ASAN_OPTIONS=detect_leaks=0 ctest --preset asan -j $(JOBS) -R "$(ASAN_NO_LEAK_CHECK_TESTS)"
	@FUZZ_TIMEOUT=5 FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) scripts/fuzz.sh build/asan $(FUZZ_SMOKE_SECONDS) $(SHARED)

# ThreadSanitizer over the job system, the runtime, the readbacks and both GPU backends, with
# the tests that drive them from several threads (cmake/thread_sanitizer.cmake). The build uses
# the release flags, so the layers it leaves uninstrumented come from the compiler cache that
# `make build` filled. Suppressions (only for Mesa's drivers) in tests/sanitizers/tsan.supp.
build-tsan: deps
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS) --target kiln_tests

test-tsan: build-tsan
	@TSAN_OPTIONS="suppressions=$(CURDIR)/tests/sanitizers/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
	  ctest --preset tsan -j $(JOBS)

# The fuzzers (fuzz/, part of the sanitizer build), FUZZ_SECONDS each: CI runs the same
# FUZZ_SMOKE_RUNS inputs each time (a fixed seed, at most FUZZ_SMOKE_SECONDS); a long run is
# `make fuzz FUZZ_SECONDS=3600` (FUZZ_TARGETS="model_load tensor_file" for some of them). What
# each run learns is kept in build/asan/fuzz/corpus.
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 60
FUZZ_SMOKE_RUNS ?= 3000
fuzz: build-asan
	@scripts/fuzz.sh build/asan $(FUZZ_SECONDS) $(SHARED)

# A shared libkiln (BUILD_SHARED_LIBS=ON) in its own build folder (a full build of the library:
# not part of `make test`), checked to export only the public API, installed, and used by the
# consumer project.
test-shared: deps
	@cmake --preset shared >/dev/null
	@cmake --build --preset shared -j $(JOBS) --target kiln kiln_cli
	@tests/package/package_test.sh build/shared $(CURDIR) --shared

# kiln beside ONNX Runtime on ResNet-50, MobileNetV2, EfficientNet-B0, SqueezeNet 1.1 and a
# BERT-style encoder, at one and two threads (bench/compare-ort.sh says how; about 10 minutes).
# Models are exported once into bench/models, ONNX Runtime installed once from npm into
# bench/ort-node. Not part of `make test`: it takes too long for CI.
# BENCH_MODELS picks models, e.g. make bench-ort BENCH_MODELS="resnet50 squeezenet1_1".
bench-ort: build-demo
	@scripts/install-deps.sh --with-bench
	@bench/compare-ort.sh $(KILN) $(BENCH_MODELS)

# The soak test at length: SOAK_RUNS schedules, each with another input width, resident memory
# checked to stay flat (`make test` runs it with 2,000).
SOAK_RUNS ?= 50000
soak: build
	@KILN_SOAK_RUNS=$(SOAK_RUNS) build/release/kiln_tests --gtest_filter='Soak.*'

# Load time against graph size: 10k / 30k / 100k-node Relu chains (SIZES="..." for others),
# with ONNX Runtime's beside them when $(SHARED) has its tools. A benchmark, not a test.
SIZES ?= 10000 30000 100000
bench-load-size: build
	@bench/relu-chain-load.sh $(KILN) $(SHARED) $(SIZES)

# The API reference from the public headers, in build/docs/html (needs Debian's doxygen).
docs:
	@scripts/install-deps.sh --with-docs
	@mkdir -p build/docs
	@( cat docs/Doxyfile; echo "PROJECT_NUMBER = $$(sed -nE 's/^project\(kiln VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)" ) | doxygen -
	@echo "API reference: build/docs/html/index.html"

clean:
	rm -rf build
