"""Commit messages cleaned into training text (`indexer.tuning.messages`)."""

import pytest
from spider.indexer.models.tuning.messages import Skip, clean_message

HUMAN = "Ada <ada@example.org>"


def test_trailers_references_and_ci_marks_are_dropped():
    message = ("Fix the bounds check in parse_range (#1234) [skip ci]\n\n"
               "An empty range made it read past the end; see owner/repo#77 and GH-12.\n\n"
               "Signed-off-by: Ada <ada@example.org>\nCo-authored-by: Bob <bob@example.org>\n")
    assert clean_message(message, HUMAN) == ("Fix the bounds check in parse_range\n"
                                             "An empty range made it read past the end; see and .")


def test_a_known_trailer_inside_the_text_is_dropped_too():
    assert clean_message("Handle a closed socket in send\nFixes: #12\nmore words follow here", HUMAN) == \
        "Handle a closed socket in send more words follow here"


@pytest.mark.parametrize("message, author, why", [
    ("Bump lodash from 4.17.20 to 4.17.21", "dependabot[bot] <support@github.com>", Skip.BOT),
    ("Update the pinned versions of every tool", "renovate <bot@renovateapp.com>", Skip.BOT),
    ("Release 2.3.0", HUMAN, Skip.RELEASE),
    ("v2.3.1", HUMAN, Skip.RELEASE),
    ("chore(release): publish the new packages", HUMAN, Skip.RELEASE),
    ("Bump version to 1.2.0 for the next cycle", HUMAN, Skip.RELEASE),
    ("Merge branch 'main' into feature", HUMAN, Skip.MERGE),
    ("fix typo", HUMAN, Skip.SHORT),
    ("wip (#12)\n\nSigned-off-by: Ada <ada@example.org>", HUMAN, Skip.SHORT),
])
def test_machine_written_and_short_messages_are_skipped(message, author, why):
    assert clean_message(message, author) is why


def test_a_message_about_releasing_something_is_no_release():
    assert clean_message("Release the lock before returning from get", HUMAN) == \
        "Release the lock before returning from get"


def test_a_message_is_cut_to_its_budget():
    assert len(clean_message("Explain the retry loop " + "word " * 1000, HUMAN)) == 2000
