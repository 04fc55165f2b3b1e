"""Image batch inference: the pipeline (download, decode, resize, tensor, a PyTorch class UDF)
gives the labels a plain PyTorch loop over the same files gives, on the local runner and (the
example run as a program) on the Dask runner."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

import flotilla

ROOT = os.environ.get("FLOTILLA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "../.."))
EXAMPLE = os.path.join(ROOT, "examples", "image_inference.py")


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("image_inference", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labels_equal_a_plain_pytorch_loop(example, tmp_path):
    import torch

    sources = example.generate_images(str(tmp_path / "images"), 40, seed=9)
    weights = str(tmp_path / "model.pt")
    torch.save(example.build_model().state_dict(), weights)
    got = example.classify(sources, weights, size=48, top_k=3, concurrency=2).to_pydict()
    assert sorted(got["source"]) == sorted(sources)
    theirs = example.plain_loop(sources, weights, 48, 3, workers=0)
    ours = dict(zip(got["source"], got["labels"]))
    for source in sources:
        assert len(ours[source]) == 3
        assert ours[source][0] == theirs[source][0], source


def test_a_missing_image_names_its_url(example, tmp_path):
    import torch

    weights = str(tmp_path / "model.pt")
    torch.save(example.build_model().state_dict(), weights)
    with pytest.raises(Exception, match="nowhere.png"):
        example.classify([str(tmp_path / "nowhere.png")], weights, size=32).to_pydict()


def test_the_example_on_the_dask_runner(tmp_path):
    out = subprocess.run([sys.executable, EXAMPLE, "--output", str(tmp_path / "out"),
                          "--generate", "30", "--size", "32", "--runner", "dask", "--compare"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    agree = re.search(r"top-1 labels agree on (\d+) of (\d+)", out.stdout)
    assert agree and agree.group(1) == agree.group(2) == "30", out.stdout
    labels = flotilla.read_parquet(str(tmp_path / "out" / "labels")).to_pydict()
    assert len(labels["source"]) == 30
