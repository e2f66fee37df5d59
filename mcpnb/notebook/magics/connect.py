"""``%mcp connect``: a server from a URL, a command after ``--``, or a config file's entries.

The checks before anything starts live here too: a command typed where the URL goes, a server's
own flags before ``--``, a config file of another client named, a URL that is a program. They say
where each word goes, since argparse alone would call a server's ``--read-write`` an unknown option.
"""

from __future__ import annotations

import argparse
import os
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

from mcpnb.notebook.magics.parser import (
    Parser,
    add_input_flag,
    fill_text,
    input_values,
    is_ref,
    may_be_secret,
    safe_token,
)
from mcpnb.notebook.magics.registry import Context, arguments, command, one_row


def _filled(ctx: Context, ns: argparse.Namespace) -> None:
    """``{{var}}`` in the URL, a header, an env value, the cwd or the command, as in every ``%mcp``
    line: ``--header "Authorization: Bearer {{token}}"`` keeps the token out of the notebook."""
    from mcpnb.notebook.magics.parser import value_of, whole_placeholder

    def fill(text: str) -> str:
        return fill_text(text, ctx.namespaces)

    held = whole_placeholder(ns.url) if ns.url else None
    value = value_of(held, ctx.namespaces) if held else None
    ns.server, ns.held = None, None
    if value is not None and not isinstance(value, str):  # {{srv}}: a server object made in the notebook
        ns.server, ns.url = value, None
        ns.held = held if is_ref(held or "") else None  # the variable, read again by %mcp reconnect
    ns.url = fill(ns.url) if ns.url else ns.url
    ns.cwd = fill(ns.cwd) if ns.cwd else ns.cwd
    for name in ("cert", "key", "ca"):
        given = getattr(ns, name)
        setattr(ns, name, fill(given) if given else given)
    for name in ("header", "env", "command", "root"):
        given = getattr(ns, name)
        if given:
            setattr(ns, name, [fill(item) for item in given])


#: Flags for a server that runs elsewhere (a process, an endpoint), not for an object in this kernel.
_NOT_IN_PROCESS = {
    "--env": "env",
    "--cwd": "cwd",
    "--sse": "sse",
    "--header": "header",
    "--bearer-env": "bearer_env",
    "--oauth": "oauth",
    "--keep-sign-in": "keep_sign_in",
    "--issuer": "issuer",
    "--assume-pkce": "assume_pkce",
    "--cert": "cert",
    "--key": "key",
    "--key-password-env": "key_password_env",
    "--ca": "ca",
}


def other_files() -> dict[str, str]:
    """Other MCP clients' files here or above (VS Code's, Gemini CLI's, …), as paths to type."""
    from mcpnb.client.config import find_other_configs

    return {client: os.path.relpath(path) for client, path in find_other_configs(Path.cwd()).items()}


def other_files_text(others: dict[str, str], command: str) -> str | None:
    """Where the servers are, for a person who has no ``.mcp.json``: "VS Code's servers are in …"."""
    return (
        "; ".join(f"{client}'s servers are in {path}: {command} {path}" for client, path in others.items())
        or None
    )


def path_and_names(words: list[str]) -> tuple[str | None, list[str]]:
    """``--config [PATH] [NAME ...]`` and ``config [PATH] [NAME ...]``: the first word is the file
    when it is one, or reads as a path; the rest are servers."""
    first = words[0] if words else ""
    if first and (first.endswith((".json", ".toml")) or "/" in first or Path(first).is_file()):
        return first, words[1:]
    return None, words


