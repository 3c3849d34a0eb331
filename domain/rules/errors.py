"""The service's one exception hierarchy; every layer maps these to its own surface."""

from __future__ import annotations

SECTIONS: dict[str, str] = {
    "2": "player count",
    "2.1": "player counts: rio-grande",
    "2.2": "player counts: amigo-1997",
    "2.3": "player counts: amigo",
    "3.1": "seats",
    "3.2": "the start player",
    "3.3": "the deck",
    "3.4": "dealing",
    "4.1": "hand order",
    "4.2": "cards leaving the hand",
    "4.3": "fields",
    "4.4": "every card exists once",
    "5": "turn order",
    "5.1": "phase 1: plant from the hand",
    "5.1.2": "phase 1: the front card first",
    "5.1.3": "phase 1: at most two cards",
    "5.2": "phase 2: reveal and trade",
    "5.2.1": "phase 2: reveal two cards",
    "5.3": "phase 3: plant traded cards",
    "5.3.4": "phase 3: until every trade area is empty",
    "5.4": "phase 4: draw",
    "5.4.1": "phase 4: how many cards",
    "6.1": "trading: the active player is a party",
    "6.2": "trading: what the active player may give",
    "6.3": "trading: what other players may give",
    "6.4": "trading: cards that cannot be traded",
    "6.5": "trading: quantities",
    "6.6": "trading: consent",
    "7.1": "planting: one bean type per field",
    "8.1": "harvest timing",
    "8.2": "harvest the whole field",
    "8.3": "bean protection",
    "9.1": "third bean field: once per game",
    "9.2": "third bean field: price",
    "9.4": "third bean field: not for sale",
    "10": "end of the game",
    "10.1": "draw pile",
    "10.4": "the end during the reveal",
    "10.5": "the end during the draw",
    "10.6": "final scoring",
    "11.1": "bean duel",
    "11.2": "bean duel: turn steps",
    "11.4": "bean duel: the end",
    "11.5": "bean duel: third field timing",
    "12.1": "house rules",
    "15": "rulesets",
}
"""Short titles of the sections of the rules reference (docs/rules.md) that rule violations cite."""


class BohnanzaError(Exception):
    """Base of every error this service raises on purpose."""


def citation(section: str) -> str:
    """How a message cites the rules reference (docs/rules.md), e.g. "RULES §8.3 (bean protection)"."""
    return f"RULES §{section} ({SECTIONS[section]})"


class RuleViolation(BohnanzaError):
    """A well-formed command the rules forbid in this situation.

    The message names the RULES section and says who, what and why, e.g.
    `RULES §8.3 (bean protection): Ana cannot harvest field 1 (1 Chili) while field 2 holds 4 Blue`.
    """

    def __init__(self, section: str, sentence: str) -> None:
        self.section = section
        self.title = SECTIONS[section]
        self.sentence = sentence
        super().__init__(f"{citation(section)}: {sentence}")

    @property
    def rule(self) -> str:
        """The citation alone, e.g. "RULES §8.3"."""
        return f"RULES §{self.section}"


class _Cited(BohnanzaError):
    """An error whose message may begin with the RULES section that says why, as a
    RuleViolation's does; `rule` is then the citation alone, else None."""

    def __init__(self, message: str, section: str | None) -> None:
        self.section = section
        self.sentence = message
        super().__init__(message if section is None else f"{citation(section)}: {message}")

    @property
    def title(self) -> str | None:
        return None if self.section is None else SECTIONS[self.section]

    @property
    def rule(self) -> str | None:
        return None if self.section is None else f"RULES §{self.section}"


class MalformedCommand(_Cited):
    """A command that does not make sense in any situation: unknown seat, bad index, unknown bean,
    missing or mistyped field (a hand position that does not exist cites RULES §4.2)."""

    def __init__(self, message: str, section: str | None = None) -> None:
        super().__init__(message, section)


class InvalidSetup(MalformedCommand):
    """A game that cannot start as asked (seat names, start seat, mode, seed or deck); `field`
    names what to change, `section` the RULES section that says so, if one does."""

    def __init__(self, field: str, message: str, section: str | None = None) -> None:
        self.field = field
        super().__init__(message, section)


class InvalidRuleset(_Cited):
    """An unknown preset, option or option value, or a combination that makes no sense; `field`
    names what to change: the preset (`ruleset`, also for a player count it has no row for) or
    the `options`; `section` the RULES section that says so, if one does."""

    def __init__(self, message: str, field: str = "options", section: str | None = None) -> None:
        self.field = field
        super().__init__(message, section)


class InvalidInput(BohnanzaError):
    """A request that is well-formed JSON but asks for something that cannot exist (a step out of
    range, an unknown glyph): the caller must change it."""


class Forbidden(BohnanzaError):
    """The caller may not do this (edit someone else's note, fork a game still being played)."""


class NotFound(BohnanzaError):
    """No game (or other record) with that id."""


class Conflict(BohnanzaError):
    """The command was based on a version of the game that is no longer current."""

    def __init__(self, message: str, current_version: int | None = None) -> None:
        self.current_version = current_version
        super().__init__(message)
