"""Each language's definition of test code: what `--tests` keeps out of the first stage and the learned
selector's test features read. Paths from the benchmark's repositories' layouts and the test runners' defaults."""

from __future__ import annotations

import pytest
from spider.indexer.languages import is_test_code, split_entity_id

TEST_CODE = [
    "tests/test_util.py:test_split", "xarray/tests/test_dataset.py:TestDataset.test_copy",
    "testing/python/collect.py:TestModule.test_import", "src/pkg/util_test.py:check", "conftest.py:fixture",
    "sphinx/testing/fixtures.py:app", "doc/conftest.pyi:rootdir",
    "src/test/java/com/acme/FooTest.java:FooTest.parses", "gson/src/main/java/Check/BarTests.java:BarTests.run",
    "core/src/main/java/com/acme/ServerIT.java:ServerIT.starts",
    "src/__tests__/parse.js:parses", "test/locale.test.js:works", "src/plugin/utc.spec.ts:offset",
    "packages/app/__mocks__/fs.js:readFile", "spec/helpers.mjs:setup", "src/date-spec.jsx:Date.render",
    "server_test.go:TestServe", "internal/transport/http2_client_test.go:s.TestClient",
    "cmd/gofmt/testdata/typeparams.go:T.m",
    "tests/regression.rs:regression_1234", "crates/core/tests/api.rs:helpers.setup", "src/search.rs:tests.finds",
    "src/printer.rs:json.tests.escapes", "src/walk/tests.rs:walks",
    "test/format-test.cc:convertible_to_string_view.operator std::string_view",  # `::` in the qualified name
    "tests/buf.rs:&mut [core::mem::MaybeUninit<u8>].put_bytes",
]
SOURCE_CODE = [
    "src/_pytest/python.py:Module._importtestmodule", "xarray/testing.py:assert_equal", "src/pytest/__init__.py:main",
    "sphinx/util/inspect.py:signature", "requests/models.py:Response.json", "lib/contest.py:run",
    "src/main/java/com/acme/Foo.java:Foo.test", "src/main/java/com/acme/Contest.java:Contest.run",
    "src/main/java/com/acme/AUDIT.java:AUDIT.log", "src/index.js:dayjs", "src/plugin/latest.ts:latest",
    "lib/attest.js:attest", "README.md:nothing", "Makefile:test",
    "server.go:Server.testConn", "internal/testutils/leak.go:Check", "test.go:run", "go.mod:module",
    "src/tests_support.rs:run", "src/testutil.rs:tests_dir", "src/search.rs:Searcher.tests", "Cargo.toml:x",
]


@pytest.mark.parametrize("node_id", TEST_CODE)
def test_test_code_is_recognised(node_id):
    assert is_test_code(node_id)


@pytest.mark.parametrize("node_id", SOURCE_CODE)
def test_source_code_is_not_test_code(node_id):
    assert not is_test_code(node_id)


@pytest.mark.parametrize(("node_id", "path", "qualname"), [
    ("src/search.rs:Searcher.run", "src/search.rs", "Searcher.run"),
    ("include/fmt/chrono.h:get_locale.operator std::locale", "include/fmt/chrono.h", "get_locale.operator std::locale"),
    ("src/buf/buf_mut.rs:&mut [core::mem::MaybeUninit<u8>].put_bytes", "src/buf/buf_mut.rs",
     "&mut [core::mem::MaybeUninit<u8>].put_bytes"),
    ("lib/http.js:axios.get('http://localhost:4444/').then()", "lib/http.js", "axios.get('http://localhost:4444/').then()"),
    ("docs/a:b/conf.py:setup", "docs/a:b/conf.py", "setup"),  # a directory name may hold a colon too
    ("go.mod:module", "go.mod", "module"),
    ("Receipt.render", "", "Receipt.render"),
    ("value.operator std::string_view", "", "value.operator std::string_view"),
    ("Makefile:test", "", "Makefile:test"),  # no language reads a Makefile
])
def test_an_id_splits_after_the_first_prefix_that_is_a_file_spider_reads(node_id, path, qualname):
    assert split_entity_id(node_id) == (path, qualname)
