"""Keep the secrets that travel in addresses out of the server's logs.

A table's token (``/t/<token>``) and a score pad's (``/pads/<token>``) are
the keys to them, and they are in every address the phones open, in the
request line and in the Referer. An access log is read by more people, and
kept longer, than the panel's database, so the tokens are replaced before a
line is written: by werkzeug's request log (``boardwright serve``,
``flask run``: :class:`RedactFilter` on its logger) and by gunicorn's access
log (``webpanel.gunicorn_config``). A ``next=`` after a login is cut too:
it is where the director was going, nobody else's business.

>>> redact('"GET /t/Zx9-_aB/board/3?round=2 HTTP/1.1" 200 -')
'"GET /t/<redacted>/board/3?round=2 HTTP/1.1" 200 -'
>>> redact("POST /pads/k2J_x-9 302 /pads/new /pads/all/ Referer http://h/t/abc")
'POST /pads/<redacted> 302 /pads/new /pads/all/ Referer http://h/t/<redacted>'
>>> redact("GET /login?next=%2Fevents%2F3&x=1")
'GET /login?next=<redacted>&x=1'
"""

from __future__ import annotations

import logging
import re

# The pads blueprint's own pages under /pads/ that are not tokens.
_PAD_PAGES = ("new", "all")
# A token is one path segment; stop at the next "/", "?", "#", quote or space.
_SEGMENT = r"[^/?#\s\"']+"
_TABLE = re.compile(rf"(/t/){_SEGMENT}")
_PAD = re.compile(rf"(/pads/)(?!(?:{'|'.join(_PAD_PAGES)})(?:[/?#\s\"']|$)){_SEGMENT}")
_NEXT = re.compile(r"([?&]next=)[^&#\s\"']*")
MARK = "<redacted>"


def redact(line: str) -> str:
    """``line`` with every table and pad token and every ``next=`` value replaced."""
    line = _TABLE.sub(rf"\g<1>{MARK}", line)
    line = _PAD.sub(rf"\g<1>{MARK}", line)
    return _NEXT.sub(rf"\g<1>{MARK}", line)


class RedactFilter(logging.Filter):
    """A logging filter that redacts the finished message of every record it passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def install(logger_name: str = "werkzeug") -> None:
    """Put one :class:`RedactFilter` on the named logger (again: no second one)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, RedactFilter) for f in logger.filters):
        logger.addFilter(RedactFilter())
