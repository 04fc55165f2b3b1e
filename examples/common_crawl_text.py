"""Web text from a crawl: WARC files in, clean deduplicated page text out as Parquet.

    python3 examples/common_crawl_text.py --input 'crawl/*.warc.gz' --output /tmp/text \\
        [--threshold 0.7] [--min-words 50] [--runner local|dask]

The pipeline: read_warc -> the HTML responses (WARC-Type response, HTTP Content-Type text/html)
-> their text (the HTTP body through html_to_text) -> the quality filter (word counts, symbol
and letter ratios, repeated lines) -> MinHash near-duplicate removal -> Parquet with the page's
URI, crawl date and text. WET files (WARC-Type conversion, text already extracted) are read as
they are. Without --input, a crawl of --generate pages with planted near-duplicates and junk
pages is written first (to --output/input).
"""

import argparse
import os
import shutil
import time

import flotilla
from flotilla import col
from flotilla.dedup import minhash_dedup
from flotilla.text import page_text, planted_crawl, quality_filter, uri_id, write_warc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--input", help="WARC or WET files (a path, directory or glob; gzip or not)")
    p.add_argument("--output", required=True)
    p.add_argument("--threshold", type=float, default=0.7)
    p.add_argument("--min-words", type=int, default=50)
    p.add_argument("--runner", default="local", choices=["local", "dask"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--generate", type=int, default=5000,
                   help="pages to generate when there is no --input")
    a = p.parse_args()

    shutil.rmtree(a.output, ignore_errors=True)
    source = a.input
    if source is None:
        source = os.path.join(a.output, "input")
        os.makedirs(source)
        records, _ = planted_crawl(a.generate)
        half = len(records) // 2
        write_warc(os.path.join(source, "crawl-0.warc.gz"), records[:half])
        write_warc(os.path.join(source, "crawl-1.warc.gz"), records[half:])
    if a.runner == "dask":
        flotilla.set_runner_dask(n_workers=a.workers)
    start = time.perf_counter()
    records = flotilla.read_warc(source)
    pages = page_text(records).collect()
    # Ids from the URI, not from row positions: the same pages keep the same ids on any runner,
    # so the document kept of each near-duplicate group is the same too.
    good = pages.where(quality_filter(col("text"), min_words=a.min_words)).with_column(
        "id", uri_id(col("uri"))).collect()
    kept = minhash_dedup(good, "text", "id", threshold=a.threshold)
    kept.select("uri", "date", "text").write_parquet(os.path.join(a.output, "text"))
    seconds = time.perf_counter() - start
    n_pages, n_good = pages.count_rows(), good.count_rows()
    n_kept = flotilla.read_parquet(os.path.join(a.output, "text")).count_rows()
    print(f"common crawl text ({a.runner}): {n_pages} pages -> {n_good} pass the quality filter "
          f"-> {n_kept} after near-duplicate removal, in {seconds:.2f} s "
          f"({n_pages / seconds:,.0f} pages/s); Parquet under {a.output}/text")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
