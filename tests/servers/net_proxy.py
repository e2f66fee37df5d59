"""A logging HTTP forward proxy (absolute-URI + CONNECT) on 127.0.0.1, or a transparent TCP relay (tests).

--mode ok | 407 | 502 | idle5 (ok, but connections idle 5 s are closed)
       | relay-idle5 (plain TCP relay to --relay)
--map H:P=H2:P2 rewrites a target (so http://127.0.0.1:9/... reaches a real server only through the proxy)
Only 127.0.0.1 targets are ever connected to.
"""

import argparse
import asyncio
import base64
import contextlib
import time

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--mode", default="ok")
ap.add_argument("--map", action="append", default=[])
ap.add_argument("--relay")
ap.add_argument("--idle", type=float, default=5.0)
a = ap.parse_args()
MAP = dict(m.split("=") for m in a.map)


def log(*x):
    print(time.strftime("%H:%M:%S"), *x, flush=True)


def target(hostport):
    hostport = MAP.get(hostport, hostport)
    host, _, port = hostport.rpartition(":")
    if host not in ("127.0.0.1", "localhost"):
        raise ValueError(f"refusing non-loopback target {hostport}")
    return "127.0.0.1", int(port)


async def refuse(w, code, reason, extra=""):
    body = (
        f"<html><head><title>{code} {reason}</title></head>"
        f"<body><h1>{code} {reason}</h1><p>Acme Corp web gateway</p></body></html>"
    ).encode()
    w.write(
        (
            f"HTTP/1.1 {code} {reason}\r\n{extra}Content-Type: text/html\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode()
        + body
    )
    await w.drain()
    w.close()


class Idle:
    def __init__(self):
        self.t = time.monotonic()

    def touch(self):
        self.t = time.monotonic()


async def pump(r, w, idle, label):
    try:
        while True:
            data = await r.read(65536)
            if not data:
                break
            idle.touch()
            w.write(data)
            await w.drain()
    except Exception:
        pass
    finally:
        with contextlib.suppress(Exception):
            w.close()


async def watchdog(idle, writers, label):
    while True:
        await asyncio.sleep(0.5)
        if time.monotonic() - idle.t > a.idle:
            log(label, f"IDLE {a.idle}s: closing connection")
            for w in writers:
                with contextlib.suppress(Exception):
                    w.transport.abort()
            return


async def read_head(r):
    head = await r.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    return lines[0], [line for line in lines[1:] if line]


async def handle(cr, cw):
    peer = cw.get_extra_info("peername")
    idle = Idle()
    if a.mode == "relay-idle5":
        h, p = target(a.relay)
        ur, uw = await asyncio.open_connection(h, p)
        log("RELAY conn from", peer)
        wd = asyncio.create_task(watchdog(idle, [cw, uw], f"relay {peer}"))
        await asyncio.gather(pump(cr, uw, idle, "c>u"), pump(ur, cw, idle, "u>c"))
        wd.cancel()
        log("RELAY closed", peer)
        return
    try:
        line, headers = await read_head(cr)
    except Exception:
        cw.close()
        return
    method, uri, ver = line.split(" ", 2)
    pauth = [h for h in headers if h.lower().startswith("proxy-authorization:")]
    auth = [
        h.split(":", 1)[0] + ": " + h.split(":", 1)[1].strip()[:12] + "…"
        for h in headers
        if h.lower().startswith("authorization:")
    ]
    who = ""
    if pauth:
        try:
            who = "proxy-auth user:pass=" + base64.b64decode(pauth[0].split()[-1]).decode()
        except Exception:
            who = "proxy-auth=" + pauth[0]
    log("REQ", peer, method, uri, who, auth)
    if a.mode == "407":
        return await refuse(
            cw, 407, "Proxy Authentication Required", 'Proxy-Authenticate: Basic realm="Acme Corp proxy"\r\n'
        )
    if a.mode == "502":
        return await refuse(cw, 502, "Bad Gateway")
    if method == "CONNECT":
        h, p = target(uri)
        ur, uw = await asyncio.open_connection(h, p)
        cw.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await cw.drain()
        tasks = [pump(cr, uw, idle, "c>u"), pump(ur, cw, idle, "u>c")]
        wd = asyncio.create_task(watchdog(idle, [cw, uw], f"CONNECT {uri}")) if a.mode == "idle5" else None
        await asyncio.gather(*tasks)
        if wd:
            wd.cancel()
        log("CONNECT closed", uri)
        return
    # absolute-URI forward proxy; one upstream per client connection
    assert uri.startswith("http://"), uri
    hostport = uri[7:].split("/", 1)[0]
    h, p = target(hostport)
    ur, uw = await asyncio.open_connection(h, p)
    wd = asyncio.create_task(watchdog(idle, [cw, uw], f"FWD {hostport}")) if a.mode == "idle5" else None
    back = asyncio.create_task(pump(ur, cw, idle, "u>c"))
    try:
        while True:
            path = "/" + uri[7:].split("/", 1)[1] if "/" in uri[7:] else "/"
            hdrs = [
                x for x in headers if not x.lower().startswith(("proxy-authorization:", "proxy-connection:"))
            ]
            if hostport in MAP:  # the server sees the address it is at (it checks its Host header)
                hdrs = [f"Host: {MAP[hostport]}" if x.lower().startswith("host:") else x for x in hdrs]
            uw.write(
                f"{method} {path} {ver}\r\n".encode() + "".join(x + "\r\n" for x in hdrs).encode() + b"\r\n"
            )
            cl = [int(x.split(":")[1]) for x in headers if x.lower().startswith("content-length:")]
            chunked = any(
                x.lower().startswith("transfer-encoding:") and "chunked" in x.lower() for x in headers
            )
            if cl:
                uw.write(await cr.readexactly(cl[0]))
            elif chunked:
                while True:
                    szl = await cr.readuntil(b"\r\n")
                    uw.write(szl)
                    sz = int(szl.split(b";")[0], 16)
                    uw.write(await cr.readexactly(sz + 2))
                    if sz == 0:
                        break
            await uw.drain()
            idle.touch()
            line, headers = await read_head(cr)
            method, uri, ver = line.split(" ", 2)
            log("REQ(keepalive)", peer, method, uri)
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        if wd:
            wd.cancel()
        uw.close()
        await asyncio.gather(back, return_exceptions=True)


async def main():
    s = await asyncio.start_server(handle, "127.0.0.1", a.port)
    log("proxy listening", a.port, a.mode, MAP)
    async with s:
        await s.serve_forever()


asyncio.run(main())
