"""Near-duplicate removal with MinHash: Parquet documents in, the kept documents out as Parquet.

    python3 examples/minhash_dedup.py --input 'docs/*.parquet' --output /tmp/kept \\
        [--text-column text] [--id-column id] [--threshold 0.7] [--runner local|dask]

Without --input, a corpus of --generate documents with planted near-duplicates is written first
(to --output/input) and deduplicated. Ids must be unique integers.
"""

import argparse
import os
import shutil
import time

import flotilla
from flotilla.dedup import lsh_parameters, minhash_dedup, planted_corpus


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--input", help="Parquet files (a path, directory or glob)")
    p.add_argument("--output", required=True)
    p.add_argument("--text-column", default="text")
    p.add_argument("--id-column", default="id")
    p.add_argument("--threshold", type=float, default=0.7)
    p.add_argument("--num-hashes", type=int, default=128)
    p.add_argument("--ngram", type=int, default=5)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--runner", default="local", choices=["local", "dask"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--generate", type=int, default=20000,
                   help="documents to generate when there is no --input")
    a = p.parse_args()

    shutil.rmtree(a.output, ignore_errors=True)
    source = a.input
    if source is None:
        source = os.path.join(a.output, "input")
        flotilla.from_pydict(planted_corpus(a.generate)).into_partitions(4).write_parquet(source)
    if a.runner == "dask":
        flotilla.set_runner_dask(n_workers=a.workers)
    start = time.perf_counter()
    docs = flotilla.read_parquet(source)
    n = docs.count_rows()
    kept = minhash_dedup(docs, a.text_column, a.id_column, threshold=a.threshold,
                         num_hashes=a.num_hashes, ngram=a.ngram, seed=a.seed)
    written = kept.write_parquet(os.path.join(a.output, "kept")).to_pydict()
    seconds = time.perf_counter() - start
    k = flotilla.read_parquet(os.path.join(a.output, "kept")).count_rows()
    params = lsh_parameters(a.threshold, a.num_hashes)
    print(f"minhash dedup ({a.runner}): {n} documents -> {k} kept ({n - k} near-duplicates "
          f"removed) in {seconds:.2f} s, {n / seconds:,.0f} documents/s; {params.bands} bands "
          f"of {params.rows} rows; {len(written['path'])} file(s) under {a.output}/kept")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
