"""The emulator's end of the cable: a real pseudo-terminal or a TCP socket.

The driver opens the other end with pyserial (``/dev/pts/N`` or
``socket://127.0.0.1:PORT``), exactly as it would open ``/dev/ttyACM0``.
Both endpoints are non-blocking and are polled by the emulator's loop with
``select``; a write that finds the line full is dropped, as bytes would be on a
real UART with nobody listening.
"""

from __future__ import annotations

import os
import socket
import tty
from typing import Protocol

#: Bytes kept waiting for a slow reader before the oldest are thrown away.
MAX_BACKLOG = 64 * 1024


class Endpoint(Protocol):
    url: str

    @property
    def connected(self) -> bool: ...
    discarded_frames: int  # frames thrown away unsent (cable pulled, backlog full)

    def fds(self) -> list[int]: ...
    def readable(self, fd: int) -> bytes: ...
    def write(self, data: bytes) -> None: ...
    def flush(self) -> None: ...
    def wants_write(self) -> list[int]: ...
    def disconnect(self) -> None: ...
    def close(self) -> None: ...


class PtyEndpoint:
    """A pseudo-terminal pair; the driver opens :attr:`url`, the slave path.

    The slave is kept open here too, so the master never sees EIO while the
    driver is away (that is how a USB-serial adapter behaves when the host
    program restarts).
    """

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no CR/LF mangling: frames pass byte for byte
        os.set_blocking(self.master, False)
        self.url = os.ttyname(self.slave)
        self._out = bytearray()
        self.overflowed = 0
        self.discarded_frames = 0

    @property
    def connected(self) -> bool:
        return True  # a pty is always "plugged in"; unplugging is emulated above

    def fds(self) -> list[int]:
        return [self.master]

    def readable(self, fd: int) -> bytes:
        try:
            return os.read(self.master, 65536)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError:
            return b""

    def write(self, data: bytes) -> None:
        self._out += data
        if len(self._out) > MAX_BACKLOG:
            cut = len(self._out) - MAX_BACKLOG
            self.overflowed += cut
            self.discarded_frames += self._out.count(0, 0, cut)
            del self._out[:cut]
        self.flush()

    def flush(self) -> None:
        while self._out:
            try:
                n = os.write(self.master, self._out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._out.clear()
                return
            del self._out[:n]

    def wants_write(self) -> list[int]:
        return [self.master] if self._out else []

    def disconnect(self) -> None:
        # A pty cannot be unplugged; the emulator stops sending instead. Bytes
        # already queued were on the wire before the "unplug" and still arrive.
        pass

    def close(self) -> None:
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class TcpEndpoint:
    """A listening TCP socket serving one client at a time (a newer one wins)."""

    def __init__(self, port: int = 0, host: str = "127.0.0.1") -> None:
        self.listener = socket.create_server((host, port), reuse_port=False)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.url = f"socket://{host}:{self.port}"
        self.client: socket.socket | None = None
        self.refuse = False  # while "unplugged": accept and hang up at once
        self._out = bytearray()
        self.connections = 0
        self.discarded_frames = 0

    @property
    def connected(self) -> bool:
        return self.client is not None

    def fds(self) -> list[int]:
        fds = [self.listener.fileno()]
        if self.client is not None:
            fds.append(self.client.fileno())
        return fds

    def readable(self, fd: int) -> bytes:
        if fd == self.listener.fileno():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return b""
            if self.refuse:
                conn.close()
                return b""
            self.disconnect()
            conn.setblocking(False)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.client = conn
            self.connections += 1
            return b""
        if self.client is None:
            return b""
        try:
            data = self.client.recv(65536)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError:
            data = b""
        if not data:
            self.disconnect()
        return data

    def write(self, data: bytes) -> None:
        if self.client is None:
            return  # nobody on the line: the bytes are lost, as on a bare UART
        self._out += data
        if len(self._out) > MAX_BACKLOG:
            cut = len(self._out) - MAX_BACKLOG
            self.discarded_frames += self._out.count(0, 0, cut)
            del self._out[:cut]
        self.flush()

    def flush(self) -> None:
        while self._out and self.client is not None:
            try:
                n = self.client.send(self._out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.disconnect()
                return
            del self._out[:n]

    def wants_write(self) -> list[int]:
        return [self.client.fileno()] if self._out and self.client is not None else []

    def disconnect(self) -> None:
        self.discarded_frames += self._out.count(0)  # frames cut off with the cable
        self._out.clear()
        if self.client is not None:
            try:
                self.client.close()
            except OSError:
                pass
            self.client = None

    def close(self) -> None:
        self.disconnect()
        self.listener.close()
