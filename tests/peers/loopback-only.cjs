// Preload for third-party Node MCP servers that bind every interface: pin listen() to 127.0.0.1.
// Use: node -r tests/peers/loopback-only.cjs <server.js> streamableHttp
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (args[0] !== null && typeof args[0] === "object" && !Array.isArray(args[0])) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  } else if (typeof args[0] === "number" || /^\d+$/.test(String(args[0]))) {
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
