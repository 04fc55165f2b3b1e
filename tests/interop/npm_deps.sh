# Sourced by the test drivers (here, tests/browser, bench): makes sure a folder's node_modules
# matches its package-lock.json.
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
  local missing=0 dep
  # Every dependency package.json names must be there.
  for dep in $(node -e 'console.log(Object.keys(require(process.argv[1]).dependencies || {}).join(" "))' \
                 "$dir/package.json"); do
    [[ -f "$dir/node_modules/$dep/package.json" ]] || missing=1
  done
  if [[ $missing -eq 1 || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
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
