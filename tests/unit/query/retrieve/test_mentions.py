"""What an issue names outright, and which of a snapshot's functions that is."""

from __future__ import annotations

import re
import time

import pytest
from spider.indexer.languages import register_language
from spider.indexer.languages.rules import Exports, LanguageRules, TestCode
from spider.indexer.parse.facts import FileFacts
from spider.query.retrieve.mentions import (
    MAX_NAME_MATCHES,
    FunctionNames,
    Named,
    error_messages,
    issue_mentions,
    match_mentions,
    mention_ranking,
)

SNAPSHOT = [
    "xarray/core/merge.py:merge_core", "xarray/core/merge.py:merge_collected", "xarray/core/dataset.py:Dataset.merge",
    "xarray/core/dataset.py:Dataset.copy", "gson/src/main/java/com/google/gson/internal/bind/TypeAdapters.java:TypeAdapters.read",
    "src/plugin/utc/index.js:format", "src/plugin/utc/index.js:utc", "src/index.js:dayjs", "lib/http.py:parseHTTPResponse",
    "lib/ids.py:get_user_id", "src/main/java/com/acme/Foo.java:Foo.bar", "src/main/java/com/acme/Foo.java:Foo.bar#2",
    "lib/http.js:axios.get('http://localhost/').then()", "lib/http.js:request",
    "transport/http2_server.go:Server.HandleStreams", "transport/http2_server.go:newServer",
    "crates/searcher/src/searcher/mod.rs:Searcher.search_slice", "crates/searcher/src/searcher/mod.rs:Searcher.new",
    "lib/decompress/zstd_decompress.c:ZSTD_decompressStream", "lib/decompress/zstd_decompress.c:ZSTD_freeDCtx",
    "include/fmt/core.h:detail.parse_format_specs", "include/fmt/core.h:detail.value.operator std::string_view",
    "src/simdjson.cpp:dom.parser.parse",
    *(f"lib/many{i}.py:render_page" for i in range(MAX_NAME_MATCHES + 1)),
]


def named_by(issue: str) -> dict[str, Named]:
    return match_mentions(issue_mentions(issue), FunctionNames.of(SNAPSHOT))


def test_python_traceback_frames_name_their_functions_whatever_the_path_prefix():
    found = named_by('Traceback (most recent call last):\n  File "/home/u/run.py", line 3, in <module>\n'
                     '  File "/usr/lib/python3/site-packages/xarray/core/merge.py", line 90, in merge_core\n')
    assert found == {"xarray/core/merge.py:merge_core": Named.FRAME}  # not merge_collected, not <module>


def test_java_and_javascript_stack_frames_name_their_functions():
    found = named_by("java.lang.NullPointerException\n\tat com.google.gson.internal.bind.TypeAdapters$12.read"
                     "(TypeAdapters.java:210)\n    at Object.format (/app/node_modules/dayjs/src/plugin/utc/index.js:12:5)")
    assert found["gson/src/main/java/com/google/gson/internal/bind/TypeAdapters.java:TypeAdapters.read"] == Named.FRAME
    assert found["src/plugin/utc/index.js:format"] == Named.FRAME
    assert "src/plugin/utc/index.js:utc" not in found  # the frame names format, and the file has only two


GO_PANIC = ("panic: runtime error: invalid memory address\n\ngoroutine 7 [running]:\n"
            "google.golang.org/grpc/internal/transport.(*Server).HandleStreams.func1(0xc000126000)\n"
            "\t/go/pkg/mod/google.golang.org/grpc@v1.56.0/internal/transport/http2_server.go:642 +0x1d\n"
            "main.main()\n\t/home/u/app/main.go:12 +0x25\n")
RUST_BACKTRACE = ("thread 'main' panicked at crates/searcher/src/searcher/mod.rs:735:9:\nstack backtrace:\n"
                  "   0: rust_begin_unwind\n"
                  "  13: grep_searcher::searcher::Searcher::search_slice::h0123456789abcdef\n"
                  "             at ./crates/searcher/src/searcher/mod.rs:735:9\n"
                  "  14: <grep::Sink as grep_searcher::sink::Sink>::matched\n             at ./src/sink.rs:20:5\n")
NATIVE_FRAMES = ("==1==ERROR: AddressSanitizer: heap-buffer-overflow\n"
                 "    #0 0x4f5a2b in ZSTD_decompressStream /src/zstd/lib/decompress/zstd_decompress.c:2012:13\n"
                 "    #1 0x55d1 in fmt::v10::detail::parse_format_specs<char>(char const*, char const*) "
                 "/src/fmt/include/fmt/core.h:2345:7\n"
                 "#2  0x00005555 in main (argc=1, argv=0x7ffe) at tools/fuzz.c:42\n")


@pytest.mark.parametrize("trace, named", [
    (GO_PANIC, ["transport/http2_server.go:Server.HandleStreams"]),  # a closure `func1` names its function
    (RUST_BACKTRACE, ["crates/searcher/src/searcher/mod.rs:Searcher.search_slice"]),
    (NATIVE_FRAMES, ["lib/decompress/zstd_decompress.c:ZSTD_decompressStream",  # AddressSanitizer's frames
                     "include/fmt/core.h:detail.parse_format_specs"]),  # and gdb's (`main` is no function here)
], ids=["go panic", "rust backtrace", "sanitizer and gdb"])
def test_go_rust_c_and_cpp_stack_traces_name_their_functions(trace, named):
    assert named_by(trace) == dict.fromkeys(named, Named.FRAME)


