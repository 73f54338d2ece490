# rocketroute: build, test, lint, bench and demo.
#
#   make demo    build the native extension into .venv and run the pipeline demo on local Spark
#   make test    cargo test (core crate) + pytest over both backends + the benches once as smoke tests
#   make servers the real RocketMQ servers the cluster tests start: Apache RocketMQ's (Maven Central) and
#                RocketMQ-Rust's (crates.io), installed once into a cache outside the checkout
#
# Needs python3 (>= 3.10), a Rust toolchain (cargo), Java 17+ with Maven (mvn) and network access to PyPI,
# crates.io and Maven Central.
# Everything Python goes into ./.venv; cargo keeps its default target dir (./target).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.rocketroute-tools.stamp
BENCH_JSON := out/bench/results.json

# The JVM UDFs (rocketroute.spark.jvm): java/src compiled by the extension's build script (rust/python/build.rs)
# with a JDK's javac into a jar inside the package, so every maturin build (make build, make wheel, pip wheel .,
# pip install .) puts it in the wheel and the sdist. Without a JDK the build goes on without it and the jobs fall
# back to reflect / the Arrow worker.
UDF_JAR := python/rocketroute/spark/jars/rocketroute-udf.jar
# The release workflow's linter (make lint), from the Go module proxy, built once into a cache outside the checkout
ACTIONLINT_VERSION := v1.7.12
TOOLS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rocketroute/tools
ACTIONLINT := $(TOOLS_DIR)/actionlint-$(ACTIONLINT_VERSION)

# The real servers of the cluster tests (tests/cluster), in a cache outside the checkout so a clean clone on this
# machine reuses them (override SERVERS_DIR to put them elsewhere; the tests read ROCKETROUTE_SERVERS_DIR and
# default to the same path):
# - Apache RocketMQ's own name server, broker and proxy: the org.apache.rocketmq jars and their dependencies,
#   resolved from Maven Central by servers/apache/pom.xml into $(SERVERS_DIR)/apache-VERSION/lib (the harness
#   starts them with java -cp). 5.5.0, 5.3.3 and 4.9.7: the newest of each line Maven Central serves (there is no
#   rocketmq-namesrv or -proxy 5.5.1, nor rocketmq-namesrv/-broker 4.9.8, there).
# - RocketMQ-Rust's name server, broker and gRPC proxy from crates.io, pinned, built by `cargo install --locked`
#   into $(SERVERS_DIR)/bin (ROCKETROUTE_SERVERS_BIN). The proxy's build runs protoc (Debian's protobuf-compiler,
#   and libprotobuf-dev for the well-known .proto files), installed with apt-get when missing.
SERVERS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rocketroute/servers
APACHE_VERSIONS := 5.5.0 5.3.3 4.9.7
APACHE_POM := servers/apache/pom.xml
SERVERS_BIN := $(SERVERS_DIR)/bin
# The real Java clients our Java peers and the live Java oracle call (tests/peers/java): each client jar and its
# dependencies, resolved from Maven Central by tests/peers/java/pom.xml into $(CLIENTS_DIR)/ARTIFACT-VERSION/lib.
# rocketmq-client 4.9.8 (the last 4.9), 5.3.3 and 5.5.0 (5.5.1 is not served there), and the gRPC client
# rocketmq-client-java 5.2.0 (5.2.1 is not served there); rocketmq-tools 5.5.0, the admin classes.
CLIENTS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rocketroute/clients
JAVA_CLIENTS := rocketmq-client:4.9.8 rocketmq-client:5.3.3 rocketmq-client:5.5.0 rocketmq-client-java:5.2.0 \
	rocketmq-tools:5.5.0 rocketmq-acl:4.9.8
CLIENTS_POM := tests/peers/java/pom.xml
SERVERS_VERSION := 1.0.0
SERVERS_CRATES := rocketmq-namesrv@$(SERVERS_VERSION) rocketmq-broker@$(SERVERS_VERSION) rocketmq-proxy@$(SERVERS_VERSION)
SERVERS_BINARIES := rocketmq-namesrv-rust rocketmq-broker-rust rocketmq-proxy-rust

