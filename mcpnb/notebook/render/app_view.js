// An MCP App's page in a notebook output: a sandboxed frame, and the bridge between the page's
// postMessage JSON-RPC and the kernel (mcpnb.client.apps.AppHost answers it there).
//
// The frame has `sandbox="allow-scripts allow-forms"` and no allow-same-origin: the page runs in an
// opaque origin of its own, so it cannot reach JupyterLab, its cookies or the kernel, and talks only
// through postMessage. Its Content-Security-Policy is in the document (AppPage.document).

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
  const view = Math.random().toString(36).slice(2);
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
  box.append(head, frame, notes);
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
  frame.srcdoc = model.get("document");

  let initialized = false; // nothing goes to a page before its `initialized` (the extension)
  let modes = ["inline"]; // the display modes the page said it supports, at ui/initialize
  let mode = "inline";
  const toPageNow = (message) => frame.contentWindow?.postMessage({ jsonrpc: "2.0", ...message }, "*");
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

  const fromPage = (event) => {
    if (event.source !== frame.contentWindow) return; // only this view's page
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
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
    if (content?.view === view) frame.contentWindow?.postMessage(content.message, "*");
  };
  window.addEventListener("message", fromPage);
  model.on("msg:custom", toPage);
  return () => {
    // the extension asks the host to say so before a page goes; nothing can wait for its answer here
    toPageNow({ id: `teardown-${view}`, method: "ui/resource-teardown", params: { reason: "the output was cleared" } });
    themeWatch.disconnect();
    document.removeEventListener("fullscreenchange", onFullscreen);
    window.removeEventListener("message", fromPage);
    model.off("msg:custom", toPage);
  };
}

export default { render };
