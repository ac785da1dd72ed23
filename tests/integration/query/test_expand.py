"""cypher/expand.cypher through query.expand against the real Neo4j: hand-computed neighbourhoods of the Python
shop fixture, and equality with a plain breadth-first search on generated graphs with hub directories."""

from __future__ import annotations

import random
from collections import deque

import pytest
from spider.core.records import CodeGraph, GraphEdge, GraphNode
from spider.core.schema import Label, Rel, Resolution
from spider.indexer.pipeline.index import index_repository
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.pipeline.stages import write_graph
from spider.query.expand import expand_neighbourhood

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import PYTHON

UP, DOWN = "<-CONTAINS-", "-CONTAINS->"
CHECKOUT, CHARGE = "shop/service.py:checkout", "shop/payments.py:charge"


@pytest.fixture
def shop(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "shop", PYTHON.files)
    index_repository(store, str(root), repo=repo_name, embed=False)
    return repo_name, sha


def found(neighbours) -> dict[str, tuple]:
    return {nb.id: (nb.hops, nb.seed, nb.rel_type.value) for nb in neighbours}


def test_contains_neighbourhood_of_a_function(store, shop):
    repo, sha = shop
    neighbours = expand_neighbourhood(store, repo, sha, [CHARGE], {Rel.CONTAINS: 4})

    assert found(neighbours) == {
        "shop/payments.py:_send": (2, CHARGE, "CONTAINS"),  # same file
        "shop/payments.py:receipt": (2, CHARGE, "CONTAINS"),
        "shop/payments.py:Receipt.__init__": (3, CHARGE, "CONTAINS"),  # file -> class -> method
        "shop/payments.py:Receipt.header": (3, CHARGE, "CONTAINS"),
        "shop/payments.py:Receipt.render": (3, CHARGE, "CONTAINS"),
        "shop/models.py:apply_discount": (4, CHARGE, "CONTAINS"),  # sibling file in the same directory
        CHECKOUT: (4, CHARGE, "CONTAINS"),
    }
    by_id = {nb.id: nb for nb in neighbours}
    assert by_id["shop/payments.py:_send"].edge_path == (UP, DOWN)
    assert by_id["shop/payments.py:_send"].via == ("shop/payments.py",)
    assert by_id[CHECKOUT].edge_path == (UP, UP, DOWN, DOWN)
    assert by_id[CHECKOUT].via == ("shop/payments.py", "shop", "shop/service.py")
    assert [nb.hops for nb in neighbours] == sorted(nb.hops for nb in neighbours)


def test_invokes_neighbourhood_runs_both_ways(store, shop):
    repo, sha = shop
    neighbours = expand_neighbourhood(store, repo, sha, [CHECKOUT], {Rel.INVOKES: 2})

    assert found(neighbours) == {
        "shop/models.py:Order.add": (1, CHECKOUT, "INVOKES"),
        "shop/payments.py:charge": (1, CHECKOUT, "INVOKES"),
        "shop/payments.py:receipt": (1, CHECKOUT, "INVOKES"),
        "scripts/run.py:main": (1, CHECKOUT, "INVOKES"),  # a caller
        "shop/payments.py:_send": (2, CHECKOUT, "INVOKES"),
        "shop/payments.py:Receipt.render": (2, CHECKOUT, "INVOKES"),
    }
    by_id = {nb.id: nb for nb in neighbours}
    assert by_id["scripts/run.py:main"].edge_path == ("<-INVOKES-",)
    assert by_id["shop/payments.py:_send"].edge_path == ("-INVOKES->", "-INVOKES->")


def test_two_seeds_two_types_nearest_path_wins(store, shop):
    repo, sha = shop
    neighbours = expand_neighbourhood(store, repo, sha, [CHECKOUT, CHARGE], {Rel.CONTAINS: 4, Rel.INVOKES: 2})

    assert found(neighbours) == {
        "shop/models.py:Order.add": (1, CHECKOUT, "INVOKES"),
        "shop/payments.py:receipt": (1, CHECKOUT, "INVOKES"),  # 2 by contains from charge
        "scripts/run.py:main": (1, CHECKOUT, "INVOKES"),
        "shop/payments.py:_send": (1, CHARGE, "INVOKES"),
        "shop/payments.py:Receipt.render": (2, CHECKOUT, "INVOKES"),  # 3 by contains from charge
        "shop/payments.py:Receipt.__init__": (3, CHARGE, "CONTAINS"),
        "shop/payments.py:Receipt.header": (3, CHARGE, "CONTAINS"),
        "shop/models.py:apply_discount": (4, CHECKOUT, "CONTAINS"),  # 4 from both seeds: the first seed wins
    }
    init = "shop/payments.py:Receipt.__init__"
    neighbours = expand_neighbourhood(store, repo, sha, [CHECKOUT, init], {Rel.CONTAINS: 4, Rel.INVOKES: 2})
    # 2 hops by INVOKES from the first seed and by CONTAINS from the second: the seed's rank decides, not the type
    assert found(neighbours)["shop/payments.py:Receipt.render"] == (2, CHECKOUT, "INVOKES")


def test_pool_keeps_only_its_members_and_caps_invokes_by_rank(store, shop):
    repo, sha = shop
    pool = [CHECKOUT, "shop/payments.py:_send", "scripts/run.py:main", "shop/payments.py:charge",
            "shop/payments.py:Receipt.header"]

    neighbours = expand_neighbourhood(store, repo, sha, [CHECKOUT], {Rel.INVOKES: 2}, pool=pool, invokes_cap=2)

    assert [nb.id for nb in neighbours] == ["scripts/run.py:main", "shop/payments.py:_send"]


