"""boardwright adapter: the dealing machine's serial link.

Modules, one concern each:

* :mod:`~firmware_bridge.protocol` — frames (COBS + CRC-32), messages, go-back-N;
  the single implementation of ``docs/protocol.md``, shared by both sides;
* :mod:`~firmware_bridge.driver` — :class:`Machine`, the host's API;
* :mod:`~firmware_bridge.events` — the typed events the driver yields;
* :mod:`~firmware_bridge.emulator` — a virtual machine on a pty or TCP port;
* :mod:`~firmware_bridge.transport`, :mod:`~firmware_bridge.faults`,
  :mod:`~firmware_bridge.physical` — its cable ends, fault dice and cardboard;
* :mod:`~firmware_bridge.harness` — a tiny host loop for tests and soaks;
* :mod:`~firmware_bridge.operator` — the person at the machine, and the simulated
  operator the rig's emulated runs use;
* :mod:`~firmware_bridge.cli` — ``boardwright emulator`` and ``boardwright machine``.

It imports :mod:`dealer` and never ``vision`` or ``webpanel``.
"""
