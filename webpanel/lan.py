"""Serving phones on the club's network: the laptop's address, a QR code of it, HTTPS.

- :func:`lan_address` finds the address other machines reach this one at:
  the source address of the route to the outside (no packet is sent).
- :func:`terminal_qr` draws a QR code of an address in the terminal
  (segno's half-block writer), so a phone's camera opens it straight away.
- :func:`self_signed` makes a certificate for the panel once, in the instance
  folder, and gives its SHA-256 fingerprint, which the director reads out
  when a phone asks whether to trust it.

>>> import io
>>> out = io.StringIO()
>>> terminal_qr("http://10.0.0.2:5000/", out)
>>> lines = out.getvalue().splitlines()
>>> len(lines) == len(lines[0]) // 2 + 1  # two modules a line: square on the screen
True
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from dealer.errors import BoardwrightError


class LanError(BoardwrightError):
    """No network to serve phones on, or a certificate that cannot be used."""


def lan_address(probe: str = "192.0.2.1") -> str:
    """The IPv4 address of this machine on its network (Wi-Fi, hotspot, cable).

    Connecting a UDP socket sends nothing; it only asks the kernel which
    address it would send from, which is the one the phones can reach. The
    probe address is from TEST-NET-1 (RFC 5737): any routed address will do.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect((probe, 9))
            addr = s.getsockname()[0]
        except OSError:
            addr = ""
    if not addr or ipaddress.ip_address(addr).is_loopback or addr == "0.0.0.0":
        raise LanError("this computer is on no network: join the club's Wi-Fi or your "
                       "phone's hotspot, then start again (docs/club-night.md)")
    return addr


def terminal_qr(url: str, out: TextIO) -> None:
    """A QR code of ``url`` in half blocks (light modules drawn: suits a dark terminal)."""
    import segno

    segno.make(url, error="m").terminal(out=out, compact=True)


def fingerprint(cert_pem: bytes) -> str:
    """SHA-256 of the certificate (DER), as browsers show it: ``AB:CD:...``."""
    import ssl

    der = ssl.PEM_cert_to_DER_cert(cert_pem.decode("ascii"))
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def self_signed(folder: Path, hosts: list[str]) -> tuple[Path, Path, bool]:
    """The panel's own certificate and key in ``folder`` (made when missing).

    Returns (certificate, key, made now). A certificate that does not name
    one of ``hosts`` (the laptop joined another network) is made anew; its
    fingerprint then changes, and the phones are asked to trust it again.
    """
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        raise LanError("a self-signed certificate needs the cryptography package: "
                       "pip install 'boardwright[web]'") from None
    cert_path, key_path = folder / "panel-cert.pem", folder / "panel-key.pem"
    wanted = {h.lower() for h in hosts}
    if cert_path.exists() and key_path.exists():
        try:
            old = x509.load_pem_x509_certificate(cert_path.read_bytes())
            san = old.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            named = {str(v).lower() for v in san.get_values_for_type(x509.DNSName)}
            named |= {str(v) for v in san.get_values_for_type(x509.IPAddress)}
            fresh = old.not_valid_after_utc > datetime.now(UTC) + timedelta(days=1)
        except (ValueError, x509.ExtensionNotFound):
            named, fresh = set(), False
        if fresh and wanted <= named:
            return cert_path, key_path, False
    names: list[x509.GeneralName] = []
    for h in dict.fromkeys([*hosts, "localhost", "127.0.0.1"]):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            names.append(x509.DNSName(h))
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"boardwright {hosts[0]}")])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=825))  # the longest browsers accept
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path, True


def check_certificate(cert: Path, key: Path) -> None:
    """A certificate and key given by path must load together, else one line says why."""
    import ssl

    for p in (cert, key):
        if not p.is_file():
            raise LanError(f"{p}: no such file")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        ctx.load_cert_chain(str(cert), str(key))
    except ssl.SSLError as exc:
        raise LanError(f"{cert}, {key}: not a certificate and its key ({exc.reason})") from None


def public_url_for(endpoint: str, **values: Any) -> str:
    """An absolute address of a page for a phone: under ``PUBLIC_URL`` when it is set.

    Without ``PUBLIC_URL`` it is the address this request came to, which under
    ``serve --lan`` is the laptop's address on the club's network.
    """
    from flask import current_app, request, url_for

    base = current_app.config.get("PUBLIC_URL")
    if not base:
        return url_for(endpoint, _external=True, **values)
    path = url_for(endpoint, **values)
    # The public address carries its own path prefix (a proxy's /bridge): not twice.
    return base + path.removeprefix(request.script_root)
