"""The install puts one name, `spider`, in site-packages: every package directory of indexer/, query/ and cypher/ is
listed under it in pyproject.toml (setuptools does not find packages under a package-dir mapping by itself)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_directory_is_installed_under_spider():
    on_disk = set()
    for namespace, directory in SETUPTOOLS["package-dir"].items():
        for init in (ROOT / directory).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / directory).parts
            on_disk.add(".".join((namespace, *relative)))
    assert set(SETUPTOOLS["packages"]) == on_disk


def test_nothing_generic_lands_in_site_packages():
    assert {package.split(".")[0] for package in SETUPTOOLS["packages"]} == {"spider"}
    assert all(namespace.startswith("spider.") for namespace in SETUPTOOLS["package-dir"])


def test_every_cypher_file_is_package_data():
    patterns = SETUPTOOLS["package-data"]["spider.cypher"]
    shipped = {path for pattern in patterns for path in (ROOT / "cypher").glob(pattern)}
    assert shipped == set((ROOT / "cypher").rglob("*.cypher"))


def test_every_shipped_model_file_is_package_data():
    patterns = SETUPTOOLS["package-data"]["spider.indexer.vectors"]
    shipped = ROOT / "indexer" / "vectors" / "shipped"
    assert {path for pattern in patterns for path in (ROOT / "indexer" / "vectors").glob(pattern)} == set(shipped.iterdir())
    assert {path.suffix for path in shipped.iterdir()} == {".json", ".safetensors"}
