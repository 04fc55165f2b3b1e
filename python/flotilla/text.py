"""Web text: the body of archived HTTP responses, and the quality filter web-corpus pipelines
apply before deduplication (the language-agnostic Gopher rules)."""
from __future__ import annotations

from .expressions import Expression, _call, _to_expr, col, lit

__all__ = ["http_body", "http_header", "html_text", "page_text", "uri_id", "quality_filter", "write_warc", "planted_crawl"]


def http_body(message) -> Expression:
    """The body of an HTTP message as bytes (a WARC response record's payload): what follows the
    header, with a chunked transfer coding undone. Null when the header is incomplete."""
    return _call("http_body", message)


def http_header(message, name: str) -> Expression:
    """The value of header field `name` (any case) of an HTTP message, or null."""
    return _call("http_header", message, name)


def html_text(payload) -> Expression:
    """The readable text of a WARC response record's payload: its HTTP body through html_to_text."""
    return _call("html_to_text", http_body(payload))


def page_text(records):
    """The pages of read_warc(...) rows as (uri, date, text): the HTML responses (WARC-Type
    response with an HTTP Content-Type of text/html) through html_text, and WET conversion
    records (text already extracted) as they are."""
    html = records.where((col("record_type") == "response")
                         & http_header(col("payload"), "Content-Type").str.startswith("text/html"))
    html = html.select(col("target_uri").alias("uri"), col("date"),
                       html_text(col("payload")).alias("text"))
    wet = records.where(col("record_type") == "conversion").select(
        col("target_uri").alias("uri"), col("date"),
        _call("decode", col("payload"), "replace").alias("text"))
    return html.concat(wet)


def uri_id(uri) -> Expression:
    """An int64 id from a page's URI (62 bits of its hash): the same page has the same id on any
    runner and in any partitioning, as minhash_dedup's ids must be unique integers."""
    return (_to_expr(uri).hash() % lit(1 << 62).cast("uint64")).cast("int64").alias("id")


def quality_filter(text, min_words: int = 50, max_words: int = 100_000,
                   min_mean_word_length: float = 3.0, max_mean_word_length: float = 10.0,
                   max_symbol_ratio: float = 0.1, min_alpha_word_ratio: float = 0.8,
                   max_duplicate_line_fraction: float = 0.3) -> Expression:
    """True for text worth keeping: between min_words and max_words words, a mean word length in
    [min_mean_word_length, max_mean_word_length] characters, at most max_symbol_ratio symbols
    ('#', '...') per word, at least min_alpha_word_ratio of words with a letter, and at most
    max_duplicate_line_fraction of lines repeating an earlier one. The defaults are the Gopher
    rules' (Rae et al., 2021). Null text is not kept."""
    t = _to_expr(text)
    words = t.str.word_count()
    mean = t.str.mean_word_length()
    keep = ((words >= min_words) & (words <= max_words)
            & (mean >= min_mean_word_length) & (mean <= max_mean_word_length)
            & (t.str.symbol_ratio() <= max_symbol_ratio)
            & (t.str.alpha_word_ratio() >= min_alpha_word_ratio)
            & (t.str.duplicate_line_fraction() <= max_duplicate_line_fraction))
    return keep.fill_null(False).alias("keep")


def write_warc(path: str, records: list[dict], gzip_members: bool = True) -> None:
    """Writes WARC/1.1 records ({"type", "uri", "payload": bytes, "content_type"}, optional
    "date") to `path`, each as its own gzip member when gzip_members (as Common Crawl ships them).
    For tests, benchmarks and examples."""
    import gzip
    import uuid

    with open(path, "wb") as f:
        for r in records:
            payload = r["payload"]
            fields = [("WARC-Type", r["type"]),
                      ("WARC-Record-ID", f"<urn:uuid:{uuid.UUID(int=r.get('id', 0))}>"),
                      ("WARC-Date", r.get("date", "2024-03-01T12:00:00Z"))]
            if r.get("uri"):
                fields.append(("WARC-Target-URI", r["uri"]))
            fields += [("Content-Type", r.get("content_type", "application/octet-stream")),
                       ("Content-Length", str(len(payload)))]
            record = (b"WARC/1.1\r\n" + b"".join(f"{k}: {v}\r\n".encode() for k, v in fields)
                      + b"\r\n" + payload + b"\r\n\r\n")
            f.write(gzip.compress(record, compresslevel=1) if gzip_members else record)


def planted_crawl(num_pages: int, seed: int = 7) -> tuple[list[dict], dict]:
    """WARC records of a small generated crawl, for tests and benchmarks: a warcinfo record, then
    per page a request and an HTTP response record. Pages are HTML around the texts of
    dedup.planted_corpus (so near-duplicate pages of known membership), and one page in five is
    junk the quality filter drops (too short, symbol runs, or one repeated line). Returns the
    records and, by page URI, {"text": the page's text, "origin": the URI of the page it was
    copied from (its own for an original), "junk": bool}."""
    import random

    from .dedup import planted_corpus

    rnd = random.Random(seed)
    corpus = planted_corpus(num_pages, seed=seed)
    records = [{"type": "warcinfo", "payload": b"software: flotilla planted_crawl\r\n",
                "content_type": "application/warc-fields", "id": 1}]
    truth = {}
    for i, (text, origin) in enumerate(zip(corpus["text"], corpus["origin"])):
        uri = f"https://example.com/page/{i}"
        kind = rnd.random()
        junk = kind < 0.2
        words = text.split(" ")
        lines = [" ".join(words[k:k + 20]) for k in range(0, len(words), 20)]
        if junk:
            if kind < 0.07:
                lines = ["buy now"]
            elif kind < 0.14:
                lines = [" ".join(["### ..."] * 20)] * 2
            else:
                lines = ["click here to subscribe to our weekly newsletter today"] * 30
        paragraphs = "".join(f"<p>{line}</p>\n" for line in lines)
        html = (f"<!DOCTYPE html><html><head><title>page {i}</title><script>track({i});</script>"
                f"</head><body><div class=main>{paragraphs}</div></body></html>")
        body = html.encode()
        response = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        records.append({"type": "request", "uri": uri, "id": 2 * i + 2,
                        "content_type": "application/http; msgtype=request",
                        "payload": f"GET /page/{i} HTTP/1.1\r\nHost: example.com\r\n\r\n".encode()})
        records.append({"type": "response", "uri": uri, "id": 2 * i + 3,
                        "content_type": "application/http; msgtype=response", "payload": response})
        truth[uri] = {"text": "\n".join([f"page {i}"] + lines),
                      "origin": f"https://example.com/page/{origin}", "junk": junk}
    return records, truth
