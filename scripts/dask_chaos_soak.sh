#!/usr/bin/env bash
# The Dask chaos test (python/tests/test_dask_chaos.py) as a soak: worker processes killed at
# random moments across queries of 2 and 3 shuffles for SECONDS (default 1800), every answer
# checked. Usage: scripts/dask_chaos_soak.sh [SECONDS] (after `make build`); the seed it prints
# repeats a run (FLOTILLA_CHAOS_SEED=N).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-1800}
FLOTILLA_CHAOS_SECONDS="$seconds" PYTHONPATH=build/python FLOTILLA_SOURCE_DIR="$PWD" \
  /usr/bin/python3 -m pytest -q -x -s -p no:cacheprovider python/tests/test_dask_chaos.py
