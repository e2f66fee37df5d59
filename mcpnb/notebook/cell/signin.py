"""A box under an OAuth sign-in link, for a browser that cannot reach the kernel's 127.0.0.1; and
whether anyone can sign in at all in the cell being run (:func:`why_nobody_can_sign_in`).

In listener mode the browser brings the code back to a listener on the kernel's machine. A browser
elsewhere (the kernel in a Docker container, or on a server started in a way mcpnb cannot see)
fails to load that address after the approval, and the sign-in would wait for it in vain. The box
takes the address that page shows instead; whichever comes first, the listener or the box, signs
in. It shows only in a cell that awaits (``%mcp connect`` at the top level on ipykernel >= 7.4): a
cell that blocks the kernel would never receive the click.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from mcpnb.client.errors import AuthError
from mcpnb.notebook.cell.capture import CellUI, nobody_watches
from mcpnb.notebook.cell.live import AWAITING
from mcpnb.notebook.frontend import current_kernel

SLOT = "signin-paste"
_ERROR = "color:var(--jp-error-color1,#c62828)"
_HINT = (
    "Browser on another machine than this kernel (a container, a remote server)? After you approve, "
    "its page at 127.0.0.1 does not load: paste that page's address here."
)


#: Why a sign-in fails at once in a run nobody watches, and what does without a person there.
NOBODY_SIGNS_IN = (
    "nobody can sign in during this run: it runs headless (nbconvert --execute, papermill, nbclient; "
    "a Voilà dashboard runs its cells so too), "
    "where nobody opens a link or pastes an address, so no link was shown and nothing waited. Sign in "
    "once in an interactive session with the same %mcp connect and --keep-sign-in (in a config file: "
    'auth "token_storage": "file"): a run like this one then uses the kept sign-in, refreshed without '
    "a person. Or connect without a person: a bearer token from an environment variable "
    '(--bearer-env VAR), or OAuth client_credentials (auth "flow": "client_credentials" with '
    '"client_id" and "client_secret_env", in a --config file)'
)


def why_nobody_can_sign_in() -> str | None:
    """What the client's sign-in asks before it shows a link (reached by name from
    :func:`mcpnb.client.auth.signin.nobody_to_sign_in`): None where a person may be there."""
    return NOBODY_SIGNS_IN if nobody_watches(current_kernel()) else None


def offer_paste(url: str, deliver: Callable[[str], None]) -> PasteBox | None:
    """``AuthorizationUI.offer_paste``'s default in a notebook (reached through ``client.display``)."""
    ui = CellUI("widget", awaiting=AWAITING.get())
    if ui.mode != "widget" or not ui.awaiting:
        return None
    box = PasteBox(deliver, ui)
    ui.show(SLOT, box.widget)
    return box


class PasteBox:
    """A password field and a button; the address is never kept in the widget once used."""

    def __init__(self, deliver: Callable[[str], None], ui: CellUI | None = None) -> None:
        import ipywidgets as w

        from mcpnb.notebook.forms.settle import Edits

        self._deliver, self._ui = deliver, ui
        self.field = w.Password(
            placeholder="http://127.0.0.1:…/callback?code=…", layout=w.Layout(width="420px")
        )
        self.button = w.Button(description="Use this address", tooltip="sign in with the pasted address")
        self.status = w.HTML()
        edits = Edits()  # a click right after the paste must read the pasted value, not the empty one
        self.field.observe(edits.touch, names="value")
        self.button.on_click(lambda _b: edits.then(self.use))
        self.widget = w.VBox(
            [w.HTML(f"<small>{html.escape(_HINT)}</small>"), w.HBox([self.field, self.button]), self.status]
        )
        self.widget.add_class("mcpnb-signin-paste")

    def use(self) -> None:
        """What the button does: hand the address to the sign-in, or say why it is not the one."""
        address, self.field.value = self.field.value, ""  # the code is not kept in widget state
        try:
            self._deliver(address)
        except AuthError as exc:
            self.status.value = f"<span style='{_ERROR}'>✗ {html.escape(str(exc))}</span>"
            return
        self.field.disabled = self.button.disabled = True
        self.status.value = "✓ address received: signing in…"

    def close(self) -> None:
        """The sign-in ended (either way): the box leaves the cell, so a saved notebook has none."""
        if self._ui is not None:
            from IPython.display import HTML

            self._ui.show(SLOT, HTML(""))
        self.widget.close()
