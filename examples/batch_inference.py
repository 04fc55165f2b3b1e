"""Batch inference: a class UDF loads a small numpy model once per actor and scores rows in
batches, with concurrency 2 (two model instances).

    python3 examples/batch_inference.py [--runner dask|local] [--rows 200000]
"""

import argparse
import os
import tempfile

import numpy as np

import flotilla
from flotilla import col


def save_model(path: str):
    """A logistic-regression 'model': 4 weights and a bias, saved as .npy."""
    np.save(path, np.array([0.8, -1.2, 0.5, 2.0, -0.3]))


@flotilla.cls(concurrency=2, return_dtype="float64", batch=True)
class Scorer:
    def __init__(self, path: str):
        self.w = np.load(path)  # loaded once per instance

    def __call__(self, a, b, c, d):
        x = np.stack([s.to_numpy() for s in (a, b, c, d)], axis=1)
        return list(1 / (1 + np.exp(-(x @ self.w[:4] + self.w[4]))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runner", default="dask", choices=["dask", "local"])
    p.add_argument("--rows", type=int, default=200000)
    a = p.parse_args()
    model = os.path.join(tempfile.mkdtemp(), "model.npy")
    save_model(model)
    rng = np.random.default_rng(7)
    data = {name: rng.normal(size=a.rows).tolist() for name in ("a", "b", "c", "d")}
    data["id"] = list(range(a.rows))
    if a.runner == "dask":
        flotilla.set_runner_dask(n_workers=2)
    df = flotilla.from_pydict(data).into_partitions(8)
    score = Scorer(model)
    out = df.select(col("id"), score(col("a"), col("b"), col("c"), col("d")).alias("p"))
    result = out.where(col("p") > 0.9).to_pydict()
    print(f"batch inference ({a.runner}): {len(result['id'])} of {a.rows} rows scored above 0.9")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
