#!/usr/bin/env bash
# Fails when a C++ file is not formatted as the pinned .clang-format says (clang-format 14, the
# version .clang-format is written for). Checked: every C++ file changed or added since the
# commit in scripts/format_baseline (the tree as it was when the check began), and any changed
# in the working tree; so a file is formatted whole the first time it is touched.
# Usage: check_format.sh          check
#        check_format.sh --fix    rewrite those files (`make format`)
#        check_format.sh --all    check, or with --fix rewrite, every C++ file of the tree
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0 all=0
for a in "$@"; do
  case $a in --fix) fix=1 ;; --all) all=1 ;; *) echo "unknown option $a" >&2; exit 2 ;; esac
done
CLANG_FORMAT=$(command -v clang-format-14 || command -v clang-format)
patterns=('src/*.h' 'src/*.cc' 'python/ext/*.h' 'python/ext/*.cc' 'tests/*.h' 'tests/*.cc'
          'bench/*.h' 'bench/*.cc' 'fuzz/*.h' 'fuzz/*.cc')
if ((all)); then
  mapfile -t files < <(git ls-files -- "${patterns[@]}")
else
  base=$(cat scripts/format_baseline)
  if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "format: baseline $base is not in this clone's history; checking the last commit's files"
    base=HEAD~1
  fi
  mapfile -t files < <({ git diff --name-only --diff-filter=d "$base" -- "${patterns[@]}"
                         git ls-files --others --exclude-standard -- "${patterns[@]}"; } | sort -u)
fi
if ((fix)); then
  ((${#files[@]} == 0)) || "$CLANG_FORMAT" -i "${files[@]}"
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
echo "format: ${#files[@]} changed file(s) as .clang-format says"
