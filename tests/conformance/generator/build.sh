#!/usr/bin/env bash
# Regenerates producer, fault_tables, route_data, static_topic and acl_signature vectors from the released
# rocketmq-client jars (and rocketmq-acl 4.9.8's, where 4.9's AclClientRPCHook lives),
# and grpc_balancer from the gRPC client's sources when their git directories are given.
#
#   build.sh [OUT_DIR]
#   GENERATOR_GRPC_JAR=5.2.0 build.sh [OUT_DIR]         # also grpc_balancer.jsonl.gz, from the released gRPC client
#   CLIENTS_GIT=... APIS_GIT=... build.sh [OUT_DIR]     # also grpc_balancer.jsonl.gz, from the 5.2.1 sources
#
# The jars are the ones `make clients` resolves from Maven Central into $ROCKETROUTE_CLIENTS_DIR (default
# ~/.cache/rocketroute/clients): rocketmq-client 4.9.8 and 5.3.3 with their dependencies. Nothing is stubbed or
# copied: our generator is compiled against the real classes and calls them.
# GENERATOR_CLIENT_5=5.5.0 builds the 5.x files from that release instead (still labelled 5.3.3 by V.java): how
# tests/conformance/test_generator.py compares a newer release with the vectors.
# CLIENTS_GIT / APIS_GIT: git directories (bare or not) of apache/rocketmq-clients and apache/rocketmq-apis; the
# pinned commits are read with `git archive` into a temporary directory, which is deleted at the end (the gRPC
# client 5.2.1 of the vectors is not on Maven Central).
# OUT_DIR defaults to ../vectors (the committed vector files).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:-$HERE/../vectors}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
CLIENTS_DIR="${ROCKETROUTE_CLIENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rocketroute/clients}"
CLIENT_5="${GENERATOR_CLIENT_5:-5.3.3}"

CLIENTS=471044f0860b90a19f01c4c665c6286455c8f04e      # tag java-5.2.1 of apache/rocketmq-clients
APIS=68c2cc9442928f769f8938515a05af6fa05c9993         # tag v2.1.2 of apache/rocketmq-apis (rocketmq-proto 2.1.2)

JAVA_FLAGS=(-Dfile.encoding=UTF-8 -XX:-ShowCodeDetailsInExceptionMessages)
JAVAC_FLAGS=(-nowarn -encoding UTF-8 --release 8 -implicit:class)

TMP="$(mktemp -d /tmp/rocketroute-vectors.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
export TZ=UTC LC_ALL=C.UTF-8

