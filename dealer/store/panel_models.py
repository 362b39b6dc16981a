"""Tables of the club panel: directors, club events, table tokens, results, pads, dealing jobs.

They live in the core (docs/architecture.md, "Adding tables") so that the
panel, the command line and the benches share one schema. Passwords are
stored only as the hash the panel computes; the core never sees a password.

A result row is unique per (club event, section, table, board): one table
plays a board once, so two phones entering the same board meet this
constraint and the second gets a conflict. Every accepted form, entry or
correction, leaves its client-made submission id in ``submissions``; a retry
finds it there and is answered "already recorded" instead of writing twice.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from dealer.store.models import Base


def _now() -> datetime:
    return datetime.now(UTC)


class Director(Base):
    """A person who may use the director's pages."""

    __tablename__ = "directors"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class DirectorSession(Base):
    """One signed-in browser of a director: the session cookie names it, log-out ends it.

    Only a hash of the session's secret is stored, so a copy of the database
    does not sign anyone in. A password change ends every other session.
    """

    __tablename__ = "director_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 of the secret
    director_id: Mapped[int] = mapped_column(
        ForeignKey("directors.id", ondelete="CASCADE"), index=True)
    client: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LoginFailure(Base):
    """One failed login, kept for rate limiting (by client address)."""

    __tablename__ = "login_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    client: Mapped[str] = mapped_column(String(100), index=True)
    # The name tried, so that an account has its own limit behind a shared address.
    account: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ClubEvent(Base):
    """A session as the director sets it up: movement, scoring, boards, options."""

    __tablename__ = "club_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(10), default="pairs")  # pairs | teams
    movement: Mapped[str] = mapped_column(String(20), default="mitchell")  # mitchell | howell
    tables: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    boards_per_round: Mapped[int] = mapped_column(Integer, default=2)
    sections: Mapped[list[str]] = mapped_column(JSON, default=list)
    # The generator's options beyond tables/rounds/boards: {"method": "relay",
    # "arrow_switch": [7], "ew_offset": 7, "missing": ["EW", 14]} (Howell: {"missing": 8}).
    movement_options: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    scoring: Mapped[str] = mapped_column(String(20), default="matchpoints")  # | butler | cross
    deal_set_id: Mapped[int | None] = mapped_column(
        ForeignKey("deal_sets.id", ondelete="SET NULL"), nullable=True)
    show_traveller: Mapped[bool] = mapped_column(Boolean, default=True)
    show_hand_record: Mapped[bool] = mapped_column(Boolean, default=True)
    current_round: Mapped[int] = mapped_column(Integer, default=1)
    correction_minutes: Mapped[int] = mapped_column(Integer, default=30)  # Law 79C
    published_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # When a table may see a board's hand record and traveller, after its own result:
    # "off", "board" (at once) or "round" (once its round is complete; the default).
    reveal_after: Mapped[str] = mapped_column(String(8), default="round", server_default="round")
    # Tables may enter ahead of their current round only while the director allows it.
    allow_ahead: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    # The opponents' acceptance step (Bridgemate style): a table's entry is pending, not
    # scored, until East-West accept it on the same phone.
    ew_accept: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    # A closed event's table tokens no longer open anything.
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    # A multi-session event: every session holds the id of its first session (which holds
    # its own); None for a one-session event (dealer.store.results.sessions).
    group_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)


