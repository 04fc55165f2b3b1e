"""MinHash deduplication: quality against exact Jaccard similarity, and throughput on the local
and Dask runners side by side.

    PYTHONPATH=build/python /usr/bin/python3 bench/dedup.py [--docs 1000000] [--quality-docs 2000]

Quality: on a planted corpus of --quality-docs documents, the pairs put in one component are
compared with the pairs whose word 5-gram sets have Jaccard similarity >= the threshold
(computed here, exactly), for several thresholds: precision, recall, and the LSH bands x rows.
Throughput: --docs documents written as Parquet (4 files), deduplicated at threshold 0.7 on
each runner; documents per second and the kept count (equal on both runners, or this fails).
"""

import argparse
import itertools
import os
import shutil
import tempfile
import time

import flotilla
from flotilla.dedup import lsh_parameters, minhash_dedup, minhash_pairs, planted_corpus


def shingles(text, n=5):
    words = text.split()
    return frozenset(" ".join(words[i:i + n]) for i in range(max(1, len(words) - n + 1)))


def quality(docs: int):
    corpus = planted_corpus(docs, seed=3)
    sets = [shingles(t) for t in corpus["text"]]
    similarity = {}
    for i, j in itertools.combinations(range(len(sets)), 2):
        inter = len(sets[i] & sets[j])
        if inter:
            similarity[(i, j)] = inter / len(sets[i] | sets[j])
    df = flotilla.from_pydict({"id": corpus["id"], "text": corpus["text"]})
    print(f"quality on {docs} documents, against the pairs of exact Jaccard >= threshold: the")
    print("pairs the signature check accepts, and the pairs that end up in one component")
    print("threshold  bands x rows  true pairs | pairs  precision  recall | in components"
          "  precision  recall")
    for threshold in (0.5, 0.6, 0.7, 0.8, 0.9):
        truth = {p for p, s in similarity.items() if s >= threshold}
        out = minhash_dedup(df, "text", "id", threshold=threshold, components=True).to_pydict()
        groups = {}
        for i, c in zip(out["id"], out["component"]):
            groups.setdefault(c, []).append(i)
        found = {p for g in groups.values() for p in itertools.combinations(sorted(g), 2)}
        hits = len(found & truth)
        direct = minhash_pairs(df, "text", "id", threshold=threshold).to_pydict()
        direct = {(r, i) for i, r in zip(direct["id"], direct["rep"])}
        direct_hits = len(direct & truth)
        p = lsh_parameters(threshold, 128)
        print(f"{threshold:9.1f}  {p.bands:5d} x {p.rows:<5d} {len(truth):10d} | {len(direct):5d}"
              f"  {direct_hits / max(1, len(direct)):9.3f}  {direct_hits / max(1, len(truth)):6.3f}"
              f" | {len(found):13d}  {hits / max(1, len(found)):9.3f}"
              f"  {hits / max(1, len(truth)):6.3f}")


def throughput(docs: int, runners, workers: int):
    root = tempfile.mkdtemp(prefix="flotilla-dedup-")
    try:
        start = time.perf_counter()
        flotilla.from_pydict(planted_corpus(docs, seed=9)).into_partitions(4).write_parquet(
            os.path.join(root, "docs"))
        print(f"\nthroughput: {docs} documents generated in {time.perf_counter() - start:.1f} s")
        kept = {}
        for name in runners:
            if name == "dask":
                flotilla.set_runner_dask(n_workers=workers, progress=False)
            start = time.perf_counter()
            df = flotilla.read_parquet(os.path.join(root, "docs"))
            minhash_dedup(df, "text", "id").write_parquet(os.path.join(root, f"kept-{name}"))
            seconds = time.perf_counter() - start
            kept[name] = flotilla.read_parquet(os.path.join(root, f"kept-{name}")).count_rows()
            flotilla.set_runner_local()
            print(f"{name:6s} {seconds:8.1f} s  {docs / seconds:10,.0f} documents/s  "
                  f"{kept[name]} kept")
        if len(set(kept.values())) > 1:
            raise SystemExit(f"the runners kept different rows: {kept}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--docs", type=int, default=1_000_000)
    p.add_argument("--quality-docs", type=int, default=2000)
    p.add_argument("--runners", default="local,dask")
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    if a.quality_docs:
        quality(a.quality_docs)
    if a.docs:
        throughput(a.docs, a.runners.split(","), a.workers)


if __name__ == "__main__":
    main()
