"""UI family: search a bundled component catalog with BM25, derive design tokens, generate code.

Everything works from the catalog shipped in ``data/ui_catalog.json``: no network, the same answer
every time, and a ranking that can be checked by hand (the original scorer always returned zero).
"""

import colorsys
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Callable
from importlib import resources
from typing import Any, Literal

from mcpnb.probekit import schemas
from mcpnb.probekit.responses import Payload, ProbeError, structured, text_table
from mcpnb.probekit.state import ProbeState

CATALOG_FILE = "ui_catalog.json"
REQUIRED_KEYS = {"id", "name", "category", "tags", "description", "props", "template"}


def load_catalog() -> tuple[dict[str, Any], str]:
    """The bundled catalog and its checksum (sha256 of the file bytes)."""
    raw = resources.files("mcpnb.probekit").joinpath("data", CATALOG_FILE).read_bytes()
    return json.loads(raw), hashlib.sha256(raw).hexdigest()[:16]


def validate_catalog(catalog: dict[str, Any]) -> list[str]:
    """Problems in a catalog (missing keys, placeholders without a prop); empty when it is sound."""
    problems = []
    for comp in catalog.get("components", []):
        missing = REQUIRED_KEYS - set(comp)
        if missing:
            problems.append(f"{comp.get('id', '?')}: missing {sorted(missing)}")
            continue
        for name in re.findall(r"\{(\w+)(?::\w+)?\}", comp["template"]):
            if name not in comp["props"]:
                problems.append(f"{comp['id']}: template uses {{{name}}} but has no such prop")
    return problems


def tokenize(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


class BM25:
    """Okapi BM25 over small documents; ``idf`` uses the +1 form so scores are never negative."""

    def __init__(self, docs: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs, self.k1, self.b = docs, k1, b
        self.n = len(docs)
        self.avgdl = sum(len(d) for d in docs) / self.n if self.n else 0.0
        self.df = Counter(term for d in docs for term in set(d))
        self.tf = [Counter(d) for d in docs]

    def idf(self, term: str) -> float:
        n = self.df.get(term, 0)
        return math.log(1 + (self.n - n + 0.5) / (n + 0.5))

    def score(self, query: list[str], i: int) -> float:
        tf, dl = self.tf[i], len(self.docs[i])
        total = 0.0
        for term in query:
            f = tf.get(term, 0)
            if f:
                total += (
                    self.idf(term)
                    * f
                    * (self.k1 + 1)
                    / (f + self.k1 * (1 - self.b + self.b * dl / self.avgdl))
                )
        return total


def component_doc(comp: dict[str, Any]) -> list[str]:
    """What BM25 indexes: the name twice (names matter most), tags, category and description."""
    return tokenize(
        " ".join([comp["name"], comp["name"], " ".join(comp["tags"]), comp["category"], comp["description"]])
    )


def search(
    catalog: dict[str, Any], query: str, limit: int = 5, category: str | None = None
) -> list[dict[str, Any]]:
    comps = [c for c in catalog["components"] if category is None or c["category"] == category]
    if not comps:
        return []
    index = BM25([component_doc(c) for c in comps])
    q = tokenize(query)
    scored = [(index.score(q, i), c) for i, c in enumerate(comps)]
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]["id"]))[:limit]
    return [
        {
            "rank": r + 1,
            "id": c["id"],
            "name": c["name"],
            "category": c["category"],
            "score": round(s, 4),
            "description": c["description"],
        }
        for r, (s, c) in enumerate(ranked)
    ]


def render_template(template: str, props: dict[str, str]) -> str:
    """Fill ``{prop}`` and expand ``{prop:tag}`` (a comma list) into repeated elements."""

    def fill(m: re.Match[str]) -> str:
        value = str(props.get(m.group(1), ""))
        if m.group(2):
            tag = m.group(2)
            return "".join(f"<{tag}>{item.strip()}</{tag}>" for item in value.split(",") if item.strip())
        return value.replace("<", "&lt;")

    return re.sub(r"\{(\w+)(?::(\w+))?\}", fill, template)


