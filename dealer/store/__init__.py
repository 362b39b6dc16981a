"""Storage: SQLAlchemy 2 models, Alembic migrations and a small repository API.

SQLite in the instance folder is the default; a PostgreSQL URL in the settings
selects PostgreSQL. See ``docs/architecture.md`` for how later modules add
their tables.

>>> from dealer.generate import random_dealset
>>> with Store.open("sqlite://") as store:
...     store.load(store.save(random_dealset([1, 2]))).numbers
[1, 2]
"""

from dealer.store.engine import StoreError, make_engine
from dealer.store.models import Base, BoardRow, DealSetRow, Event
from dealer.store.repository import SetSummary, Store

__all__ = ["Base", "BoardRow", "DealSetRow", "Event", "SetSummary", "Store", "StoreError",
           "make_engine"]
