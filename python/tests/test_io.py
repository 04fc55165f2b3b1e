"""Reading and writing files."""
import json

import pytest

import flotilla
from flotilla import col


def test_parquet_round_trip_with_partitions(tmp_path, people):
    files = people.write_parquet(tmp_path / "out", partition_cols=["city"])
    written = files.to_pydict()
    assert sum(written["rows"]) == 5 and len(written["path"]) == 3
    back = flotilla.read_parquet(str(tmp_path / "out"))
    assert back.count_rows() == 5
    d = back.sort("id").to_pydict()
    assert d["name"] == ["ann", "bob", "cy", "dee", None]
    assert d["city"] == ["oslo", "rome", "oslo", None, "rome"]
    glob = flotilla.read_parquet(str(tmp_path / "out" / "city=oslo" / "*.parquet"))
    assert glob.count_rows() == 2
    paths = [p for p in written["path"] if "rome" in p]
    assert flotilla.read_parquet(paths).count_rows() == 2


def test_csv_and_json(tmp_path):
    (tmp_path / "a.csv").write_text("id,name\n1,x\n2,\n")
    df = flotilla.read_csv(str(tmp_path / "a.csv"))
    assert df.to_pydict() == {"id": [1, 2], "name": ["x", None]}
    typed = flotilla.read_csv(str(tmp_path / "a.csv"), schema={"id": "double", "name": "string"})
    assert typed.schema()["id"].dtype == "float64" and typed.to_pydict()["id"] == [1.0, 2.0]
    (tmp_path / "b.csv").write_text("1;y\n")
    assert flotilla.read_csv(str(tmp_path / "b.csv"), has_headers=False, delimiter=";").count_rows() == 1
    (tmp_path / "c.json").write_text('{"a": 1, "b": "p"}\n{"a": 2}\n')
    assert flotilla.read_json(str(tmp_path / "c.json")).to_pydict() == {"a": [1, 2], "b": ["p", None]}
    df.write_csv(tmp_path / "csv_out")
    df.write_json(tmp_path / "json_out")
    out_csv = list((tmp_path / "csv_out").glob("*.csv"))
    assert len(out_csv) == 1 and out_csv[0].read_text().splitlines()[0] == "id,name"
    lines = list((tmp_path / "json_out").glob("*.json"))[0].read_text().splitlines()
    assert [json.loads(l) for l in lines] == [{"id": 1, "name": "x"}, {"id": 2, "name": None}]


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(OSError, match="nope.parquet"):
        flotilla.read_parquet(str(tmp_path / "nope.parquet"))
