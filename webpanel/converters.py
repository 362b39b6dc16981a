"""URL converters that keep what a path can ask of the database in range.

Every number in a panel address is a database id, a board or a round. SQLite
and PostgreSQL store them in 64- or 32-bit integers, and a 25-digit number in
an address reached the driver and raised ``OverflowError`` (a 500). The
``int`` converter is replaced, for every blueprint at once, by one that
refuses anything beyond a 32-bit id: such an address simply does not exist
(404), like any other unknown id.

>>> from werkzeug.routing import Map, Rule
>>> m = Map([Rule("/events/<int:ce_id>", endpoint="show")],
...         converters={"int": BoundedInt})
>>> urls = m.bind("club.example")
>>> urls.match("/events/12")
('show', {'ce_id': 12})
>>> from werkzeug.exceptions import NotFound
>>> try:
...     urls.match("/events/" + "9" * 25)
... except NotFound:
...     print("no such page")
no such page
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import IntegerConverter, Map, ValidationError

ID_MAX = 2**31 - 1  # the largest id PostgreSQL's INTEGER holds; SQLite's is larger


class BoundedInt(IntegerConverter):
    """``<int:...>`` with a maximum of :data:`ID_MAX` unless the rule gives its own."""

    def __init__(self, map: Map, fixed_digits: int = 0, min: int | None = None,
                 max: int | None = ID_MAX, signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)

    def to_python(self, value: str) -> Any:
        # A digit string longer than any id is refused before it becomes a huge int.
        if len(value) > len(str(ID_MAX)):
            raise ValidationError()
        return super().to_python(value)
