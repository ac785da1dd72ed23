"""Rust: `.rs` files, and `Cargo.toml`, whose package name other crates of the repository `use` it by."""

from spider.core.schema import Language
from spider.indexer.languages import imported_extractor, register_language
from spider.indexer.languages.rust.rules import RULES

register_language(Language.RUST, (".rs",), imported_extractor(f"{__name__}.extract"), RULES,
                  file_names=("Cargo.toml",))
