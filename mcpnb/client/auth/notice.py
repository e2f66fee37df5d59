"""Telling the person who connected about a risk in their auth settings, from inside an OAuth flow.

A flow runs in a connection's tasks on the runtime loop, where Python warnings go to the server's
log (:mod:`mcpnb.client.logfilter`): right for the SDK's chatter, wrong for "your client secret is
going to a server you never named", which nobody reads in a log of a connection that works. The
flow runs in a copy of the connecting caller's context, so a warning shown from there lands where
the person connected (the notebook cell, a script's stderr).
"""

from __future__ import annotations

import warnings

from mcpnb.client.logfilter import SERVER_LOG


def tell_person(text: str) -> None:
    """``text`` as a UserWarning where the person connected, and a line in the server's log.

    Python's default filter shows each text once per process: a provider built again on every
    reconnect does not repeat it in every cell.
    """
    route = SERVER_LOG.get()
    shown = SERVER_LOG.set(None)  # past the log routing: the person's stderr, not the server's log
    try:
        warnings.warn(text, UserWarning, stacklevel=3)
    finally:
        SERVER_LOG.reset(shown)
    if route is not None:
        route(f"UserWarning: {text}", "warning")
