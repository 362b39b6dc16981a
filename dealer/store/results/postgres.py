"""PostgreSQL only: a table's entry, and a correction, each as ONE statement.

A table's entry is two inserts and a correction an update and two inserts;
the opponents' acceptance of a pending entry is one update on both backends
(:data:`ACCEPT` in :mod:`dealer.store.results.entry`), run here without a
transaction around it;
in one transaction each that is four or five round trips to the server
(BEGIN, the statements, COMMIT), and on the two cores of a club laptop the
round trips cost more than the work. PostgreSQL runs data-modifying CTEs
as one statement, atomically, so each becomes one round trip. The
statements are built once with bound parameters (and prepared by psycopg
after a few uses). SQLite cannot modify data in a CTE; it keeps the
short transaction (it has no round trips to save), in
:mod:`dealer.store.results.entry` and :mod:`dealer.store.results.corrections`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Boolean,
    DateTime,
    Executable,
    String,
    bindparam,
    func,
    insert,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.sql.elements import ClauseElement

from dealer.store.repository import Store
from dealer.store.results.common import (
    CHANGES,
    EDITABLE,
    FLAGS,
    RESULTS,
    SUBMISSIONS,
    Resent,
    Stale,
    as_text,
    now,
)
from dealer.store.results.reading import SUBMISSION_SEEN, ResultLine


def _statements() -> tuple[Executable, Executable, Executable]:
    """The entry, the correction with a submission id, and the one without."""
    stamp = DateTime(timezone=True)
    entry_cols = ("club_event_id", "section", "table_no", "round_no", "board", "ns", "ew",
                  "contract", "declarer", "lead", "tricks", "score", "not_played",
                  "not_played_reason", "pending", "fouled_group", "version", "entered_by",
                  "created_at", "updated_at", "late")
    row = (insert(RESULTS).values({c: bindparam(c, type_=RESULTS.c[c].type)
                                   for c in entry_cols})
           .returning(RESULTS.c.id).cte("row"))
    entry = (insert(SUBMISSIONS).from_select(
        ["id", "result_id", "kind", "at"],
        select(bindparam("_sid", type_=String), row.c.id, literal("entry"),
               bindparam("created_at", type_=stamp)))
        .returning(SUBMISSIONS.c.result_id).add_cte(row))
    # Every editable column is set (unchanged ones to their old value): one shape
    # for every correction. "WHERE version = <read>" as on SQLite.
    upd = (update(RESULTS).where(RESULTS.c.id == bindparam("_rid"),
                                 RESULTS.c.version == bindparam("_read"))
           .values({c: bindparam(c, type_=RESULTS.c[c].type)
                    for c in (*EDITABLE, *FLAGS, "score", "updated_at", "version")})
           .returning(RESULTS.c.id).cte("upd"))
    fields = func.unnest(bindparam("_fields", type_=ARRAY(String)),
                         bindparam("_olds", type_=ARRAY(String)),
                         bindparam("_news", type_=ARRAY(String))
                         ).table_valued("field", "old", "new").render_derived(name="f")
    audit = insert(CHANGES).from_select(
        ["result_id", "who", "at", "field", "old", "new", "reason", "in_window"],
        select(upd.c.id, bindparam("_who", type_=String), bindparam("updated_at", type_=stamp),
               fields.c.field, fields.c.old, fields.c.new, bindparam("_reason", type_=String),
               bindparam("_inw", type_=Boolean)).select_from(upd).join(fields, true())
    ).cte("audit")
    seen = insert(SUBMISSIONS).from_select(
        ["id", "result_id", "kind", "at"],
        select(bindparam("_sid", type_=String), upd.c.id, literal("correction"),
               bindparam("updated_at", type_=stamp))).cte("seen")
    # Data-modifying CTEs run whether or not the SELECT reads them; the count says
    # whether the version still matched (0: someone else changed it meanwhile).
    counted = select(func.count()).select_from(upd).add_cte(audit)
    return entry, counted.add_cte(seen), counted


ENTRY, CORRECTION, CORRECTION_UNSIGNED = _statements()


# ---------------------------------------------------------------- the driver, directly
# A table's entry, acceptance and change are one or two statements each, built once.
# SQLAlchemy's execution machinery around each (the execution context, the cursor
# result, the connection checkout with its autocommit switch) cost 0.17 ms of client
# CPU a statement against 0.04 ms for the statement itself on psycopg's cursor
# (measured): on a club laptop whose two cores also run PostgreSQL, a quarter of a
# table's request. On PostgreSQL psycopg adapts every parameter and every column of
# these statements' columns itself (SQLAlchemy's result processors for them are None:
# checked when a statement is first compiled, or it keeps going through SQLAlchemy),
# and the parameters get SQLAlchemy's own bind processors (a Boolean is checked to be
# one), so they run on the pool's psycopg connection directly, in autocommit (one
# statement, one round trip, its own transaction). A driver error is raised as
# SQLAlchemy's own exception class (an ``IntegrityError`` is still one), and a broken
# connection leaves the pool.
_Compiled = tuple[str, Any, dict[str, Any], dict[str, Any]]
_COMPILED: dict[tuple[int, int], _Compiled | None] = {}


def _compiled(store: Store, statement: Executable) -> _Compiled | None:
    """The statement's SQL, compiled form and parameter processors, or ``None`` if
    SQLAlchemy would convert a column or expand a parameter (then it runs through
    SQLAlchemy)."""
    key = (id(store.engine.dialect), id(statement))
    if key not in _COMPILED:
        dialect = store.engine.dialect
        compiled: Any = cast(ClauseElement, statement).compile(dialect=dialect)  # SQLCompiler
        plain = (not any(b.expanding for b in compiled.binds.values())
                 and all(c[3]._cached_result_processor(dialect, None) is None  # noqa: SLF001
                         for c in compiled._result_columns))  # noqa: SLF001
        # Columns given no value take their defaults from the model, as SQLAlchemy's
        # execution context fills them in: only plain values are taken over here.
        defaults = {}
        if compiled.insert_prefetch or compiled.update_prefetch:
            key_of = compiled._within_exec_param_key_getter  # noqa: SLF001
        for c in compiled.insert_prefetch:
            plain = plain and c.default is not None and c.default.is_scalar
            if plain:
                defaults[key_of(c)] = c.default.arg
        for c in compiled.update_prefetch:
            plain = plain and c.onupdate is not None and c.onupdate.is_scalar
            if plain:
                defaults[key_of(c)] = c.onupdate.arg
        # The parameters' processors: a dict of the non-None ones, as SQLAlchemy keeps it.
        processors = dict(compiled._bind_processors)  # noqa: SLF001
        _COMPILED[key] = (str(compiled), compiled, processors, defaults) if plain else None
    return _COMPILED[key]


def run(store: Store, statement: Executable, params: dict[str, Any]) -> list[tuple]:
    """``statement`` with ``params`` in a transaction of its own; the rows it returns.
    On PostgreSQL on the driver directly (above); elsewhere, and for a statement
    SQLAlchemy must convert, through SQLAlchemy (``Store.reads``).

    >>> from sqlalchemy import select
    >>> with Store.open("sqlite://") as st:
    ...     run(st, select(RESULTS.c.id), {})
    []
    """
    found = _compiled(store, statement) if store.engine.dialect.name == "postgresql" else None
    if found is None:
        with store.reads.connect() as conn:
            result = conn.execute(statement, params)
            return [tuple(r) for r in result] if result.returns_rows else []
    sql, compiled, processors, defaults = found
    args = compiled.construct_params(params)
    for name, value in defaults.items():
        if args.get(name) is None:
            args[name] = value
    for name, process in processors.items():
        if name in args:
            args[name] = process(args[name])
    fairy = store.engine.raw_connection()
    try:
        driver: Any = fairy.driver_connection
        driver.autocommit = True  # psycopg: no round trip while idle
        try:
            with driver.cursor() as cur:
                cur.execute(sql, args)
                return cur.fetchall() if cur.description is not None else []
        finally:
            if not driver.closed:
                driver.autocommit = False  # as the pool hands its connections out
    except store.engine.dialect.loaded_dbapi.Error as exc:
        if store.engine.dialect.is_disconnect(exc, driver, None):
            fairy.invalidate(exc)
        raise DBAPIError.instance(sql, args, exc, store.engine.dialect.loaded_dbapi.Error,
                                  dialect=store.engine.dialect) from exc
    finally:
        fairy.close()


def record_entry(store: Store, values: dict[str, object], submission_id: str) -> int:
    """Insert a result and its submission id in one statement; returns the result's id.

    Raises ``IntegrityError`` when the board is already recorded at that table
    or the submission id was seen, as the two inserts on SQLite do.
    """
    stamp = now()
    # One statement, so one round trip, in its own implicit transaction.
    rows = run(store, ENTRY, {
        "not_played": False, "not_played_reason": None, "pending": False, **values,
        "fouled_group": 0, "version": 1,
        "created_at": stamp, "updated_at": stamp, "_sid": submission_id})
    return int(rows[0][0])


def accept_entry(store: Store, statement: Executable, args: dict[str, object]) -> int | None:
    """The acceptance (one UPDATE ... RETURNING) in its own implicit transaction: one
    round trip. Returns the accepted result's id, or ``None`` if nothing matched."""
    rows = run(store, statement, args)
    return rows[0][0] if rows else None


def write_correction(store: Store, row: ResultLine, new: dict, changed: dict, old: dict, *,
                     at: datetime, who: str, reason: str, in_window: bool,
                     submission_id: str | None) -> None:
    """The writes of a correction (the result, its audit rows, its submission id) in one
    statement. Raises :class:`Stale` if the result's version moved since ``row`` was
    read, :class:`Resent` if this form was carried out already."""
    text = as_text
    args = {**{k: new[k] for k in (*EDITABLE, *FLAGS, "score")}, "updated_at": at,
            "version": row.version + 1, "_rid": row.id, "_read": row.version,
            "_who": who[:100], "_reason": reason, "_inw": in_window,
            "_fields": list(changed), "_olds": [text(old[k]) for k in changed],
            "_news": [text(v) for v in changed.values()], "_sid": submission_id}
    try:
        done = run(store, CORRECTION if submission_id is not None
                   else CORRECTION_UNSIGNED, args)[0][0]
        if done != 1 and submission_id is not None and run(
                store, SUBMISSION_SEEN, {"sid": submission_id}):
            raise Resent()  # the same form twice at once: the other one changed it
    except IntegrityError:  # the submission id: this form was carried out already
        raise Resent() from None
    if done != 1:
        raise Stale()
