"""Due dates as the user types them: YYYY-MM-DD, today, tomorrow, or a weekday name (the next one)."""

from datetime import date, timedelta

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


class InvalidDueDate(ValueError):
    pass


def parse_due_date(text: str, today: date | None = None) -> str:
    today = today or date.today()
    word = text.strip().lower()
    if word == "today":
        return today.isoformat()
    if word == "tomorrow":
        return (today + timedelta(days=1)).isoformat()
    if word in WEEKDAYS:
        ahead = (WEEKDAYS.index(word) - today.weekday()) % 7
        return (today + timedelta(days=ahead)).isoformat()
    try:
        return date.fromisoformat(word).isoformat()
    except ValueError:
        raise InvalidDueDate(f"cannot read the due date {text!r}; use YYYY-MM-DD, today, tomorrow or a weekday")
