#!/usr/bin/env bash
# `flotilla sql` end to end: --tables, -f, --format csv|json|table, --output, --set, errors and
# exit codes, the shell reading statements and dot-commands from stdin, and --runner dask.
set -euo pipefail
FLOTILLA=${1:?usage: sql_cli.sh path/to/flotilla}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$DIR/tables"
"$FLOTILLA" sql "COPY (SELECT * FROM (VALUES (1, 'ann', 3.50), (2, 'bob', NULL), (3, 'cy', 1.25)) v(id, name, score)) TO '$DIR/tables/people.parquet'" >/dev/null 2>&1
printf 'id,city\n1,Oslo\n3,Rome\n' > "$DIR/tables/cities.csv"

out=$("$FLOTILLA" sql --tables "$DIR/tables" --format csv \
  "SELECT p.id, name, city FROM people p JOIN cities c ON p.id = c.id ORDER BY p.id")
[ "$out" = $'id,name,city\n1,ann,Oslo\n3,cy,Rome' ] || fail "csv output: $out"

echo "SELECT count(*) AS n FROM people; SELECT sum(score) AS s FROM people WHERE id > 1" > "$DIR/q.sql"
out=$("$FLOTILLA" sql --tables "$DIR/tables" --format json -f "$DIR/q.sql")
[ "$out" = '{"s":"1.25"}' ] || fail "-f prints the last statement: $out"

"$FLOTILLA" sql --tables "$DIR/tables" --threads 1 --set maintain_order=true --format csv \
  --output "$DIR/out.csv" "SELECT name FROM people ORDER BY id DESC"
[ "$(cat "$DIR/out.csv")" = $'name\ncy\nbob\nann' ] || fail "--output: $(cat "$DIR/out.csv")"

out=$("$FLOTILLA" sql --tables "$DIR/tables" "SELECT id FROM people WHERE id = 2")
grep -q "│ *2 │" <<<"$out" || fail "table output: $out"

if err=$("$FLOTILLA" sql --tables "$DIR/tables" "SELECT nme FROM people" 2>&1); then
  fail "a bad column must exit non-zero"
fi
grep -q "did you mean 'name'" <<<"$err" || fail "error message: $err"
grep -q "\^" <<<"$err" || fail "error caret: $err"

out=$(printf "SELECT 40 + 2 AS answer;\nSELECT 'two'\n  || ' lines' AS s;\n" | "$FLOTILLA" sql --format csv)
[ "$out" = $'answer\n42\ns\ntwo lines' ] || fail "shell: $out"

# Shell commands between statements: .mode, .tables, .schema, .timer, .read, .quit.
echo "SELECT 5 AS five;" > "$DIR/five.sql"
out=$(printf '.mode csv\nCREATE TABLE t AS SELECT 1 AS a;\n.tables\n.schema t\n.timer on\nSELECT 2 AS b;\n.timer off\n.mode json\nSELECT 3 AS c;\n.read %s\n.quit\nSELECT 4;\n' "$DIR/five.sql" | "$FLOTILLA" sql 2>/dev/null)
expected=$'name\nt\ncolumn_name,column_type\na,int32\nb\n2\nRun Time (s): real X\n{"c":3}\n{"five":5}'
[ "$(sed -E 's/real [0-9.]+/real X/' <<<"$out")" = "$expected" ] || fail "shell commands: $out"
if printf '.mode fancy\nSELECT 1;\n' | "$FLOTILLA" sql >/dev/null 2>&1; then
  fail "an unknown .mode in a script must exit non-zero"
fi

out=$(printf "SELECT 1 + 1 AS two;\n" | "$FLOTILLA" --max-rows 5)
grep -q "│ *2 │" <<<"$out" || fail "flotilla with no subcommand reads SQL: $out"
if printf "SELECT nope;\nSELECT 1;\n" | "$FLOTILLA" sql >/dev/null 2>&1; then
  fail "a failing script on stdin must exit non-zero"
fi

# The distributed runner on a 2-worker Dask LocalCluster (started by the Python package).
out=$("$FLOTILLA" sql --runner dask --tables "$DIR/tables" --format csv \
  "SELECT id, upper(name) AS name FROM people WHERE id > 1" 2>/dev/null)
[ "$out" = $'id,name\n2,BOB\n3,CY' ] || fail "--runner dask: $out"
out=$(FLOTILLA_RUNNER=dask "$FLOTILLA" sql --tables "$DIR/tables" --format csv \
  "SELECT count(*) AS n, max(name) AS top FROM people" 2>/dev/null)
