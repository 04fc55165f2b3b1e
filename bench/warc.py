"""WARC reading and web-text extraction: records per second on a generated crawl of about
--gigabytes of gzip-member-per-record WARC (as Common Crawl ships them), next to a reader
written with Python's gzip module, and the page-text pipeline on the local and Dask runners.

    PYTHONPATH=build/python /usr/bin/python3 bench/warc.py [--gigabytes 1] [--files 4]

The crawl (pages of HTML around generated text, a request and a response record each) is written
once to --dir and reused while its size matches.
  scan         SELECT count(*), sum(content_length) FROM read_warc(dir): every record parsed
  stdlib       the same count and sum with gzip.open and header parsing in Python
  page text    page_text (http_header, http_body, html_to_text) + quality_filter, rows kept
"""

import argparse
import gzip
import os
import random
import time

import flotilla
from flotilla import col
from flotilla.text import page_text, quality_filter, write_warc


def generate(directory: str, gigabytes: float, files: int) -> None:
    rnd = random.Random(11)
    words = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9)))
             for _ in range(20000)]
    bodies = []
    for _ in range(500):
        paragraphs = "".join(
            "<p>" + " ".join(rnd.choice(words) for _ in range(rnd.randint(15, 40))) + "</p>\n"
            for _ in range(rnd.randint(5, 40)))
        html = ("<!DOCTYPE html><html><head><title>a page</title><script>var t = 1;</script>"
                f"<style>p {{ margin: 0 }}</style></head><body><nav><a href=/>home</a></nav>"
                f"<div class=main>{paragraphs}</div><footer>footer</footer></body></html>")
        bodies.append(html.encode())
    target = int(gigabytes * (1 << 30) / files)
    os.makedirs(directory, exist_ok=True)
    page = 0
    for f in range(files):
        path = os.path.join(directory, f"crawl-{f}.warc.gz")
        with open(path + ".tmp", "wb") as out:
            while out.tell() < target:
                records = []
                for _ in range(500):
                    body = bodies[rnd.randrange(len(bodies))]
                    uri = f"https://example.com/{page}"
                    records.append({"type": "request", "uri": uri, "id": 2 * page,
                                    "content_type": "application/http; msgtype=request",
                                    "payload": f"GET /{page} HTTP/1.1\r\n\r\n".encode()})
                    records.append({"type": "response", "uri": uri, "id": 2 * page + 1,
                                    "content_type": "application/http; msgtype=response",
                                    "payload": b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                                               + f"Content-Length: {len(body)}\r\n\r\n".encode()
                                               + body})
                    page += 1
                out.write(_records_bytes(records))
        os.replace(path + ".tmp", path)


def _records_bytes(records) -> bytes:
    import tempfile
    with tempfile.NamedTemporaryFile() as tmp:
        write_warc(tmp.name, records)
        return tmp.read()


def stdlib_scan(directory: str):
    """Every record of every file with the standard library: its count and block bytes."""
    count = total = 0
    for name in sorted(os.listdir(directory)):
        with gzip.open(os.path.join(directory, name), "rb") as f:
            while True:
                line = f.readline()
                if not line:
                    break
                if not line.startswith(b"WARC/"):
                    continue
                length = 0
                while True:
                    h = f.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    if h.lower().startswith(b"content-length:"):
                        length = int(h.split(b":", 1)[1])
                f.read(length)
                count += 1
                total += length
    return count, total


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gigabytes", type=float, default=1.0)
    p.add_argument("--files", type=int, default=4)
    p.add_argument("--dir", default="/tmp/flotilla-bench-warc")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--skip-dask", action="store_true")
    a = p.parse_args()
    size = sum(os.path.getsize(os.path.join(a.dir, n)) for n in os.listdir(a.dir)
               if n.endswith(".warc.gz")) if os.path.isdir(a.dir) else 0
    if abs(size - a.gigabytes * (1 << 30)) > 0.1 * a.gigabytes * (1 << 30):
        print(f"writing a crawl of {a.gigabytes} GiB in {a.files} files to {a.dir} ...")
        for n in os.listdir(a.dir) if os.path.isdir(a.dir) else []:
            os.remove(os.path.join(a.dir, n))
        generate(a.dir, a.gigabytes, a.files)
        size = sum(os.path.getsize(os.path.join(a.dir, n)) for n in os.listdir(a.dir))
    print(f"crawl: {size / (1 << 30):.2f} GiB of gzip WARC in {len(os.listdir(a.dir))} files")

    (ours, seconds) = timed(lambda: flotilla.sql(
        f"SELECT count(*) AS n, sum(content_length) AS bytes FROM read_warc('{a.dir}')").to_pydict())
    n, block_bytes = ours["n"][0], ours["bytes"][0]
    print(f"scan       flotilla  {seconds:7.2f} s  {n / seconds:>10,.0f} records/s  "
          f"{size / seconds / 2**20:6.0f} MiB/s compressed, {block_bytes / seconds / 2**20:6.0f} "
          "MiB/s of blocks")
    (theirs, base) = timed(lambda: stdlib_scan(a.dir))
    assert theirs == (n, block_bytes), (theirs, n, block_bytes)
    print(f"scan       stdlib    {base:7.2f} s  {n / base:>10,.0f} records/s   "
          f"(flotilla {base / seconds:.1f}x)")

    def pipeline():
        pages = page_text(flotilla.read_warc(a.dir))
        return pages.where(quality_filter(col("text"))).count_rows()

    kept, local = timed(pipeline)
    print(f"page text  local     {local:7.2f} s  {n / 2 / local:>10,.0f} pages/s    {kept} kept")
    if not a.skip_dask:
        flotilla.set_runner_dask(n_workers=a.workers)
        try:
            kept_dask, dask = timed(pipeline)
        finally:
            flotilla.set_runner_local()
        assert kept_dask == kept, (kept_dask, kept)
        print(f"page text  dask x{a.workers}   {dask:7.2f} s  {n / 2 / dask:>10,.0f} pages/s    "
              f"{kept_dask} kept (local/dask time {local / dask:.2f})")


if __name__ == "__main__":
    main()
