"""Double-dummy tables and par, through endplay (which wraps Bo Haglund's DDS).

A :class:`DDTable` holds the 20 trick counts: each declarer (N, E, S, W) in
each strain (♣ ♦ ♥ ♠ NT). :func:`solve` computes tables for many deals in
batches of up to 32 (DDS's ``CalcAllTables`` limit for five strains), which
DDS spreads over every core; a :class:`DDCache` keeps each solved table by
deal in the store (table ``dd_tables``) so nothing is solved twice. :func:`par` gives the par score (always from
North-South's side) and the par contracts for a board's dealer and
vulnerability, as DDS's ``DealerPar`` does.

>>> from dealer import Deal
>>> d = Deal.from_pbn("N:QJ6.K652.J85.T98 873.J97.AT764.Q4 K5.T83.KQ9.A7652 AT942.AQ4.32.KJ3")
>>> t = solve([d])[0]
>>> t.tricks(Seat.EAST, Strain.SPADES), t.tricks(Seat.NORTH, Strain.NOTRUMP)
(8, 6)
>>> p = par(t, Vulnerability.NONE, Seat.NORTH)
>>> p.score, p.dds_text()
(-110, '2S-EW')
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from dealer.cards import Strain
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.progress import Progress
from dealer.seats import Seat, Vulnerability

if TYPE_CHECKING:
    from sqlalchemy import Engine

# DDS orders strains S, H, D, C, NT; boardwright's Strain is C, D, H, S, NT.
_DDS_STRAIN = (3, 2, 1, 0, 4)  # DDS strain index -> Strain value
_DDS_DENOM = {0: Strain.NOTRUMP, 1: Strain.SPADES, 2: Strain.HEARTS, 3: Strain.DIAMONDS,
              4: Strain.CLUBS}  # DealerPar's contract denominations
_VUL_DDS = {Vulnerability.NONE: 0, Vulnerability.BOTH: 1, Vulnerability.NS: 2, Vulnerability.EW: 3}
MAX_BATCH = 32
#: One batch at a time in a process. DDS solves a batch on its own pool of threads with
#: working memory it sets up once per process (endplay calls ``SetMaxThreads`` on import);
#: it is not documented as safe to enter from two threads at once, and one batch already
#: keeps every core busy, so a second thread (a page, the panel's solving ahead) waits.
_DDS_TURN = threading.Lock()


class DDError(BoardwrightError):
    """Double-dummy analysis failed (a partial deal, or endplay is missing)."""


@dataclass(frozen=True, slots=True)
class DDTable:
    """Tricks for each declarer in each strain; ``cells[strain * 4 + seat]``."""

    cells: tuple[int, ...]

    def tricks(self, declarer: Seat, strain: Strain) -> int:
        return self.cells[int(strain) * 4 + int(declarer)]

    def to_bytes(self) -> bytes:
        return bytes(self.cells)

    @classmethod
    def from_bytes(cls, data: bytes) -> DDTable:
        return cls(tuple(data))

    def makeable(self, declarer: Seat, strain: Strain) -> int:
        """The highest makeable level (0 when not even one)."""
        return max(0, self.tricks(declarer, strain) - 6)

    def double_dummy_tricks(self) -> str:
        """BridgeComposer's ``DoubleDummyTricks``: 20 hex digits, N S E W × NT S H D C."""
        order = (Strain.NOTRUMP, Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS)
        return "".join(f"{self.tricks(seat, s):x}"
                       for seat in (Seat.NORTH, Seat.SOUTH, Seat.EAST, Seat.WEST) for s in order)


@dataclass(frozen=True, slots=True)
class ParContract:
    """One par contract: ``level`` ``strain`` by ``declarers`` ("NS", "E" ...)."""

    level: int
    strain: Strain
    declarers: str
    doubled: bool
    result: int  # overtricks (+) or undertricks (-)

    def dds_text(self) -> str:
        """DDS's notation: ``4S*-EW-1``, ``3N-NS``, ``1N-E+1``."""
        strain = "N" if self.strain is Strain.NOTRUMP else self.strain.letter
        res = f"{self.result:+d}" if self.result else ""
        return f"{self.level}{strain}{'*' if self.doubled else ''}-{self.declarers}{res}"

    def text(self) -> str:
        """For people, the contract at the level of the tricks it takes: ``3♥ by NS``,
        ``4♠x by EW, down 1`` (DDS's ``1H-NS+2`` is the same score as 3♥ made)."""
        level = self.level + max(self.result, 0)
        down = f", down {-self.result}" if self.result < 0 else ""
        return (f"{level}{'NT' if self.strain is Strain.NOTRUMP else self.strain.symbol}"
                f"{'x' if self.doubled else ''} by {self.declarers}{down}")


