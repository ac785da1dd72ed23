"""`redact` over any text: the password of any URI in it, and any secret setting's value, never survives."""

from __future__ import annotations

import os
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st
from spider.core.redact import MASK, SHORTEST_SECRET, redact
from spider.core.settings import SECRET_VARIABLES, URL_VARIABLES

NO_SECRETS = {variable: "" for variable in (*SECRET_VARIABLES, *URL_VARIABLES)}
SCHEMES = st.from_regex(r"[A-Za-z][A-Za-z0-9+.-]{0,9}", fullmatch=True)
USERS = st.text(st.characters(blacklist_characters=":@/?#", blacklist_categories=("Zs", "Cc")), max_size=12)
PASSWORDS = st.text(st.characters(blacklist_characters="/?#", blacklist_categories=("Zs", "Cc")), max_size=24)
HOSTS = st.from_regex(r"[a-z0-9.-]{1,20}(:[0-9]{1,5})?", fullmatch=True)
PATHS = st.from_regex(r"(/[A-Za-z0-9._~-]{0,10}){0,3}", fullmatch=True)
# what an environment variable can hold (no NUL, no lone surrogate), without the mask's own '*'
SETTING_VALUES = st.text(st.characters(blacklist_characters="*\0", blacklist_categories=("Cs",)),
                         min_size=SHORTEST_SECRET)


@given(st.text(), SCHEMES, USERS, PASSWORDS, HOSTS, PATHS, st.text())
def test_no_uri_keeps_its_password(before, scheme, user, password, host, path, after):
    uri = f"{scheme}://{user}:{password}@{host}{path}"
    with mock.patch.dict(os.environ, NO_SECRETS):
        shown = redact(f"{before} {uri} {after}")
    assert f" {scheme}://{user}:{MASK}@{host}{path} " in shown
    assert f"{user}:{password}@" not in shown or password == MASK


@given(st.text(), st.sampled_from(SECRET_VARIABLES), SETTING_VALUES, st.text())
def test_no_secret_setting_survives(text, variable, secret, more):
    with mock.patch.dict(os.environ, {**NO_SECRETS, variable: secret}):
        assert secret not in redact(f"{text}{secret}{more}{secret}")


@given(st.text())
def test_redacting_twice_changes_nothing_more(text):
    with mock.patch.dict(os.environ, NO_SECRETS):
        once = redact(text)
        assert redact(once) == once
