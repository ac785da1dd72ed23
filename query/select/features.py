"""The cheap features the learned selector scores a proposal by: where the dense ranking
puts the candidate and its seed, how lexically close it is to the issue, and where it sits relative to the seed.

One function computes them for training (`spider eval` dumps them) and for serving (the selector), so the model
never sees features computed two ways.
"""

from __future__ import annotations

import math
import re

from spider.indexer.languages import is_test_code, split_entity_id
from spider.query.retrieve.mentions import Named
from spider.query.retrieve.tokenize import code_tokens
from spider.query.select.decide import Profile, SelectionRequest

FEATURES = (
    "rank_log", "seed_rank_log", "score", "score_gap", "lexical",
    "name_in_issue", "qualified_in_issue", "name_token_overlap", "issue_token_coverage",
    "hops", "contains", "invokes", "imports", "inherits",
    "same_file", "same_class", "test_file", "seed_test_file",
    "degree_log", "code_lines_log", "proposals_log", "proposal_rank_log",
    "path_in_issue", "issue_identifiers_in_code_log", "seed_mentions_candidate", "candidate_mentions_seed",
    "lexical_proposal_rank_log", "lexical_over_best_proposal", "lexical_query_rank_log",
    "named_in_issue", "seed_named_in_issue", "fused_from_both",
)
MIN_NAME = 4  # a name shorter than this ("get", "run") is named by too many issues to mean anything
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE_LIKE = re.compile(r"_|[a-z][A-Z]")  # snake_case or camelCase: an identifier, not an English word


def named_in(issue: str) -> set[str]:
    """Every identifier and every dotted suffix of a dotted name in the issue (`a.B.c` -> a.B.c, B.c, c, a, B)."""
    names: set[str] = set()
    for dotted in _IDENTIFIER.findall(issue):
        parts = dotted.split(".")
        names.update(parts)
        names.update(".".join(parts[i:]) for i in range(len(parts) - 1))
    return names


def split_id(node_id: str) -> tuple[str, list[str]]:
    """`path:Class.method#2` -> (path, [Class, method])."""
    path, qualname = split_entity_id(node_id)
    return path, qualname.split("#")[0].split(".")


def named_strength(named: int) -> float:
    """1.0 for a function a stack-trace frame names, down to 0.2 for one in a file the issue names; 0 if none."""
    return (1 + len(Named) - named) / len(Named) if named else 0.0


class RequestFeatures:
    """What every candidate of one request is compared against (the issue, the seed, the other candidates),
    computed once per request."""

    def __init__(self, request: SelectionRequest) -> None:
        self.request = request
        self.names = named_in(request.issue)
        self.tokens = set(code_tokens(request.issue))
        self.identifiers = {n for n in self.names if "." not in n and len(n) >= MIN_NAME and _CODE_LIKE.search(n)}
        self.seed_path, self.seed_parts = split_id(request.seed.id)
        self.seed_words = set(_WORD.findall(request.seed.code))
        candidates = request.candidates
        self.by_rank = {c.id: place for place, c in enumerate(sorted(candidates, key=lambda c: c.rank), start=1)}
        self.by_lexical = {c.id: place for place, c in
                           enumerate(sorted(candidates, key=lambda c: (-c.lexical, c.rank)), start=1)}
        self.best_lexical = max(c.lexical for c in candidates)

    def of(self, candidate: Profile) -> list[float]:
        """The FEATURES of one candidate, in order."""
        request, seed_parts = self.request, self.seed_parts
        path, parts = split_id(candidate.id)
        short, qualified = parts[-1], ".".join(parts[-2:]) if len(parts) > 1 else ""
        name_tokens = set(code_tokens(short))
        code = set(code_tokens(candidate.code)) | name_tokens
        same_file = path == self.seed_path
        words = set(_WORD.findall(candidate.code))
        stem = path.rsplit("/", 1)[-1].split(".")[0]
        seed_short = seed_parts[-1]
        return [
            math.log(candidate.rank),
            math.log(request.seed.rank),
            candidate.score,
            request.seed.score - candidate.score,
            candidate.lexical,
            float(len(short) >= MIN_NAME and short in self.names),
            float(bool(qualified) and qualified in self.names),
            len(name_tokens & self.tokens) / len(name_tokens) if name_tokens else 0.0,
            len(code & self.tokens) / len(self.tokens) if self.tokens else 0.0,
            float(candidate.hops),
            *(float(candidate.rel_type == rel) for rel in ("CONTAINS", "INVOKES", "IMPORTS", "INHERITS")),
            float(same_file),
            float(same_file and len(parts) > 1 and parts[:-1] == seed_parts[:-1]),
            float(is_test_code(candidate.id)),
            float(is_test_code(request.seed.id)),
            math.log1p(candidate.degree),
            math.log1p(candidate.code.count("\n") + 1 if candidate.code else 0),
            math.log(len(request.candidates)),
            math.log(self.by_rank[candidate.id]),
            float(path in request.issue or (len(stem) >= MIN_NAME and stem in self.names)),
            math.log1p(len(self.identifiers & words)),
            float(len(short) >= MIN_NAME and short in self.seed_words),
            float(len(seed_short) >= MIN_NAME and seed_short in words),
            math.log(self.by_lexical[candidate.id]),
            candidate.lexical / self.best_lexical if self.best_lexical > 0 else 0.0,
            math.log(candidate.lexical_rank) if candidate.lexical_rank else 0.0,
            named_strength(candidate.named),
            named_strength(request.seed.named),
            float(candidate.fused_from == 2),
        ]


def request_features(request: SelectionRequest) -> list[list[float]]:
    """The feature rows of a request's candidates, in candidate order."""
    features = RequestFeatures(request)
    return [features.of(candidate) for candidate in request.candidates]
