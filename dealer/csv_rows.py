"""The rows of a CSV file, with the csv module's own errors given as the caller's.

The csv module stops on a cell of more than 131,072 characters, or a NUL byte, with a
``csv.Error`` that names neither the file nor the line. Each reader of a CSV file says
what such a row is in its own terms: a results file's :class:`~dealer.errors.FormatError`
with its path and line, a member list's ``PlayerError``.

>>> import csv, io
>>> list(rows(csv.reader(io.StringIO("a,b\\n1,2\\n")), lambda line, exc: ValueError(line)))
[['a', 'b'], ['1', '2']]
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from typing import Any


def rows(reader: Any, error: Callable[[int, csv.Error], Exception]) -> Iterator[list[str]]:
    """The rows of the ``csv.reader`` ``reader``; a row it cannot read raises
    ``error(line, exc)`` (the reader's line number, the csv module's error) instead."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise error(reader.line_num, exc) from None
        yield row
