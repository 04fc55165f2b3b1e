#!/usr/bin/env bash
# Fails when a C++ file of the tree is not formatted as the pinned .clang-format says (clang-format
# 14, the version .clang-format is written for). With --fix (`make format`) rewrites them instead.
# Usage: check_format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
[[ ${1:-} == --fix ]] && fix=1
CLANG_FORMAT=$(command -v clang-format-14 || command -v clang-format)
mapfile -t files < <(git ls-files -- 'src/*.h' 'src/*.cc' 'python/ext/*.h' 'python/ext/*.cc' \
  'tests/*.h' 'tests/*.cc' 'bench/*.h' 'bench/*.cc' 'fuzz/*.h' 'fuzz/*.cc' 2>/dev/null ||
  find src python/ext tests bench fuzz -name '*.h' -o -name '*.cc')
if ((fix)); then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "${#bad[@]} file(s) differ from .clang-format; run \`make format\`"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format says"
