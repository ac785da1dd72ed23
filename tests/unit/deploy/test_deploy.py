"""deploy/ cannot be started here (no container engine): check what can be checked. The Kubernetes manifests
against the API schemas (kubernetes-validate), the compose file's wiring, and that both speak the settings and
commands spider actually has."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from urllib.parse import urlparse

import kubernetes_validate
import pytest
import yaml
from spider.cli.main import main as spider_cli

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
KUBERNETES_VERSION = "1.32"
SERVICE_ENV = ("NEO4J_URI", "QDRANT_URL", "SPIDER_BROKER_URL")


def manifests() -> list[dict]:
    kustomization = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text())
    return [doc for name in kustomization["resources"]
            for doc in yaml.safe_load_all((DEPLOY / "k8s" / name).read_text()) if doc]


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


def read_by_spider(variable: str) -> bool:
    sources = [p.read_text() for p in (DEPLOY.parent / "indexer" / "core").glob("*.py")]
    return any(re.search(rf"[\"']{variable}[\"']", text) for text in sources)


def assert_spider_command(args: list[str]) -> None:
    """`spider ARGS` names a real subcommand and only options it has."""
    command = spider_cli.commands[args[0]]
    known = {option for param in command.params for option in param.opts}
    assert all(a in known for a in args[1:] if a.startswith("-")), args


@pytest.mark.parametrize("resource", manifests(), ids=lambda r: f"{r['kind']}/{r['metadata']['name']}")
def test_every_manifest_is_valid_against_the_kubernetes_schema(resource):
    kubernetes_validate.validate(resource, KUBERNETES_VERSION, strict=True)


def test_kubernetes_wiring():
    resources = manifests()
    by_kind = {}
    for r in resources:
        by_kind.setdefault(r["kind"], {})[r["metadata"]["name"]] = r
    config = by_kind["ConfigMap"]["spider-config"]["data"]
    for variable in SERVICE_ENV:  # every URL names a Service on its port, and spider reads the variable
        url = urlparse(config[variable])
        service = by_kind["Service"][url.hostname]
        assert url.port in [p["port"] for p in service["spec"]["ports"]] and read_by_spider(variable), variable
    for workload in [*by_kind["StatefulSet"].values(), *by_kind["Deployment"].values()]:
        for container in workload["spec"]["template"]["spec"]["containers"]:
            assert "readinessProbe" in container, workload["metadata"]["name"]
    worker = by_kind["Deployment"]["spider-worker"]["spec"]["template"]["spec"]
    args = worker["containers"][0]["args"]
    assert_spider_command(args)
    claims = {v["persistentVolumeClaim"]["claimName"] for v in worker["volumes"] if "persistentVolumeClaim" in v}
    assert claims <= set(by_kind["PersistentVolumeClaim"])


def test_compose_wiring():
    spec = compose()
    services = spec["services"]
    assert {"neo4j", "qdrant", "redis", "worker"} <= set(services)
    env = services["worker"]["environment"]
    for variable in SERVICE_ENV:
        url = urlparse(env[variable])
        assert url.hostname in services and read_by_spider(variable), variable
    for name in ("neo4j", "qdrant", "redis", "worker"):
        assert "healthcheck" in services[name] and services[name]["restart"] == "unless-stopped", name
    assert all(dep["condition"] == "service_healthy" for dep in services["worker"]["depends_on"].values())
    used = {v.split(":")[0] for s in services.values() for v in s.get("volumes", [])}
    assert used <= set(spec["volumes"])
    assert services["worker"]["command"][0] == "worker"
    assert_spider_command(services["worker"]["command"])


def test_the_image_holds_every_package_spider_installs():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    directories = tomllib.loads((DEPLOY.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for folder in {directory.split("/")[0] for directory in directories.values()}:  # indexer/core/ is in indexer/
        assert f"COPY {folder} {folder}" in dockerfile, folder


LOCKED_DOWN = {"NEO4J_dbms_security_allow__csv__import__from__file__urls": "false",
               "NEO4J_internal_dbms_cypher__ip__blocklist": "0.0.0.0/0,::/0", "NEO4J_db_transaction_timeout": "15m"}


def test_the_deployed_neo4j_is_locked_down_like_the_local_one():
    """No LOAD CSV from files or any address and a default transaction timeout, as deploy/neo4j's launcher sets."""
    neo4j_container = next(c for r in manifests() if r["metadata"]["name"] == "neo4j" and r["kind"] == "StatefulSet"
                           for c in r["spec"]["template"]["spec"]["containers"])
    kubernetes = {e["name"]: e.get("value") for e in neo4j_container["env"]}

    assert LOCKED_DOWN.items() <= compose()["services"]["neo4j"]["environment"].items()
    assert LOCKED_DOWN.items() <= kubernetes.items()
