// An MCP App's page in a notebook output: a sandboxed frame, and the bridge between the page's
// postMessage JSON-RPC and the kernel (mcpnb.client.apps.AppHost answers it there).
//
// The frame has `sandbox="allow-scripts allow-forms"` and no allow-same-origin: the page runs in an
// opaque origin of its own, so it cannot reach JupyterLab, its cookies or the kernel, and talks only
// through postMessage. Its Content-Security-Policy is in the document (AppPage.document).
//
// A page can send its own frame elsewhere (`location.href = …`, `<meta http-equiv=refresh>`): the
// new document keeps the frame's window, so `event.source` cannot tell it from the page, and no
// policy of the page binds it (Firefox and Safari ignore the frame's `csp`). So each document drawn
// from the page announces itself first, with a secret the page's own scripts never see (DOCUMENT),
// and no question of who holds the frame waits for the browser to say the page is going (CI once
// saw a document the page had sent its frame to get a call through before the page's "going" was
// heard):
// - page to host: before a message is relayed, the document the frame holds *then* is asked
//   whether it is the one that announced itself; only its answer, with the secret, lets the
//   message through (a postMessage goes to the frame's document of the moment, so the question
//   reaches a document that replaced the page, which cannot answer it);
// - host to page: through the MessagePort the document handed over as it announced itself, which
//   dies with it (a tool's result never reaches a document the page navigated to);
// - a document the frame loaded that cannot answer within a second blanks the frame, with a note.

// Where a frontend may put a script of its own, after the policy, before the page (apps.FRONTEND_MARK).
const MARK = "<!--mcpnb:frontend-->";

// The first script of each document drawn from the page: it takes itself out of the document (the
// page never reads `secret`) and tells the host a document of its page has begun, handing it a
// MessagePort. The host speaks to the page through that port only, which dies with this document:
// a document the page sent its frame to never hears the host, however late the browser says the
// frame changed hands. Each message is handed to the page here as its host's (a `message` event on
// its window whose `source` is its parent, as the extension's SDK checks). The extension asks the
// host to send `ui/resource-teardown` before a page goes and wait for the answer, but a notebook
// removes an output, frame and all, before the widget hears of it: the page would never get the
// message. So the page's window hears it here, as it goes (pagehide), if its host spoke to it at
// all (only after `initialized`) and it was not told already.
const DOCUMENT = (secret, origin) => `<script>(() => {
  const host = window.parent, post = (data) => host.postMessage(data, "*");
  const id = crypto.getRandomValues(new Uint32Array(2)).join("-"); // this document, not its reloads
  document.currentScript.remove();
  let heard = false, told = false;
  const channel = new MessageChannel();
  channel.port1.onmessage = ({ data }) => {
    heard = true;
    if (data?.method === "ui/resource-teardown") told = true;
    window.dispatchEvent(new MessageEvent("message", { data, source: host, origin: ${JSON.stringify(origin)} }));
  };
  host.postMessage({ mcpnbDocument: ${JSON.stringify(secret)}, id }, "*", [channel.port2]);
  window.addEventListener("message", (event) => {
    if (event.source !== host || event.data?.mcpnbCheck === undefined) return;
    event.stopImmediatePropagation(); // the host asks who holds the frame: the page never sees it
    post({ mcpnbHere: ${JSON.stringify(secret)}, id, check: event.data.mcpnbCheck });
  }, true);
  window.addEventListener("pagehide", () => {
    if (!heard || told) return;
    const data = { jsonrpc: "2.0", id: "mcpnb-teardown", method: "ui/resource-teardown", params: {} };
    window.dispatchEvent(new MessageEvent("message", { data, source: host }));
  }, true);
})();</script>`;

// What the documents drawn from the page say to the host (DOCUMENT), never relayed.
const MARKERS = ["mcpnbDocument", "mcpnbHere"];
// Messages waiting for their document's answer, at most (the oldest past it dropped, and counted).
const MAX_CHECKING = 256;

