"""Which functions a diff changes (`indexer.tuning.touched`): a changed line inside the body, not a neighbour."""

import pytest
from spider.indexer.models.tuning.touched import Hunk, hunks_of, touches

DIFF = b"""diff --git a/a.py b/a.py
index 1111111..2222222 100644
--- a/a.py
+++ b/a.py
@@ -3 +3 @@ def f():
-    return 1
+    return 2
@@ -10,2 +9,0 @@ def g():
-    x = 1
-    y = 2
@@ -20,0 +19,4 @@ def h():
+def k():
+    pass
"""


def test_the_old_side_of_each_hunk_is_read():
    assert hunks_of(DIFF) == [Hunk(3, 1), Hunk(10, 2), Hunk(20, 0)]


@pytest.mark.parametrize("hunk, start, end, changed", [
    (Hunk(3, 1), 1, 3, True),  # the last line replaced
    (Hunk(3, 1), 4, 9, False),  # the line before the function
    (Hunk(10, 2), 11, 15, True),  # removed lines overlapping the first line
    (Hunk(20, 0), 18, 20, False),  # inserted after the last line: a new neighbour, not a change
    (Hunk(20, 0), 20, 25, True),  # inserted between lines 20 and 21 of the body
    (Hunk(19, 0), 20, 25, False),  # inserted before the first line
])
def test_a_function_is_changed_when_a_changed_line_is_inside_it(hunk, start, end, changed):
    assert touches(hunk, start, end) is changed
