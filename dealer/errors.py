"""Errors that boardwright reports to people.

Every error a user can cause (a broken deal file, a wrong form field, a garbled
serial frame) is a :class:`BoardwrightError`. Its ``str()`` is a complete,
plain sentence naming the file, line, board or field, so the CLI and the panel
print it as it is and never show a traceback.

>>> str(FormatError("bad suit 'X'", path="set.pbn", line=12, board=3, field="Deal"))
"set.pbn, line 12, board 3, field Deal: bad suit 'X'"
"""

from __future__ import annotations


class BoardwrightError(Exception):
    """Base class of every error meant for a person to read."""


class CardError(BoardwrightError, ValueError):
    """A card, rank, suit or seat could not be understood."""


class DealError(BoardwrightError, ValueError):
    """A deal breaks the rules: a duplicate card, a 53rd card, a short hand."""


class FormatError(BoardwrightError, ValueError):
    """A deal file could not be read or written.

    The location parts are optional; whichever are known appear in the message.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        board: int | str | None = None,
        field: str | None = None,
        format: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.board = board
        self.field = field
        self.format = format
        super().__init__(self.__str__())

    def located(self, **where: object) -> FormatError:
        """Return a copy with more location filled in (existing parts win)."""
        parts = {k: getattr(self, k) for k in ("path", "line", "board", "field", "format")}
        for key, value in where.items():
            if parts.get(key) is None:
                parts[key] = value
        return type(self)(self.message, **parts)  # type: ignore[arg-type]

    def __str__(self) -> str:
        where = []
        if self.path:
            where.append(str(self.path))
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.board is not None:
            where.append(f"board {self.board}")
        if self.field:
            where.append(f"field {self.field}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class FormatWarning(UserWarning):
    """A deviation from a format's standard that lenient reading accepted."""


class FormatNote(UserWarning):
    """Something a file cannot say, which the reader had to assume (not a deviation).

    Strict reading does not fail on a note: the file follows its standard; the
    standard just has no place for it (BRI carries no board numbers, for instance).
    """
