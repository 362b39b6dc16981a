"""Tables of players: the club's member list and the names of each pair of a club event.

A member's ``search_key`` is its name as searched (:func:`dealer.players.search_key`:
no accents, no case), so that a search is one indexed ``LIKE`` on every backend.
A national number is unique within its scheme (two members never share an EBU
number); a member without one has ``number`` NULL.

``pair_players`` keeps the two players of each pair of a club event, by
section, line (``""`` when pair numbers are unique, ``NS``/``EW`` in a
two-winner Mitchell) and pair number, seat 1 and 2. Each holds the name and
number as they were at the event; ``member_id`` links the member while it exists.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime, ForeignKey, Integer, SmallInteger, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from dealer.store.models import Base


def _now() -> datetime:
    return datetime.now(UTC)


class Member(Base):
    """A member of the club (or anyone the director adds to the list)."""

    __tablename__ = "members"
    __table_args__ = (UniqueConstraint("scheme", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    search_key: Mapped[str] = mapped_column(String(100), index=True)
    scheme: Mapped[str] = mapped_column(String(10), default="")  # EBU, ACBL, NBB ...
    number: Mapped[str | None] = mapped_column(String(20), nullable=True)
    email: Mapped[str] = mapped_column(String(254), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class PairPlayer(Base):
    """One player of one pair of a club event (seat 1 or 2)."""

    __tablename__ = "pair_players"
    __table_args__ = (UniqueConstraint("club_event_id", "section", "line", "pair_no", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_event_id: Mapped[int] = mapped_column(
        ForeignKey("club_events.id", ondelete="CASCADE"), index=True)
    section: Mapped[str] = mapped_column(String(4))
    line: Mapped[str] = mapped_column(String(2), default="")
    pair_no: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(SmallInteger)
    name: Mapped[str] = mapped_column(String(100))
    member_id: Mapped[int | None] = mapped_column(
        ForeignKey("members.id", ondelete="SET NULL"), nullable=True)
    scheme: Mapped[str] = mapped_column(String(10), default="")
    number: Mapped[str] = mapped_column(String(20), default="")
    entered_by: Mapped[str] = mapped_column(String(100), default="")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
