"""docker-compose.yml and the Dockerfile (issue item 5), checked without a Docker engine: the
Compose file against the Compose Specification's JSON Schema (vendored, tests/data/README.md),
and the shape the architecture asks for (ARCHITECTURE §11)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from gunicorn.util import load_class

from api.worker import KeepAliveThreadWorker
from domain.storage import persistence_env
from projections import heartbeat

ROOT = Path(__file__).resolve().parents[1]
SPEC = json.loads((Path(__file__).parent / "data" / "compose-spec.json").read_text())


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def dockerfile() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def spec_errors(document: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft201909Validator(SPEC)
    return [error.message for error in validator.iter_errors(document)]


def test_the_compose_file_is_valid_against_the_compose_specification(
    compose: dict[str, Any],
) -> None:
    assert spec_errors(compose) == []


def test_the_specification_refuses_a_misspelt_service_key(compose: dict[str, Any]) -> None:
    broken = {**compose, "services": {**compose["services"], "db": {"imaeg": "postgres:15"}}}

    assert spec_errors(broken)


def test_the_compose_file_runs_a_database_an_api_and_a_projector(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"db", "api", "projector"}


def test_the_database_is_postgresql_15_with_a_health_check_and_a_named_volume(
    compose: dict[str, Any],
) -> None:
    db = compose["services"]["db"]

    assert db["image"] == "postgres:15"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume, mount = db["volumes"][0].split(":", 1)
    assert mount == "/var/lib/postgresql/data"
    assert volume in compose["volumes"]


@pytest.mark.parametrize("service", ["api", "projector"])
def test_the_api_and_the_projector_wait_for_a_healthy_database(
    compose: dict[str, Any], service: str
) -> None:
    assert compose["services"][service]["depends_on"] == {"db": {"condition": "service_healthy"}}


@pytest.mark.parametrize("service", ["api", "projector"])
def test_the_api_and_the_projector_use_the_database_service(
    compose: dict[str, Any], service: str
) -> None:
    db = compose["services"]["db"]["environment"]
    url = compose["services"][service]["environment"]["BOHNANZA_DATABASE_URL"]

    env = persistence_env(url)

    assert env["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    assert (env["POSTGRES_HOST"], env["POSTGRES_PORT"]) == ("db", "5432")
    assert (env["POSTGRES_USER"], env["POSTGRES_PASSWORD"], env["POSTGRES_DBNAME"]) == (
        db["POSTGRES_USER"],
        db["POSTGRES_PASSWORD"],
        db["POSTGRES_DB"],
    )


def test_the_api_is_built_from_the_dockerfile_and_leaves_projections_to_the_projector(
    compose: dict[str, Any],
) -> None:
    api = compose["services"]["api"]

    assert api["build"] == {"context": ".", "dockerfile": "Dockerfile"}
    assert "command" not in api  # the Dockerfile's gunicorn
    assert api["environment"]["BOHNANZA_INLINE_PROJECTIONS"] == "false"
    assert api["ports"] == ["8000:8000"]
    assert "/api/health" in " ".join(api["healthcheck"]["test"])


def test_the_projector_follows_the_store_from_the_same_image(compose: dict[str, Any]) -> None:
    api, projector = compose["services"]["api"], compose["services"]["projector"]

    assert projector["command"][:3] == ["bohnanza", "projections", "follow"]
    assert projector["image"] == api["image"]
    assert projector["build"] == api["build"]


def test_the_projectors_health_check_reads_the_heartbeat_its_command_touches(
    compose: dict[str, Any], tmp_path: Path
) -> None:
    projector = compose["services"]["projector"]
    command = projector["command"]
    check = projector["healthcheck"]["test"]
    stand_in = tmp_path / "projector.heartbeat"

    assert command[3:] == ["--heartbeat", check[4]]
    assert check[:4] == ["CMD", "python", "-m", "projections.heartbeat"]
    assert heartbeat.main([str(stand_in), *check[5:]]) == 1  # before the first beat
    heartbeat.Heartbeat(stand_in).beat()
    assert heartbeat.main([str(stand_in), *check[5:]]) == 0


def test_the_image_is_python_3_11_slim_with_the_project_installed(dockerfile: list[str]) -> None:
    assert dockerfile[0] == "FROM python:3.11-slim"
    assert any(line.startswith("RUN pip install . ") for line in dockerfile)


def test_the_image_holds_every_package_the_project_installs(dockerfile: list[str]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {name.split(".")[0] for name in project["tool"]["setuptools"]["packages"]}

    copied = {line.split()[1] for line in dockerfile if line.startswith("COPY ")}

    assert packages <= copied


def test_the_image_serves_create_app_with_several_gunicorn_workers_built_after_fork(
    dockerfile: list[str],
) -> None:
    command = json.loads(next(line for line in dockerfile if line.startswith("CMD "))[4:])

    assert command[0] == "gunicorn"
    assert command[-1] == "api.app:create_app()"
    assert int(command[command.index("--workers") + 1]) > 1
    assert "--preload" not in command
    assert load_class(command[command.index("--worker-class") + 1]) is KeepAliveThreadWorker
