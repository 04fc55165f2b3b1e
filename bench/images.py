"""Image batch inference: images per second of examples/image_inference.py's pipeline
(download, decode, resize, tensor, a ResNet-18 class UDF) on the local and Dask runners, next
to a plain PyTorch loop (DataLoader with as many workers as UDF instances) in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/images.py [--images 2000] [--size 64]
"""

import argparse
import importlib.util
import os
import tempfile
import time

import flotilla

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--images", type=int, default=2000)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--concurrency", type=int, default=2)
    a = p.parse_args()
    spec = importlib.util.spec_from_file_location(
        "image_inference", os.path.join(HERE, "..", "examples", "image_inference.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    import torch

    d = tempfile.mkdtemp(prefix="flotilla-bench-images-")
    sources = example.generate_images(os.path.join(d, "images"), a.images)
    weights = os.path.join(d, "model.pt")
    torch.save(example.build_model().state_dict(), weights)

    def ours():
        got = example.classify(sources, weights, a.size, 3, a.concurrency).to_pydict()
        return dict(zip(got["source"], got["labels"]))

    start = time.perf_counter()
    theirs = example.plain_loop(sources, weights, a.size, 3, a.concurrency)
    plain = time.perf_counter() - start
    start = time.perf_counter()
    local = ours()
    local_s = time.perf_counter() - start
    flotilla.set_runner_dask(n_workers=a.concurrency)
    try:
        ours()  # starts the workers and their model instances
        start = time.perf_counter()
        dask = ours()
        dask_s = time.perf_counter() - start
    finally:
        flotilla.set_runner_local()
    n = len(sources)
    agree = sum(local[s][0] == theirs[s][0] for s in sources)
    assert dask == local
    print(f"{n} images at {a.size}x{a.size}, ResNet-18, {a.concurrency} instances / workers")
    print(f"plain PyTorch loop  {plain:7.2f} s  {n / plain:8.1f} images/s")
    print(f"flotilla local      {local_s:7.2f} s  {n / local_s:8.1f} images/s  "
          f"({plain / local_s:.2f}x the plain loop)")
    print(f"flotilla dask       {dask_s:7.2f} s  {n / dask_s:8.1f} images/s  "
          f"({plain / dask_s:.2f}x the plain loop; second run, workers warm)")
    print(f"top-1 labels equal to the plain loop's on {agree} of {n}; dask equal to local")


if __name__ == "__main__":
    main()
