"""The .cypher files agree with spider.core.schema and the loader reads them as analysts write them."""

from __future__ import annotations

import re

from spider import cypher
from spider.core.schema import NODE_LABELS, Label, Rel
from spider.indexer.graph.store import _SCHEMA_STATEMENT


def test_every_label_and_relationship_type_named_in_a_cypher_file_is_in_the_schema_enums():
    known_labels = {label.value for label in Label}
    known_types = {rel.value for rel in Rel}
    for name in cypher.names():
        text = "\n".join(l for l in cypher.load(name).splitlines() if not l.lstrip().startswith("//"))
        placeholder = re.compile(r"^__[A-Z]+__$")  # filled from the enums by graph_store
        labels = {m for m in re.findall(r"\(\w*:(\w+)", text) if not placeholder.match(m)}
        types = {m for m in re.findall(r"\[\w*:(\w+)", text) if not placeholder.match(m)}
        assert labels <= known_labels and types <= known_types, name


def test_schema_has_a_version_uniqueness_constraint_per_node_label_and_statements_split_cleanly():
    statements = cypher.statements(cypher.load("schema"))
    assert all(_SCHEMA_STATEMENT.match(s) and not s.endswith(";") for s in statements)  # ensure_schema reads them
    constrained = {m for s in statements for m in re.findall(r"FOR \(n:(\w+)\) REQUIRE \(n.repo, n.id, n.since\) IS UNIQUE", s)}
    assert constrained == {label.value for label in NODE_LABELS}


def test_declared_parameter_defaults_are_parsed_as_json():
    assert cypher.defaults(cypher.load("neighbourhood")) == {
        "d": 4, "types": ["CONTAINS", "IMPORTS", "INVOKES", "INHERITS"],
    }
    assert cypher.defaults("// @param k = [1, 2]\n// @paramx = 3\nRETURN 1") == {"k": [1, 2]}


def test_every_node_found_by_id_carries_a_seek_hint_on_its_id_index():
    """A plain `USING INDEX` let the planner scan the whole (repo, id) index once per row (gson's class -> method
    CONTAINS write read 2.5M index entries); `USING INDEX SEEK` cannot be planned as a scan."""
    keyed = re.compile(r"MATCH \((\w+):(\w+) \{repo: \$repo, id: [^}]*\}\)( USING INDEX SEEK (\w+):(\w+)\(repo, id\))?")
    found = 0
    for name in cypher.names():
        for variable, label, hint, hinted, hinted_label in keyed.findall(cypher.load(name)):
            found += 1
            assert hint and (hinted, hinted_label) == (variable, label), f"{name}: {variable}:{label}"
    assert found >= 10