gen_rocketmq() { # client_version route_pkg rc_pkg vdir
    local version="$1" route_pkg="$2" rc_pkg="$3" vdir="$4"
    local lib="$CLIENTS_DIR/rocketmq-client-$version/lib" gsrc="$TMP/gen-$version" cls="$TMP/cls-$version"
    [ -f "$lib/rocketmq-client-$version.jar" ] || { echo "missing $lib: run make clients" >&2; exit 1; }
    mkdir -p "$gsrc" "$cls"
    sed -e "s/@ROUTE_PKG@/$route_pkg/g" -e "s/@RC_PKG@/$rc_pkg/g" "$HERE/src/rocketmq/GenRocketmq.java.in" > "$gsrc/GenRocketmq.java"
    cp "$HERE/src/common/J.java" "$HERE/src/$vdir/"*.java "$gsrc/"
    javac "${JAVAC_FLAGS[@]}" -d "$cls" -cp "$lib/*" "$gsrc"/*.java
    java "${JAVA_FLAGS[@]}" -cp "$cls:$lib/*" GenRocketmq "$TMP/raw" 2> >(grep -v '^SLF4J' >&2)
}

gen_acl() { # jar_dir label: acl_signature from the release's AclClientRPCHook (rocketmq-acl 4.9.8, rocketmq-client 5.x)
    local lib="$1" label="$2" gsrc="$TMP/gen-acl-$2" cls="$TMP/cls-acl-$2"
    [ -d "$lib" ] || { echo "missing $lib: run make clients" >&2; exit 1; }
    mkdir -p "$gsrc" "$cls"
    cp "$HERE/src/common/J.java" "$HERE/src/acl/GenAcl.java" "$gsrc/"
    javac "${JAVAC_FLAGS[@]}" -d "$cls" -cp "$lib/*" "$gsrc"/*.java
    java "${JAVA_FLAGS[@]}" -cp "$cls:$lib/*" GenAcl "$TMP/raw" "$label" 2> >(grep -v '^SLF4J' >&2)
}

extract() { # git_dir commit dest [paths...]
    local g="$1" c="$2" d="$3"; shift 3
    mkdir -p "$d"; git --git-dir="$g" archive "$c" "$@" | tar -x -C "$d"
}

mkdir -p "$TMP/raw"
gen_rocketmq 4.9.8 org.apache.rocketmq.common.protocol.route org.apache.rocketmq.common.protocol v4
gen_rocketmq "$CLIENT_5" org.apache.rocketmq.remoting.protocol.route org.apache.rocketmq.remoting.protocol v5
gen_acl "$CLIENTS_DIR/rocketmq-acl-4.9.8/lib" 4.9.8
gen_acl "$CLIENTS_DIR/rocketmq-client-$CLIENT_5/lib" 5.3.3

if [ -n "${GENERATOR_GRPC_JAR:-}" ]; then
    # the released gRPC client (Maven Central has 5.2.0, not the vectors' 5.2.1): its shaded jar holds the
    # balancers and the apache.rocketmq.v2 messages; the file keeps the vectors' label, and
    # tests/conformance/test_generator.py requires the committed bytes, so the two releases answer alike
    lib="$CLIENTS_DIR/rocketmq-client-java-$GENERATOR_GRPC_JAR/lib"
    [ -f "$lib/rocketmq-client-java-$GENERATOR_GRPC_JAR.jar" ] || { echo "missing $lib: run make clients" >&2; exit 1; }
    mkdir -p "$TMP/gen-clients" "$TMP/cls-clients"
    cp "$HERE/src/common/J.java" "$HERE/src/clients/"*.java "$TMP/gen-clients/"
    javac "${JAVAC_FLAGS[@]}" -d "$TMP/cls-clients" -cp "$lib/*" "$TMP"/gen-clients/*.java
    java "${JAVA_FLAGS[@]}" -cp "$TMP/cls-clients:$lib/*" GenGrpcBalancer "$TMP/raw"
elif [ -n "${CLIENTS_GIT:-}" ] && [ -n "${APIS_GIT:-}" ]; then
    JARS="${JARS_DIR:-$HERE/../../../.venv/lib/python3.11/site-packages/pyspark/jars}"
    DEB=/usr/share/java
    jar() { local f; f=$(ls $JARS/$1 2>/dev/null | head -1); [ -n "$f" ] || { echo "missing jar $1 in $JARS" >&2; exit 1; }; echo "$f"; }
    [ -f $DEB/protobuf.jar ] || { echo "missing $DEB/protobuf.jar: apt-get install libprotobuf-java protobuf-compiler" >&2; exit 1; }
    command -v protoc >/dev/null || { echo "protoc missing: apt-get install protobuf-compiler" >&2; exit 1; }
    CP_CLIENTS="$(jar 'commons-lang3-*.jar'):$(jar 'guava-*.jar'):$(jar 'failureaccess-*.jar'):$(jar 'jsr305-*.jar'):$(jar 'lz4-java-*.jar'):$(jar 'zstd-jni-*.jar'):$DEB/protobuf.jar"
    extract "$CLIENTS_GIT" $CLIENTS "$TMP/clients" java
    extract "$APIS_GIT" $APIS "$TMP/apis" apache
    mkdir -p "$TMP/proto-java" "$TMP/cls-clients"
    protoc -I "$TMP/apis" -I /usr/include --java_out="$TMP/proto-java" "$TMP"/apis/apache/rocketmq/v2/*.proto
    mkdir -p "$TMP/gen-clients"; cp "$HERE/src/common/J.java" "$HERE/src/clients/"*.java "$TMP/gen-clients/"
    javac "${JAVAC_FLAGS[@]}" -d "$TMP/cls-clients" -cp "$CP_CLIENTS" \
        -sourcepath "$TMP/proto-java:$TMP/clients/java/client/src/main/java:$TMP/clients/java/client-apis/src/main/java" \
        "$TMP"/gen-clients/*.java
    java "${JAVA_FLAGS[@]}" -cp "$TMP/cls-clients:$CP_CLIENTS" GenGrpcBalancer "$TMP/raw"
fi

python3 "$HERE/merge.py" "$TMP/raw" "$OUT"
if [ -n "${GENERATOR_KEEP_RAW:-}" ]; then cp "$TMP"/raw/*.jsonl "$GENERATOR_KEEP_RAW"/; fi
