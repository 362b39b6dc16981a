"""The store's tables, as typed SQLAlchemy 2 declarative models.

Three tables belong to the core: ``events``, ``deal_sets`` and ``boards``.
Later modules add theirs in their own ``models`` module and their own Alembic
revision (see ``docs/architecture.md``), sharing :class:`Base` so that
foreign keys to these tables resolve.

A deal is stored as its 208-bit packed encoding (:attr:`dealer.Deal.bits`)
in a 26-byte BLOB, which is what the code reads back; the PBN text beside it
is for people looking at the database with other tools.
"""

from __future__ import annotations

import importlib
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Explicit constraint names, so Alembic can alter and drop them on every backend
# (SQLite's batch mode needs names to find a constraint again).
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

DEAL_BYTES = 26  # 4 hands x 52 bits = 208 bits

# Every module that defines tables on :class:`Base`. A later issue that adds tables
# appends its module here and adds one Alembic revision (docs/architecture.md); the
# schema test compares the migrated database with the metadata of all of them.
MODEL_MODULES: tuple[str, ...] = ("dealer.store.models", "dealer.store.panel_models",
                                 "dealer.store.journal", "dealer.store.dd_models",
                                 "dealer.store.player_models")


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Shared declarative base of every boardwright table."""

    metadata = MetaData(naming_convention=NAMING)


class Event(Base):
    """A session or tournament that deal sets belong to."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    date: Mapped[str] = mapped_column(String(32), default="")  # PBN style, "2026.11.22"
    site: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    deal_sets: Mapped[list[DealSetRow]] = relationship(
        back_populates="event", cascade="all, delete-orphan", passive_deletes=True)


class DealSetRow(Base):
    """One stored :class:`dealer.DealSet`."""

    __tablename__ = "deal_sets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(
        ForeignKey("events.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(500), default="")
    # Event-level tags as [name, value] pairs: a JSON list keeps their order on every backend.
    meta: Mapped[list[list[str]]] = mapped_column(JSON, default=list)
    sealed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    event: Mapped[Event] = relationship(back_populates="deal_sets")
    boards: Mapped[list[BoardRow]] = relationship(
        back_populates="deal_set", cascade="all, delete-orphan", passive_deletes=True,
        order_by="BoardRow.position")


class AuditEntry(Base):
    """One line of the club's audit log: who did what to what, and when (unsealing, new table cards)."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, index=True)
    who: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(40))
    subject: Mapped[str] = mapped_column(String(200), default="")
    detail: Mapped[str] = mapped_column(String(500), default="")


class BoardRow(Base):
    """One board of a stored deal set, in the set's order (``position``)."""

    __tablename__ = "boards"
    __table_args__ = (
        UniqueConstraint("deal_set_id", "position"),
        CheckConstraint("dealer BETWEEN 0 AND 3", name="dealer_seat"),
        CheckConstraint("vulnerability IN ('None', 'NS', 'EW', 'All')", name="vulnerability"),
        CheckConstraint("number >= 1", name="number_positive"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    deal_set_id: Mapped[int] = mapped_column(ForeignKey("deal_sets.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    deal: Mapped[bytes | None] = mapped_column(LargeBinary(DEAL_BYTES))
    partial: Mapped[bool] = mapped_column(Boolean, default=False)
    pbn: Mapped[str | None] = mapped_column(Text)
    dealer: Mapped[int] = mapped_column(SmallInteger)
    vulnerability: Mapped[str] = mapped_column(String(4))
    tags: Mapped[list[list[str]]] = mapped_column(JSON, default=list)
    sections: Mapped[list[list[str]]] = mapped_column(JSON, default=list)

    deal_set: Mapped[DealSetRow] = relationship(back_populates="boards")


def all_metadata() -> MetaData:
    """The metadata of every table in :data:`MODEL_MODULES` (importing them as needed)."""
    for name in MODEL_MODULES:
        importlib.import_module(name)
    return Base.metadata