def _stdio_or_url(ctx: Context, ns: argparse.Namespace) -> dict[str, Any]:
    """``Pool.connect`` keywords from the flags. A flag that cannot apply is an error, not ignored:
    a ``--header`` silently dropped from a command-started server hides a real mistake."""
    _filled(ctx, ns)
    env: dict[str, str] = {}
    for item in ns.env or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError("--env expects KEY=VALUE")
        if key in env:  # the values are not shown: they are often secrets
            raise UsageError(f"--env {key} is given twice: give each variable once")
        env[key] = value
    headers: dict[str, str] = {}
    for item in ns.header or []:
        key, colon, value = item.partition(":")
        key = key.strip()
        if not colon or not key:
            raise UsageError('--header expects "Name: value"')
        if key.lower() in (name.lower() for name in headers):  # HTTP names ignore case
            raise UsageError(f"--header {key!r} is given twice: give each header once")
        headers[key] = value.strip()
    options: dict[str, Any] = {
        "startup_timeout": ctx.settings.startup_timeout,
        "tool_timeout": ctx.settings.tool_timeout,
    }
    if ns.era:
        options["era"] = ns.era
    if ns.markdown:
        options["markdown"] = True
    if ns.root:
        options["roots"] = ns.root  # the config makes them absolute, from the working directory
    if ns.server is not None:
        given = [flag for flag, on in _NOT_IN_PROCESS.items() if getattr(ns, on)]
        if given or ns.command:
            flag = given[0] if given else "-- COMMAND"
            raise UsageError(f"{flag} does not apply to a server object run in-process")
        options["server"] = ns.server
        return options
    if ns.command:
        if ns.url:
            raise UsageError("give either a URL or '-- COMMAND ARGS', not both")
        http_only = (
            ("--header", headers),
            ("--bearer-env", ns.bearer_env),
            ("--oauth", ns.oauth),
            ("--keep-sign-in", ns.keep_sign_in),
            ("--issuer", ns.issuer),
            ("--assume-pkce", ns.assume_pkce),
            ("--sse", ns.sse),
            ("--cert", ns.cert),
            ("--key", ns.key),
            ("--key-password-env", ns.key_password_env),
            ("--ca", ns.ca),
        )
        for flag, given in http_only:
            if given:
                raise UsageError(f"{flag} is for HTTP/SSE servers; this one is started as a command")
        options.update(command=ns.command[0], args=list(ns.command[1:]))
        if env:
            options["env"] = env
        if ns.cwd:
            options["cwd"] = str(Path(ns.cwd).expanduser().absolute())
        return options
    if not ns.url:
        raise UsageError(
            "say how to reach the server: %mcp connect NAME URL, %mcp connect NAME -- COMMAND ARGS, "
            "or %mcp connect --config"
        )
    if env or ns.cwd:
        raise UsageError("--env and --cwd are for servers started as a command (NAME -- COMMAND ARGS)")
    options["url"] = ns.url
    if ns.sse:
        options["transport"] = "sse"
    if headers:
        options["headers"] = headers
    if ns.bearer_env and ns.oauth:
        raise UsageError("--bearer-env or --oauth: a server takes one way to sign in")
    if ns.bearer_env:
        options["auth"] = {"type": "bearer", "token_env": ns.bearer_env}
    oauth = _oauth_settings(ns)
    if oauth is not None:
        options["auth"] = oauth
    tls = _tls_settings(ns)
    if tls is not None:
        options["tls"] = tls
    return options


def _tls_settings(ns: argparse.Namespace) -> dict[str, Any] | None:
    """The ``tls`` settings ``--cert``, ``--key``, ``--key-password-env`` and ``--ca`` say (None
    without any): paths made absolute, so a reconnect after a change of directory finds them."""
    for flag, given in (("--key", ns.key), ("--key-password-env", ns.key_password_env)):
        if given and not ns.cert:
            raise UsageError(f"{flag} belongs to a client certificate: give its file with --cert too")
    paths = {name: getattr(ns, name) for name in ("cert", "key", "ca") if getattr(ns, name)}
    tls: dict[str, Any] = {name: str(Path(path).expanduser().absolute()) for name, path in paths.items()}
    if ns.key_password_env:
        tls["password_env"] = ns.key_password_env
    return tls or None


def _oauth_settings(ns: argparse.Namespace) -> dict[str, Any] | None:
    """The auth settings ``--oauth`` and its options say (None without ``--oauth``); an option of
    the OAuth sign-in given without ``--oauth`` is an error, not ignored."""
    if ns.keep_sign_in and not ns.oauth:
        raise UsageError("--keep-sign-in keeps an OAuth sign-in: give it with --oauth")
    if ns.issuer and not ns.oauth:
        raise UsageError("--issuer names the authorization server of an OAuth sign-in: give it with --oauth")
    if ns.assume_pkce and not ns.oauth:
        raise UsageError(
            "--assume-pkce is about an OAuth sign-in's authorization server: give it with --oauth"
        )
    if not ns.oauth:
        return None
    auth: dict[str, Any] = {"type": "oauth", "flow": "authorization_code"}
    if ns.keep_sign_in:
        auth["token_storage"] = "file"
    if ns.issuer:
        auth["issuer"] = ns.issuer
    if ns.assume_pkce:
        auth["assume_pkce"] = True
    return auth