def test_a_plugin_language_says_how_its_frames_read_and_only_frames_of_files_spider_reads_count():
    toy_frame = re.compile(r"^!! (\w+) @ (\S+):\d+$", re.MULTILINE)
    rules = LanguageRules(modules=lambda files: None, exports=Exports.FILE_SCOPE,
                          test_code=TestCode(frozenset(), re.compile(r"\A\Z")),
                          stack_frames=lambda text: [(path, name) for name, path in toy_frame.findall(text)])
    trace = "!! frob @ /abs/src/widget.toyf:12\n!! other @ notes.txt:3\n"
    assert not issue_mentions(trace).frames  # no language prints frames this way yet
    unregister = register_language("toyframes", (".toyf",), lambda path, source: FileFacts(path, "toyframes"), rules)
    try:
        assert issue_mentions(trace).frames == {("/abs/src/widget.toyf", "frob")}
        assert match_mentions(issue_mentions(trace), FunctionNames.of(["src/widget.toyf:frob"])) == {
            "src/widget.toyf:frob": Named.FRAME}
    finally:
        unregister()


def test_paths_of_every_language_spider_reads_name_their_files():
    found = named_by("the overflow is in lib/decompress/zstd_decompress.c; see also src/simdjson.cpp and "
                     "transport/http2_server.go, crates/searcher/src/searcher/mod.rs")
    assert {node_id for node_id, why in found.items() if why == Named.FILE} == {
        "lib/decompress/zstd_decompress.c:ZSTD_decompressStream", "lib/decompress/zstd_decompress.c:ZSTD_freeDCtx",
        "src/simdjson.cpp:dom.parser.parse", "transport/http2_server.go:Server.HandleStreams",
        "transport/http2_server.go:newServer", "crates/searcher/src/searcher/mod.rs:Searcher.search_slice",
        "crates/searcher/src/searcher/mod.rs:Searcher.new"}
    assert issue_mentions("include core.h first").qualified == frozenset()  # a file name, not a member `core.h`


def test_dotted_and_java_member_names_name_methods_and_overloads():
    found = named_by("Dataset.merge drops attrs; so does com.acme.Foo#bar and merge.merge_core")
    assert found["xarray/core/dataset.py:Dataset.merge"] == Named.QUALIFIED
    assert found["src/main/java/com/acme/Foo.java:Foo.bar"] == found["src/main/java/com/acme/Foo.java:Foo.bar#2"] == Named.QUALIFIED
    assert found["xarray/core/merge.py:merge_core"] == Named.QUALIFIED  # module.function
    assert "xarray/core/dataset.py:Dataset.copy" not in found


def test_code_like_identifiers_name_functions_but_words_and_common_names_do_not():
    found = named_by("parseHTTPResponse and get_user_id break; the format of the merge is wrong; render_page too")
    assert found == {"lib/http.py:parseHTTPResponse": Named.NAME, "lib/ids.py:get_user_id": Named.NAME}


def test_a_mentioned_file_names_its_functions_weakest_of_all():
    found = named_by("see src/plugin/utc/index.js and the format function in it")
    assert found == {"src/plugin/utc/index.js:format": Named.FILE, "src/plugin/utc/index.js:utc": Named.FILE}
    assert named_by("see index.js") == {}  # a bare common file name is not a path
    assert named_by("the request in lib/http.js hangs") == {  # a colon in a function's name does not hide it
        "lib/http.js:axios.get('http://localhost/').then()": Named.FILE, "lib/http.js:request": Named.FILE}


def test_error_messages_keep_the_literal_run_a_format_string_holds():
    issue = ("ValueError: dimensions ('x',) must have the same length as the number of data dimensions, ndim=2\n"
             'it says "the value must not be empty here" but `ok`')
    assert error_messages(issue) == ("must have the same length as the number of data dimensions, ndim",
                                     "the value must not be empty here")
    assert error_messages("Error: too short") == ()


def test_a_named_file_counts_half_in_the_fusion_and_every_other_reason_fully():
    # a file names up to MAX_FILE_FUNCTIONS functions, most of them not the one meant
    assert Named.FILE.fusion_weight == 0.5
    assert {kind.fusion_weight for kind in Named if kind is not Named.FILE} == {1.0}


def test_the_ranking_puts_stronger_reasons_first_then_follows_the_other_order():
    found = {"a": Named.FILE, "b": Named.FRAME, "c": Named.NAME, "d": Named.NAME}
    assert mention_ranking(found, {"d": 0, "c": 1}) == ["b", "d", "c", "a"]


def test_an_issue_without_code_names_nothing():
    assert not issue_mentions("The dates are wrong when I switch the locale in the settings page.")


@pytest.mark.parametrize("hostile", ["a.a" * 50_000, "/a.a" * 40_000, "\n" * 150_000, "\n Error:" * 20_000,
                                     "`a.b " * 30_000, "File \"" * 30_000, "at a." * 40_000, "'" + "a " * 80_000,
                                     "#1 0x1 in a " * 20_000, "a(" * 50_000 + "\n\ta.go:1", "1: a::" * 30_000,
                                     " #1 a " + "b.c " * 40_000])
def test_hostile_issue_text_is_read_in_linear_time(hostile):
    start = time.process_time()
    issue_mentions(hostile)
    assert time.process_time() - start < 5  # quadratic backtracking takes minutes on these
