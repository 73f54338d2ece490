"""The inputs of the Spark commands, looked at before Spark starts: their format, their column names (a
Parquet footer, CSV headers, the keys of JSON Lines records) and whether they surely hold no rows, so that a
mistake is one line instead of a Spark job's failure."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from ...errors import RocketRouteError

FORMATS = ("parquet", "csv", "json")


def input_format(path: str, fmt: str | None) -> str:
    """``fmt`` when given, else the format the input's name says (``.parquet``, ``.csv``, ``.json``, maybe
    ``.gz``; ``.jsonl`` and ``.ndjson`` are JSON Lines)."""
    if fmt:
        return fmt
    name = path.rstrip("/").lower()
    for f in FORMATS:
        if name.endswith("." + f) or name.endswith(f".{f}.gz"):
            return f
    if name.removesuffix(".gz").endswith((".jsonl", ".ndjson")):
        return "json"
    raise RocketRouteError(f"cannot tell the format of {path!r}; pass --format {'/'.join(FORMATS)}")


def check_input(path: str, fmt: str | None, what: str = "input") -> str:
    """Before Spark starts: the input exists and its format is known (``--format``, or from the name). Returns
    the format."""
    if not os.path.exists(path):
        raise RocketRouteError(f"{what} {path!r} does not exist")
    return input_format(path, fmt)


JSON_SCAN_LIMIT = 64 * 2**20
"""The most bytes of JSON (uncompressed) :func:`input_columns` reads to know every record's keys: 64 MiB."""

_HEADER_LIMIT = 2**20  # the most bytes read for a CSV file's first line
_FILE_LIMIT = 10_000  # the most data files whose first lines are read


def _spark_data_files(p: Path) -> list[Path] | None:
    """The files Spark reads for ``p``: the file itself, or the folder's files but those Spark skips (a name
    that starts with ``_`` or ``.``: ``_SUCCESS``, ``.part-0.csv.crc``; one ending ``._COPYING_``). ``None`` for a
    folder with a sub-folder Spark would read (partitions: columns of their own) or too many files."""
    if p.is_file():
        return [p]
    files = []
    for child in sorted(p.iterdir()):
        name = child.name
        if (name.startswith("_") and "=" not in name) or name.startswith(".") or name.endswith("._COPYING_"):
            continue
        if not child.is_file() or len(files) == _FILE_LIMIT:
            return None
        files.append(child)
    return files


def _open_data_file(f: Path) -> IO[bytes] | None:
    """``f``'s bytes as Spark reads them: gunzipped for ``.gz`` (Hadoop's codecs go by the name's suffix, case
    and all), ``None`` for another codec's suffix."""
    if f.name.endswith(".gz"):
        return gzip.open(f, "rb")
    if f.name.endswith((".bz2", ".deflate", ".lz4", ".snappy", ".zst")):
        return None
    return f.open("rb")


def _csv_header(f: Path) -> list[str] | None:
    """The first non-blank line of a CSV file, as Spark's header: ``[]`` for a file with none (Spark reads
    nothing of it), ``None`` for one that cannot be read here."""
    import csv

    opened = _open_data_file(f)
    if opened is None:
        return None
    with opened as fh:
        while True:
            line = fh.readline(_HEADER_LIMIT)
            if not line:
                return []
            if len(line) == _HEADER_LIMIT and not line.endswith(b"\n"):
                return None
            if line.strip():
                break
    text = line.rstrip(b"\r\n").decode("utf-8", errors="replace")
    if text.count('"') % 2:  # a quoted newline in the header: Spark (one line a record) reads it otherwise
        return None
    return next(csv.reader([text]), [])


def _json_keys(files: list[Path]) -> list[str] | None:
    """Every top-level key of every record of JSON Lines ``files``, in the order first seen: Spark's columns
    (it infers the union of all records' keys). ``None`` past :data:`JSON_SCAN_LIMIT`, at a line that is not a
    JSON object (Spark's corrupt-record handling decides), or with no record at all."""
    if sum(f.stat().st_size for f in files) > JSON_SCAN_LIMIT:
        return None
    keys: dict[str, None] = {}
    read = 0
    for f in files:
        opened = _open_data_file(f)
        if opened is None:
            return None
        with opened as fh:
            for line in fh:
                read += len(line)
                if read > JSON_SCAN_LIMIT:  # a gzipped file larger than it looked
                    return None
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    return None
                if not isinstance(record, dict):
                    return None
                keys.update(dict.fromkeys(record))
    return list(keys) if keys else None


