"""spider's query layer: an issue's text -> the functions of an indexed snapshot most likely to need edits.

The public API is what `__all__` names: `localize`, what it answers (`Answer` of `Result`s, with their `Origin`
and `Verdict`, the selector's `Decision`s and a `Summary`) and what it takes (`Method`; a `Selector`, which decides
a `SelectionRequest` about `Profile`s). The stages live in the sub-packages and modules (retrieve -> expand ->
select -> exchange, `graph_steps` wiring the last three; `explain`, `render`; evaluation; cli).
"""

from spider.query.api import localize
from spider.query.results import Answer, Decision, Method, Origin, Result, Summary, Verdict
from spider.query.select.decide import Profile, SelectionRequest, Selector

__all__ = ["Answer", "Decision", "Method", "Origin", "Profile", "Result", "SelectionRequest", "Selector", "Summary",
           "Verdict", "localize"]
