"""The JVM UDFs: Java classes (``java/src/io/rocketroute/udf``) compiled with a JDK's ``javac`` by the extension's
build script (``rust/python/build.rs``, so every build of a wheel makes them, ``pip wheel .`` included) into
``rocketroute/spark/jars/rocketroute-udf.jar``, shipped in every wheel and the sdist, registered with
``registerJavaFunction``. They compute ``SelectMessageQueueByHash`` and every routing profile where the rows
are, in the executors' JVMs, with no Python worker and no ``reflect``.

Where the jar is missing (built where there was no JDK 17+) or cannot be loaded, :func:`register_udfs` says why and the
jobs fall back to the paths that need nothing of ours on the JVM: ``reflect`` for the hash route, the Arrow
worker for the profiles. ``ROCKETROUTE_UDF_JAR`` names another jar (an empty value or a missing file: none).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "HASH_UDFS",
    "JAR_ENV",
    "PROFILE_UDFS",
    "UdfStatus",
    "jar_path",
    "register_udfs",
]

#: the environment variable that overrides where the jar is looked for
JAR_ENV = "ROCKETROUTE_UDF_JAR"
_PACKAGED = Path(__file__).with_name("jars") / "rocketroute-udf.jar"
_PACKAGE = "io.rocketroute.udf"

#: ``SelectMessageQueueByHash`` by key type: the SQL function name and its Java class ((key, n) -> index);
#: ``utf8`` takes a string key cast to binary (its UTF-8 bytes): the same index, with no Java ``String`` made
#: per row, which is what makes it as fast as Spark's own ``hash()``; route uses it for string keys
HASH_UDFS = {
    "string": ("rocketroute_hash_index", f"{_PACKAGE}.HashIndex$OfString"),
    "utf8": ("rocketroute_utf8_hash_index", f"{_PACKAGE}.HashIndex$OfUtf8"),
    "long": ("rocketroute_long_hash_index", f"{_PACKAGE}.HashIndex$OfLong"),
}
#: every routing profile: the SQL function name and its Java class ((key, n) -> index, null when refused)
PROFILE_UDFS = {
    "java-hashcode": ("rocketroute_profile_java_hashcode", f"{_PACKAGE}.ProfileIndex$JavaHashcode"),
    "java5-grpc-siphash": ("rocketroute_profile_java5_grpc_siphash", f"{_PACKAGE}.ProfileIndex$GrpcSiphash"),
    "proxy-jump": ("rocketroute_profile_proxy_jump", f"{_PACKAGE}.ProfileIndex$ProxyJump"),
    "python5-sha256": ("rocketroute_profile_python5_sha256", f"{_PACKAGE}.ProfileIndex$PythonSha256"),
    "go4-fnv32a": ("rocketroute_profile_go4_fnv32a", f"{_PACKAGE}.ProfileIndex$GoFnv32a"),
    "kafka-murmur2": ("rocketroute_profile_kafka_murmur2", f"{_PACKAGE}.ProfileIndex$KafkaMurmur2"),
    "cpp2-stdhash": ("rocketroute_profile_cpp2_stdhash", f"{_PACKAGE}.ProfileIndex$CppStdHash"),
}


@dataclass(frozen=True)
class UdfStatus:
    """Whether the JVM UDFs can run on a session: ``available``, the ``jar`` used, and ``why`` not."""

    available: bool
    jar: Path | None
    why: str = ""

    def __bool__(self) -> bool:
        return self.available


def jar_path() -> Path | None:
    """The UDF jar: ``$ROCKETROUTE_UDF_JAR`` when set (empty: none), else the one inside the package; ``None``
    when that file does not exist."""
    given = os.environ.get(JAR_ENV)
    if given is not None:
        return Path(given) if given and Path(given).is_file() else None
    return _PACKAGED if _PACKAGED.is_file() else None


def _missing_reason() -> str:
    given = os.environ.get(JAR_ENV)
    if given is not None:
        return f"{JAR_ENV}={given!r} is not a file" if given else f"{JAR_ENV} is set empty"
    return (
        f"{_PACKAGED} is missing: this rocketroute was built without its JVM UDF jar (the build compiles it only where "
        "it finds a JDK 17+ javac, in $JAVA_HOME/bin or on PATH). Install a wheel that carries it (the released "
        "wheels and the sdist do), or build again with a JDK 17+ (`pip install --force-reinstall .` in a checkout, "
        f"`make build` in development), or set {JAR_ENV} to a built jar"
    )


def _register_all(spark: Any) -> None:
    from pyspark.sql.types import IntegerType

    for name, cls in (*HASH_UDFS.values(), *PROFILE_UDFS.values()):
        spark.udf.registerJavaFunction(name, cls, IntegerType())


def register_udfs(spark: Any) -> UdfStatus:
    """Register the JVM UDFs (:data:`HASH_UDFS`, :data:`PROFILE_UDFS`) on ``spark``, once per session. A session
    started by :func:`~rocketroute.spark.local_session` has the jar on its class path already; for another one
    it is added with ``ADD JAR`` (which also ships it to the executors). Never raises: an unavailable status
    says why, and the caller falls back."""
    jar = jar_path()
    if jar is None:
        return UdfStatus(False, None, _missing_reason())
    first = next(iter(HASH_UDFS.values()))[0]
    try:
        if spark.catalog.functionExists(first):
            return UdfStatus(True, jar)
    except Exception:  # an old catalog: just register again
        pass
    try:
        _register_all(spark)
    except Exception:  # the classes are not on this session's class path yet
        try:
            spark.sql(f"ADD JAR '{jar.as_posix()}'")
            _register_all(spark)
        except Exception as e:  # whatever the JVM says, the caller falls back
            first_line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            return UdfStatus(False, jar, f"the JVM could not load {jar.name}: {first_line[:300]}")
    return UdfStatus(True, jar)
