#!/usr/bin/env bash
# Regenerates producer, fault_tables, route_data, static_topic and grpc_balancer vectors.
#
#   build.sh ROCKETMQ_GIT CLIENTS_GIT APIS_GIT [OUT_DIR]
#
# ROCKETMQ_GIT, CLIENTS_GIT, APIS_GIT: git directories (bare or not) of apache/rocketmq,
# apache/rocketmq-clients and apache/rocketmq-apis. Nothing is downloaded: the pinned commits are read with
# `git archive` into a temporary directory, which is deleted at the end.
# OUT_DIR defaults to ../vectors (the committed vector files). Third-party jars: see README.md.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
RMQ_GIT="$1"; CLIENTS_GIT="$2"; APIS_GIT="$3"
OUT="${4:-$HERE/../vectors}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"

RMQ_498=2bdd53ef6694ffa19fd00db0b887e4895444f63e      # tag rocketmq-all-4.9.8
RMQ_533=29d90a4ff96c04c094039685a6106870c58a7e40      # tag rocketmq-all-5.3.3
CLIENTS=471044f0860b90a19f01c4c665c6286455c8f04e      # tag java-5.2.1 of apache/rocketmq-clients
APIS=68c2cc9442928f769f8938515a05af6fa05c9993         # tag v2.1.2 of apache/rocketmq-apis (rocketmq-proto 2.1.2)

JARS="${JARS_DIR:-/work/main/.venv/lib/python3.11/site-packages/pyspark/jars}"
DEB=/usr/share/java
jar() { # first jar in $JARS matching a glob
    local f; f=$(ls $JARS/$1 2>/dev/null | head -1); [ -n "$f" ] || { echo "missing jar $1 in $JARS" >&2; exit 1; }; echo "$f"; }
for f in $DEB/commons-validator.jar $DEB/commons-collections3.jar $DEB/protobuf.jar; do
    [ -f "$f" ] || { echo "missing $f: apt-get install libcommons-validator-java libcommons-collections3-java libprotobuf-java protobuf-compiler" >&2; exit 1; }
done
command -v protoc >/dev/null || { echo "protoc missing: apt-get install protobuf-compiler" >&2; exit 1; }

NETTY=$(ls $JARS/netty-*.jar | grep -v -e native -e tcnative -e netty-all | tr '\n' ':')
CP_RMQ="${NETTY}$(jar 'commons-lang3-*.jar'):$(jar 'guava-*.jar'):$(jar 'failureaccess-*.jar'):$(jar 'commons-codec-*.jar'):$(jar 'lz4-java-*.jar'):$(jar 'zstd-jni-*.jar'):$(jar 'jsr305-*.jar'):$(jar 'slf4j-api-*.jar'):$DEB/commons-validator.jar:$DEB/commons-collections3.jar"
CP_CLIENTS="$(jar 'commons-lang3-*.jar'):$(jar 'guava-*.jar'):$(jar 'failureaccess-*.jar'):$(jar 'jsr305-*.jar'):$(jar 'lz4-java-*.jar'):$(jar 'zstd-jni-*.jar'):$DEB/protobuf.jar"
JAVA_FLAGS=(-Dfile.encoding=UTF-8 -XX:-ShowCodeDetailsInExceptionMessages)
JAVAC_FLAGS=(-nowarn -encoding UTF-8 --release 8 -implicit:class)

TMP="$(mktemp -d /tmp/rocketroute-vectors.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
export TZ=UTC LC_ALL=C.UTF-8

extract() { # git_dir commit dest [paths...]
    local g="$1" c="$2" d="$3"; shift 3
    mkdir -p "$d"; git --git-dir="$g" archive "$c" "$@" | tar -x -C "$d"
}

gen_rocketmq() { # label commit route_pkg rc_pkg vdir modules...
    local label="$1" commit="$2" route_pkg="$3" rc_pkg="$4" vdir="$5"; shift 5
    local src="$TMP/rmq-$label" gsrc="$TMP/gen-$label" cls="$TMP/cls-$label"
    extract "$RMQ_GIT" "$commit" "$src" "$@"
    mkdir -p "$gsrc" "$cls"
    sed -e "s/@ROUTE_PKG@/$route_pkg/g" -e "s/@RC_PKG@/$rc_pkg/g" "$HERE/src/rocketmq/GenRocketmq.java.in" > "$gsrc/GenRocketmq.java"
    cp "$HERE/src/common/J.java" "$HERE/src/$vdir/V.java" "$gsrc/"
    local sp="$HERE/stubs/fastjson"
    if [ "$vdir" = v5 ]; then sp="$sp:$HERE/stubs/rocketmq-logging:$HERE/stubs/opentelemetry"; fi
    for m in "$@"; do sp="$sp:$src/$m/src/main/java"; done
    # -sourcepath: javac compiles only the upstream classes the generator reaches (transitively), unmodified;
    # the stub directories come first, but they only hold classes that the upstream tree does not have.
    javac "${JAVAC_FLAGS[@]}" -d "$cls" -cp "$CP_RMQ" -sourcepath "$sp" "$gsrc"/*.java
    java "${JAVA_FLAGS[@]}" -cp "$cls:$CP_RMQ" GenRocketmq "$TMP/raw" 2> >(grep -v '^SLF4J' >&2)
}

mkdir -p "$TMP/raw"
gen_rocketmq 4.9.8 $RMQ_498 org.apache.rocketmq.common.protocol.route org.apache.rocketmq.common.protocol v4 \
    client common remoting logging srvutil
gen_rocketmq 5.3.3 $RMQ_533 org.apache.rocketmq.remoting.protocol.route org.apache.rocketmq.remoting.protocol v5 \
    client common remoting srvutil auth

if [ -f "$HERE/src/clients/GenGrpcBalancer.java" ]; then
    extract "$CLIENTS_GIT" $CLIENTS "$TMP/clients" java
    extract "$APIS_GIT" $APIS "$TMP/apis" apache
    mkdir -p "$TMP/proto-java" "$TMP/cls-clients"
    protoc -I "$TMP/apis" -I /usr/include --java_out="$TMP/proto-java" "$TMP"/apis/apache/rocketmq/v2/*.proto
    mkdir -p "$TMP/gen-clients"; cp "$HERE/src/common/J.java" "$HERE/src/clients/GenGrpcBalancer.java" "$TMP/gen-clients/"
    javac "${JAVAC_FLAGS[@]}" -d "$TMP/cls-clients" -cp "$CP_CLIENTS" \
        -sourcepath "$TMP/proto-java:$TMP/clients/java/client/src/main/java:$TMP/clients/java/client-apis/src/main/java" \
        "$TMP"/gen-clients/*.java
    java "${JAVA_FLAGS[@]}" -cp "$TMP/cls-clients:$CP_CLIENTS" GenGrpcBalancer "$TMP/raw"
fi

python3 "$HERE/merge.py" "$TMP/raw" "$OUT"