def input_columns(path: str, fmt: str) -> list[str] | None:
    """The input's column names without Spark, where they can be read cheaply and surely:

    - Parquet (file or folder): its schema, from the footer (through pyarrow);
    - CSV: the header, the first line of the file, or of every data file of a folder (a Spark-written output:
      ``part-*.csv``, maybe ``.gz``; ``_SUCCESS`` and ``.crc`` skipped as Spark skips them) when they all agree;
    - JSON Lines (file or folder, maybe ``.gz``): the keys of every record, read whole when the input is at
      most :data:`JSON_SCAN_LIMIT` (64 MiB) uncompressed, since Spark's columns are the union of all records' keys
      and a key missing at first may come later.

    ``None`` where only Spark can tell (a bigger JSON input, a line that is not a JSON object, CSV files whose
    headers differ, a partitioned folder, another compression codec, an unreadable file): Spark then reads the
    input and the job checks its columns."""
    p = Path(path)
    try:
        if fmt == "parquet":
            import pyarrow.dataset as ds

            return list(ds.dataset(str(p), format="parquet").schema.names)
        if fmt not in ("csv", "json"):
            return None
        files = _spark_data_files(p)
        if not files:
            return None
        if fmt == "json":
            return _json_keys(files)
        headers = list(map(_csv_header, files))
        if any(h is None for h in headers):
            return None
        found = [h for h in headers if h]  # an empty file has no header
        if not found or any(h != found[0] for h in found):
            return None
        return found[0]
    except Exception:
        return None


def _csv_has_no_rows(f: Path) -> bool:
    """A CSV data file whose only non-blank line, if any, is its header (Spark skips blank lines)."""
    opened = _open_data_file(f)
    if opened is None:
        return False
    lines = 0
    with opened as fh:
        for line in fh:
            lines += bool(line.strip())
            if lines > 1:
                return False
    return True


def input_has_no_rows(path: str, fmt: str) -> bool:
    """``True`` when the input surely has no rows, known without Spark: Parquet whose footers count none, CSV
    whose data files hold a header and nothing else (a header-only file). ``False`` where it has rows, or
    where only Spark can tell (JSON, another codec, an unreadable file)."""
    p = Path(path)
    try:
        if fmt == "parquet":
            import pyarrow.dataset as ds

            return bool(ds.dataset(str(p), format="parquet").count_rows() == 0)
        if fmt == "csv":
            files = _spark_data_files(p)
            return bool(files) and all(_csv_has_no_rows(f) for f in files)
    except Exception:
        return False
    return False


def _check_parquet_file(path: str) -> None:
    """A file given as Parquet must end with Parquet's magic number (``PAR1``, or ``PARE`` for an encrypted
    footer), which is what Spark reads first: anything else (a CSV named ``.parquet``, a truncated copy) is
    refused before Spark starts, as Spark would refuse it."""
    p = Path(path)
    try:
        if not p.is_file():
            return
        with p.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(size - 4, 0))
            tail = f.read(4)
    except OSError:
        return  # Spark says why
    if size < 12 or tail not in (b"PAR1", b"PARE"):
        raise RocketRouteError(
            f"cannot read {path!r} as parquet: it is not a Parquet file (it does not end with Parquet's magic "
            "number, PAR1)"
        )


def check_columns(path: str, fmt: str, wanted: Sequence[tuple[str, str | None]], what: str = "input") -> None:
    """Before Spark starts: a Parquet file is one, and every column ``wanted`` names (``[("key", "order_id"),
    ...]``, ``None`` for an option not given) is in the input, where :func:`input_columns` can read its names."""
    if fmt == "parquet":
        _check_parquet_file(path)
    columns = input_columns(path, fmt)
    if columns is None:
        return
    for role, column in wanted:
        if column is not None and column not in columns:
            raise RocketRouteError(
                f"the {role} column {column!r} is not in the {what} {path!r} (columns: {sorted(columns)})"
            )