def to_jsx(html: str) -> str:
    html = html.replace('class="', 'className="').replace('for="', 'htmlFor="')
    html = re.sub(
        r'style="([^"]*)"',
        lambda m: (
            "style={{"
            + ", ".join(
                f'{_camel(k.strip())}: "{v.strip()}"'
                for k, v in (d.split(":", 1) for d in m.group(1).split(";") if ":" in d)
            )
            + "}}"
        ),
        html,
    )
    return re.sub(r"<(input|img|br|hr)([^>]*?)(?<!/)>", r"<\1\2 />", html)


def _camel(name: str) -> str:
    head, *rest = name.split("-")
    return head + "".join(p.capitalize() for p in rest)


def pascal(name: str) -> str:
    return "".join(p.capitalize() for p in re.findall(r"[A-Za-z0-9]+", name)) or "Component"


def component_code(
    comp: dict[str, Any], framework: str, props: dict[str, str] | None
) -> tuple[str, str, str]:
    """``(path, language, code)`` for one catalog component in the chosen framework."""
    merged = {**comp["props"], **(props or {})}
    html = render_template(comp["template"], merged)
    name = pascal(comp["name"])
    if framework == "react":
        return (
            f"{name}.jsx",
            "jsx",
            f"export function {name}() {{\n  return (\n    {to_jsx(html)}\n  );\n}}\n",
        )
    if framework == "vue":
        return f"{name}.vue", "vue", f"<template>\n  {html}\n</template>\n\n<script setup>\n</script>\n"
    return f"{comp['id']}.html", "html", html + "\n"


