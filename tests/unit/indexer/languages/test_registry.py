"""The registry is the one list of languages: each package under indexer/languages/ names itself and its grammars
where it registers, and nothing else keeps a list (so this test names none either)."""

from __future__ import annotations

import pkgutil
from importlib import import_module, metadata

import spider.indexer.languages as registry


def test_every_language_package_registers_its_name_and_installed_grammars():
    packages = [module.name for module in pkgutil.iter_modules(registry.__path__) if module.ispkg]
    named = {getattr(import_module(f"{registry.__name__}.{package}"), "LANGUAGE", None) for package in packages}
    assert named - {None} <= registry.languages() and len(registry.languages()) >= len(packages)
    assert registry.grammars() and all(metadata.version(grammar) for grammar in registry.grammars())
