"""The install puts one name, `spider`, in site-packages: every package directory of indexer/, query/ and cypher/ is
listed under it in pyproject.toml (setuptools does not find packages under a package-dir mapping by itself)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def installed_packages() -> set[str]:
    """The package of every folder with an `__init__.py`, named by the nearest mapping above it (indexer/core/
    is spider.core, not spider.indexer.core)."""
    mapped = {ROOT / directory: namespace for namespace, directory in SETUPTOOLS["package-dir"].items()}
    packages = set()
    for directory, namespace in mapped.items():
        for init in directory.rglob("__init__.py"):
            nearest = max((d for d in mapped if init.parent.is_relative_to(d)), key=lambda d: len(d.parts))
            if nearest == directory:
                packages.add(".".join((namespace, *init.parent.relative_to(directory).parts)))
    return packages


def test_every_package_directory_is_installed_under_spider():
    assert set(SETUPTOOLS["packages"]) == installed_packages()


def test_nothing_generic_lands_in_site_packages():
    assert {package.split(".")[0] for package in SETUPTOOLS["packages"]} == {"spider"}
    assert all(namespace.startswith("spider.") for namespace in SETUPTOOLS["package-dir"])


def test_every_cypher_file_is_package_data():
    patterns = SETUPTOOLS["package-data"]["spider.cypher"]
    shipped = {path for pattern in patterns for path in (ROOT / "cypher").glob(pattern)}
    assert shipped == set((ROOT / "cypher").rglob("*.cypher"))


def test_every_shipped_model_file_is_package_data():
    patterns = SETUPTOOLS["package-data"]["spider.indexer.models"]
    shipped = ROOT / "indexer" / "models" / "shipped"
    assert {path for pattern in patterns for path in (ROOT / "indexer" / "models").glob(pattern)} == set(shipped.iterdir())
    assert {path.suffix for path in shipped.iterdir()} == {".json", ".safetensors"}
