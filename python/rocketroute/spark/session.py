"""A SparkSession for rocketroute jobs: local by default, quiet, with the executors on this Python."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

_LOG4J2 = Path(__file__).with_name("log4j2.properties")


def local_session(
    master: str | None = None, app_name: str = "rocketroute", *, quiet: bool = True, progress: bool | None = None
) -> Any:
    """A SparkSession on ``master`` (default ``local[*]``) whose Python workers run this interpreter, so
    the native extension they import is the one installed here. The UI is off. ``quiet``: Spark logs nothing
    short of a fatal error (a failed job still raises, with its cause); otherwise Spark's own logging (WARN).
    ``progress``: Spark's console progress bar (default: when not quiet). The JVM UDFs' jar
    (:mod:`rocketroute.spark.jvm`), when built, is on the driver's and the executors' class path
    (``spark.jars``)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from .jvm import jar_path

    builder = (
        SparkSession.builder.master(master or "local[*]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "true" if (not quiet if progress is None else progress) else "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.pyspark.python", sys.executable)
    )
    jar = jar_path()
    if jar is not None:
        builder = builder.config("spark.jars", str(jar))
    if quiet:  # no log lines, and no "Using Spark's default log4j profile" banner
        builder = builder.config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_LOG4J2.as_uri()}")
    spark = builder.getOrCreate()
    if quiet:  # a session made before (getOrCreate) may have started with other logging
        spark.sparkContext.setLogLevel("FATAL")
    return spark
