"""The 22 TPC-H queries written with Daft's DataFrame API (tpch/daft/queries.py: Daft programs
whose only change is `import flotilla as daft` / `from flotilla import col`) against the SQL
queries (tpch/queries/qNN.sql) on the same tables: the same column names, the same rows in the
same order, numbers equal within a relative 1e-9 (decimals exactly when both are decimals).

The databases and the comparison are tpch_compare.py's, shared with test_tpch.py: the SQL
corpus's tiny TPC-H database and a scale factor 0.02 one written by the build's program.
"""
import ast

import pytest

from tpch_compare import ROOT, load_programs, query_difference

PROGRAMS = ROOT / "tpch" / "daft" / "queries.py"
queries = load_programs(PROGRAMS)


@pytest.mark.parametrize("number", range(1, 23))
def test_daft_query_matches_sql(tpch_database, number):
    _, frames = tpch_database
    difference = query_difference(queries, number, frames)
    assert difference is None, f"q{number:02d}: {difference}"


def test_programs_import_only_what_daft_programs_import():
    """Only the import differs from a Daft program: flotilla is imported as `daft` or for `col`,
    and nothing else of flotilla's is named."""
    tree = ast.parse(PROGRAMS.read_text())
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    flotilla_imports = []
    for node in imports:
        if isinstance(node, ast.Import):
            flotilla_imports += [(a.name, a.asname) for a in node.names if a.name == "flotilla"]
        elif node.module == "flotilla":
            flotilla_imports += [(f"flotilla.{a.name}", a.asname) for a in node.names]
    assert sorted(flotilla_imports) == [("flotilla", "daft"), ("flotilla.col", None)]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "flotilla" not in names
