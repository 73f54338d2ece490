"""``input_columns``: an input's column names read without Spark (so that a column an option names and the input
lacks is refused before Spark starts), and ``None`` wherever only Spark can tell for sure."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from rocketroute.spark.cli import inputs
from rocketroute.spark.cli.inputs import input_columns


def _jsonl(path: Path, records: list[object], *, gz: bool = False) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in records).encode()
    path.write_bytes(gzip.compress(text) if gz else text)
    return path


def test_a_spark_written_csv_folder_is_read_as_spark_reads_it(spark, tmp_path):
    """The folders Spark itself writes (``part-*.csv`` or ``part-*.csv.gz``, ``_SUCCESS``, ``.crc`` files): the
    header of their data files, which is also the schema Spark reads back."""
    df = spark.createDataFrame([("a", 1), ("b", 2), ("c", 3)], "order_id string, bytes long").repartition(2)
    for codec in ("none", "gzip"):
        out = tmp_path / codec
        df.write.option("header", True).option("compression", codec).csv(str(out))
        names = {f.name for f in out.iterdir()}
        assert "_SUCCESS" in names and any(n.endswith(".crc") for n in names)
        assert any(n.endswith(".csv.gz" if codec == "gzip" else ".csv") for n in names)
        assert input_columns(str(out), "csv") == ["order_id", "bytes"]
        assert spark.read.option("header", True).csv(str(out)).columns == ["order_id", "bytes"]


def test_a_csv_folder_whose_files_disagree_or_hold_nothing_is_left_to_spark(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "_SUCCESS").write_text("")
    assert input_columns(str(folder), "csv") is None  # no data file
    (folder / "part-00000.csv").write_text("")  # an empty part: no header, as to Spark
    assert input_columns(str(folder), "csv") is None
    (folder / "part-00001.csv.gz").write_bytes(gzip.compress(b"\nkey,size\na,1\n"))  # a blank line first
    (folder / ".part-00001.csv.gz.crc").write_bytes(b"\x00\xff not csv")
    (folder / "_metadata_of_something").write_text("x,y\n")
    assert input_columns(str(folder), "csv") == ["key", "size"]
    (folder / "part-00002.csv").write_text("key,bytes\nb,2\n")  # which header Spark takes depends on the sizes
    assert input_columns(str(folder), "csv") is None
    (folder / "part-00002.csv").write_text("key,size\nb,2\n")
    assert input_columns(str(folder), "csv") == ["key", "size"]
    (folder / "k=1").mkdir()  # a partition: a column of its own
    assert input_columns(str(folder), "csv") is None


def test_a_gzipped_csv_file_and_other_codecs(tmp_path):
    gz = tmp_path / "m.csv.gz"
    gz.write_bytes(gzip.compress(b"key,size\na,1\n"))
    assert input_columns(str(gz), "csv") == ["key", "size"]
    (tmp_path / "m.csv.snappy").write_bytes(b"not readable here")
    assert input_columns(str(tmp_path / "m.csv.snappy"), "csv") is None
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(b"not gzip at all")
    assert input_columns(str(broken), "csv") is None  # Spark gives the reason


def test_json_lines_columns_are_every_records_keys(tmp_path):
    """Spark's columns are the union of all records' keys: a key seen only in the last record is a column."""
    records = [{"id": i, "size": 1} for i in range(1000)] + [{"id": 1000, "key": "k"}]
    src = _jsonl(tmp_path / "m.json", records)
    assert input_columns(str(src), "json") == ["id", "size", "key"]
    gz = _jsonl(tmp_path / "m.json.gz", records, gz=True)
    assert input_columns(str(gz), "json") == ["id", "size", "key"]
    folder = tmp_path / "out"
    folder.mkdir()
    _jsonl(folder / "part-00000.json", [{"id": 1}, {}])
    (folder / "part-00001.json").write_text('\n{"id": 2, "key": "k"}\n\n')  # blank lines are skipped
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-00000.json.crc").write_bytes(b"\x00\x01")
    assert input_columns(str(folder), "json") == ["id", "key"]


def test_json_spark_must_read_itself_is_none(tmp_path):
    cases = {
        "array.json": '{"key": "a"}\n[{"key": "b"}]\n',  # Spark reads an array's elements as rows
        "number.json": '{"key": "a"}\n1\n',
        "corrupt.json": '{"key": "a"}\n{"key": \n',
        "pretty.json": '{\n  "key": "a"\n}\n',  # a multi-line document, not JSON Lines
        "empty.json": "\n\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert input_columns(str(tmp_path / name), "json") is None, name


def test_json_bigger_than_the_limit_is_left_to_spark(tmp_path, monkeypatch):
    src = _jsonl(tmp_path / "m.json", [{"id": i} for i in range(100)])
    gz = _jsonl(tmp_path / "m.json.gz", [{"id": i} for i in range(100)], gz=True)
    assert input_columns(str(src), "json") == ["id"]
    monkeypatch.setattr(inputs, "JSON_SCAN_LIMIT", src.stat().st_size - 1)
    assert input_columns(str(src), "json") is None
    assert gz.stat().st_size < inputs.JSON_SCAN_LIMIT  # small on disk, bigger read
    assert input_columns(str(gz), "json") is None


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_a_missing_or_unreadable_input_is_none(tmp_path, fmt):
    assert input_columns(str(tmp_path / f"missing.{fmt}"), fmt) is None
    (tmp_path / f"bad.{fmt}").write_bytes(b"\xff\xfe\x00garbage" if fmt != "csv" else b'"open quote,key\n')
    assert input_columns(str(tmp_path / f"bad.{fmt}"), fmt) is None


def test_no_rows_is_said_only_when_sure(tmp_path):
    from rocketroute.spark.cli.inputs import input_has_no_rows

    cases = {
        "header.csv": ("key\n", True),
        "blank.csv": ("\nkey\n\n  \n", True),  # Spark skips blank lines
        "empty.csv": ("", True),
        "one.csv": ("key\na\n", False),
        "rows.json": ('{"key": "a"}\n', False),
        "empty.json": ("", False),  # JSON: Spark's to tell
    }
    for name, (text, empty) in cases.items():
        (tmp_path / name).write_text(text)
        assert input_has_no_rows(str(tmp_path / name), name.split(".")[1]) is empty, name
    folder = tmp_path / "parts"
    folder.mkdir()
    assert not input_has_no_rows(str(folder), "csv")  # no data file: Spark's error to give
    (folder / "part-0.csv.gz").write_bytes(gzip.compress(b"key\n"))
    assert input_has_no_rows(str(folder), "csv")
    (folder / "part-1.csv").write_text("key\nb\n")
    assert not input_has_no_rows(str(folder), "csv")
    assert not input_has_no_rows(str(tmp_path / "missing.parquet"), "parquet")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("in.parquet", "parquet"),
        ("in.csv.gz", "csv"),
        ("in.json", "json"),
        ("in.jsonl", "json"),
        ("in.ndjson.gz", "json"),
        ("in.JSONL.GZ", "json"),
    ],
)
def test_the_format_is_read_from_the_name(name: str, fmt: str) -> None:
    from rocketroute.spark.cli.inputs import input_format

    assert input_format(name, None) == fmt
    assert input_format(name, "csv") == "csv"  # --format wins


def test_a_name_without_a_known_format_asks_for_format() -> None:
    from rocketroute.errors import RocketRouteError
    from rocketroute.spark.cli.inputs import input_format

    with pytest.raises(RocketRouteError, match=re.escape("cannot tell the format of 'in.txt'; pass --format")):
        input_format("in.txt", None)