class TableToken(Base):
    """The secret in a table card's QR code: it opens one table of one club event."""

    __tablename__ = "table_tokens"
    __table_args__ = (UniqueConstraint("club_event_id", "section", "table_no"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_event_id: Mapped[int] = mapped_column(
        ForeignKey("club_events.id", ondelete="CASCADE"))
    section: Mapped[str] = mapped_column(String(4))
    table_no: Mapped[int] = mapped_column(Integer)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    # Each new printing of the table cards for a session replaces the tokens and counts up.
    issue: Mapped[int] = mapped_column(Integer, default=1, server_default="1")


class TableView(Base):
    """A table was shown a board's hand record or traveller (fair play: a later change is flagged)."""

    __tablename__ = "table_views"
    __table_args__ = (UniqueConstraint("club_event_id", "section", "table_no", "board"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_event_id: Mapped[int] = mapped_column(
        ForeignKey("club_events.id", ondelete="CASCADE"), index=True)
    section: Mapped[str] = mapped_column(String(4))
    table_no: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ResultRow(Base):
    """One traveller line as entered at a table (or by the director)."""

    __tablename__ = "results"
    __table_args__ = (UniqueConstraint("club_event_id", "section", "table_no", "board"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_event_id: Mapped[int] = mapped_column(
        ForeignKey("club_events.id", ondelete="CASCADE"), index=True)
    section: Mapped[str] = mapped_column(String(4))
    table_no: Mapped[int] = mapped_column(Integer)
    round_no: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    ns: Mapped[int] = mapped_column(Integer)
    ew: Mapped[int] = mapped_column(Integer)
    contract: Mapped[str | None] = mapped_column(String(8), nullable=True)  # "4SX", "PASS"
    declarer: Mapped[str | None] = mapped_column(String(1), nullable=True)
    lead: Mapped[str | None] = mapped_column(String(3), nullable=True)
    tricks: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ns_artificial: Mapped[str | None] = mapped_column(String(8), nullable=True)
    ew_artificial: Mapped[str | None] = mapped_column(String(8), nullable=True)
    not_played: Mapped[bool] = mapped_column(Boolean, default=False)
    # Why the table did not play it ("time", "late play", "fouled board", ...): for the desk.
    not_played_reason: Mapped[str | None] = mapped_column(String(40), nullable=True)
    fouled_group: Mapped[int] = mapped_column(Integer, default=0)
    # A weighted adjusted score (Law 12C1(c)) as the director gave it, each part with
    # its share and NS score: "60% 4S N 10 +420; 40% 4S N 9 -50" (store.results.entry).
    weighted: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # A two-winner Mitchell's pairs sat the wrong way: ``ns`` is the EW pair that sat
    # North-South (and ``ew`` the NS pair); each keeps its own line (events.model.Result).
    swapped: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    play: Mapped[str | None] = mapped_column(Text, nullable=True)  # PBN play order, if captured
    # Entered or changed after the results were published.
    late: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    # Changed by the table after it had been shown this board's traveller: the desk flags it.
    changed_after_view: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default="0")
    # Entered by North-South while the event asks East-West to accept each result: not
    # scored (not read by results()) until East-West accept it.
    pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    # Optimistic locking: every UPDATE says "WHERE version = <read>", so two people
    # correcting at once cannot both win, on SQLite (whose reads take no lock) as on PostgreSQL.
    version: Mapped[int] = mapped_column(Integer, default=1)
    entered_by: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    __mapper_args__ = {"version_id_col": version}


class Submission(Base):
    """A client-made id of an accepted form: a retry with the same id changes nothing."""

    __tablename__ = "submissions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("results.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))  # entry | correction
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ResultChange(Base):
    """The audit trail: who changed which field of a result, when, from what to what."""

    __tablename__ = "result_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(
        ForeignKey("results.id", ondelete="CASCADE"), index=True)
    who: Mapped[str] = mapped_column(String(100))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    field: Mapped[str] = mapped_column(String(30))
    old: Mapped[str] = mapped_column(String(100), default="")
    new: Mapped[str] = mapped_column(String(100), default="")
    reason: Mapped[str] = mapped_column(String(300), default="")
    in_window: Mapped[bool] = mapped_column(Boolean, default=True)  # Law 79C


class Pad(Base):
    """A score pad (rubber, Chicago, Minibridge, TigerBridge, Bugger): its log of entries."""

    __tablename__ = "pads"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(100))
    token: Mapped[str] = mapped_column(String(64), unique=True)
    # The address that created the pad: pads are limited per address and expire unused.
    client: Mapped[str] = mapped_column(String(100), default="", server_default="", index=True)
    setup: Mapped[dict] = mapped_column(JSON, default=dict)
    entries: Mapped[list] = mapped_column(JSON, default=list)
    version: Mapped[int] = mapped_column(Integer, default=1)  # optimistic locking, as results
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    __mapper_args__ = {"version_id_col": version}


class DealingJob(Base):
    """A dealing job: the panel creates it and writes its command; the rig writes the rest.

    The one status channel between them (``dealer.rig_ports.JobLink``); states
    and commands are the values of ``JobState`` and ``Command`` there.
    """

    __tablename__ = "dealing_jobs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    deal_set_id: Mapped[int] = mapped_column(ForeignKey("deal_sets.id", ondelete="CASCADE"))
    machine: Mapped[str] = mapped_column(String(200), default="emulator")
    state: Mapped[str] = mapped_column(String(12), default="queued")
    command: Mapped[str] = mapped_column(String(12), default="")  # pause | resume | abort
    boards_total: Mapped[int] = mapped_column(Integer, default=0)
    boards_done: Mapped[int] = mapped_column(Integer, default=0)
    cards_done: Mapped[int] = mapped_column(Integer, default=0)
    current_board: Mapped[int | None] = mapped_column(Integer, nullable=True)
    message: Mapped[str] = mapped_column(String(300), default="")
    instruction: Mapped[str] = mapped_column(String(300), default="")
    card: Mapped[str] = mapped_column(String(40), default="", server_default="")  # "♠A → North"
    image: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)  # last card, JPEG
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
