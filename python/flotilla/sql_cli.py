"""`flotilla sql --runner dask[=ADDRESS] "..."`: the command line's SQL run on the distributed
runner (the `flotilla` program hands such runs to this module, since Dask lives in Python).

    python3 -m flotilla.sql_cli --runner dask [--tables DIR]... [--format table|csv] "SELECT ..."
"""

import argparse
import os
import sys

import flotilla


def _tables(dirs):
    """Every Parquet/CSV/JSON file (or directory of them) under each DIR, named by its stem."""
    out = {}
    readers = {".parquet": flotilla.read_parquet, ".csv": flotilla.read_csv, ".json": flotilla.read_json,
               ".jsonl": flotilla.read_json, ".ndjson": flotilla.read_json}
    for d in dirs:
        for entry in sorted(os.listdir(d)):
            stem, ext = os.path.splitext(entry)
            if ext in readers:
                out[stem] = readers[ext](os.path.join(d, entry))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="flotilla sql")
    p.add_argument("query")
    p.add_argument("--runner", default="dask")
    p.add_argument("--tables", action="append", default=[])
    p.add_argument("--format", default="table", choices=["table", "csv"])
    a = p.parse_args(argv)
    if a.runner == "dask" or a.runner.startswith("dask="):
        flotilla.set_runner_dask(address=a.runner[5:] or None)
    elif a.runner != "local":
        print(f"Error: unknown runner '{a.runner}' (local, dask or dask=ADDRESS)", file=sys.stderr)
        return 2
    try:
        df = flotilla.sql(a.query, **_tables(a.tables))
        if a.format == "csv":
            d = df.to_pydict()
            print(",".join(d))
            for row in zip(*d.values()):
                print(",".join("" if v is None else str(v) for v in row))
        else:
            batch = df._batch()
            print(batch.to_string(40, 32))
    except Exception as e:  # noqa: BLE001 - the message is the user's answer
        print(f"Error: {e}", file=sys.stderr)
        return 1
    finally:
        flotilla.set_runner_local()
    return 0


if __name__ == "__main__":
    sys.exit(main())
