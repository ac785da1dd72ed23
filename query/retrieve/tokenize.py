"""Code-aware tokens for BM25: identifiers are split at snake_case and camelCase boundaries and kept whole.

`parseHTTPResponse` -> parsehttpresponse, parse, http, response; `get_user_id` -> get_user_id, get, user, id.
An issue that says "the response parser" then meets the function `parseHTTPResponse`.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]\w*", re.UNICODE)
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# English glue words and the keywords every language repeats; they carry no signal about which function.
STOPWORDS = frozenset(
    """a an and are as at be but by for from has have if in into is it its of on or that the this to was
    were will with not no can should would when which while what who how we you they i me my our your
    def self cls return none true false null undefined var let const function class new public private
    protected static void int string import export package else elif try except catch finally""".split()
)


def code_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for word in _WORD.findall(text):
        parts = [p.lower() for p in _PART.findall(word)]
        if len(parts) != 1:
            tokens.append(word.lower())
        tokens.extend(parts)
    return [t for t in tokens if len(t) > 1 and t not in STOPWORDS]
