"""The recorded play of a result, for its replay page.

The results writers (CSV, PBN, USEBIO, PDF) are file formats and live in
``dealer/formats/`` (:mod:`dealer.formats.results_csv`, ``results_pbn``,
``usebio``, ``results_pdf``); the routes that serve them are in
:mod:`webpanel.publish`.
"""

from __future__ import annotations

from dealer.store.panel_models import ResultRow


def replay(row: ResultRow) -> list[list[str]]:
    """The recorded play, trick by trick (PBN ``Play`` section: four cards a line)."""
    if not row.play:
        return []
    return [ln.split() for ln in row.play.strip().splitlines() if ln.strip()]
