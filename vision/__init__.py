"""boardwright adapter: vision — read each card at the dealing gate, or reject it.

Barcoded cards go through :class:`vision.barcode.BarcodeReader`, ordinary
cards through :class:`vision.index.IndexReader` with a learned design; both
return a :class:`vision.decision.Read` or a :class:`vision.decision.Reject`.
:func:`vision.render.render_card_frame` is the synthetic gate camera.
See docs/vision.md.
"""