[ "$out" = $'n,top\n3,cy' ] || fail "FLOTILLA_RUNNER=dask aggregate: $out"
out=$(FLOTILLA_RUNNER=dask "$FLOTILLA" sql --tables "$DIR/tables" --format csv \
  "SELECT p.id, name, city FROM people p JOIN cities c ON p.id = c.id ORDER BY p.id" 2>/dev/null)
[ "$out" = $'id,name,city\n1,ann,Oslo\n3,cy,Rome' ] || fail "FLOTILLA_RUNNER=dask join: $out"

lines=$("$FLOTILLA" sql --help | wc -l)
[ "$lines" -le 24 ] || fail "flotilla sql --help has $lines lines (more than a screen)"

if "$FLOTILLA" sql --memory-limit lots "SELECT 1" 2>/dev/null; then fail "bad --memory-limit"; fi
for n in 0 -1 2000 two; do
  if err=$("$FLOTILLA" sql --threads "$n" "SELECT 1" 2>&1); then fail "--threads $n accepted"; fi
  grep -q "threads must be 1..1024, got '$n'" <<<"$err" || fail "--threads $n: $err"
done
# A temporary directory that does not exist matters only once something spills, and then it is
# an error naming it.
out=$(TMPDIR=/nonexistent "$FLOTILLA" sql --format csv "SELECT 1 AS x")
[ "$out" = $'x\n1' ] || fail "TMPDIR=/nonexistent without spilling: $out"
{ echo i; seq 1 20000; } > "$DIR/numbers.csv"
if err=$(TMPDIR=/nonexistent "$FLOTILLA" sql --memory-limit 64KiB \
    "SELECT count(*) FROM (SELECT i, repeat('x', 200) AS s FROM '$DIR/numbers.csv' ORDER BY s, i)" 2>&1); then
  fail "a spilling query with TMPDIR=/nonexistent must fail"
fi
grep -q "TMPDIR=/nonexistent) is not usable" <<<"$err" || fail "TMPDIR error: $err"
# A query that fails after rows were written leaves neither a partial --output nor a temporary
# file, and an earlier output stays as it was; the same for COPY.
failing="SELECT i, CAST(CASE WHEN i = 19999 THEN 'x' ELSE '1' END AS INT) AS c FROM '$DIR/numbers.csv'"
echo old > "$DIR/keep.csv"
for f in "$DIR/new.csv" "$DIR/keep.csv"; do
  if "$FLOTILLA" sql --set morsel_size=100 --format csv -o "$f" "$failing" 2>/dev/null; then
    fail "a failing query with -o must exit non-zero"
  fi
done
[ ! -e "$DIR/new.csv" ] || fail "-o left a partial file"
[ "$(cat "$DIR/keep.csv")" = old ] || fail "-o replaced the earlier output on failure"
if "$FLOTILLA" sql --set morsel_size=100 "COPY ($failing) TO '$DIR/copied.parquet'" 2>/dev/null; then
  fail "a failing COPY must exit non-zero"
fi
[ ! -e "$DIR/copied.parquet" ] || fail "COPY left a partial file"
leftovers=$(find "$DIR" -name '*.tmp' -o -name '*flotilla-tmp*')
[ -z "$leftovers" ] || fail "temporary files left: $leftovers"

# Spill directories: a killed process's are removed by the next process that spills there, and
# SIGTERM during a spilling query removes the query's own before the program dies of it.
mkdir -p "$DIR/tmp/flotilla-spill-999999999-0" && touch "$DIR/tmp/flotilla-spill-999999999-0/0.arrows"
{ echo i; seq 1 4000000; } > "$DIR/big.csv"
sorting="SELECT count(*) FROM (SELECT i, repeat('x', 50) || CAST(i AS VARCHAR) AS s FROM '$DIR/big.csv' ORDER BY s DESC)"
TMPDIR="$DIR/tmp" "$FLOTILLA" sql --memory-limit 1MiB "$sorting" >/dev/null
[ -z "$(ls "$DIR/tmp")" ] || fail "spill directories left: $(ls "$DIR/tmp")"
TMPDIR="$DIR/tmp" "$FLOTILLA" sql --memory-limit 1MiB "$sorting" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do ls "$DIR/tmp" | grep -q flotilla-spill && break; sleep 0.02; done
ls "$DIR/tmp" | grep -q flotilla-spill || fail "the sort did not spill"
kill -TERM "$pid"
status=0; wait "$pid" || status=$?
[ "$status" = 143 ] || fail "SIGTERM: exit status $status, not 143"
[ -z "$(ls "$DIR/tmp")" ] || fail "SIGTERM left spill directories: $(ls "$DIR/tmp")"
echo "sql_cli: ok"
