"""`flotilla sql --runner dask[=ADDRESS] "..."` (or `--runner session=PATH`): the command line's
SQL run on the distributed runner (the `flotilla` program hands such runs to this module, since
Dask lives in Python).

    python3 -m flotilla.sql_cli --runner dask[=ADDRESS]|session=PATH [--workers N] [--tables DIR]...
        [--format table|csv|json] [--output FILE] "SELECT ...; SELECT ..."

The statements run in one SQL session, as the local command line runs them; every query's plan
(and every plan the planner needs answered, as scalar subqueries) runs on the cluster. The last
statement's rows are printed as the local command line prints them.
"""

import argparse
import os
import sys

import flotilla
from flotilla import _flotilla as _ext


def _render(rows, is_text: bool, fmt: str) -> str:
    if rows.num_columns == 0:
        return ""
    if is_text:  # lines to print as they are (EXPLAIN)
        return "".join(f"{line}\n" for line in next(iter(rows.to_pydict().values())))
    if fmt == "table":
        return rows.to_string(40, 32)
    return rows.to_text(fmt).decode()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="flotilla sql")
    p.add_argument("query")
    p.add_argument("--runner", default="dask")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--tables", action="append", default=[])
    p.add_argument("--format", default="table", choices=["table", "csv", "json"])
    p.add_argument("--output", default=None)
    a = p.parse_args(argv)
    if not (a.runner == "dask" or a.runner.startswith(("dask=", "session="))):
        print(f"Error: unknown runner '{a.runner}' (dask, dask=ADDRESS or session=PATH)",
              file=sys.stderr)
        return 2
    try:
        session = _ext.Session()
        for d in a.tables:
            session.register_directory(d)
        if a.runner.startswith("session="):
            runner = flotilla.set_runner_session(a.runner[len("session="):])
        else:
            runner = flotilla.set_runner_dask(address=a.runner[5:] or None, n_workers=a.workers)
        runner.answer_subqueries(session)
        text = _render(*session.execute(a.query), a.format)
        if a.output:
            # Under a hidden temporary name beside it, renamed when complete, as the engine's
            # own --output: the file appears whole or not at all.
            directory, name = os.path.split(os.path.abspath(a.output))
            temp = os.path.join(directory, f".{name}.tmp")
            try:
                with open(temp, "w") as f:
                    f.write(text)
                os.replace(temp, a.output)
            finally:
                if os.path.exists(temp):
                    os.remove(temp)
        else:
            sys.stdout.write(text)
    except Exception as e:  # noqa: BLE001 - the message is the user's answer
        print(f"Error: {e}", file=sys.stderr)
        return 1
    finally:
        flotilla.set_runner_local()
    return 0


if __name__ == "__main__":
    sys.exit(main())