# ---------------------------------------------------------------- connect
#: Flags of other tools' connect commands, and where this one takes what they mean.
_COMMAND = "the command goes after -- (%mcp connect NAME -- COMMAND ARGS)"
_TRANSPORT = "a URL is Streamable HTTP (--sse for an SSE endpoint), a command after -- is stdio"
_TOKEN = (
    "--bearer-env VAR sends the token an environment variable holds "
    "(or --header 'Authorization: Bearer {{token}}')"
)
_TIMEOUTS = (
    "the servers the magics connect wait as %config Mcp.tool_timeout = 120 and "
    "%config Mcp.startup_timeout = 60 say (seconds); one call: %mcp call NAME.TOOL --timeout 120"
)
_CONNECT_INSTEAD = {
    "--url": "the URL is the word after the name (%mcp connect NAME URL)",
    "--command": _COMMAND,
    "--cmd": _COMMAND,
    "--args": "arguments follow the command after -- (%mcp connect NAME -- COMMAND ARGS)",
    "--transport": _TRANSPORT,
    "--type": _TRANSPORT,
    "--name": "the name is the first word (%mcp connect NAME …)",
    "--token": _TOKEN,
    "--bearer": _TOKEN,
    "--timeout": _TIMEOUTS,
    "--tool-timeout": _TIMEOUTS,
    "--startup-timeout": _TIMEOUTS,
}


def split_command(
    parser: Parser, words: list[str], namespaces: Sequence[Mapping[str, Any]] = ()
) -> tuple[list[str], list[str] | None]:
    """``%mcp connect``'s own words and the command after ``--`` (None without one).

    A command typed where the URL goes (``%mcp connect db uvx some-server --read-write``) would be
    an odd URL, and its flags "unknown options": that is a UsageError saying where it goes. So is a
    notebook variable holding a server object, named bare where ``{{var}}`` was meant
    (``namespaces``: the notebook's, where such a name is looked up)."""
    parser.refuse_typographic_dashes(words)  # "–era legacy" read as the URL and "too many words"
    if "--" in words:
        i = words.index("--")
        if not words[i + 1 :]:
            raise UsageError("nothing after '--': give the command that starts the server")
        return words[:i], words[i + 1 :]
    if "--config" not in words:
        _refuse_command_without_separator(parser, words, namespaces)
    return words, None