@dataclass(frozen=True, slots=True)
class Par:
    """Par score (North-South's view) and the par contracts."""

    score: int
    contracts: tuple[ParContract, ...]

    def dds_text(self) -> str:
        return " ".join(c.dds_text() for c in self.contracts) or "pass"

    def text(self) -> str:
        """``Par: 4♠ by NS, NS +420``, as a hand record prints it: contract, then score."""
        if not self.contracts:
            return "Par: passed out, 0"
        return f"Par: {self.contract_text()}, NS {self.score:+d}"

    def contract_text(self) -> str:
        """The par contracts alone: ``3♥ by NS or 3♠ by NS``; ``passed out`` if none."""
        texts = list(dict.fromkeys(c.text() for c in self.contracts))
        return " or ".join(texts) or "passed out"

    def optimum_score(self) -> str:
        """PBN ``OptimumScore``: ``"NS 420"`` or ``"NS -110"``."""
        return f"NS {self.score}"


# --------------------------------------------------------------------------- cache
class DDCache:
    """Solved tables by deal, in the store's ``dd_tables`` (26-byte deal, 20-byte table).

    ``target`` is a database URL, an SQLite file path, an open SQLAlchemy
    engine, or ``None`` for the installation's store (SQLite in the instance
    folder, or the PostgreSQL URL in the settings); the database is migrated
    on open like any :class:`~dealer.store.Store`.

    >>> c = DDCache("sqlite://")
    >>> d = Deal.from_pbn("N:QJ6.K652.J85.T98 873.J97.AT764.Q4 K5.T83.KQ9.A7652 AT942.AQ4.32.KJ3")
    >>> c.put_many({d: DDTable(tuple(range(20)))}); len(c), c.get_many([d])[d].cells[19]
    (1, 19)
    """

    _CHUNK = 500  # deals per SELECT ... IN, well under every backend's parameter limit

    # SQLAlchemy is imported in the methods, not at the top: solving, par and the hand
    # records need no database library, and importing this module does not load one.

    def __init__(self, target: str | Path | Engine | None = None) -> None:
        from sqlalchemy import Engine

        from dealer.store import Store, migrate
        from dealer.store.dd_models import DDTableRow

        self._row = DDTableRow
        self._store: Store | None = None
        if isinstance(target, Engine):
            migrate.upgrade(target)
            self.engine = target
        else:
            url = target if isinstance(target, str) or target is None else f"sqlite:///{target}"
            self._store = Store.open(url)
            self.engine = self._store.engine

    @staticmethod
    def key(deal: Deal) -> bytes:
        return deal.bits.to_bytes(26, "big")

    def get_many(self, deals: Sequence[Deal]) -> dict[Deal, DDTable]:
        from sqlalchemy import select

        by_key = {self.key(d): d for d in deals}
        keys = list(by_key)
        out: dict[Deal, DDTable] = {}
        with self._guard("read"), self.engine.connect() as conn:
            for lo in range(0, len(keys), self._CHUNK):
                q = select(self._row.deal, self._row.tricks).where(
                    self._row.deal.in_(keys[lo:lo + self._CHUNK]))
                for deal, tricks in conn.execute(q):
                    out[by_key[deal]] = DDTable.from_bytes(tricks)
        return out

    def put_many(self, items: dict[Deal, DDTable]) -> None:
        from sqlalchemy import insert, select

        rows = [{"deal": self.key(d), "tricks": t.to_bytes()} for d, t in items.items()]
        if not rows:
            return
        with self._guard("write"), self.engine.begin() as conn:
            # A table depends only on the cards, so a row someone else already wrote is
            # the same row: skip it rather than fail (two processes may solve at once).
            dialect = self.engine.dialect.name
            if dialect in ("sqlite", "postgresql"):
                mod = import_module(f"sqlalchemy.dialects.{dialect}")
                conn.execute(mod.insert(self._row).on_conflict_do_nothing(), rows)
            else:  # pragma: no cover - other backends: insert only the missing keys
                have = set(conn.scalars(select(self._row.deal).where(
                    self._row.deal.in_([r["deal"] for r in rows]))))
                conn.execute(insert(self._row), [r for r in rows if r["deal"] not in have])

    def __len__(self) -> int:
        from sqlalchemy import func, select

        with self._guard("read"), self.engine.connect() as conn:
            return int(conn.scalar(select(func.count()).select_from(self._row)) or 0)

    def close(self) -> None:
        if self._store is not None:  # an engine passed in belongs to the caller
            self._store.close()

    @contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        from sqlalchemy.exc import SQLAlchemyError

        from dealer.store import StoreError

        try:
            yield
        except SQLAlchemyError as exc:
            msg = str(exc).splitlines()[0]
            raise StoreError(f"cannot {what} the double-dummy cache: {msg}") from None


def default_cache() -> DDCache:
    """The cache in the installation's store (``BOARDWRIGHT_INSTANCE`` / settings)."""
    return DDCache()


# --------------------------------------------------------------------------- solving
def _endplay() -> tuple[object, object]:
    try:
        from endplay import dds, types
    except ImportError as exc:  # pragma: no cover - endplay is in the dds extra
        raise DDError("double-dummy analysis needs endplay: pip install 'boardwright[dds]'") from exc
    return dds, types


