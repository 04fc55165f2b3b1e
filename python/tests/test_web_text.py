"""Web text end to end: WARC files written here are read back record for record, page text
comes out of the HTML as generated, the quality filter drops exactly the planted junk, and the
example runs."""
import gzip
import io
import os
import subprocess
import sys

import pytest

import flotilla
from flotilla import col
from flotilla.text import page_text, planted_crawl, quality_filter, write_warc

PAGES = 300


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    d = tmp_path_factory.mktemp("crawl")
    records, truth = planted_crawl(PAGES, seed=3)
    write_warc(str(d / "a.warc.gz"), records[:250])
    write_warc(str(d / "b.warc"), records[250:], gzip_members=False)
    return d, records, truth


def test_records_come_back_as_written(crawl):
    d, records, _ = crawl
    got = flotilla.read_warc(str(d)).select(
        "record_type", "target_uri", "payload", "content_length", "record_offset").to_pydict()
    assert got["record_type"] == [r["type"] for r in records]
    assert got["target_uri"] == [r.get("uri") for r in records]
    assert got["payload"] == [r["payload"] for r in records]
    assert got["content_length"] == [len(r["payload"]) for r in records]
    # In the gzip file each record is its own member: its offset is where that member starts,
    # so decompressing from there gives the record.
    with open(d / "a.warc.gz", "rb") as f:
        data = f.read()
    for k in (0, 1, 125, 249):
        record = gzip.GzipFile(fileobj=io.BytesIO(data[got["record_offset"][k]:]))
        assert record.read(200).startswith(b"WARC/1.1\r\nWARC-Type: " + records[k]["type"].encode())


def test_sql_and_python_read_the_same(crawl):
    d, records, _ = crawl
    by_type = flotilla.sql(f"SELECT record_type, count(*) AS n FROM read_warc('{d}/*.warc*') "
                           "GROUP BY record_type ORDER BY record_type").to_pydict()
    expected = {}
    for r in records:
        expected[r["type"]] = expected.get(r["type"], 0) + 1
    assert dict(zip(by_type["record_type"], by_type["n"])) == expected


def test_page_text_and_quality_filter(crawl):
    d, _, truth = crawl
    pages = page_text(flotilla.read_warc(str(d))).to_pydict()
    assert sorted(pages["uri"]) == sorted(truth)
    for uri, text in zip(pages["uri"], pages["text"]):
        assert text == truth[uri]["text"], uri
    kept = page_text(flotilla.read_warc(str(d))).where(quality_filter(col("text"))).to_pydict()
    assert sorted(kept["uri"]) == sorted(u for u, t in truth.items() if not t["junk"])
    assert 0 < len(kept["uri"]) < PAGES


def test_damaged_files_name_the_offset_or_are_skipped(tmp_path):
    records, _ = planted_crawl(20, seed=1)
    write_warc(str(tmp_path / "ok.warc.gz"), records)
    data = (tmp_path / "ok.warc.gz").read_bytes()
    (tmp_path / "cut.warc.gz").write_bytes(data[:-20])
    with pytest.raises(Exception, match=r"cut\.warc\.gz.*offset \d+ is truncated"):
        flotilla.read_warc(str(tmp_path / "cut.warc.gz")).count_rows()
    assert flotilla.read_warc(str(tmp_path / "cut.warc.gz"),
                              ignore_errors=True).count_rows() == len(records) - 1


def test_common_crawl_example_runs(tmp_path):
    root = os.environ.get("FLOTILLA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "../.."))
    out = subprocess.run([sys.executable, os.path.join(root, "examples/common_crawl_text.py"),
                          "--output", str(tmp_path / "out"), "--generate", "400"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    kept = flotilla.read_parquet(str(tmp_path / "out" / "text")).to_pydict()
    assert set(kept) == {"uri", "date", "text"}
    _, truth = planted_crawl(400)
    good = [u for u, t in truth.items() if not t["junk"]]
    # Near-duplicates were removed, and only pages that passed the filter are kept.
    assert 0 < len(kept["uri"]) < len(good)
    assert set(kept["uri"]) <= set(good)
    assert "pages ->" in out.stdout
