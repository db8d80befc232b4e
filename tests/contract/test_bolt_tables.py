"""graph.stores.bolt's lazy driver tables give exactly the driver's own values, and a driver
module whose source no longer holds the replaced statements is imported as it is."""

from __future__ import annotations

import calendar
import struct
import subprocess
import sys
import textwrap

from graph.stores import bolt


def test_table_computes_each_entry_once_on_first_read():
    calls: list[tuple[int, int]] = []

    def month_key(year: int, month: int) -> int:
        calls.append((year, month))
        return year * 100 + month

    table = bolt.Table(month_key)
    assert table[2024, 2] == 202402 and table[2024, 2] == 202402
    assert calls == [(2024, 2)] and dict(table) == {(2024, 2): 202402}
    assert bolt.Table(str.upper)["a"] == "A"  # a key that is not a tuple is passed as it is


def test_the_driver_tables_answer_as_the_driver_builds_them():
    """Every entry the driver would have built (years 1-9999, all 16-bit integers), from lazy tables."""
    import neo4j._codec.packstream.v1 as packstream
    import neo4j.time as neo4j_time

    assert isinstance(neo4j_time._DAYS_IN_MONTH, bolt.Table)  # this test process imported the driver through bolt
    years = range(neo4j_time.MIN_YEAR, neo4j_time.MAX_YEAR + 1)
    assert all(neo4j_time.Date.is_leap_year(y) == calendar.isleap(y) for y in years)
    assert all(neo4j_time.Date.days_in_year(y) == 365 + calendar.isleap(y) for y in years)
    assert all(neo4j_time.Date.days_in_month(y, m) == calendar.monthrange(y, m)[1] for y in years for m in range(1, 13))
    assert neo4j_time.Date(2024, 2, 29).to_native().isoformat() == "2024-02-29"
    assert all(packstream.PACKED_UINT_16[i] == struct.pack(">H", i) for i in range(0x10000))
    assert all(packstream.UNPACKED_UINT_16[struct.pack(">H", i)] == i for i in range(0, 0x10000, 257))


def test_a_module_is_imported_with_its_statements_replaced_or_as_it_is(tmp_path):
    """The statement as written: replaced, also when imported again from the kept .pyc; another
    driver version (the statement text differs): the module's own code runs."""
    source = "TABLE = {year: year % 4 == 0 for year in range(1, 10)}\n"
    (tmp_path / "fake_same.py").write_text(source)
    (tmp_path / "fake_other.py").write_text(source)
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from graph.stores import bolt
        bolt.LAZY_TABLES["fake_same"] = (({source.strip()!r}, "TABLE = _citegraph_table(lambda y: y % 4 == 1)"),)
        bolt.LAZY_TABLES["fake_other"] = (("TABLE = {{never written}}", "TABLE = _citegraph_table(len)"),)
        import fake_same, fake_other
        print(type(fake_same.TABLE).__name__, fake_same.TABLE[9], type(fake_other.TABLE).__name__, fake_other.TABLE[8])
    """)
    for _ in range(2):  # compiled, then from the kept .pyc
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["Table", "True", "dict", "True"]
    assert [p.name for p in (tmp_path / "__pycache__").glob("fake_same*.opt-citegraph.pyc")] != []
