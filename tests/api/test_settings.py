"""Settings read from the environment (api/settings.py): each has a default, and a value that
cannot be used stops the service with the setting's name rather than failing later."""

from __future__ import annotations

import pytest

from api.security import IN_FLIGHT_LIMIT
from api.settings import Settings


def test_a_command_counts_as_running_for_thirty_seconds_by_default() -> None:
    settings = Settings.from_env({})

    assert settings.idempotency_in_flight_seconds == IN_FLIGHT_LIMIT.total_seconds() == 30


def test_the_time_a_command_counts_as_running_can_be_set() -> None:
    settings = Settings.from_env({"BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS": "2.5"})

    assert settings.idempotency_in_flight_seconds == 2.5


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf", "nan"])
def test_a_time_that_is_no_positive_number_is_refused_by_name(value: str) -> None:
    with pytest.raises(ValueError, match="BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS"):
        Settings.from_env({"BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS": value})
