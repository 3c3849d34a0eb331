"""RULES §1: the cards — eleven bean types, their counts and beanometers, and the payout function."""

import pytest

from domain.rules.beans import BASE_BEANS, BEANS, coins_for

BEAN_TABLE = [
    # bean, count, fewest cards for 1 / 2 / 3 / 4 coins (RULES §1.1)
    ("coffee", 24, (4, 7, 10, 12)),
    ("wax", 22, (4, 7, 9, 11)),
    ("blue", 20, (4, 6, 8, 10)),
    ("chili", 18, (3, 6, 8, 9)),
    ("stink", 16, (3, 5, 7, 8)),
    ("green", 14, (3, 5, 6, 7)),
    ("soy", 12, (2, 4, 6, 7)),
    ("black-eyed", 10, (2, 4, 5, 6)),
    ("red", 8, (2, 3, 4, 5)),
    ("garden", 6, (None, 2, 3, None)),
    ("cocoa", 4, (None, 2, 3, 4)),
]


@pytest.mark.parametrize(("bean", "count", "meter"), BEAN_TABLE, ids=[row[0] for row in BEAN_TABLE])
def test_each_bean_type_has_the_count_and_beanometer_of_the_table(bean, count, meter):
    assert (BEANS[bean].count, BEANS[bean].meter) == (count, meter)


def test_the_full_edition_has_eleven_types_and_154_bean_cards():
    assert list(BEANS) == [row[0] for row in BEAN_TABLE]
    assert sum(bean.count for bean in BEANS.values()) == 154


def test_the_amigo_base_deck_is_rows_three_to_ten_with_104_cards():
    assert BASE_BEANS == ("blue", "chili", "stink", "green", "soy", "black-eyed", "red", "garden")
    assert sum(BEANS[bean].count for bean in BASE_BEANS) == 104


@pytest.mark.parametrize(
    ("bean", "german"),
    [
        ("stink", "Saubohne"),
        ("green", "Brechbohne"),
        ("chili", "Feuerbohne"),
        ("black-eyed", "Augenbohne"),
    ],
)
def test_beans_carry_their_official_german_names(bean, german):
    assert BEANS[bean].german == german


PAYOUTS = [
    # RULES §1.2 worked examples: (bean, cards in the field, coins)
    *[("stink", n, coins) for n, coins in [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 2), (7, 3)]],
    *[("stink", n, 4) for n in (8, 12, 16)],
    *[("blue", n, coins) for n, coins in [(1, 0), (3, 0), (4, 1), (5, 1), (6, 2), (7, 2)]],
    *[("blue", n, coins) for n, coins in [(8, 3), (9, 3), (10, 4), (20, 4)]],
    ("garden", 1, 0),
    ("garden", 2, 2),
    ("garden", 3, 3),
    ("garden", 6, 3),
    ("cocoa", 1, 0),
    ("cocoa", 2, 2),
    ("cocoa", 3, 3),
    ("cocoa", 4, 4),
    ("coffee", 24, 4),
]


@pytest.mark.parametrize(
    ("bean", "n", "coins"), PAYOUTS, ids=[f"{n} {bean} pay {coins}" for bean, n, coins in PAYOUTS]
)
def test_a_harvest_pays_the_highest_beanometer_level_reached(bean, n, coins):
    assert coins_for(BEANS[bean].meter, n) == coins


@pytest.mark.parametrize("bean", list(BEANS))
def test_a_harvest_never_pays_more_coins_than_it_has_cards_nor_more_than_four(bean):
    for n in range(1, BEANS[bean].count + 1):
        assert coins_for(BEANS[bean].meter, n) <= min(n, 4)
