"""Batch image classification: images -> download -> decode -> resize -> a PyTorch model ->
top-k labels -> Parquet.

    python3 examples/image_inference.py --output /tmp/inference [--input DIR | URLS.txt]
        [--weights model.pt] [--size 64] [--top-k 3] [--concurrency 2] [--gpus 1]
        [--runner local|dask] [--compare]

--input is a folder of JPEG/PNG/WebP files or a text file of URLs (http(s)://, file:// or
paths), one per line; without it --generate images are written first (to --output/input). The
model is torchvision's ResNet-18 over 10 classes: --weights loads a state dict from a path
(real trained weights); without it the example builds the model from a fixed seed and saves its
state dict (to --output/model.pt), which the class UDF then loads like any other weights file.
Each instance of the class UDF (--concurrency of them) loads the model once and classifies
batches of images as one tensor. --compare also runs a plain PyTorch loop (a DataLoader with
as many workers, Pillow decoding and bilinear resizing, the same normalisation and model) over
the same files, and prints how many top-1 labels agree and both speeds.
"""

import argparse
import os
import shutil
import time

import numpy as np

import flotilla
from flotilla import col

CLASSES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
           "truck"]
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def build_model():
    import torch
    import torchvision

    torch.manual_seed(0)
    return torchvision.models.resnet18(num_classes=len(CLASSES))


def load_model(weights: str, device: str = "cpu"):
    import torch

    model = build_model()
    model.load_state_dict(torch.load(weights, map_location="cpu"))
    return model.eval().to(device)


def predict(model, pixels: np.ndarray, top_k: int):
    """Top-k (labels, probabilities) for a batch of uint8 images of shape (n, h, w, 3)."""
    import torch

    x = (pixels.astype(np.float32) / 255.0 - MEAN) / STD
    device = next(model.parameters()).device
    with torch.inference_mode():
        logits = model(torch.from_numpy(x).permute(0, 3, 1, 2).contiguous().to(device))
        probabilities, indices = torch.softmax(logits, dim=1).topk(top_k, dim=1)
    return ([[CLASSES[i] for i in row] for row in indices.tolist()], probabilities.tolist())


def classifier(weights: str, size: int, top_k: int, concurrency: int, gpus: float = 0):
    """The class UDF: `concurrency` instances, each loading the model once (on a GPU of its own
    when gpus > 0: the distributed runner places instances by their num_gpus request)."""

    @flotilla.cls(concurrency=concurrency, return_dtype="list<string>", batch=True,
                  num_gpus=gpus or None)
    class Classifier:
        def __init__(self):
            import torch

            torch.set_num_threads(1)  # the instances are the parallelism
            self.model = load_model(weights, "cuda" if gpus else "cpu")

        def __call__(self, tensors):
            pixels = np.asarray(tensors.to_numpy(), dtype=np.uint8).reshape(-1, size, size, 3)
            return predict(self.model, pixels, top_k)[0]

    return Classifier()


def classify(sources, weights: str, size: int = 64, top_k: int = 3, concurrency: int = 2,
             gpus: float = 0):
    """The pipeline over a list of paths or URLs: a DataFrame of (source, labels)."""
    df = flotilla.from_pydict({"source": sources}).into_partitions(max(1, concurrency * 2))
    tensors = (col("source").url.download().image.decode(mode="RGB")
               .image.resize(size, size).image.to_tensor(size, size, 3))
    model = classifier(weights, size, top_k, concurrency, gpus)
    return df.select(col("source"), model(tensors).alias("labels"))


def plain_loop(sources, weights: str, size: int, top_k: int, workers: int):
    """The same classification as a plain PyTorch program: {source: labels}."""
    import torch
    from PIL import Image

    class Files(torch.utils.data.Dataset):
        def __len__(self):
            return len(sources)

        def __getitem__(self, i):
            image = Image.open(sources[i]).convert("RGB").resize((size, size), Image.BILINEAR)
            return np.array(image)  # writable, as torch.as_tensor wants

    torch.set_num_threads(max(1, workers))
    model = load_model(weights)
    loader = torch.utils.data.DataLoader(Files(), batch_size=64, num_workers=workers)
    labels = []
    for batch in loader:
        labels += predict(model, batch.numpy(), top_k)[0]
    return dict(zip(sources, labels))


def generate_images(directory: str, count: int, seed: int = 5) -> list:
    """`count` images of assorted sizes and formats: noise with a few filled shapes."""
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(seed)
    os.makedirs(directory, exist_ok=True)
    paths = []
    for i in range(count):
        w, h = int(rng.integers(48, 160)), int(rng.integers(48, 160))
        image = Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
        draw = ImageDraw.Draw(image)
        for _ in range(3):
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            draw.ellipse([x, y, x + w // 3, y + h // 3],
                         fill=tuple(int(c) for c in rng.integers(0, 256, 3)))
        ext = ("jpg", "png", "webp")[i % 3]
        path = os.path.join(directory, f"image{i:05d}.{ext}")
        image.save(path, quality=90)
        paths.append(path)
    return paths


def sources_of(spec: str) -> list:
    if os.path.isdir(spec):
        return sorted(os.path.join(spec, n) for n in os.listdir(spec)
                      if n.lower().endswith((".jpg", ".jpeg", ".png", ".webp")))
    with open(spec) as f:
        return [line.strip() for line in f if line.strip()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--input", help="a folder of images or a file of URLs, one per line")
    p.add_argument("--output", required=True)
    p.add_argument("--weights", help="a state dict for the model (default: built and saved here)")
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--top-k", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--runner", default="local", choices=["local", "dask"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--gpus", type=float, default=0, help="GPUs per model instance (CUDA)")
    p.add_argument("--generate", type=int, default=200)
    p.add_argument("--compare", action="store_true")
    a = p.parse_args()

    shutil.rmtree(a.output, ignore_errors=True)
    os.makedirs(a.output)
    sources = (sources_of(a.input) if a.input
               else generate_images(os.path.join(a.output, "input"), a.generate))
    weights = a.weights
    if weights is None:
        import torch

        weights = os.path.join(a.output, "model.pt")
        torch.save(build_model().state_dict(), weights)
    if a.runner == "dask":
        flotilla.set_runner_dask(n_workers=a.workers)
    start = time.perf_counter()
    out = classify(sources, weights, a.size, a.top_k, a.concurrency, a.gpus)
    out.write_parquet(os.path.join(a.output, "labels"))
    seconds = time.perf_counter() - start
    flotilla.set_runner_local()
    print(f"image inference ({a.runner}): {len(sources)} images in {seconds:.2f} s, "
          f"{len(sources) / seconds:,.1f} images/s; Parquet under {a.output}/labels")
    if a.compare:
        got = flotilla.read_parquet(os.path.join(a.output, "labels")).to_pydict()
        ours = dict(zip(got["source"], got["labels"]))
        start = time.perf_counter()
        theirs = plain_loop(sources, weights, a.size, a.top_k, a.concurrency)
        plain = time.perf_counter() - start
        same = sum(ours[s][0] == theirs[s][0] for s in sources)
        print(f"plain PyTorch loop: {len(sources) / plain:,.1f} images/s "
              f"(flotilla/plain speed {plain / seconds:.2f}); top-1 labels agree on {same} of "
              f"{len(sources)} images")


if __name__ == "__main__":
    main()