def hex_to_rgb(color: str) -> tuple[float, float, float]:
    m = re.fullmatch(r"#?([0-9a-fA-F]{6})", color.strip())
    if not m:
        raise ProbeError(f"{color!r} is not a colour like #3366ff")
    v = m.group(1)
    return tuple(int(v[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def rgb_to_hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(max(0.0, min(1.0, c)) * 255):02x}" for c in rgb)


def luminance(rgb: tuple[float, float, float]) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def design_tokens(name: str, brand: str, base: int, ratio: float) -> list[dict[str, str]]:
    """Colour scale (HLS lightness steps), neutrals, spacing, type scale, radii, on-brand text colour."""
    if not 8 <= base <= 32 or not 1.0 < ratio <= 2.0:
        raise ProbeError("base_size must be 8–32 px and ratio between 1 and 2 (e.g. 1.25).")
    rgb = hex_to_rgb(brand)
    h, _, s = colorsys.rgb_to_hls(*rgb)
    steps = {
        50: 0.95,
        100: 0.9,
        200: 0.8,
        300: 0.7,
        400: 0.6,
        500: None,
        600: 0.4,
        700: 0.32,
        800: 0.24,
        900: 0.16,
    }
    tokens = []
    for step, light in steps.items():
        value = brand.lower() if light is None else rgb_to_hex(colorsys.hls_to_rgb(h, light, s))
        tokens.append({"group": "color", "name": f"brand-{step}", "value": value})
    for step, light in ((50, 0.97), (200, 0.85), (500, 0.55), (700, 0.3), (900, 0.1)):
        tokens.append(
            {"group": "color", "name": f"neutral-{step}", "value": rgb_to_hex((light, light, light))}
        )
    white, black = (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)
    on = "#ffffff" if contrast(rgb, white) >= contrast(rgb, black) else "#000000"
    tokens.append({"group": "color", "name": "on-brand", "value": on})
    tokens.append(
        {
            "group": "a11y",
            "name": "on-brand-contrast",
            "value": f"{max(contrast(rgb, white), contrast(rgb, black)):.2f}",
        }
    )
    for i, mult in enumerate([0, 1, 2, 3, 4, 6, 8, 12, 16]):
        tokens.append({"group": "space", "name": f"space-{i}", "value": f"{base * mult / 4:g}px"})
    for k, label in zip(range(-2, 6), ["xs", "sm", "md", "lg", "xl", "2xl", "3xl", "4xl"], strict=True):
        tokens.append({"group": "font-size", "name": f"text-{label}", "value": f"{ratio**k:.3f}rem"})
    for label, px in (("sm", 2), ("md", 4), ("lg", 8), ("full", 9999)):
        tokens.append({"group": "radius", "name": f"radius-{label}", "value": f"{px}px"})
    return tokens


def tokens_css(tokens: list[dict[str, str]]) -> str:
    body = "\n".join(f"  --{t['group']}-{t['name']}: {t['value']};" for t in tokens)
    return f":root {{\n{body}\n}}\n"


def render_page(comps: list[dict[str, Any]], brand_color: str, title: str) -> str:
    """One standalone HTML page: the components with their default props, styled by the tokens."""
    css = tokens_css(design_tokens("preview", brand_color, 16, 1.25))
    body = [render_template(c["template"], c["props"]) for c in comps]
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{title}</title>\n<style>\n{css}'
        "body { font-family: system-ui; padding: var(--space-space-4); }\n"
        ".btn-primary { background: var(--color-brand-500); color: var(--color-on-brand); }\n"
        "</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def segments(description: str) -> list[str]:
    parts = re.split(r"[\n;,]|\bthen\b|\bwith\b|\band\b", description)
    return [p.strip() for p in parts if p and p.strip()]


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The UI family, reading the catalog cached on the server state."""

    def catalog() -> dict[str, Any]:
        if state.catalog is None:
            state.catalog, state.catalog_checksum = load_catalog()
        return state.catalog

    def get(component: str) -> dict[str, Any]:
        comps = {c["id"]: c for c in catalog()["components"]}
        if component not in comps:
            hits = search(catalog(), component, limit=1)
            if not hits:
                raise ProbeError(f"No component {component!r}; try ui_search first")
            return comps[hits[0]["id"]]
        return comps[component]

    def catalog_payload(source: str, changed: bool) -> Payload:
        cat = catalog()
        problems = validate_catalog(cat)
        if problems:
            raise ProbeError("The catalog is inconsistent: " + "; ".join(problems[:5]))
        cats = Counter(c["category"] for c in cat["components"])
        rows = [{"category": k, "count": v} for k, v in sorted(cats.items())]
        data = {
            "version": cat["version"],
            "source": source,
            "checksum": state.catalog_checksum,
            "components": len(cat["components"]),
            "categories": rows,
            "changed": changed,
        }
        return Payload(
            data,
            f"catalog {cat['version']}: {len(cat['components'])} components\n\n"
            + text_table(rows, ["category", "count"]),
        )

    @structured(schemas.UI_SEARCH)
    def ui_search(query: str, limit: int = 5, category: str | None = None) -> Payload:
        """Rank the bundled component catalog for a query with BM25 (name, tags, category, description)."""
        results = search(catalog(), query, limit, category)
        return Payload(
            {"query": query, "results": results}, text_table(results, ["rank", "id", "score", "description"])
        )

    @structured(schemas.DESIGN_SYSTEM)
    def ui_design_system(
        name: str = "probe", brand_color: str = "#3366ff", base_size: int = 16, ratio: float = 1.25
    ) -> Payload:
        """Derive design tokens from a brand colour: a 50–900 colour scale, neutrals, spacing, a modular
        type scale, radii, and the readable text colour on the brand (with its WCAG contrast)."""
        tokens = design_tokens(name, brand_color, base_size, ratio)
        return Payload(
            {"name": name, "tokens": tokens, "css": tokens_css(tokens)},
            text_table(tokens, ["group", "name", "value"], limit=60),
        )

    @structured(schemas.UI_CODE)
    def genui(
        component: str,
        framework: Literal["html", "react", "vue"] = "html",
        props: dict[str, str] | None = None,
    ) -> Payload:
        """Generate code for one catalog component (by id, or the best search hit) in HTML, React or Vue."""
        comp = get(component)
        path, lang, code = component_code(comp, framework, props)
        unknown = sorted(set(props or {}) - set(comp["props"]))
        warnings = [f"{comp['id']} has no prop {p!r}" for p in unknown]
        data = {
            "framework": framework,
            "components": [
                {
                    "id": comp["id"],
                    "name": comp["name"],
                    "props": json.dumps({**comp["props"], **(props or {})}),
                }
            ],
            "files": [{"path": path, "language": lang, "content": code}],
            "warnings": warnings,
        }
        return Payload(data, code)

    @structured(schemas.UI_CODE)
    def design2code(description: str, framework: Literal["html", "react", "vue"] = "html") -> Payload:
        """Turn a plain-language layout ("navbar, hero with signup button, then a data table") into a page
        composed of catalog components, in order."""
        chosen, warnings, blocks = [], [], []
        for seg in segments(description):
            hits = search(catalog(), seg, limit=1)
            if not hits:
                warnings.append(f"no component matches {seg!r}")
                continue
            comp = get(hits[0]["id"])
            quoted = re.findall(r"['\"]([^'\"]+)['\"]", seg)
            props = {("title" if "title" in comp["props"] else "label"): quoted[0]} if quoted else {}
            chosen.append(
                {"id": comp["id"], "name": comp["name"], "props": json.dumps({**comp["props"], **props})}
            )
            blocks.append(render_template(comp["template"], {**comp["props"], **props}))
        if not chosen:
            raise ProbeError(
                "Nothing in the description matched a component; name parts like 'navbar' or 'table'."
            )
        html = "\n".join(blocks)
        if framework == "react":
            path, lang, code = (
                "Page.jsx",
                "jsx",
                f"export function Page() {{\n  return (\n    <>\n{to_jsx(html)}\n    </>\n  );\n}}\n",
            )
        elif framework == "vue":
            path, lang, code = "Page.vue", "vue", f"<template>\n{html}\n</template>\n"
        else:
            path, lang, code = "page.html", "html", f"<main>\n{html}\n</main>\n"
        data = {
            "framework": framework,
            "components": chosen,
            "files": [{"path": path, "language": lang, "content": code}],
            "warnings": warnings,
        }
        return Payload(data, code)

    @structured(schemas.UI_CODE)
    def render_ui(components: list[str], brand_color: str = "#3366ff", title: str = "Preview") -> Payload:
        """Render catalog components into one standalone HTML page styled with the design tokens."""
        comps = [get(cid) for cid in components]
        chosen = [{"id": c["id"], "name": c["name"], "props": json.dumps(c["props"])} for c in comps]
        page = render_page(comps, brand_color, title)
        data = {
            "framework": "html",
            "components": chosen,
            "files": [{"path": "preview.html", "language": "html", "content": page}],
            "warnings": [],
        }
        return Payload(data, page)

    @structured(schemas.CATALOG)
    def init_component_catalog() -> Payload:
        """Load and check the bundled component catalog (keys, template placeholders) and summarise it."""
        state.catalog = None
        catalog()
        return catalog_payload("bundled", changed=False)

    @structured(schemas.CATALOG)
    def sync_ui_data() -> Payload:
        """Refresh the catalog from the bundled data file (no network) and say whether it changed."""
        before = state.catalog_checksum
        state.catalog, state.catalog_checksum = load_catalog()
        return catalog_payload("bundled", changed=bool(before) and before != state.catalog_checksum)

    return [ui_search, ui_design_system, genui, design2code, render_ui, init_component_catalog, sync_ui_data]