# Run the build and the tools inside the venv without activating it in the caller's shell.
# PYO3_PYTHON pins the interpreter pyo3 builds against, so maturin and cargo clippy agree and do not
# invalidate each other's build cache.
IN_VENV := env -u CONDA_PREFIX VIRTUAL_ENV="$(CURDIR)/$(VENV)" PATH="$(CURDIR)/$(VENV)/bin:$$PATH" \
	PYO3_PYTHON="$(CURDIR)/$(VPY)"

define section
	@printf '\n\033[1m==> %s\033[0m\n' "$(1)"
endef

# The build and tool requirements, read from pyproject.toml ([build-system] requires and the
# "test", "dev", "docs" and "compression" extras); `pip install -e .[test]` is not possible before the
# extension is built.
define READ_REQUIREMENTS
import sys
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same list as pyproject.toml
    print("maturin>=1.7,<2\npytest>=8\npytest-xdist>=3.5\nhypothesis>=6.100\npytest-benchmark>=4\nnumpy>=1.24\npyarrow>=14\npyspark>=4.0,<5\npandas>=2,<3\nmatplotlib>=3.7\nplaywright>=1.40\nkafka-python>=2.0\nrocketmq-python-client>=5.0\nmypy>=1.10\npyright>=1.1.414\nziglang>=0.13\nauditwheel>=6\nruff>=0.6\nhatchling>=1.27\nmkdocs>=1.6,<2\nmkdocs-material>=9.5\nmkdocstrings[python]>=0.26\nlz4>=4\nzstandard>=0.22")
    sys.exit(0)
with open("pyproject.toml", "rb") as f:
    d = tomllib.load(f)
extras = d["project"].get("optional-dependencies", {})
reqs = list(d["build-system"]["requires"])
for group in ("test", "dev", "docs", "compression"):
    reqs += extras.get(group, [])
print("\n".join(reqs))
endef
export READ_REQUIREMENTS

.PHONY: help venv build peer bench-clients bench-clients-docs bench-scaling bench-scaling-docs bench-instructions servers clients servers-apache servers-rust browser bench-cluster bench-cluster-docs test test-rust test-python test-benches test-dist wheel lint bench bench-docs demo walkthrough fuzz docs clean distclean

