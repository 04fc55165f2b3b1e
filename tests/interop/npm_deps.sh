# Sourced by the test drivers in this folder: makes sure node_modules matches package-lock.json.
#
#   source npm_deps.sh; ensure_node_modules "$here" "$log_file" || exit 1
#
# Several test processes may run at once: the check-and-install is serialized with flock on a
# lock file outside the tree. Installs with `npm ci` when node_modules is missing or was installed
# from another lock file.
ensure_node_modules() {
  local dir=$1 log=$2 lock="" want stamp
  if command -v flock >/dev/null 2>&1; then
    lock="${TMPDIR:-/tmp}/flotilla-npm-$(printf '%s' "$dir" | sha256sum | cut -c1-16).lock"
    exec 9>"$lock"
    flock 9
  fi
  stamp="$dir/node_modules/.flotilla-lock-stamp"
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [[ ! -f "$dir/node_modules/apache-arrow/package.json" ||
        ! -f "$dir/node_modules/@duckdb/node-api/package.json" ||
        ! -f "$dir/node_modules/warcio/package.json" ||
        ! -f "$dir/node_modules/@grpc/grpc-js/package.json" ||
        ! -f "$dir/node_modules/@grpc/proto-loader/package.json" || ! -f "$stamp" ||
        "$(cat "$stamp")" != "$want" ]]; then
    if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
      echo "npm ci failed in $dir:" >&2
      cat "$log" >&2
      [[ -n "$lock" ]] && exec 9>&-
      return 1
    fi
    echo "$want" >"$stamp"
  fi
  [[ -n "$lock" ]] && exec 9>&-
  return 0
}
