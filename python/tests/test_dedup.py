"""MinHash deduplication (flotilla.dedup) against exact Jaccard similarity of the same shingles,
computed here in Python on a corpus with planted near-duplicates."""

import itertools

import pytest

import flotilla
from flotilla import col
from flotilla.dedup import lsh_parameters, minhash_dedup, minhash_pairs, planted_corpus

THRESHOLD = 0.7
NGRAM = 5


def shingles(text, n=NGRAM):
    words = text.split()
    return {" ".join(words[i:i + n]) for i in range(max(1, len(words) - n + 1))}


def true_pairs(texts, threshold=THRESHOLD):
    sets = [shingles(t) for t in texts]
    return {(i, j) for i, j in itertools.combinations(range(len(sets)), 2)
            if len(sets[i] & sets[j]) / len(sets[i] | sets[j]) >= threshold}


def component_pairs(ids, components):
    groups = {}
    for i, c in zip(ids, components):
        groups.setdefault(c, []).append(i)
    return {p for g in groups.values() for p in itertools.combinations(sorted(g), 2)}


@pytest.fixture(scope="module")
def corpus():
    return planted_corpus(400, seed=11)


def test_lsh_parameters_put_the_s_curve_at_the_threshold():
    for threshold, hashes in [(0.5, 64), (0.7, 128), (0.8, 256), (0.9, 128)]:
        p = lsh_parameters(threshold, hashes)
        assert p.bands * p.rows <= hashes
        # A pair at the threshold is likely a candidate; one well below it is not.
        at = 1 - (1 - threshold ** p.rows) ** p.bands
        below = 1 - (1 - (threshold - 0.25) ** p.rows) ** p.bands
        assert at >= 0.6 and below <= 0.25, (threshold, p, at, below)
    with pytest.raises(ValueError, match="threshold"):
        lsh_parameters(1.5, 128)


def test_pairs_found_match_exact_jaccard(corpus):
    df = flotilla.from_pydict({"id": corpus["id"], "text": corpus["text"]})
    out = minhash_dedup(df, "text", "id", threshold=THRESHOLD, ngram=NGRAM,
                        components=True).sort("id").to_pydict()
    assert out["id"] == corpus["id"] and out["text"] == corpus["text"]
    truth = true_pairs(corpus["text"])
    found = component_pairs(out["id"], out["component"])
    hits = len(found & truth)
    precision, recall = hits / len(found), hits / len(truth)
    assert len(truth) > 50  # the corpus has near-duplicates to find
    assert recall >= 0.85, (precision, recall, len(truth), len(found))
    assert precision >= 0.75, (precision, recall, len(truth), len(found))
    # The pairs the signature check accepts, before components join them transitively.
    direct = minhash_pairs(df, "text", "id", threshold=THRESHOLD, ngram=NGRAM).to_pydict()
    direct = {(rep, i) for i, rep in zip(direct["id"], direct["rep"])}
    direct_hits = len(direct & truth)
    print("pairs: precision", direct_hits / len(direct), "recall", direct_hits / len(truth),
          "components: precision", precision, "recall", recall)
    assert direct_hits / len(direct) >= 0.85 and direct_hits / len(truth) >= 0.85
    assert direct <= found
    # A component is named by its smallest id.
    for i, c in zip(out["id"], out["component"]):
        assert c <= i
    for c in set(out["component"]):
        assert out["component"][out["id"].index(c)] == c


def test_keeps_one_row_per_component_with_every_column(corpus):
    df = flotilla.from_pydict(corpus)
    groups = minhash_dedup(df, "text", "id", components=True).to_pydict()
    kept = minhash_dedup(df, "text", "id").sort("id").to_pydict()
    assert list(kept) == ["id", "text", "origin"]
    assert kept["id"] == sorted(set(groups["component"]))
    by_id = dict(zip(corpus["id"], zip(corpus["text"], corpus["origin"])))
    assert list(zip(kept["text"], kept["origin"])) == [by_id[i] for i in kept["id"]]
    # Originals never made into near-duplicates stay.
    copied = {o for i, o in zip(corpus["id"], corpus["origin"]) if i != o}
    alone = [i for i, o in zip(corpus["id"], corpus["origin"]) if i == o and i not in copied]
    assert set(alone) <= set(kept["id"])


def test_documents_without_duplicates_are_all_kept():
    texts = [" ".join(f"w{i}x{j}" for j in range(30)) for i in range(20)]
    df = flotilla.from_pydict({"doc": list(range(100, 120)), "body": texts})
    assert minhash_dedup(df, "body", "doc").sort("doc").to_pydict()["doc"] == list(range(100, 120))


def test_bad_ids_and_missing_text():
    text = "one two three four five six seven eight nine ten"
    df = flotilla.from_pydict({"id": [1, 2, 2], "text": [text, text, "other words here"]})
    with pytest.raises(ValueError, match="unique, non-null ids in column 'id'"):
        minhash_dedup(df, "text", "id")
    df = flotilla.from_pydict({"id": [1, 2, 3, 4], "text": [None, text, None, text]})
    # Documents without text are kept, each on its own; the two equal texts are one.
    assert minhash_dedup(df, "text", "id").sort("id").to_pydict()["id"] == [1, 2, 3]


def test_collect_keeps_the_result_partitions():
    df = flotilla.from_pydict({"x": list(range(10))}).into_partitions(3)
    doubled = df.select((col("x") * 2).alias("y")).collect()
    assert doubled.num_partitions() == 3
    # Later queries start from the kept partitions, not from the query that made them.
    assert "== Logical plan ==\nInMemorySource: 3 partition(s), 10 rows\n" in doubled.explain()
    assert doubled.where(col("y") > 10).to_pydict() == {"y": [12, 14, 16, 18]}
