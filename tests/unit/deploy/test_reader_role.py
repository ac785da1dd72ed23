"""deploy/reader-role.cypher grants the analysts' role reads of the code graph and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from spider import cypher
from spider.core.schema import NODE_LABELS, Label, Rel

SCRIPT = Path(__file__).resolve().parents[3] / "deploy" / "reader-role.cypher"


def statements() -> list[str]:
    return cypher.statements(SCRIPT.read_text())


def test_the_role_may_only_access_and_match_the_code_graph_and_the_snapshots():
    grants = [s for s in statements() if s.startswith("GRANT ")]
    matched = [re.fullmatch(r"GRANT MATCH \{\*\} ON GRAPH neo4j (NODES|RELATIONSHIPS) ([\w, ]+) TO spider_reader", s)
               for s in grants]
    others = [s for s, m in zip(grants, matched) if m is None]
    granted = {m.group(1): set(m.group(2).split(", ")) for m in matched if m}

    assert others == ["GRANT ACCESS ON DATABASE neo4j TO spider_reader", "GRANT ROLE spider_reader TO spider_analyst"]
    assert granted == {"NODES": {label.value for label in NODE_LABELS} | {Label.SNAPSHOT.value},
                       "RELATIONSHIPS": {rel.value for rel in Rel}}


def test_what_public_may_grant_is_denied_and_no_password_is_written_down():
    denied = [s for s in statements() if s.startswith("DENY ")]
    created = [s for s in statements() if s.startswith("CREATE ")]

    for privilege in ("WRITE ON GRAPH neo4j", "LOAD ON ALL DATA", "EXECUTE ADMIN PROCEDURES", "EXECUTE BOOSTED",
                      "TERMINATE TRANSACTION", "SHOW TRANSACTION", "INDEX MANAGEMENT", "CONSTRAINT MANAGEMENT"):
        assert any(s.startswith(f"DENY {privilege}") and s.endswith(" TO spider_reader") for s in denied), privilege
    assert created == ["CREATE ROLE spider_reader IF NOT EXISTS",
                       "CREATE USER spider_analyst IF NOT EXISTS SET PASSWORD $password CHANGE NOT REQUIRED"]