help:
	@echo "make demo      build the extension (release), run route, plan, replay and report on local Spark"
	@echo "make walkthrough  a producer's routing step by step (no Spark)"
	@echo "make test      cargo test (core) + pytest tests (both backends) + benches as smoke tests"
	@echo "make venv      create .venv with maturin, pytest, hypothesis, pytest-benchmark, ruff"
	@echo "make build     maturin develop --release into .venv (its build script compiles the JVM UDF jar where a JDK is)"
	@echo "make servers   Apache RocketMQ's servers (Maven) and RocketMQ-Rust's (cargo) for the cluster tests (once; SERVERS_DIR=$(SERVERS_DIR)), and make clients"
	@echo "make clients   the real Java clients (Maven) for the live Java oracle and the Java peers (CLIENTS_DIR=$(CLIENTS_DIR)), and the Go client's modules (tests/peers/go)"
	@echo "make browser   Debian's chromium for the report's browser test (apt-get install, only when missing)"
	@echo "make lint      cargo fmt --check, cargo clippy -D warnings, ruff, gofmt and go vet, actionlint"
	@echo "make bench     native vs reference benchmarks, then the ratio table (BENCH_BEFORE=old.json: after / before too)"
	@echo "make bench-docs  make bench, then keep its result for the docs' benchmark page (docs/bench/results.json)"
	@echo "make bench-clients  rr.Producer, rr.Consumer (native, reference) and rr.aio against the Java and Go clients on the instant peer and Apache's broker (bench-clients-docs: keep it for the docs)"
	@echo "make bench-scaling  the producers from 1 to 16 threads and 1 to 4096 sends in flight beside the Java client, plotted (bench-scaling-docs: keep it for the docs)"
	@echo "make bench-instructions  instructions per message sent and consumed, counted under callgrind (repeatable where timings drift)"
	@echo "make bench-cluster  the producer and consumer on Apache's and RocketMQ-Rust's brokers (bench-cluster-docs: keep it for the docs)"
	@echo "make wheel     the manylinux2014 abi3 wheel, the pure-Python wheel and the sdist into dist/ (maturin, zig; hatchling)"
	@echo "make docs      build the docs site into site/ (mkdocs, strict: a warning is an error)"
	@echo "make fuzz      differential, live-Java-oracle and property tests with many examples (FUZZ_EXAMPLES=20000)"
	@echo "make clean     remove build outputs and caches (distclean: also .venv)"

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(call section,venv: $(VENV))
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (need Python >= 3.10)" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
		|| { echo "error: $(PYTHON) is $$($(PYTHON) -V 2>&1); rocketroute needs Python >= 3.10" >&2; exit 1; }
	test -x $(VPY) || $(PYTHON) -m venv $(VENV) \
		|| { echo "error: python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2; exit 1; }
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -c "$$READ_REQUIREMENTS" > $(VENV)/requirements-tools.txt
	@sed 's/^/    /' $(VENV)/requirements-tools.txt
	$(VPY) -m pip install --quiet --upgrade -r $(VENV)/requirements-tools.txt
	@touch $@

build: venv peer
	$(call section,build: maturin develop --release)
	@command -v cargo >/dev/null || { echo "error: cargo not found; install Rust from https://rustup.rs" >&2; exit 1; }
	$(IN_VENV) $(VENV)/bin/maturin develop --release
	@env ROCKETROUTE_BACKEND=native $(VPY) -c 'import rocketroute as r; print("rocketroute", r.__version__, "backend:", r.BACKEND)'

# The instant peer (rust/peer): the name server and broker that answers every send at once, for the client benchmarks
# and the tests that drive a client at its own ceiling.
peer:
	$(call section,peer: cargo build --release -p rocketroute-instant-peer)
	cargo build --release -p rocketroute-instant-peer

servers: servers-apache servers-rust clients

# `make clients`: per client, skipped when its lib/ was resolved by the same pom (a stamp holds the pom's hash);
# a few seconds each on a fresh machine. Then the Go peers' modules (the Go client, pinned in tests/peers/go/go.mod)
# into Go's module cache from the Go module proxy, so the Go peer test and bench-clients' go client build from it
# (`go mod download`: nothing to do when they are there).
clients:
	@command -v mvn >/dev/null || { echo "error: mvn not found; the Java clients come from Maven Central (apt-get install maven)" >&2; exit 1; }
	@pom_sum=$$(sha256sum $(CLIENTS_POM) | cut -c1-16); \
	for c in $(JAVA_CLIENTS); do \
		a=$${c%%:*}; v=$${c#*:}; d="$(CLIENTS_DIR)/$$a-$$v"; \
		if [ "$$(cat "$$d/lib/.resolved" 2>/dev/null)" = "$$pom_sum" ]; then \
			echo "clients: $$a $$v up to date in $$d ($$(ls "$$d/lib" | wc -l) jars)"; continue; \
		fi; \
		t0=$$(date +%s); rm -rf "$$d/lib.tmp"; mkdir -p "$$d"; \
		mvn -q -B -f $(CLIENTS_POM) -Dclient.artifact=$$a -Dclient.version=$$v dependency:copy-dependencies \
			-DoutputDirectory="$$d/lib.tmp" -DincludeScope=runtime; \
		echo "$$pom_sum" > "$$d/lib.tmp/.resolved"; rm -rf "$$d/lib"; mv "$$d/lib.tmp" "$$d/lib"; \
		echo "clients: $$a $$v: $$(ls "$$d/lib" | wc -l) jars in $$(( $$(date +%s) - t0 )) s"; \
	done
	@command -v go >/dev/null || { echo "error: go not found; the Go peers (tests/peers/go: the Go client live, and bench-clients' go client) need Go 1.22+ (https://go.dev/dl/)" >&2; exit 1; }
	@cd tests/peers/go && GOFLAGS="-buildvcs=false -mod=readonly" go mod download \
		&& echo "clients: the Go client $$(sed -n 's|^require github.com/apache/rocketmq-client-go/v2 ||p' go.mod) and its modules in $$(go env GOMODCACHE)"

# `make servers-apache`: per version, skipped when its lib/ was resolved by the same pom (a stamp holds the pom's
# hash). Otherwise Maven copies the jars into a temp dir that replaces lib/ only when complete (about 20-45 s a
# version on a fresh machine, 100 MB each, plus ~/.m2).
servers-apache:
	@command -v mvn >/dev/null || { echo "error: mvn not found; Apache's servers come from Maven Central (apt-get install maven)" >&2; exit 1; }
	@command -v java >/dev/null || { echo "error: java not found; Apache's servers need Java 17+" >&2; exit 1; }
	@pom_sum=$$(sha256sum $(APACHE_POM) | cut -c1-16); \
	for v in $(APACHE_VERSIONS); do \
		d="$(SERVERS_DIR)/apache-$$v"; \
		if [ "$$(cat "$$d/lib/.resolved" 2>/dev/null)" = "$$pom_sum" ]; then \
			echo "servers: apache-$$v up to date in $$d ($$(ls "$$d/lib" | wc -l) jars)"; continue; \
		fi; \
		printf '\n\033[1m==> %s\033[0m\n' "servers: Apache RocketMQ $$v from Maven Central into $$d/lib"; \
		case $$v in 4.*) prof="" ;; *) prof="-Pproxy" ;; esac; \
		t0=$$(date +%s); rm -rf "$$d/lib.tmp"; mkdir -p "$$d"; \
		mvn -q -B -f $(APACHE_POM) -Drocketmq.version=$$v $$prof dependency:copy-dependencies \
			-DoutputDirectory="$$d/lib.tmp" -DincludeScope=runtime; \
		echo "$$pom_sum" > "$$d/lib.tmp/.resolved"; rm -rf "$$d/lib"; mv "$$d/lib.tmp" "$$d/lib"; \
		echo "servers: apache-$$v: $$(ls "$$d/lib" | wc -l) jars in $$(( $$(date +%s) - t0 )) s"; \
	done

