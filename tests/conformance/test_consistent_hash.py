"""Golden vectors of ``consistent_hash.jsonl``: RocketMQ's MD5 hash and ``ConsistentHashRouter`` (routing,
the ring itself, add / remove / existing_replicas, and a real 32-bit hash collision)."""

from __future__ import annotations

import bisect
import hashlib

from ._support import expect_java_exception, parametrize_vectors, run_case, unknown_op

VECTOR_FILE = "consistent_hash"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def physical_node(vnode_key: str) -> str:
    """``"<physical key>-<replica index>"`` -> the physical key (which may itself contain ``-``)."""
    node, sep, index = vnode_key.rpartition("-")
    assert sep and index.isdigit(), f"{vnode_key!r} is not a virtual node key"
    return node


def check_md5_hash(rr, f, compat):
    key = f["key"]
    digest = hashlib.md5(key.encode("utf-8")).hexdigest()
    assert digest == f["md5_hex"], f"{f.where}: the vector's digest is not MD5(UTF-8 of key)"
    assert int(digest[:8], 16) == f["hash"]
    assert f["ascii_only"] is key.isascii()
    assert rr.md5_hash(key) == f["hash"]


def check_ring(rr, router, nodes, where):
    """Whatever the vector gives, the ring itself must be consistent: ascending hashes, each the MD5 of its
    virtual node key, which belongs to a known physical node."""
    ring = router.ring()
    assert len(ring) == len(router), where
    hashes = [h for h, _, _ in ring]
    assert hashes == sorted(set(hashes)), f"{where}: ring() is not in ascending hash order"
    for h, vnode, node in ring:
        assert node in nodes, f"{where}: {node!r} is not a node"
        assert physical_node(vnode) == node, f"{where}: {vnode!r} is not a virtual node of {node!r}"
        assert rr.md5_hash(vnode) == h, f"{where}: {vnode!r}"
    return ring


def check_route(rr, f, compat):
    nodes = f["nodes"]
    router = rr.ConsistentHashRouter(nodes, f["virtual_node_cnt"])
    assert len(router) == f["ring_size"]
    routes = f["routes"]
    for key, want in routes:
        assert router.route_node(key) == want, f"{f.where}: route_node({key!r})"
    assert router.route_nodes([key for key, _ in routes]) == [want for _, want in routes]
    ring = check_ring(rr, router, nodes, f.where)
    if "ring" in f:
        assert [[h, vnode] for h, vnode, _ in ring] == f["ring"], f"{f.where}: ring"
    # an independent router: the first ring entry at or after hash(key), wrapping around
    hashes = [h for h, _, _ in ring]
    for key, want in routes:
        if not ring:
            assert want is None
            continue
        pos = bisect.bisect_left(hashes, rr.md5_hash(key))
        assert ring[pos % len(ring)][2] == want, f"{f.where}: the vector disagrees with ring() for {key!r}"


def run_ops(router, ops, where):
    for i, op in enumerate(ops):
        w = f"{where} op {i}"
        name = op["op"]
        if name == "add":
            node, count = op["node"], op["vnode_count"]
            if "exception" in op:
                size = len(router)
                replicas = router.existing_replicas(node)
                expect_java_exception(lambda n=node, c=count: router.add_node(n, c), op["exception"], w)
                assert len(router) == size, f"{w}: a refused add_node changed the ring"
                assert router.existing_replicas(node) == replicas, w
            else:
                router.add_node(node, count)
        elif name == "remove":
            router.remove_node(op["node"])
            assert router.existing_replicas(op["node"]) == 0, w
        elif name == "existing_replicas":
            assert router.existing_replicas(op["node"]) == op["expect"], w
        elif name == "route":
            assert router.route_node(op["key"]) == op["expect"], w
        else:
            unknown_op(w, name)


def check_ops(rr, f, compat):
    router = rr.ConsistentHashRouter(f["initial_nodes"], f["initial_virtual_node_cnt"])
    run_ops(router, f.each("ops"), f.where)
    assert len(router) == f["final_ring_size"]


def check_collision(rr, f, compat):
    nodes = f["nodes"]
    router = rr.ConsistentHashRouter(nodes, f["virtual_node_cnt"])
    assert len(router) == f["ring_size"]
    colliding = f["colliding_vnode_keys"]
    h = f["colliding_hash"]
    assert len(colliding) == 2 and physical_node(colliding[0]) != physical_node(colliding[1]), f.where
    for vnode in colliding:
        assert rr.md5_hash(vnode) == h, f"{f.where}: {vnode!r}"
    owner = f["owner_at_colliding_hash"]
    # TreeMap.put: the later virtual node replaces the earlier one
    ring = router.ring()
    hashes = [entry[0] for entry in ring]
    pos = bisect.bisect_left(hashes, h)
    assert pos < len(ring) and tuple(ring[pos]) == (h, colliding[-1], owner), f"{f.where}: ring entry at {h}"
    for key, want in f["routes"]:
        assert bisect.bisect_left(hashes, rr.md5_hash(key)) == pos, f"{f.where}: {key!r} misses the slot"
        assert router.route_node(key) == want, f"{f.where}: route_node({key!r})"
    run_ops(router, f.each("ops_after_construction"), f.where)


CHECKS = {
    "md5_hash": check_md5_hash,
    "route": check_route,
    "ops": check_ops,
    "collision": check_collision,
}


def test_consistent_hash_vector(case, backend):
    run_case(case, backend, CHECKS)
