"""The double-dummy cache table: one solved table per deal, so nothing is solved twice.

``dd_tables`` is keyed by the deal's 26-byte encoding (the same big-endian
:attr:`dealer.Deal.bits` the ``boards`` table stores) and holds the 20 trick
counts as 20 bytes, ``tricks[strain * 4 + seat]`` (:class:`dealer.dd.DDTable`).
A table depends only on the 52 cards, never on dealer or vulnerability, so one
row serves every board that repeats the deal.

>>> from dealer.store import Store
>>> from sqlalchemy import insert, select
>>> with Store.open("sqlite://") as store, store.engine.begin() as conn:
...     _ = conn.execute(insert(DDTableRow), [{"deal": bytes(26), "tricks": bytes(20)}])
...     len(conn.execute(select(DDTableRow.tricks)).scalar_one())
20
"""

from __future__ import annotations

from sqlalchemy import LargeBinary
from sqlalchemy.orm import Mapped, mapped_column

from dealer.store.models import DEAL_BYTES, Base

TABLE_BYTES = 20  # 5 strains x 4 declarers, one byte of tricks each


class DDTableRow(Base):
    """One solved double-dummy table."""

    __tablename__ = "dd_tables"

    deal: Mapped[bytes] = mapped_column(LargeBinary(DEAL_BYTES), primary_key=True)
    tricks: Mapped[bytes] = mapped_column(LargeBinary(TABLE_BYTES))
