# Flotilla: every set-up step is here. `make run` and `make test` install what is missing
# (Debian packages via scripts/install-deps.sh), configure, build, then run.

BUILD_DIR  ?= build
ASAN_DIR   ?= build-asan
FUZZ_DIR   ?= build-fuzz
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?= ipc parquet csv json sql expr
CMAKE_FLAGS ?=
TPCH_SF    ?= 1
TPCH_DIR   ?= data/tpch-sf$(TPCH_SF)

.PHONY: all deps configure build run test test-unit test-asan bench fuzz wheel format clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DFLOTILLA_WERROR=ON $(CMAKE_FLAGS) >/dev/null

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	@ninja -C $(BUILD_DIR) -j $(JOBS)

# The main job: the 22 TPC-H queries at scale factor 1 on the embedded local runner, then the
# Parquet ETL example (lineitem filtered, projected, written partitioned) on the distributed
# runner over a 2-worker Dask LocalCluster. The tables are generated once into TPCH_DIR and kept
# (lineitem is written last, so it marks a whole set).
run: build
	@[ -f $(TPCH_DIR)/lineitem.parquet ] || ./$(BUILD_DIR)/flotilla tpch gen --sf $(TPCH_SF) --out $(TPCH_DIR)
	@./$(BUILD_DIR)/flotilla tpch run --tables $(TPCH_DIR)
	@PYTHONPATH=$(BUILD_DIR)/python /usr/bin/python3 examples/parquet_etl.py --runner dask \
	  --tables $(TPCH_DIR) --out $(BUILD_DIR)/etl-out --flotilla $(BUILD_DIR)/flotilla

# Unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, then every test (unit and
# interop) of the optimized build; the CTest summary is the last thing printed.
test: build test-asan
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

test-unit: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -L unit

test-asan: deps
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DFLOTILLA_WERROR=ON -DFLOTILLA_SANITIZE=ON \
	  -DFLOTILLA_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@ninja -C $(ASAN_DIR) -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS) -L unit

# Benchmarks (never part of `make test`): Google Benchmark binaries under build/bench/.
bench: build
	@for b in $(BUILD_DIR)/bench/*_bench; do \
	  case $$b in *expr_q1_bench|*operators_bench|*formats_bench|*scheduler_bench) continue;; esac; \
	  echo "== $$b"; $$b --benchmark_min_time=0.5; done
	@echo "== bench/expr_q1.sh (TPC-H Q1 expressions, ours next to DuckDB)"; bench/expr_q1.sh $(BUILD_DIR)
	@echo "== bench/operators.sh (local engine operators, ours next to DuckDB)"; bench/operators.sh $(BUILD_DIR)
	@echo "== bench/formats.sh (Parquet scans and writes, ours next to DuckDB)"; bench/formats.sh $(BUILD_DIR)
	@echo "== bench/tpch.sh (the 22 TPC-H queries at SF1, ours next to DuckDB)"; bench/tpch.sh $(BUILD_DIR)
	@echo "== bench/dist.sh (the distributed runner: ETL on Dask vs local, task overhead, scheduler)"; bench/dist.sh $(BUILD_DIR)

# libFuzzer targets built with clang (fuzz/*_fuzz.cc: the readers, the SQL parser and planner,
# the expression deserializer); each runs FUZZ_SECONDS on a copy of its seed corpus.
fuzz: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -G Ninja -DFLOTILLA_FUZZ=ON \
	  -DFLOTILLA_BENCH=OFF >/dev/null
	@ninja -C $(FUZZ_DIR) -j $(JOBS) $(addsuffix _fuzz,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  echo "== fuzz: $$t ($(FUZZ_SECONDS) s)"; \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t && cp -n fuzz/corpus/$$t/* $(FUZZ_DIR)/corpus/$$t/ 2>/dev/null; \
	  $(FUZZ_DIR)/fuzz/$${t}_fuzz $(FUZZ_DIR)/corpus/$$t -max_total_time=$(FUZZ_SECONDS) \
	    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 || exit 1; \
	done

# The Python package as a wheel in dist/ (`pip install dist/flotilla-*.whl` in a virtual
# environment of /usr/bin/python3), from this build's extension module with its debug information
# stripped; `pip install .` writes the same wheel (python/packaging/flotilla_build.py).
wheel: build
	@/usr/bin/python3 python/packaging/flotilla_build.py --build-dir $(BUILD_DIR) --out dist

format:
	@bash scripts/check_format.sh --fix

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) build-wheel dist