def _from_dds(res: object) -> DDTable:
    cells = [0] * 20
    for dds_strain in range(5):
        row = res.resTable[dds_strain]  # type: ignore[attr-defined]
        for seat in range(4):
            cells[_DDS_STRAIN[dds_strain] * 4 + seat] = row[seat]
    return DDTable(tuple(cells))


@contextmanager
def _dds_turn() -> Iterator[bool]:
    """This thread's turn at DDS (``_DDS_TURN``); yields whether it had to wait for it."""
    waited = not _DDS_TURN.acquire(blocking=False)
    if waited:
        _DDS_TURN.acquire()
    try:
        yield waited
    finally:
        _DDS_TURN.release()


def solve(deals: Sequence[Deal], *, cache: DDCache | None = None,
          progress: bool = False) -> list[DDTable]:
    """Double-dummy tables for ``deals``, in order; cached ones are not solved again."""
    for i, d in enumerate(deals):
        if d.partial or not d.is_complete:
            raise DDError(f"deal {i + 1} is not a full deal; double-dummy needs all 52 cards")
    known: dict[Deal, DDTable] = cache.get_many(deals) if cache is not None else {}
    todo = list(dict.fromkeys(d for d in deals if d not in known))
    if todo:
        dds, types = _endplay()
        bar = Progress("double-dummy", len(todo)) if progress else None
        for lo in range(0, len(todo), MAX_BATCH):
            chunk = todo[lo:lo + MAX_BATCH]
            with _dds_turn() as waited:
                if waited and cache is not None:
                    # Perhaps solved by the thread this one waited for (the panel solving
                    # a new deal set ahead while a page asks for the same boards).
                    known.update(cache.get_many(chunk))
                    chunk = [d for d in chunk if d not in known]
                if chunk:
                    eds = [types.Deal(d.to_pbn()) for d in chunk]  # type: ignore[attr-defined]
                    tables = dds.calc_all_tables(eds)  # type: ignore[attr-defined]
                    solved = {d: _from_dds(t._data) for d, t in zip(chunk, tables, strict=True)}
                    if cache is not None:  # an empty cache has len 0: never test truthiness
                        cache.put_many(solved)
                    known.update(solved)
            if bar is not None:
                bar.update(min(lo + MAX_BATCH, len(todo)))
        if bar is not None:
            bar.close()
    return [known[d] for d in deals]


def par(table: DDTable, vulnerability: Vulnerability, dealer: Seat) -> Par:
    """Par for the board's dealer and vulnerability (DDS ``DealerParBin``)."""
    import endplay._dds as _dds  # noqa: PLC0415 - optional dependency

    _endplay()
    res = _dds.ddTableResults()
    for dds_strain in range(5):
        for seat in range(4):
            res.resTable[dds_strain][seat] = table.cells[_DDS_STRAIN[dds_strain] * 4 + seat]
    out = _dds.parResultsMaster()
    _dds.DealerParBin(res, out, int(dealer), _VUL_DDS[vulnerability])
    contracts = []
    for i in range(out.number):
        c = out.contracts[i]
        seats = ("N", "E", "S", "W", "NS", "EW")[c.seats]
        result = c.overTricks if c.overTricks else -c.underTricks
        contracts.append(ParContract(c.level, _DDS_DENOM[c.denom], seats,
                                     bool(c.underTricks), result))
    return Par(out.score, tuple(contracts))


# --------------------------------------------------------------------------- PBN tags
def pbn_tags(table: DDTable, p: Par) -> tuple[dict[str, str], dict[str, str]]:
    """Tags and sections for a PBN board: ``OptimumScore``, ``ParContract``,
    ``DoubleDummyTricks`` and the ``OptimumResultTable`` section (PBN 2.1 §5.7)."""
    order = (Strain.NOTRUMP, Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS)
    rows = [f"{seat.letter} {'NT' if s is Strain.NOTRUMP else s.letter} {table.tricks(seat, s)}"
            for seat in Seat for s in order]
    tags = {
        "OptimumScore": p.optimum_score(),
        "ParContract": " ".join(c.dds_text() for c in p.contracts) or "Pass",
        "DoubleDummyTricks": table.double_dummy_tricks(),
        "OptimumResultTable": "Declarer;Denomination\\2R;Result\\2R",
    }
    return tags, {"OptimumResultTable": "\n".join(rows)}


def analyse(boards: Iterable[object], *, cache: DDCache | None = None,
            progress: bool = False) -> list[tuple[DDTable, Par]]:
    """Tables and pars for boards (anything with ``deal``, ``dealer``, ``vulnerability``)."""
    boards = list(boards)
    tables = solve([b.deal for b in boards], cache=cache, progress=progress)  # type: ignore[attr-defined]
    return [(t, par(t, b.vulnerability, b.dealer))  # type: ignore[attr-defined]
            for t, b in zip(tables, boards, strict=True)]