# -- equality with breadth-first search on generated graphs ---------------------------------------------------
def generated_graph(seed: int) -> tuple[list[GraphNode], list[GraphEdge]]:
    """A repo-shaped graph: a hub directory with hundreds of files, classes with methods, random calls."""
    rng = random.Random(seed)
    nodes = [GraphNode(Label.DIRECTORY, ".", ".", ""), GraphNode(Label.DIRECTORY, "hub", "hub", "hub"),
             GraphNode(Label.DIRECTORY, "lib", "lib", "lib")]
    edges = [GraphEdge(Rel.CONTAINS, ".", "hub"), GraphEdge(Rel.CONTAINS, ".", "lib")]
    functions = []
    for directory, count in (("hub", 300), ("lib", 8)):
        for f in range(count):
            path = f"{directory}/m{f}.py"
            nodes.append(GraphNode(Label.FILE, path, f"m{f}.py", path, "python"))
            edges.append(GraphEdge(Rel.CONTAINS, directory, path))
            for c in range(rng.randint(0, 2)):
                cls = f"{path}:C{c}"
                nodes.append(GraphNode(Label.CLASS, cls, f"C{c}", path, "python"))
                edges.append(GraphEdge(Rel.CONTAINS, path, cls))
                for m in range(rng.randint(1, 3)):
                    functions.append(f"{cls}.m{m}")
                    edges.append(GraphEdge(Rel.CONTAINS, cls, functions[-1]))
            for g in range(rng.randint(0, 2)):
                functions.append(f"{path}:f{g}")
                edges.append(GraphEdge(Rel.CONTAINS, path, functions[-1]))
    nodes += [GraphNode(Label.FUNCTION, fid, fid.rsplit(".", 1)[-1], fid.split(":")[0], "python") for fid in functions]
    calls = {(rng.choice(functions), rng.choice(functions)) for _ in range(len(functions))}
    edges += [GraphEdge(Rel.INVOKES, a, b, Resolution.EXACT) for a, b in calls if a != b]
    edges += [GraphEdge(Rel.IMPORTS, f"lib/m{rng.randrange(8)}.py", rng.choice(functions), Resolution.IMPORT) for _ in range(40)]
    return nodes, edges


def bfs_reference(edges: list[GraphEdge], functions: set[str], seeds: list[str], depths: dict[Rel, int]) -> dict:
    """Per type and seed a plain BFS; per function the minimum of (hops, seed rank, type order)."""
    order = [Rel.CONTAINS, Rel.INVOKES, Rel.IMPORTS, Rel.INHERITS]
    best: dict[str, tuple] = {}
    for rel, depth in depths.items():
        adjacent: dict[str, set[str]] = {}
        for e in edges:
            if e.type is rel:
                adjacent.setdefault(e.src, set()).add(e.dst)
                adjacent.setdefault(e.dst, set()).add(e.src)
        for rank, seed in enumerate(seeds):
            distance = {seed: 0}
            queue = deque([seed])
            while queue:
                node = queue.popleft()
                if distance[node] == depth:
                    continue
                for nxt in adjacent.get(node, ()):
                    if nxt not in distance:
                        distance[nxt] = distance[node] + 1
                        queue.append(nxt)
            for node, hops in distance.items():
                if node in functions and node not in seeds:
                    key = (hops, rank, order.index(rel))
                    if node not in best or key < best[node]:
                        best[node] = key
    return {node: (hops, seeds[rank], order[t].value) for node, (hops, rank, t) in best.items()}


@pytest.mark.parametrize("seed", range(4))
def test_expansion_equals_breadth_first_search(store, repo_name, seed):
    """Two generated graphs written as consecutive snapshots of one repository: each one's expansion walks its
    own versions only."""
    written = []
    for graph_seed in (seed, seed + 100):
        nodes, edges = generated_graph(graph_seed)
        sha = f"{graph_seed:040x}"
        write_graph(store, IndexReport(repo_name, sha, "generated"),
                    CodeGraph(nodes=nodes, edges=edges, labels={n.id: n.label for n in nodes}))
        written.append((sha, nodes, edges))
    for sha, nodes, edges in written:
        functions = {n.id for n in nodes if n.label is Label.FUNCTION}
        rng = random.Random(seed)
        hub_functions = sorted(f for f in functions if f.startswith("hub/"))
        adjacent_pairs = {(e.src, e.dst) for e in edges} | {(e.dst, e.src) for e in edges}
        for depths in ({Rel.CONTAINS: 4}, {Rel.INVOKES: 2}, {Rel.CONTAINS: 3, Rel.INVOKES: 2, Rel.IMPORTS: 2},
                       {Rel.CONTAINS: 6}):
            seeds = rng.sample(hub_functions, 3)
            neighbours = expand_neighbourhood(store, repo_name, sha, seeds, depths)

            assert found(neighbours) == bfs_reference(edges, functions, seeds, depths)
            for nb in neighbours:  # the reported path is a real path of that length
                walk = [nb.seed, *nb.via, nb.id]
                assert len(nb.edge_path) == nb.hops == len(walk) - 1
                assert all((a, b) in adjacent_pairs for a, b in zip(walk, walk[1:]))
                assert all(step in (f"-{nb.rel_type.value}->", f"<-{nb.rel_type.value}-") for step in nb.edge_path)
