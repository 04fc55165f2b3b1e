"""Near-duplicate detection with MinHash and locality-sensitive hashing, on any runner.

    kept = minhash_dedup(df, "text", "id", threshold=0.7)

The pipeline, each step a DataFrame query:
1. signatures: the text normalized (`normalize_text`: lower case, no punctuation, one space
   between words), then `minhash` over its word n-grams (`num_hashes` values);
2. banding: the signature cut into `bands` bands of `rows` values (chosen from the threshold,
   see `lsh_parameters`), each band hashed; documents whose band hashes are equal in some band
   are candidates;
3. edges: the pairs of documents that share a (band, hash) bucket, kept when their signatures
   agree in at least `threshold` of their values (MinHash's estimate of Jaccard similarity,
   counted with numpy over a batch of pairs);
4. connected components of those edges by label propagation: every document takes the smallest
   label among itself and its neighbours until no label changes (each round is a join and an
   aggregation, its result collected so the next round starts from it);
5. of each component the document with the smallest id is kept, with every document that has
   no candidate at all.

Ids must be integers (any width) and unique.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .dataframe import DataFrame
from .expressions import col, lit
from .udf import func


@dataclass(frozen=True)
class LshParameters:
    bands: int
    rows: int


def _integrate(f, a: float, b: float, steps: int = 200) -> float:
    h = (b - a) / steps
    return h * (sum(f(a + i * h) for i in range(1, steps)) + (f(a) + f(b)) / 2)


def lsh_parameters(threshold: float, num_hashes: int, false_positive_weight: float = 0.2,
                   false_negative_weight: float = 0.8) -> LshParameters:
    """Bands and rows (bands x rows <= num_hashes) minimising the weighted areas under the
    probability of becoming candidates below the threshold (false positives) and of not
    becoming candidates above it (false negatives): two documents of Jaccard similarity s share
    a band with probability 1 - (1 - s^rows)^bands. Missed pairs weigh more by default: a
    false candidate costs only its signature check, a missed one is lost."""
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
    if num_hashes < 1:
        raise ValueError(f"num_hashes must be positive, got {num_hashes}")
    best = None
    for bands in range(1, num_hashes + 1):
        for rows in range(1, num_hashes // bands + 1):
            fp = _integrate(lambda s: 1 - (1 - s ** rows) ** bands, 0.0, threshold)
            fn = _integrate(lambda s: (1 - s ** rows) ** bands, threshold, 1.0)
            error = false_positive_weight * fp + false_negative_weight * fn
            if best is None or error < best[0]:
                best = (error, bands, rows)
    return LshParameters(best[1], best[2])


def _signatures(df: DataFrame, text_column: str, id_column: str, num_hashes: int, ngram: int,
                seed: int) -> DataFrame:
    text = col(text_column).str.normalize()
    return df.select(col(id_column).cast("int64").alias("id"),
                     text.minhash(num_hashes, ngram, seed).alias("signature"))


@func(batch=True, return_dtype="bigint")
def _agreeing(signatures, others):
    """How many positions of two MinHash signatures hold the same value, row by row: the
    signatures arrive as 2-D arrays (one row per signature), compared in one step."""
    a, b = signatures.to_numpy(), others.to_numpy()
    if getattr(a, "ndim", 1) == 2 and getattr(b, "ndim", 1) == 2:
        return (a == b).sum(axis=1)
    return [sum(x == y for x, y in zip(p, q))
            for p, q in zip(signatures.to_pylist(), others.to_pylist())]


def _edges(signatures: DataFrame, params: LshParameters, num_hashes: int,
           threshold: float) -> DataFrame:
    """(id, rep) for each pair of documents that share a (band, hash) bucket and whose signatures
    agree in at least `threshold` of their values (the MinHash estimate of their Jaccard
    similarity): the check drops the candidates banding lets through below the threshold."""
    bands = None
    for band in range(params.bands):
        start = band * params.rows
        part = signatures.select(
            col("id"), lit(band).alias("band"),
            col("signature").list.slice(start, start + params.rows).hash().alias("bucket"))
        bands = part if bands is None else bands.concat(part)
    other = bands.select(col("id").alias("rep"), col("band"), col("bucket"))
    candidates = bands.join(other, on=["band", "bucket"]).where(col("rep") < col("id"))
    candidates = candidates.select(col("id"), col("rep")).distinct()
    pairs = candidates.join(signatures, on="id").join(
        signatures.select(col("id").alias("rep"), col("signature").alias("rep_signature")),
        on="rep")
    needed = math.ceil(threshold * num_hashes - 1e-9)
    agreeing = _agreeing(col("signature"), col("rep_signature"))
    return pairs.where(agreeing >= needed).select(col("id"), col("rep"))


def _components(edges: DataFrame, max_rounds: int) -> DataFrame:
    """(id, component): the smallest id connected to each document of `edges`."""
    both = edges.select(col("id").alias("node"), col("rep").alias("neighbour")).concat(
        edges.select(col("rep").alias("node"), col("id").alias("neighbour"))).collect()
    labels = both.select(col("node"), col("neighbour").alias("label")).groupby("node").agg(
        col("label").min().alias("label"))
    labels = labels.select(col("node"), (col("label").cast("int64")).alias("label")).collect()
    # A label can only shrink; a node whose label did not change in a round stops changing once
    # its neighbours' do, so a round with no change is the last.
    for _ in range(max_rounds):
        from_neighbours = both.join(labels.select(col("node").alias("neighbour"),
                                                  col("label").alias("offered")),
                                    on="neighbour").groupby("node").agg(
                                        col("offered").min().alias("offered"))
        step = labels.join(from_neighbours, on="node", how="left").select(
            col("node"), col("label"),
            col("offered").fill_null(col("label")).alias("offered"))
        step = step.select(col("node"), col("label"),
                           (col("offered") < col("label")).if_else(col("offered"), col("label"))
                           .alias("next")).collect()
        changed = step.where(col("next") != col("label")).count_rows()
        labels = step.select(col("node"), col("next").alias("label")).collect()
        if changed == 0:
            return labels.select(col("node").alias("id"), col("label").alias("component"))
    raise RuntimeError(f"minhash_dedup: connected components did not settle in {max_rounds} "
                       "rounds; raise max_rounds")


def minhash_pairs(df: DataFrame, text_column: str, id_column: str, threshold: float = 0.7,
                  num_hashes: int = 128, ngram: int = 5, seed: int = 42) -> DataFrame:
    """The near-duplicate pairs (id, rep) with rep < id: documents that share a band and whose
    MinHash signatures estimate their Jaccard similarity at `threshold` or more."""
    params = lsh_parameters(threshold, num_hashes)
    signatures = _signatures(df, text_column, id_column, num_hashes, ngram, seed).collect()
    ids = signatures.select(col("id"))
    if ids.where(col("id").is_null()).count_rows() or \
            ids.distinct().count_rows() != ids.count_rows():
        raise ValueError(f"minhash dedup needs unique, non-null ids in column '{id_column}'")
    # A document without text has no signature, and no duplicate.
    signatures = signatures.where(col("signature").not_null())
    return _edges(signatures, params, num_hashes, threshold)


def minhash_dedup(df: DataFrame, text_column: str, id_column: str, threshold: float = 0.7,
                  num_hashes: int = 128, ngram: int = 5, seed: int = 42,
                  components: bool = False, max_rounds: int = 100) -> DataFrame:
    """The rows of `df` with near-duplicates removed: of each group of documents whose word
    n-gram sets are about `threshold` similar (Jaccard) or more, directly or through others, the
    one with the smallest id is kept. With `components=True` every row is returned instead, with
    a `component` column (the smallest id of its group; its own id when it has no duplicate).
    """
    edges = minhash_pairs(df, text_column, id_column, threshold, num_hashes, ngram, seed)
    groups = _components(edges.collect(), max_rounds)
    ids = df.select(col(id_column).cast("int64").alias("__dedup_id"), *[
        col(c) for c in df.column_names])
    joined = ids.join(groups.select(col("id").alias("__dedup_id"), col("component")),
                      on="__dedup_id", how="left")
    joined = joined.with_column("component",
                                col("component").fill_null(col("__dedup_id")))
    if components:
        return joined.select(*[col(c) for c in df.column_names], col("component"))
    kept = joined.where(col("component") == col("__dedup_id"))
    return kept.select(*[col(c) for c in df.column_names])


def planted_corpus(num_documents: int, duplicate_share: float = 0.3, seed: int = 7,
                   vocabulary: int = 5000) -> dict:
    """A corpus with near-duplicates of known membership, for tests and benchmarks: columns
    `id`, `text` (lower-case words, one space apart) and `origin` (the id of the document a
    near-duplicate was made from; its own id for an original). About `duplicate_share` of the
    documents are near-duplicates: an original with a few words replaced, a few inserted, or
    two of its sentences swapped."""
    import random

    rnd = random.Random(seed)
    words = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9)))
             for _ in range(vocabulary)]
    ids, texts, origins = [], [], []
    originals = []
    while len(ids) < num_documents:
        if originals and rnd.random() < duplicate_share:
            origin, base = rnd.choice(originals)
            text = list(base)
            edit = rnd.randrange(3)
            if edit == 0:  # a few words replaced
                for _ in range(max(1, len(text) // 40)):
                    text[rnd.randrange(len(text))] = rnd.choice(words)
            elif edit == 1:  # a few words inserted
                for _ in range(max(1, len(text) // 40)):
                    text.insert(rnd.randrange(len(text) + 1), rnd.choice(words))
            else:  # two sentences (runs of 12 words) swapped
                sentences = [text[i:i + 12] for i in range(0, len(text), 12)]
                i, j = rnd.sample(range(len(sentences)), 2) if len(sentences) > 1 else (0, 0)
                sentences[i], sentences[j] = sentences[j], sentences[i]
                text = [w for s in sentences for w in s]
        else:
            origin = len(ids)
            text = [rnd.choice(words) for _ in range(rnd.randint(60, 160))]
            originals.append((origin, text))
        ids.append(len(ids))
        texts.append(" ".join(text))
        origins.append(origin)
    return {"id": ids, "text": texts, "origin": origins}
