"""Images as data: files downloaded (local paths, file:// and http:// from a server started
here), decoded, resized and turned into tensors, checked against Pillow reading the same files."""
import functools
import http.server
import threading

import numpy as np
import pytest

import flotilla
from flotilla import col

from PIL import Image  # noqa: E402  (python3-pil, installed by scripts/install-deps.sh)


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    d = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(7)
    paths = []
    for i, (fmt, ext, options) in enumerate([("PNG", "png", {}), ("JPEG", "jpg", {"quality": 90}),
                                             ("WEBP", "webp", {"lossless": True}),
                                             ("PNG", "png", {})]):
        pixels = rng.integers(0, 256, (30 + i, 41, 3), dtype=np.uint8)
        image = Image.fromarray(pixels)
        if i == 3:
            image = image.convert("RGBA")
        path = d / f"image{i}.{ext}"
        image.save(path, fmt, **options)
        paths.append(str(path))
    return d, paths


def pil_pixels(path, size=None):
    image = Image.open(path).convert("RGB")
    if size:
        image = image.resize(size, Image.BILINEAR)
    return np.asarray(image)


def test_decode_matches_pillow(images):
    _, paths = images
    got = flotilla.from_pydict({"path": paths}).select(
        col("path").url.download().image.decode(mode="RGB").alias("image")).to_pydict()["image"]
    for path, image in zip(paths, got):
        ours = np.frombuffer(image["data"], dtype=np.uint8).reshape(
            image["height"], image["width"], image["channels"])
        assert np.array_equal(ours, pil_pixels(path)), path


def test_resize_and_tensors_match_pillow_within_rounding(images):
    _, paths = images
    df = flotilla.from_pydict({"path": paths}).select(
        col("path").url.download().image.decode().image.resize(24, 16)
        .image.to_tensor(16, 24, 3).alias("tensor"))
    batch = df.to_pydict()["tensor"]
    for path, tensor in zip(paths, batch):
        ours = np.asarray(tensor, dtype=np.int16).reshape(16, 24, 3)
        # Pillow rounds between its two passes; the difference is at most one step.
        assert np.abs(ours - pil_pixels(path, (24, 16)).astype(np.int16)).max() <= 1, path


def test_download_over_http_and_errors(images):
    d, paths = images
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(d))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        urls = [f"{base}/image0.png", "file://" + paths[1], None, f"{base}/missing.png"]
        df = flotilla.from_pydict({"url": urls})
        got = df.select(col("url").url.download(max_connections=2, on_error="null")
                        .alias("bytes")).to_pydict()["bytes"]
        assert got[0] == open(paths[0], "rb").read()
        assert got[1] == open(paths[1], "rb").read()
        assert got[2] is None and got[3] is None
        with pytest.raises(Exception, match="missing.png"):
            df.select(col("url").url.download()).to_pydict()
    finally:
        server.shutdown()


def test_bytes_that_are_not_images(images):
    df = flotilla.from_pydict({"b": [b"not an image", open(images[1][0], "rb").read()[:40]]})
    with pytest.raises(Exception, match="row 0.*not a JPEG, PNG or WebP"):
        df.select(col("b").image.decode()).to_pydict()
    got = df.select(col("b").image.decode(on_error="null").alias("i")).to_pydict()["i"]
    assert got == [None, None]


def test_encode_round_trips_through_pillow(images, tmp_path):
    _, paths = images
    df = flotilla.from_pydict({"path": paths[:1]})
    png = df.select(col("path").url.download().image.decode().image.encode("png")
                    .alias("png")).to_pydict()["png"][0]
    (tmp_path / "out.png").write_bytes(png)
    assert np.array_equal(pil_pixels(tmp_path / "out.png"), pil_pixels(paths[0]))
