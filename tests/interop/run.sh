#!/usr/bin/env bash
# Arrow IPC interop checks against an independent implementation, apache-arrow (arrow-js) from npm.
#
#   tests/interop/run.sh BUILD_DIR/ipc_interop_tool
#
#   (a) cpp->js : our tool writes its cases (stream and file, uncompressed / lz4 / zstd) with their
#                 canonical JSON; arrow-js reads each file and dumps canonical JSON; compare.
#   (b) js->js  : arrow-js writes its own cases with canonical JSON of what it held in memory and
#                 reads them back (checks the arrow-js half itself, so (c) failures are ours).
#   (c) js->cpp : our tool reads each arrow-js file; compare with arrow-js's JSON.
#
# Needs node (18+), npm, and the zstd and lz4 command-line tools (scripts/install-deps.sh).
# Installs node_modules with `npm ci` when missing or older than package-lock.json (npm_deps.sh).
# Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -ne 1 ]]; then
  echo "usage: $0 PATH/TO/ipc_interop_tool" >&2
  exit 2
fi
tool=$(realpath "$1" 2>/dev/null || echo "$1")
if [[ ! -x "$tool" ]]; then
  echo "interop: tool not found or not executable: $1" >&2
  exit 2
fi
for cmd in node npm zstd lz4 sha256sum; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "interop: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-interop.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---- node_modules, pinned by package-lock.json -------------------------------------------------
source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

passed=0
failed=0
pass() { passed=$((passed + 1)); printf 'PASS  %-8s %s%s\n' "$1" "$2" "${3:+  ($3)}"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %-8s %s: %s\n' "$1" "$2" "$3"; }
# The most telling line of an error log (skipping node's stack trace).
first_error() {
  local line
  line=$(grep -m1 -E '(^|[^A-Za-z])(Error|error)' "$1" || true)
  [[ -n "$line" ]] || line=$(head -n1 "$1")
  printf '%s' "${line:-<no message>}" | cut -c1-300
}

# Compares $1 (expected) with $2 (actual) for check $3 / case $4.
compare() {
  local diff
  if diff=$(node "$here/compare.mjs" "$1" "$2" 2>&1); then
    pass "$3" "$4"
  else
    fail "$3" "$4" "${diff:-compare failed}"
  fi
}

mkdir -p "$tmp/cpp" "$tmp/js" "$tmp/out"

if ! "$tool" write "$tmp/cpp" >"$tmp/cpp.log" 2>&1; then
  if grep -q '^case-failed ' "$tmp/cpp.log"; then
    while IFS= read -r line; do
      line=${line#case-failed }
      fail write "${line%%:*}" "our writer failed: ${line#*: }"
    done < <(grep '^case-failed ' "$tmp/cpp.log")
  else
    fail write cpp "ipc_interop_tool write failed: $(first_error "$tmp/cpp.log")"
  fi
fi
if ! node "$here/write_js.mjs" "$tmp/js" >"$tmp/js.log" 2>&1; then
  fail write js "write_js.mjs failed: $(first_error "$tmp/js.log")"
fi

shopt -s nullglob

# (a) ours -> arrow-js
for f in "$tmp"/cpp/*.arrows "$tmp"/cpp/*.arrow; do
  name=$(basename "$f")
  base=${f%.*}
  out="$tmp/out/${name}.cpp-js.json"
  if node "$here/read_js.mjs" "$f" "$out" 2>"$tmp/err"; then
    compare "$base.json" "$out" "cpp->js" "$name"
  else
    fail "cpp->js" "$name" "arrow-js cannot read it: $(first_error "$tmp/err")"
  fi
done

# (b) arrow-js -> arrow-js, and (c) arrow-js -> ours
for f in "$tmp"/js/*.arrows "$tmp"/js/*.arrow; do
  name=$(basename "$f")
  base=${f%.*}
  out="$tmp/out/${name}.js-js.json"
  if node "$here/read_js.mjs" "$f" "$out" 2>"$tmp/err"; then
    compare "$base.json" "$out" "js->js" "$name"
  else
    fail "js->js" "$name" "arrow-js cannot read its own file: $(first_error "$tmp/err")"
  fi

  expect=$(cat "$base.expect" 2>/dev/null || echo equal)
  out="$tmp/out/${name}.js-cpp.json"
  "$tool" read "$f" "$out" 2>"$tmp/err"
  rc=$?
  if [[ $rc -eq 0 ]]; then
    compare "$base.json" "$out" "js->cpp" "$name"
  elif [[ $rc -eq 1 && "$expect" == reject-or-equal ]]; then
    pass "js->cpp" "$name" "rejected as expected: $(first_error "$tmp/err")"
  elif [[ $rc -eq 1 ]]; then
    fail "js->cpp" "$name" "our reader rejected it: $(first_error "$tmp/err")"
  else
    fail "js->cpp" "$name" "ipc_interop_tool crashed (exit $rc): $(first_error "$tmp/err")"
  fi
done

if [[ $((passed + failed)) -eq 0 ]]; then
  fail run none "no cases were produced"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
