"""Rust: `.rs` files, and `Cargo.toml`, whose package name other crates of the repository `use` it by."""

from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.rust.rules import RULES
from spider.indexer.parse.treesitter import register_grammar

LANGUAGE = "rust"  # the `language` of its File, Class and Function nodes

register_language(LANGUAGE, (".rs",), imported_extractor(f"{__name__}.extract"), RULES, file_names=("Cargo.toml",),
                  grammars=("tree-sitter-rust",))
register_grammar("rust", "tree_sitter_rust:language")
