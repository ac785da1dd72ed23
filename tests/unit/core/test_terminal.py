"""`printable`: names and messages from outside cannot drive the terminal they are shown on."""

from __future__ import annotations

import pytest
from spider.core.terminal import printable, render_table


@pytest.mark.parametrize("raw, shown", [
    ("\x1b[2Jcleared", "\\x1b[2Jcleared"),  # clear screen
    ("\x1b]0;owned\x07title", "\\x1b]0;owned\\x07title"),  # OSC window title, ended by BEL
    ("ok\rfake", "ok\\rfake"),  # carriage return overwriting the line
    ("a\nb\tc", "a\\nb\\tc"),
    ("\x9b31mred", "\\x9b31mred"),  # C1 CSI
    ("\x7f", "\\x7f"),
    ("evil\u202egnp.py", "evil\\u202egnp.py"),  # right-to-left override
    ("plain/path.py:λ ⏎", "plain/path.py:λ ⏎"),
])
def test_printable_shows_control_characters_as_escapes(raw, shown):
    assert printable(raw) == shown
    assert printable(shown) == shown


def test_tables_show_control_characters_as_escapes():
    table = render_table(["path\x1b[2J"], [["app/\x1b]0;owned\x07.py"], ["a\nb"]])
    assert [line.rstrip() for line in table.splitlines()] == [
        "path\\x1b[2J", "-" * 23, "app/\\x1b]0;owned\\x07.py", "a\\nb"]