# `make servers-rust`: skipped (one line with the versions) when the three binaries are in $(SERVERS_BIN) at the
# pinned version. Otherwise cargo install builds what is missing, all three in one cargo install so that each
# reuses the others' dependencies through the shared CARGO_TARGET_DIR. They are test servers, so they are built with
# SERVERS_PROFILE: opt-level 1, no LTO, 16 codegen units, no debug info, whatever the crates' own release profile
# says (the environment overrides a manifest's profile). Measured on a fresh 2-core machine with other builds
# beside it: 21 minutes for all three (name server 5, broker 5, proxy 10), where the release profile took 42
# minutes for the first two and 8-15 more for the proxy; every cluster test passes on them.
# SERVERS_PROFILE= builds with the crates' own release profile. The target dir (about 2 GB) is kept on purpose: a
# version bump rebuilds only what changed. Delete $(SERVERS_DIR)/target by hand to get the space back.
SERVERS_PROFILE ?= CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
	CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_INCREMENTAL=false CARGO_PROFILE_RELEASE_STRIP=debuginfo
servers-rust:
	@ok=1; vers=""; \
	for b in $(SERVERS_BINARIES); do \
		v=$$("$(SERVERS_BIN)/$$b" --version 2>/dev/null | tr '\n' ' ') || v=""; \
		case "$$v" in *"version=$(SERVERS_VERSION)"*) vers="$$vers $$b $(SERVERS_VERSION);" ;; *) ok=0 ;; esac; \
	done; \
	if [ $$ok = 1 ]; then echo "servers: up to date in $(SERVERS_BIN):$${vers%;}"; exit 0; fi; \
	command -v cargo >/dev/null || { echo "error: cargo not found; install Rust from https://rustup.rs" >&2; exit 1; }; \
	if ! command -v protoc >/dev/null || [ ! -f /usr/include/google/protobuf/duration.proto ]; then \
		command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] || { echo "error: rocketmq-proxy's build needs protoc and the well-known .proto files; install Debian's protobuf-compiler and libprotobuf-dev" >&2; exit 1; }; \
		printf '\n\033[1m==> %s\033[0m\n' "servers: apt-get install protobuf-compiler libprotobuf-dev (rocketmq-proxy's build runs protoc)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq --no-install-recommends protobuf-compiler libprotobuf-dev >/dev/null 2>&1 \
			|| { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends protobuf-compiler libprotobuf-dev >/dev/null; } \
			|| exit 1; \
	fi; \
	printf '\n\033[1m==> %s\033[0m\n' "servers: cargo install --locked $(SERVERS_CRATES) into $(SERVERS_DIR) (about 20 minutes on 2 cores)"; \
	mkdir -p "$(SERVERS_DIR)"; \
	CARGO_TARGET_DIR="$(SERVERS_DIR)/target" $(SERVERS_PROFILE) cargo install --locked --root "$(SERVERS_DIR)" $(SERVERS_CRATES); \
	for b in $(SERVERS_BINARIES); do \
		echo "servers: $$("$(SERVERS_BIN)/$$b" --version | paste -sd " ")"; \
	done

