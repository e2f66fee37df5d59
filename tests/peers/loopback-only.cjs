// Preload for third-party Node MCP servers that bind every interface: pin listen() to 127.0.0.1.
// Use: node -r tests/peers/loopback-only.cjs <server.js> ...
// The socket is bound right away (not at the next tick), because some servers read
// server.address().port straight after listen(0).
const net = require("net");
const { TCP, constants } = process.binding("tcp_wrap");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  let [port, ...rest] = args;
  if (port !== null && typeof port === "object" && !(port instanceof TCP)) {
    const other = ["path", "fd", "handle", "_handle"].some((k) => port[k] !== undefined);
    if (other) return listen.apply(this, args);
    rest = [port.backlog, ...rest].filter((a) => a !== undefined);
    port = port.port ?? 0;
  } else if (typeof port === "number" || /^\d+$/.test(String(port))) {
    if (typeof rest[0] === "string") rest = rest.slice(1);
  } else {
    return listen.apply(this, args);
  }
  const handle = new TCP(constants.SERVER);
  if (handle.bind("127.0.0.1", Number(port)) !== 0) {  // let listen report the error the usual way
    handle.close();
    return listen.apply(this, [Number(port), "127.0.0.1", ...rest]);
  }
  return listen.apply(this, [handle, ...rest]);
};
