#!/usr/bin/env bash
# Fails when a C++ file of the tree is not formatted as the pinned .clang-format says (clang-format
# 14, the version .clang-format is written for).
# Usage: check_format.sh          check every C++ file (CTest `format`, run by `make test`)
#        check_format.sh --fix    rewrite them (`make format`)
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=$(command -v clang-format-14 || command -v clang-format)
mapfile -t files < <(git ls-files -- 'src/*.h' 'src/*.cc' 'python/ext/*.h' 'python/ext/*.cc' \
  'tests/*.h' 'tests/*.cc' 'bench/*.h' 'bench/*.cc' 'fuzz/*.h' 'fuzz/*.cc')
if [[ ${1:-} == --fix ]]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
# Two at a time: clang-format starts in milliseconds, so a file per call costs little.
mapfile -t bad < <(printf '%s\0' "${files[@]}" |
  xargs -0 -P 2 -n 16 sh -c 'for f; do "$0" --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done' \
    "$CLANG_FORMAT")
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "${#bad[@]} file(s) differ from .clang-format; run \`make format\`"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format says"
