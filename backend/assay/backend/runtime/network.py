"""Which addresses a runtime probe may contact (server-side request forgery guard).

A target URL's host is resolved and every address it resolves to is checked: loopback, link-local
(cloud metadata services live there), private, shared, multicast, reserved and unspecified addresses are
refused unless an operator allowed their network (``ASSAY_RUNTIME_ALLOWED_NETWORKS``, comma-separated
CIDRs). Checked when a target is added, when a run is created, and before every probe session, whose
connections then go to the address that last check resolved (pinned) and nowhere else.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# Named separately for the message: metadata endpoints of the large clouds.
METADATA = (ipaddress.ip_network("169.254.169.254/32"), ipaddress.ip_network("fd00:ec2::254/128"))


class NetworkRefusedError(ValueError):
    """The target's address may not be contacted; the message says why and how an operator allows it."""


def parse_networks(text: str | None) -> tuple[Network, ...]:
    """``ASSAY_RUNTIME_ALLOWED_NETWORKS``: comma-separated CIDRs; ValueError naming a bad one."""
    networks: list[Network] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError as exc:
            raise ValueError(f"ASSAY_RUNTIME_ALLOWED_NETWORKS: {part!r} is not a CIDR network") from exc
    return tuple(networks)


def _restricted(address: Address) -> str | None:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return _restricted(address.ipv4_mapped)
    if any(address in n for n in METADATA):
        return "a cloud metadata address"
    for name in ("unspecified", "loopback", "link_local", "multicast", "private", "reserved"):
        if getattr(address, f"is_{name}"):
            return f"a {name.replace('_', '-')} address"
    if not address.is_global:
        return "a non-global address"
    return None


def check_addresses(host: str, addresses: Iterable[Address], allowed: Sequence[Network]) -> None:
    """NetworkRefusedError when any of ``addresses`` is restricted and outside every ``allowed`` network."""
    for address in addresses:
        why = _restricted(address)
        if why is not None and not any(address.version == n.version and address in n for n in allowed):
            raise NetworkRefusedError(
                f"{host} resolves to {address}, {why}; refused unless the operator allows its network "
                "(ASSAY_RUNTIME_ALLOWED_NETWORKS)"
            )


def url_host(url: str) -> tuple[str, int]:
    """The host and port of an http(s) URL; ValueError for anything else."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("a target URL must be http:// or https:// with a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("a target URL must not carry credentials; pass them as --header")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise ValueError(f"the target URL's port is invalid: {exc}") from exc
    return parts.hostname, port


def resolve(host: str, port: int) -> list[Address]:
    """Every address ``host`` resolves to (an IP literal is itself); NetworkRefusedError when none."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise NetworkRefusedError(f"{host} does not resolve: {exc}") from exc
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


def check_url(url: str, allowed: Sequence[Network]) -> Address:
    """Refuse a target URL whose host resolves to a restricted address outside ``allowed``; else the
    address a probe session connects to (the first of the one resolution checked: DNS rebinding cannot
    slip another address in between the check and the connection)."""
    host, port = url_host(url)
    addresses = resolve(host, port)
    check_addresses(host, addresses, allowed)
    return addresses[0]
