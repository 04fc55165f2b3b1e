"""Document processing: normalise text, tokenise, filter with string functions, one row per
kept token.

    python3 examples/document_processing.py [--runner dask|local] [--docs 20000]
"""

import argparse
import random

import flotilla
from flotilla import col

WORDS = ["Flotilla", "engine", "Parquet", "ARROW", "shuffle", "worker", "  data ", "Query", "the", "a"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runner", default="dask", choices=["dask", "local"])
    p.add_argument("--docs", type=int, default=20000)
    a = p.parse_args()
    rnd = random.Random(3)
    docs = {"doc": list(range(a.docs)),
            "text": [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 30))) for _ in range(a.docs)]}
    if a.runner == "dask":
        flotilla.set_runner_dask(n_workers=2)
    df = flotilla.from_pydict(docs).into_partitions(4)
    df = df.select(col("doc"), col("text").str.lower().str.strip().alias("text"))
    df = df.where(col("text").str.length() > 20)
    tokens = df.select(col("doc"), col("text").str.split(" ").alias("token")).explode("token")
    tokens = tokens.where((col("token").str.length() > 3) & ~col("token").str.contains("the"))
    result = tokens.to_pydict()
    print(f"document processing ({a.runner}): {len(set(result['doc']))} documents, "
          f"{len(result['token'])} tokens kept")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
