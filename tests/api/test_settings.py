"""Settings read from the environment (api/settings.py): each has a default, and a value that
cannot be used stops the service with the setting's name rather than failing later."""

from __future__ import annotations

import pytest

from api.creation_keys import ANSWERS_KEPT, IN_FLIGHT_LIMIT
from api.settings import Settings


def test_a_command_counts_as_running_for_thirty_seconds_by_default() -> None:
    settings = Settings.from_env({})

    assert settings.idempotency_in_flight_seconds == IN_FLIGHT_LIMIT.total_seconds() == 30


def test_the_time_a_command_counts_as_running_can_be_set() -> None:
    settings = Settings.from_env({"BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS": "2.5"})

    assert settings.idempotency_in_flight_seconds == 2.5


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf", "nan", "86401", "1e12"])
def test_a_time_that_is_no_positive_number_is_refused_by_name(value: str) -> None:
    with pytest.raises(ValueError, match="BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS"):
        Settings.from_env({"BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS": value})


def test_answers_to_keyed_commands_are_kept_for_a_day_by_default() -> None:
    settings = Settings.from_env({})

    assert settings.idempotency_answers_kept_hours == ANSWERS_KEPT.total_seconds() / 3600 == 24


def test_the_time_answers_are_kept_can_be_set_in_hours() -> None:
    settings = Settings.from_env({"BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS": "168"})

    assert settings.idempotency_answers_kept_hours == 168


@pytest.mark.parametrize("value", ["0", "-1", "a week", "inf", "87601", "1e8"])
def test_a_time_answers_are_kept_that_is_no_positive_number_of_hours_is_refused_by_name(
    value: str,
) -> None:
    with pytest.raises(
        ValueError,
        match=r"BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS .* hours above 0 and at most 87,600",
    ):
        Settings.from_env({"BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS": value})


def test_the_longest_answers_are_kept_is_ten_years() -> None:
    settings = Settings.from_env({"BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS": "87600"})

    assert settings.idempotency_answers_kept_hours == 87600