def _server_object_named(word: str, namespaces: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``word`` is a notebook variable holding a server object (an ``MCPServer``, a FastMCP
    server): ``%mcp connect rp srv`` meant ``{{srv}}``, not a program called srv."""
    if not word.isidentifier():
        return False
    for namespace in namespaces:
        if word in namespace:
            value = namespace[word]
            if value is None or isinstance(value, (str, bytes, int, float)):
                return False
            from mcpnb.client.inprocess import runnable

            return runnable(value)
    return False


def _refuse_command_without_separator(
    parser: Parser, words: list[str], namespaces: Sequence[Mapping[str, Any]] = ()
) -> None:
    """The UsageError for a program where the URL goes (the second word that is no option's value),
    or for a server object's variable named there without ``{{ }}``."""
    from mcpnb.client.config.resolve import looks_like_program

    flags = {s: a.nargs != 0 for a in parser._actions for s in a.option_strings}  # flag: takes a value?
    positional: list[int] = []
    value_next = False
    for i, word in enumerate(words):
        if value_next:
            value_next = False
        elif word.startswith("-") and len(word) > 1:
            # "--cwd DIR" (not "--cwd=DIR"); an unknown one may hold a value too (--command PY)
            value_next = flags.get(word, "=" not in word)
        else:
            positional.append(i)
    if len(positional) >= 2 and _server_object_named(words[positional[1]], namespaces):
        name, held = words[positional[0]], words[positional[1]]
        raise UsageError(
            f"{held!r} is a server object of this notebook: write it as {{{{{held}}}}} to run it "
            f"in-process: %mcp connect {name} {{{{{held}}}}}"
        )
    if len(positional) < 2 or not looks_like_program(words[positional[1]]):
        return
    name, at = words[positional[0]], positional[1]
    program = words[at]
    if may_be_secret(program):  # a token pasted where the URL goes: never echoed back
        raise UsageError(
            f"the word after {name!r} is {safe_token(program)}, not a URL: %mcp connect {name} URL, or "
            f"%mcp connect {name} -- COMMAND ARGS for a server started as a command (a secret goes in "
            "{{name}} of a notebook variable, or --bearer-env VAR)"
        )
    start = f"python {program}" if program.endswith(".py") else program  # this kernel's python
    more = " …" if words[at + 1 :] else ""
    own = [w.split("=", 1)[0] for w in words[at + 1 :] if w.startswith("-") and len(w) > 1]
    theirs = f"; the server's own flags, like {own[0]}, go after it" if own else ""
    raise UsageError(
        f"{program!r} starts the server, so it goes after --: %mcp connect {name} -- {start}{more} "
        f"(mcpnb's options, like --env, before the --{theirs})"
    )


def _connect_args(p: Parser) -> None:
    p.instead.update(_CONNECT_INSTEAD)
    p.add_argument("name", nargs="?", help="the server's name in this notebook")
    p.add_argument(
        "url",
        nargs="?",
        help=(
            "an MCP endpoint (Streamable HTTP; legacy SSE for a path ending in /sse, or when "
            "Streamable HTTP is refused there), or {{srv}}: a server object made in the notebook"
        ),
    )
    p.add_argument(
        "--env", action="append", metavar="K=V", help="environment variable for a command (repeat)"
    )
    p.add_argument("--cwd", metavar="DIR", help="working directory for a command")
    p.add_argument(
        "--root",
        action="append",
        metavar="DIR",
        help="a directory the server may work in, offered as an MCP root (repeat)",
    )
    p.add_argument("--sse", action="store_true", help="the URL is a legacy SSE endpoint (try nothing else)")
    p.add_argument("--header", action="append", metavar='"K: V"', help="HTTP header (repeat)")
    p.add_argument("--bearer-env", metavar="VAR", help="send the token in environment variable VAR")
    p.add_argument(
        "--oauth",
        action="store_true",
        help="sign in with OAuth in your browser (a link shows here; the client registers itself); "
        "with --config: to the file's http servers that set no auth of their own",
    )
    p.add_argument(
        "--keep-sign-in",
        action="store_true",
        help="with --oauth: keep the tokens in a file only you can read, so a kernel restart does not "
        "sign in again (--sign-out on disconnect forgets them)",
    )
    p.add_argument(
        "--issuer",
        metavar="URL",
        help="with --oauth: sign in only at this authorization server (its issuer); a server that "
        "sends you elsewhere is refused before you see a link",
    )
    p.add_argument(
        "--assume-pkce",
        action="store_true",
        help="with --oauth: sign in even where the authorization server's metadata does not list "
        "PKCE methods, taking S256 as supported; only for one you know supports it (Microsoft Entra "
        "ID does, without saying so)",
    )
    p.add_argument(
        "--cert",
        metavar="PEM",
        help="mutual TLS: the client certificate the server asks for (a PEM file; its key in it or --key)",
    )
    p.add_argument("--key", metavar="PEM", help="with --cert: the certificate's private key (a PEM file)")
    p.add_argument(
        "--key-password-env",
        metavar="VAR",
        help="with --cert: the environment variable that holds the key's passphrase (never the passphrase)",
    )
    p.add_argument(
        "--ca", metavar="PEM", help="a CA bundle (PEM) to trust for this server, beside the system's"
    )
    p.add_argument("--era", choices=["auto", "legacy", "modern"], help="protocol era (default: auto)")
    p.add_argument(
        "--markdown",
        action="store_true",
        help="draw the server's text answers as Markdown (Playwright MCP and others answer in it "
        "without saying so)",
    )
    p.add_argument(
        "--wait",
        type=float,
        metavar="SECONDS",
        help="keep trying while the server is still starting, up to SECONDS (default: fail at once)",
    )
    p.add_argument(
        "--config",
        action="store_true",
        help="connect servers from the .mcp.json layers: --config [PATH] [NAME ...]",
    )
    add_input_flag(p)
    p.add_argument("more", nargs="*", default=(), help=argparse.SUPPRESS)


@command(
    "connect",
    "Connect a server (replacing one of the same name) and show its status.",
    epilog="examples:\n"
    "  %mcp connect demo -- python server.py --flag   (python: this kernel's interpreter)\n"
    "  %mcp connect api https://example.com/mcp --bearer-env API_TOKEN\n"
    "  %mcp connect docs https://example.com/mcp --oauth   (sign in in your browser)\n"
    "  %mcp connect box http://127.0.0.1:8080/mcp --wait 60   (a server still starting)\n"
    "  %mcp connect corp https://mcp.corp.example/mcp --cert me.pem --key me-key.pem --ca corp-ca.pem\n"
    "  %mcp connect mine {{srv}}   (srv = MCPServer(...) made in the notebook, run in-process)\n"
    '  %mcp connect api {{url}} --header "Authorization: Bearer {{token}}"   ({{var}}: a variable)\n'
    "  %mcp connect --config            (every enabled server of .mcp.json and your user file)\n"
    "  %mcp connect --config team.json  (the servers team.json names)\n"
    "  %mcp connect --config path/to/.mcp.json time git\n"
    "  %mcp connect --config .vscode/mcp.json --input api-key={{key}}   (VS Code's file and its inputs)\n"
    "  %mcp connect --config .vscode/mcp.json --oauth   (sign in to its http servers that set no auth)",
    usage="%(prog)s NAME [--env K=V] [--cwd DIR] [--root DIR] [--era E] [--markdown] [--wait S]"
    " -- COMMAND [ARGS ...]\n"
    "   or: %(prog)s NAME URL [--sse] [--header 'K: V'] [--bearer-env VAR | --oauth [--keep-sign-in]"
    " [--issuer URL] [--assume-pkce]]"
    " [--cert PEM [--key PEM] [--key-password-env VAR]] [--ca PEM] [--era E] [--markdown] [--wait S]\n"
    "   or: %(prog)s NAME {{server}}   (an MCPServer or FastMCP object of the notebook, in-process)\n"
    "   or: %(prog)s --config [PATH] [NAME ...] [--input ID=VALUE]"
    " [--bearer-env VAR | --oauth [--keep-sign-in] [--issuer URL] [--assume-pkce]]",
)
@arguments(_connect_args)
def connect(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.config:
        path, words = path_and_names([w for w in (ns.name, ns.url, *ns.more) if w])
        _refuse_file_flags(ns, path)
        sign_in = _sign_in_for_files(ns)
        if path is None:
            from mcpnb.notebook.magics.completion import default_config_files

            if not default_config_files():
                then = (
                    other_files_text(other_files(), "%mcp connect --config")
                    or "give a path: %mcp connect --config PATH"
                )
                raise UsageError(
                    f"no .mcp.json found in {Path.cwd()} or its parents (and no user or site config "
                    f"file); {then}"
                )
        from mcpnb.client.interaction import CallContext
        from mcpnb.notebook.cell.live import asking_ui

        if sign_in is not None:
            _some_server_takes("--oauth" if ns.oauth else "--bearer-env", sign_in, path, words)
        inputs = input_values(ns.input, ctx.namespaces)
        asking = CallContext(ui=asking_ui(ctx.settings.elicitation))  # for the inputs not given
        connecting = ctx.pool.aconnect_config(
            path, words or None, inputs=inputs, context=asking, auth=sign_in
        )
        table = ctx.pool.runtime.run(connecting)  # an awaiting cell's interrupt cancels it
        failed = failed_servers_error(table, path, _not_asked_for(ctx.pool, table, path, words))
        if failed is not None:  # the table first (every server's row), then the one error
            from IPython.display import display

            display(table)
            raise failed
        return table
    if ns.input:
        raise UsageError("--input goes with --config (the values of a VS Code file's ${input:ID})")
    if ns.more:
        raise UsageError(
            "too many words: %mcp connect NAME URL, or %mcp connect NAME -- COMMAND ARGS "
            "(the command goes after --)"
        )
    if not ns.name:
        raise UsageError("%mcp connect needs a NAME (or --config)")
    if ns.wait is not None and ns.wait < 0:
        raise UsageError("--wait takes a number of seconds (0 or more)")
    written = _as_written(ns)  # before {{var}} is filled in
    options = _stdio_or_url(ctx, ns)
    _warn_of_written_secrets(ns.name, written, options)
    try:
        return one_row(ctx.pool.connect(ns.name, **options, wait=ns.wait))
    finally:  # a failed server stays in the pool: its reconnect reads the variable again too
        _remember_source(ctx, ns.name, ns.held if ns.server is not None else None)


def _not_asked_for(pool: Any, table: Any, path: str | None, words: list[str]) -> set[str]:
    """The failed servers a bare ``--config`` started only because the site or the person's user
    file has them (not named, nor the project's): every notebook's connect cell would end in their
    error, and an administrator's server one person cannot start is no fault of the notebook. One
    whose settings are invalid has no connection: its error names the file it was written in."""
    if path is not None or words:
        return set()
    from mcpnb.notebook.magics.completion import broad_config_files, project_config_files, server_names_in

    broad = broad_config_files()
    spellings = {str(p) for p in broad} | {str(p.resolve()) for p in broad}
    projects = set(server_names_in(project_config_files()))  # the project's own servers: theirs to fail
    found = set()
    for row in table:
        if row.state != "failed" or row.name in projects:
            continue
        try:
            source = pool.connection(row.name).config.source or ""
            written_in = {source, str(Path(source).resolve())} if source else set()
        except Exception:  # settings invalid: never started
            said = row.last_error or ""
            written_in = {file for file in spellings if f"{file}:" in said}
        if written_in & spellings:
            found.add(row.name)
    return found


def failed_servers_error(
    table: Any, path: str | None, not_asked_for: set[str] = frozenset()
) -> Exception | None:
    """The one ``ConnectError`` for the servers of a file that failed to connect (None when none did).

    ``Pool.connect_config`` never raises for one server: a broken entry must not keep the others
    from connecting. The magic still ends its cell with an error, as ``%mcp connect NAME`` does for
    its one server, so a notebook run headless (nbclient, papermill) stops there instead of going on
    without the server; a person sees every row first, then this. ``.server`` and ``.reason`` are
    the first failed server's; the message names each, the servers that did connect, and the line
    that connects the failed ones again once fixed (or only the ones the notebook needs)."""
    import shlex

    from mcpnb.client.errors import ConnectError

    failed = [row for row in table if row.state == "failed"]
    spared = [row for row in failed if row.name in not_asked_for]
    if spared:
        import warnings

        names = ", ".join(
            f"{row.name!r} ({(row.last_error or 'no reason given').rstrip('.')})" for row in spared
        )
        warnings.warn(
            f"not connected, from the site or your user config file: {names}. The cell goes on; "
            'turn one off in your user file with "enabled": false, or name it to need it: '
            f"%mcp connect --config {_words(row.name for row in spared)}",
            UserWarning,
            stacklevel=2,
        )
    failed = [row for row in failed if row.name not in not_asked_for]
    if not failed:
        return None
    command = "%mcp connect --config" + (f" {shlex.quote(path)}" if path else "")
    connected = [row.name for row in table if row.state == "connected"]
    why = {row.name: (row.last_error or "no reason given").rstrip(".") for row in failed}
    first = failed[0].name
    if len(failed) == 1:
        said = f"could not connect to {first!r}: {why[first]}"
    else:
        reasons = "; ".join(f"{name!r}: {reason}" for name, reason in why.items())
        said = f"could not connect to {len(failed)} of {len(table)} servers: {reasons}"
    if connected:
        said += f". Connected: {', '.join(map(repr, connected))}"
    said += f". Fix {'it' if len(failed) == 1 else 'them'}, then: {command} {_words(why)}"
    if connected:
        said += f"; or connect only what this notebook needs: {command} {_words(connected)}"
    error = ConnectError(first, why[first])
    error.args = (said,)  # every failed server's, where the class would say the first one's
    return error


def _words(names: Any) -> str:
    """Server names as a ``%mcp`` line takes them (a name with a space quoted)."""
    import shlex

    return " ".join(map(shlex.quote, names))


# ---------------------------------------------------------------- {{var}} servers edited in a cell
@dataclass
class Source:
    """Where an in-process server connected as ``{{var}}`` came from: the variable, and the object
    it held then. Editing the cell that builds the server and running it again makes a new object
    under the same variable, which the connection does not see; this is how the magics notice."""

    variable: str
    connected: Any  # the object connected (identity: the pool's config holds the same one)
    config: Any  # its ServerConfig, to connect the new object with the same settings
    told: Any = None  # the newer object already said once


#: Per pool (the magics' pool is swapped in tests), per connection name.
_SOURCES: weakref.WeakKeyDictionary[Any, dict[str, Source]] = weakref.WeakKeyDictionary()


def _remember_source(ctx: Context, name: str, variable: str | None) -> None:
    """Remember (or, for a server reached otherwise, forget) the variable ``name``'s server came from."""
    sources = _SOURCES.setdefault(ctx.pool, {})
    sources.pop(name, None)
    if variable is None or name not in ctx.pool.names:
        return
    config = ctx.pool.connection(name).config
    if config.server is not None:
        sources[name] = Source(variable, config.server, config)


def source_of(ctx: Context, name: str) -> Source | None:
    """The variable a server connected as ``{{var}}`` came from, while it still runs that object."""
    source = _SOURCES.get(ctx.pool, {}).get(name)
    if source is None:
        return None
    if name in ctx.pool.names and ctx.pool.connection(name).config.server is not source.connected:
        return None  # connected again otherwise since (pool.connect in Python)
    return source


def newer_server(ctx: Context, name: str) -> tuple[Source, Any] | None:
    """The server object ``{{var}}`` names now, where it is another than the one ``name`` runs: the
    cell that builds it ran again (an edit), and the connection still answers with the old code."""
    source = source_of(ctx, name)
    if source is None:  # the usual case, asked on every call: nothing more is looked up (or imported)
        return None
    from mcpnb.client.inprocess import runnable
    from mcpnb.notebook.magics.parser import lookup

    try:
        value = lookup(source.variable, ctx.namespaces)
    except Exception:  # deleted, or an attribute that fails: nothing newer to run
        return None
    if value is source.connected or value is None or isinstance(value, str) or not runnable(value):
        return None
    return source, value


def reconnect_newer(ctx: Context, name: str) -> Any | None:
    """``%mcp reconnect NAME`` of a ``{{var}}`` server whose variable now holds another object:
    that object, connected under the same settings (era, roots, timeouts), and one line saying so.
    None when there is none (the pool's own reconnect then runs the one connected)."""
    found = newer_server(ctx, name)
    if found is None:
        return None
    source, value = found
    config = ctx.pool.connection(name).config if name in ctx.pool.names else source.config
    print(f"{name}: {source.variable} holds a new server object (its cell ran again): connecting that one")
    try:
        return ctx.pool.connect(name, config=config, server=value)
    finally:
        _remember_source(ctx, name, source.variable)


def stale_note(ctx: Context, name: str, *, again: bool = False) -> str | None:
    """What to say, once per newer object, where ``{{var}}`` now holds another server than the
    one ``name`` runs (``again``: said even if said before, for an error about that server)."""
    found = newer_server(ctx, name)
    if found is None:
        return None
    source, value = found
    if source.told is value and not again:
        return None
    source.told = value
    return (
        f"{source.variable} now holds another server than the one {name!r} runs (its cell ran "
        f"again): %mcp reconnect {name} runs the new one"
    )


#: Flags of a server of one's own, and the key a config file says the same with.
_FILE_KEYS = {
    "--env": '"env"',
    "--cwd": '"cwd"',
    "--root": '"roots"',
    "--header": '"headers"',
    "--era": '"era"',
    "--markdown": '"markdown": true',
    "--sse": '"type": "sse"',
    "--cert": '"tls": {"cert": …}',
    "--key": '"tls": {"key": …}',
    "--key-password-env": '"tls": {"password_env": …}',
    "--ca": '"tls": {"ca": …}',
}


def _refuse_file_flags(ns: argparse.Namespace, path: str | None) -> None:
    """A flag that says how to run one server does not apply to a file's servers: the file says
    it, in the key named here (the file named, or the .mcp.json layers)."""
    given = [flag for flag in _FILE_KEYS if getattr(ns, flag[2:].replace("-", "_"))]
    if ns.wait is not None:
        raise UsageError(
            "--wait does not combine with --config: it waits for one server still starting "
            "(%mcp connect NAME URL --wait S)"
        )
    if not given and not ns.command:
        return
    file = path or ".mcp.json (or .mcp.local.json beside it)"
    if not given:
        raise UsageError(
            f"'-- COMMAND' does not combine with --config: a file's server says its command in {file}, "
            'as "command" and "args"'
        )
    raise UsageError(
        f"{given[0]} does not combine with --config: set it in {file}, as the server's {_FILE_KEYS[given[0]]}"
    )


def _sign_in_for_files(ns: argparse.Namespace) -> dict[str, Any] | None:
    """``--oauth`` (with ``--keep-sign-in``, ``--issuer``, ``--assume-pkce``) or ``--bearer-env``
    with ``--config``: the auth for the file's servers reached by URL that say nothing of signing in
    (no ``auth``, no ``Authorization`` header), as VS Code and Cursor sign in to those; the others
    keep their own. None when no such flag is given."""
    if ns.bearer_env and ns.oauth:
        raise UsageError("--bearer-env or --oauth: a server takes one way to sign in")
    oauth = _oauth_settings(ns)
    if oauth is not None:
        return oauth
    return {"type": "bearer", "token_env": ns.bearer_env} if ns.bearer_env else None


def _some_server_takes(flag: str, auth: dict[str, Any], path: str | None, names: list[str]) -> None:
    """A UsageError when no server chosen is reached by URL without a sign-in of its own: the flag
    would change nothing, and a person who gave it expects it to. An entry that cannot be read, or
    a name the file lacks, is left for the connect to report."""
    import warnings

    from mcpnb.client.config import AuthConfig, load_config
    from mcpnb.client.errors import McpnbError

    try:
        with warnings.catch_warnings():  # the connect reads the file again, and says them then
            warnings.simplefilter("ignore")
            loaded = load_config(path=path, keep_going=True, auth=auth)
    except McpnbError:
        return
    given = AuthConfig(**auth)._settings()
    why: list[str] = []
    takers = [
        name
        for name, config in loaded.servers.items()
        if (not names or name in names) and config.auth is not None and config.auth._settings() == given
    ]
    if flag == "--bearer-env" and not names and len(takers) > 1:  # one token, several servers' hands
        raise UsageError(
            f"--bearer-env would send the same token to {len(takers)} servers of the file "
            f"({', '.join(map(repr, takers))}): name the one it is for, %mcp connect --config "
            f"{path or ''} NAME --bearer-env VAR".replace("  ", " ")
        )
    for name in names or loaded.order:
        config = loaded.servers.get(name)
        if config is None:
            return
        if name in takers:
            return
        why.append(
            f"{name!r} is started as a command"
            if config.transport == "stdio"
            else f"{name!r} sets its own auth or credentials"
        )
    raise UsageError(
        f"{flag} with --config applies to the file's http servers that set no auth (and no "
        f"Authorization header) of their own, and {'; '.join(why) or 'the file names no server'}"
    )


def _as_written(ns: argparse.Namespace) -> list[tuple[str, str]]:
    """Where the line can hold a secret, and what the person wrote there."""
    written = [("the URL", ns.url)] if ns.url else []
    written += [("the command", " ".join(ns.command))] if ns.command else []
    written += [(f"--env {item.partition('=')[0]}", item) for item in ns.env or []]
    written += [(f"--header {item.partition(':')[0].strip()}", item) for item in ns.header or []]
    return written


def _warn_of_written_secrets(name: str, written: list[tuple[str, str]], options: dict[str, Any]) -> None:
    """Say so when a password, token or key is written in the line itself: the cell's source is
    saved with the notebook (every output redacts it; the source is what the person typed).
    ``{{var}}`` keeps it out, so a value that came from one is no reason to warn."""
    import warnings

    from mcpnb.client.config import ServerConfig
    from mcpnb.client.redact import is_secret_key

    if "server" in options:
        return
    try:
        config = ServerConfig.build(name, **options)
    except Exception:  # the connect says what is wrong with it
        return
    plain = {value for key, value in config.env.items() if not is_secret_key(key)}
    secrets = config.secrets() - plain
    where = [label for label, text in written if any(secret in text for secret in secrets)]
    if where:
        holds = " and ".join(where)
        warnings.warn(
            f"{holds} {'holds' if len(where) == 1 else 'hold'} a secret written in this line, which "
            "the notebook saves with the cell and IPython keeps in its input history (%history, "
            "history.sqlite) even once the cell is deleted: rotate it, and write {{name}} of a "
            "notebook variable instead (name = getpass.getpass() asks for it without showing it)",
            UserWarning,
            stacklevel=2,
        )
