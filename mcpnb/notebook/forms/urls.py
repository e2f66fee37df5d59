"""What a URL from a server really points at: the host a person's credentials would go to, and the
tricks that disguise it (user-info, non-web schemes, look-alike hosts)."""

from __future__ import annotations

from urllib.parse import urlsplit


def url_parts(url: str) -> tuple[str, str, str, list[str]]:
    """(before host, host, after host, warnings) so the host can be emphasized.

    The host is what decides where a person's credentials go; user-info (``a.com@b.com``),
    non-web schemes and punycode hosts are the classic ways to disguise it, so each earns a warning.
    """
    warnings: list[str] = []
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return url, "", "", ["this is not a valid URL"]
    if parts.scheme.lower() not in ("http", "https"):
        warnings.append(f"not a web link (scheme {parts.scheme or 'missing'!r}): it will not be linked")
    if not host:
        return url, "", "", [*warnings, "the URL names no host"]
    if "@" in parts.netloc:
        warnings.append("the URL contains a user name before the host: the real site is the bold part")
    if any(label.startswith("xn--") for label in host.split(".")) or not host.isascii():
        warnings.append("the host uses international characters that can imitate another site")
    loopback = host.lower() in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")
    if parts.scheme.lower() == "http" and not loopback:
        warnings.append("the link is not encrypted (http)")
    if loopback:
        from mcpnb.client.auth.redirect import browser_elsewhere

        if browser_elsewhere():
            warnings.append(
                f"{host} is the machine the kernel runs on, and your browser is on another (Binder, "
                "JupyterHub, Colab or SSH): the link will not open here. The server's operator can "
                "give an address your browser reaches"
            )
    netloc_start = url.find(parts.netloc)
    host_from = netloc_start + parts.netloc.rfind("@") + 1 if netloc_start >= 0 else 0
    idx = url.lower().find(host.lower(), host_from)
    if idx < 0:
        return url, host, "", warnings
    return url[:idx], url[idx : idx + len(host)], url[idx + len(host) :], warnings


def is_web_url(url: str) -> bool:
    """Only http(s) links are rendered clickable: ``javascript:`` and friends never are."""
    try:
        return urlsplit(url).scheme.lower() in ("http", "https") and bool(urlsplit(url).hostname)
    except ValueError:
        return False
