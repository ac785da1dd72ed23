"""spider's query layer: an issue's text -> the functions of an indexed snapshot most likely to need edits.

The public API is what `__all__` names; the stages live in the sub-packages (retrieve -> expand -> select ->
exchange -> results; evaluation; cli).
"""

from spider.query.api import localize
from spider.query.results import Answer, Method, Result

__all__ = ["Answer", "Method", "Result", "localize"]