const randomId = () => [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");

function theme() {
  const light = document.body.dataset.jpThemeLight;
  if (light !== undefined) return light === "false" ? "dark" : "light";
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

// The extension's standard style variables, from JupyterLab's theme (values, not var(): the page
// cannot see JupyterLab's CSS), so a page can match the notebook, light or dark.
const STYLES = {
  "--color-background-primary": "--jp-layout-color0",
  "--color-background-secondary": "--jp-layout-color1",
  "--color-background-tertiary": "--jp-layout-color2",
  "--color-text-primary": "--jp-content-font-color0",
  "--color-text-secondary": "--jp-content-font-color1",
  "--color-text-tertiary": "--jp-content-font-color2",
  "--color-text-danger": "--jp-error-color1",
  "--color-text-success": "--jp-success-color1",
  "--color-text-warning": "--jp-warn-color1",
  "--color-text-info": "--jp-info-color1",
  "--color-border-primary": "--jp-border-color1",
  "--color-border-secondary": "--jp-border-color2",
  "--font-sans": "--jp-ui-font-family",
  "--font-mono": "--jp-code-font-family",
};

function context() {
  const css = getComputedStyle(document.body);
  const variables = {};
  for (const [name, ours] of Object.entries(STYLES)) {
    const value = css.getPropertyValue(ours).trim();
    if (value) variables[name] = value;
  }
  return {
    theme: theme(),
    availableDisplayModes: ["inline", "fullscreen"],
    styles: { variables },
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

function noteRow(note) {
  const row = document.createElement("div");
  row.className = `mcpnb-app-note mcpnb-app-${note.kind}`;
  row.append(note.text);
  if (note.url) {
    const link = document.createElement("a");
    link.href = note.url;
    if (note.download) {  // a file the page offers (a data: URL): saved only by the person's click
      link.download = note.download;
      link.textContent = note.download;
    } else {
      link.textContent = note.url;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
    }
    row.append(" ", link);
  }
  return row;
}

function render({ model, el }) {
  let view = randomId(); // a new one for each document of the page: each gets its own handshake
  const secret = randomId();
  const box = document.createElement("div");
  box.className = "mcpnb-app";
  const head = document.createElement("div");
  head.className = "mcpnb-app-head";
  const title = document.createElement("span");
  title.className = "mcpnb-app-title";
  const exit = document.createElement("button");
  exit.className = "mcpnb-app-exit";
  exit.textContent = "✕ back to the notebook (Esc)";
  head.append(title, exit);
  const frame = document.createElement("iframe");
  frame.className = "mcpnb-app-frame";
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  // the policy is in the document too; as the frame's `csp` (Chromium's embedded enforcement) it
  // also binds whatever the frame might navigate to
  frame.setAttribute("csp", model.get("policy"));
  frame.setAttribute("title", model.get("label"));
  frame.style.height = `${model.get("height")}px`;
  const notes = document.createElement("div");
  notes.className = "mcpnb-app-notes";
  const left = document.createElement("div"); // said when the page sent its frame elsewhere
  left.className = "mcpnb-app-note mcpnb-app-refused mcpnb-app-left";
  left.hidden = true;
  // the document before the frame is in the page: no load of an empty frame first
  const page = model.get("document");
  const at = page.indexOf(MARK);
  const drawn = DOCUMENT(secret, window.location.origin);
  frame.srcdoc = at < 0 ? page : page.slice(0, at) + drawn + page.slice(at + MARK.length);
  box.append(head, frame, left, notes);
  el.append(box);

  const draw = () => {
    title.textContent = model.get("label");
    box.classList.toggle("mcpnb-app-bordered", model.get("border"));
    notes.replaceChildren(...model.get("notes").map(noteRow));
  };
  draw();
  model.on("change:notes", draw);
  model.on("change:label", draw);
  model.on("change:border", draw);

  let initialized = false; // nothing goes to a page before its `initialized` (the extension)
  let modes = ["inline"]; // the display modes the page said it supports, at ui/initialize
  let mode = "inline";
  let port = null; // the page's document of the moment speaks to it here (DOCUMENT)
  const toPageNow = (message) => port?.postMessage({ jsonrpc: "2.0", ...message });
  const contextChanged = (params) => {
    if (initialized) toPageNow({ method: "ui/notifications/host-context-changed", params });
  };

  // Display modes are the frontend's business: a page that declared "fullscreen" gets the whole
  // screen (the browser's Fullscreen API; the click in the page that asked counts as the person's
  // gesture, and Esc brings it back); "pip" has no place in a notebook: inline.
  const shownNow = () => (document.fullscreenElement === box ? "fullscreen" : "inline");
  const onFullscreen = () => {
    if (shownNow() === mode) return;
    mode = shownNow();
    contextChanged({ displayMode: mode });
  };
  document.addEventListener("fullscreenchange", onFullscreen);
  const display = async (wanted) => {
    try {
      if (wanted === "fullscreen" && modes.includes("fullscreen") && mode !== "fullscreen") {
        await box.requestFullscreen();
      } else if (wanted !== "fullscreen" && mode === "fullscreen") {
        await document.exitFullscreen();
      }
    } catch {
      // refused (no gesture, or a frontend that forbids it): the page keeps the mode it has
    }
    onFullscreen();
    return mode;
  };
  exit.addEventListener("click", () => display("inline"));

  // Which document the frame holds: one of the page's (it announced itself) or another, which is
  // never relayed. Each document the frame loads is asked at once who it is: one that cannot answer
  // with the secret within a second means the page sent its frame elsewhere (a reload of the page,
  // after the frame was moved in the notebook, answers: it is the page again). Asked, not inferred
  // from the order of its load and its announcement, which a busy browser may deliver either way.
  let current = null; // the id the page's document of the moment announced
  let gone = false;
  let checks = 0;
  const checking = new Map(); // a check's number → the message waiting for it, and whose it was
  const loaded = new Set(); // the checks asked of a document as it loaded, not answered yet
  const ask = () => { // who holds the frame now? (its number; DOCUMENT answers with the secret)
    checks += 1;
    frame.contentWindow?.postMessage({ mcpnbCheck: checks }, "*");
    return checks;
  };
  // A message the page sent as its document was being replaced (a reload, a navigation) is asked
  // about after the new one holds the frame, which cannot vouch for it: it is dropped, and counted
  // here, where the person sees it (nothing tells it from what the replacing document sent).
  let lost = 0;
  const lostNote = document.createElement("div");
  lostNote.className = "mcpnb-app-note mcpnb-app-refused mcpnb-app-lost";
  lostNote.hidden = true;
  box.insertBefore(lostNote, notes);
  const drop = (count) => {
    if (count <= 0) return;
    lost += count;
    lostNote.textContent = `${lost} message${lost === 1 ? "" : "s"} the page sent as its document was replaced `
      + "(a reload, a navigation) not relayed: the document that replaced it cannot vouch for them";
    lostNote.hidden = false;
  };
  const dropWaiting = () => {
    drop(checking.size);
    checking.clear();
  };
  const leave = () => {
    gone = true;
    checking.clear(); // (what the other document sent: the note below says why nothing is answered)
    loaded.clear();
    port?.close();
    port = null;
    frame.removeAttribute("srcdoc");
    frame.src = "about:blank";
    left.textContent = "the page left itself (its frame was sent to another address): it is no longer answered";
    left.hidden = false;
  };
  frame.addEventListener("load", () => {
    if (gone) return;
    const asked = ask();
    loaded.add(asked);
    setTimeout(() => gone || !loaded.has(asked) || leave(), 1000);
  });
  const announcement = (data, ports) => {
    if (data.mcpnbHere === secret) {
      if (loaded.delete(data.check)) return; // a document of the page holds the frame
      const waiting = checking.get(data.check);
      if (!waiting) return;
      checking.delete(data.check);
      // the frame holds the document that sent it (going or not): relayed, in the order asked
      if (data.id === current && waiting.from === current) relay(waiting.message);
      else drop(1);
    } else if (data.mcpnbDocument === secret) {
      dropWaiting(); // what an earlier document sent is not answered under this one
      const again = current !== null;
      current = data.id;
      port?.close();
      port = ports[0] ?? null;
      if (again) { // the page again (reloaded): a new handshake, under a new view
        view = randomId();
        initialized = false;
        modes = ["inline"];
      }
    }
  };

  const fromPage = (event) => {
    if (event.source !== frame.contentWindow || gone) return; // only this view's page
    const message = event.data;
    if (message && typeof message === "object" && MARKERS.some((k) => k in message)) {
      announcement(message, event.ports);
      return;
    }
    if (current === null) return; // no document of the page yet
    if (!message || message.jsonrpc !== "2.0") return;
    checking.set(ask(), { message, from: current });
    if (checking.size > MAX_CHECKING) { // a document that never answers, and never loads either
      checking.delete(checking.keys().next().value);
      drop(1);
    }
  };
  const relay = (message) => {
    if (message.method === "ui/notifications/size-changed") {
      // the frame's size is the frontend's alone: the kernel is not bothered at every resize
      const height = Number(message.params?.height);
      if (height > 0) frame.style.height = `${Math.min(Math.ceil(height), model.get("max_height"))}px`;
      return;
    }
    if (message.method === "ui/request-display-mode" && message.id !== undefined) {
      display(message.params?.mode).then((given) => toPageNow({ id: message.id, result: { mode: given } }));
      return;
    }
    if (message.method === "ui/initialize") {
      const said = message.params?.appCapabilities?.availableDisplayModes;
      modes = Array.isArray(said) ? said : ["inline"];
    }
    if (message.method === "ui/notifications/initialized") initialized = true;
    // the host's context goes with the handshake (AppHost puts it in hostContext)
    model.send(message.method === "ui/initialize" ? { view, context: context(), message } : { view, message });
  };
  // a theme switched in JupyterLab reaches a page that is listening
  let shown = theme();
  const themeWatch = new MutationObserver(() => {
    const now = theme();
    if (now === shown) return;
    shown = now;
    const { theme: t, styles } = context();
    contextChanged({ theme: t, styles });
  });
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  const toPage = (content) => {
    if (content?.view === view) port?.postMessage(content.message);
  };
  window.addEventListener("message", fromPage);
  model.on("msg:custom", toPage);
  return () => {
    // a frontend that lets go of a view before its output is removed: the page hears it from here,
    // else from its own window as it goes (DOCUMENT)
    if (initialized && port && frame.isConnected) {
      toPageNow({ id: `teardown-${view}`, method: "ui/resource-teardown", params: {} });
    }
    themeWatch.disconnect();
    document.removeEventListener("fullscreenchange", onFullscreen);
    window.removeEventListener("message", fromPage);
    model.off("msg:custom", toPage);
  };
}

export default { render };