# The report's browser test (tests/spark/test_report_browser.py) drives Debian's chromium through playwright
# (no browser download): installed with apt-get when missing (as root; quiet; nothing to do when it is there).
browser:
	@command -v chromium >/dev/null && exit 0; \
	command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] \
		|| { echo "error: chromium not found; install Debian's chromium (apt-get install chromium)" >&2; exit 1; }; \
	printf '\n\033[1m==> %s\033[0m\n' "browser: apt-get install chromium (the report's browser test)"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; \
	chromium --version

test: venv build servers browser
	@$(MAKE) test-rust
	@$(MAKE) test-python
	@$(MAKE) test-benches
	@$(MAKE) test-dist
	@$(MAKE) lint
	$(call section,test: all passed)

test-rust:
	$(call section,test: cargo test -p rocketroute-core -p rocketroute-instant-peer)
	cargo test -p rocketroute-core -p rocketroute-instant-peer

# ROCKETROUTE_BACKEND is unset: the suite expects the native backend and fails if it is missing. --durations lists
# the slowest tests, to keep `make test` under its time budget. PYTEST_WORKERS processes (pytest-xdist) run the
# suite: a test file's tests in one worker (--dist loadfile: a module's fixtures start once); the cluster tests one
# at a time, in tests/cluster's order (--dist loadgroup without groups: each worker starts the session clusters of
# the server implementations it meets, and apache-5.5.0's half of the work is shared by both).
PYTEST_WORKERS ?= 2
test-python:
	$(call section,test: pytest tests (native and reference backends, Spark pipeline))
	@command -v java >/dev/null || { echo "error: java not found; the Spark tests need Java 17+ (e.g. apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" $(VPY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=15 tests --ignore=tests/cluster
	$(call section,test: pytest tests/cluster (Apache RocketMQ 5.5.0 / 5.3.3 / 4.9.7 and RocketMQ-Rust 1.0.0 servers))
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" $(VPY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=15 tests/cluster

test-benches:
	$(call section,test: benches once each (smoke, --benchmark-disable))
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" $(VPY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile benches --benchmark-disable

lint: venv
	$(call section,lint: cargo fmt --check)
	cargo fmt --all --check
	$(call section,lint: cargo clippy -D warnings)
	$(IN_VENV) cargo clippy --workspace --all-targets -- -D warnings
	$(call section,lint: ruff check)
	$(VENV)/bin/ruff check python tests benches docs/hooks packaging
	$(call section,lint: ruff format --check)
	$(VENV)/bin/ruff format --check python tests benches docs/hooks packaging
	$(call section,lint: gofmt and go vet (tests/peers/go))
	@test -z "$$(gofmt -l tests/peers/go)" || { gofmt -l tests/peers/go; echo "error: gofmt would change these" >&2; exit 1; }
	cd tests/peers/go && GOFLAGS="-buildvcs=false -mod=readonly" go vet ./...
	$(call section,lint: actionlint (.github/workflows))
	@$(MAKE) $(ACTIONLINT)
	$(ACTIONLINT) -no-color -shellcheck= -pyflakes=

# built from the Go module proxy (go install), once per version. make lint runs it with neither shellcheck nor
# pyflakes (-shellcheck= -pyflakes=), so that its verdict does not depend on what else a machine has installed.
$(ACTIONLINT):
	@command -v go >/dev/null || { echo "error: go not found; actionlint (make lint) is built with Go 1.22+ (https://go.dev/dl/)" >&2; exit 1; }
	mkdir -p $(TOOLS_DIR)/bin.tmp
	GOBIN=$(TOOLS_DIR)/bin.tmp GOFLAGS=-buildvcs=false go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
	mv $(TOOLS_DIR)/bin.tmp/actionlint $@ && rmdir $(TOOLS_DIR)/bin.tmp

# what a release ships, into the folder $(1): the manylinux2014 abi3 wheel (zig linker), the sdist and the
# pure-Python wheel (hatchling, packaging/pure); make wheel and make test-dist build the same
define dists
$(IN_VENV) $(VPY) -m maturin build --release --zig --compatibility manylinux2014 --out $(1)
$(IN_VENV) $(VPY) -m maturin sdist --out $(1)
$(VPY) -m pip wheel --quiet --no-deps --no-index --no-build-isolation packaging/pure -w $(1)
endef

# the wheels users install (manylinux2014 abi3 with the zig linker; the pure-Python py3-none-any one, for platforms
# with no native wheel) and the sdist: checked by auditwheel, each wheel installed alone (packaging/test_dist.py)
DIST_CHECK := target/dist-check
test-dist: venv
	$(call section,test: the dists a release ships (packaging/test_dist.py: the manylinux2014 abi3 wheel, the pure-Python wheel and the sdist))
	rm -rf $(DIST_CHECK)
	$(call dists,$(DIST_CHECK))
	ROCKETROUTE_DIST_DIR=$(DIST_CHECK) $(VPY) -m pytest -q -p no:cacheprovider packaging

wheel: venv
	$(call section,wheel: dist/ (manylinux2014 abi3 wheel, pure-Python wheel and sdist))
	$(call dists,dist)

docs: venv build
	$(call section,docs: mkdocs build --strict into site/)
	NO_MKDOCS_2_WARNING=1 $(IN_VENV) $(VPY) -m mkdocs build --strict -d site

bench: venv build servers
	$(call section,bench: pytest benches --benchmark-only)
	@mkdir -p $(dir $(BENCH_JSON))
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" $(VPY) -m pytest benches --benchmark-only --benchmark-warmup=on \
		--benchmark-min-time=0.00005 --benchmark-json=$(BENCH_JSON)
	$(call section,bench: reference / native)
	$(VPY) benches/ratios.py $(BENCH_JSON) $(if $(BENCH_BEFORE),--before $(BENCH_BEFORE))
	@$(MAKE) --no-print-directory bench-clients

# The producer and consumer on real brokers alone (Apache 5.5.0's and RocketMQ-Rust's, side by side);
# bench-cluster-docs keeps the run for the docs' benchmark page (docs/bench/cluster.json).
BENCH_CLUSTER_JSON := out/bench/cluster.json
bench-cluster: venv build servers
	$(call section,bench: the producer and consumer on Apache 5.5.0's and RocketMQ-Rust's brokers)
	@mkdir -p $(dir $(BENCH_CLUSTER_JSON))
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" $(VPY) -m pytest \
		benches/test_bench_cluster.py benches/test_bench_consumer.py --benchmark-only --benchmark-warmup=on \
		--benchmark-json=$(BENCH_CLUSTER_JSON)
	$(VPY) benches/ratios.py $(BENCH_CLUSTER_JSON)

# rr.Producer against the Java client, same brokers, same run (benches/bench_clients.py); bench-clients-docs keeps it
# for the docs' benchmark page (docs/bench/clients.json).
BENCH_CLIENTS_JSON := out/bench/clients.json
# the docs' run: every client this many times, the clients taking turns, each row its median run (a single run of a
# row moved by a third on a shared machine's slow phases)
BENCH_CLIENTS_ROUNDS ?= 3
bench-clients: venv build servers
	$(call section,bench: rocketroute and the Java and Go clients on the instant peer and Apache 5.5.0's broker)
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" \
		$(VPY) benches/bench_clients.py --json $(BENCH_CLIENTS_JSON)

# instructions per message under callgrind (benches/count_instructions.py): repeatable where timings drift, so two
# versions of the code compare by a per cent (PYTHONPATH of another tree: --pythonpath)
BENCH_INSTRUCTIONS_JSON := out/bench/instructions.json
bench-instructions: venv build
	$(call section,bench: instructions per message under callgrind (aio-send, send-async, aio-consume, consume))
	env -u ROCKETROUTE_BACKEND $(VPY) benches/count_instructions.py --json $(BENCH_INSTRUCTIONS_JSON)

bench-clients-docs: venv build servers
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" \
		$(VPY) benches/bench_clients.py --rounds $(BENCH_CLIENTS_ROUNDS) --clients java,go,native,aio \
		--json $(BENCH_CLIENTS_JSON) --keep docs/bench/clients.json
	@echo "docs/bench/clients.json: the benchmark page's client table (make docs)"

# the producers from 1 to 16 threads and 1 to 4096 sends in flight (benches/bench_scaling.py), the benchmark page's
# plot; SCALING_ARGS: e.g. --servers instant,apache-5.5.0 --rounds 3
BENCH_SCALING_JSON := out/bench/scaling.json
SCALING_ARGS ?=
bench-scaling: venv build servers
	$(call section,bench: the producers' scaling with threads and sends in flight, beside the Java client)
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" \
		$(VPY) benches/bench_scaling.py $(SCALING_ARGS) --json $(BENCH_SCALING_JSON) --svg out/bench/scaling.svg

bench-scaling-docs: venv build servers
	env -u ROCKETROUTE_BACKEND ROCKETROUTE_SERVERS_DIR="$(SERVERS_DIR)" ROCKETROUTE_SERVERS_BIN="$(SERVERS_BIN)" ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" \
		$(VPY) benches/bench_scaling.py $(SCALING_ARGS) --json $(BENCH_SCALING_JSON) --keep docs/bench/scaling.json
	@echo "docs/bench/scaling.json: the benchmark page's scaling plot (make docs)"

bench-cluster-docs: bench-cluster
	$(VPY) benches/ratios.py $(BENCH_CLUSTER_JSON) --keep docs/bench/cluster.json > /dev/null
	@echo "docs/bench/cluster.json: the benchmark page's producer and consumer tables (make docs)"

bench-docs: bench
	$(VPY) benches/ratios.py $(BENCH_JSON) --keep docs/bench/results.json > /dev/null
	@echo "docs/bench/results.json: the benchmark page's tables (make docs)"

# DEMO_ARGS: e.g. make demo DEMO_ARGS="--rows 10000000"
demo: build
	$(call section,demo: rocketroute demo (route, plan, replay and report on local Spark))
	@command -v java >/dev/null || { echo "error: java not found; Spark needs Java 17+ (e.g. apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
	env -u ROCKETROUTE_BACKEND $(VENV)/bin/rocketroute demo --out out/demo --overwrite $(DEMO_ARGS)

# The differential fuzz tests (native against reference), the live Java oracle (tests/oracle: the real
# rocketmq-client classes against both backends) and every property test, with the "fuzz" hypothesis profile:
# FUZZ_EXAMPLES examples per test (default 20000), and the thread tests SOAK times longer.
fuzz: build clients
	$(call section,fuzz: hypothesis profile "fuzz", $(FUZZ_EXAMPLES) examples per test)
	env -u ROCKETROUTE_BACKEND HYPOTHESIS_PROFILE=fuzz ROCKETROUTE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) ROCKETROUTE_SOAK=$(SOAK) \
		ROCKETROUTE_CLIENTS_DIR="$(CLIENTS_DIR)" $(VPY) -m pytest -q tests --ignore=tests/spark --ignore=tests/conformance --ignore=tests/cluster
	$(call section,fuzz: cargo test (core, the bounded property tests with PROPTEST_CASES=$(FUZZ_EXAMPLES)))
	PROPTEST_CASES=$(FUZZ_EXAMPLES) cargo test -p rocketroute-core --release

walkthrough: build
	$(call section,walkthrough: python -m rocketroute.examples.walkthrough)
	env -u ROCKETROUTE_BACKEND $(VPY) -m rocketroute.examples.walkthrough

clean:
	rm -rf target out dist .pytest_cache .benchmarks .hypothesis .ruff_cache
	find python -name '_native*.so' -delete -o -name '_native*.pyd' -delete
	rm -f $(UDF_JAR)
	find python tests benches -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
