from datetime import date

import pytest

from tasks_cli.due import InvalidDueDate, parse_due_date

WEDNESDAY = date(2026, 6, 10)


def test_words_relative_to_today():
    assert parse_due_date("today", WEDNESDAY) == "2026-06-10"
    assert parse_due_date("tomorrow", WEDNESDAY) == "2026-06-11"


def test_weekday_is_the_next_one():
    assert parse_due_date("friday", WEDNESDAY) == "2026-06-12"


def test_rejects_what_it_cannot_read():
    with pytest.raises(InvalidDueDate):
        parse_due_date("next friday", WEDNESDAY)
