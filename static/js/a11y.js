// a11y.js makes the drawings readable without seeing them, and the page usable
// without a mouse:
//
//   - every panel's canvas is an image (role="img") whose aria-label says what it
//     shows and its values now, in words: the panel's title and its module's
//     describe(cfg, view) ("R, 8 units × 12 steps; at t = 5: mean 0.430, max 0.910 (unit 3)");
//   - every panel's "table" button shows the panel's numbers as an HTML table, from its
//     module's table(cfg, view): {caption, head: [column names], rows: [[row name,
//     cells…]], note?} or a list of them, or null when there is nothing to show yet;
//   - the announcer (the page's one polite live region) says what a person asked
//     for: a step taken, a pause, the end of training; never each frame while playing.
//
// Labels and tables are rebuilt only when what they describe changes (the step, a new
// snapshot, training progress), not on every animation frame: refresh compares one
// key and returns. Focus on a symbol or a canvas shows what hover shows (links.js).
import { view } from "./store.js";
import { panelView } from "./contract.js";
import { fact } from "./panels/common.js";
import { DRAW } from "./draw.js";
import { $, tid } from "./dom.js";

const MAX_TABLE_ROWS = 256; // a table longer than this shows its first rows and says so: a screen reader pages through it anyway
const MAX_LABEL_CHARS = 400; // an aria-label is read in one breath: the table has the rest
const ANNOUNCE_FACTS = 4; // the facts an announcement reads after the step: a glance, the facts list has them all

// texWords writes TeX as plain words for a label: \htmlClass and font commands
// dropped, Greek letters and a few operators as their characters.
const ACCENT = { hat: "\u0302", tilde: "\u0303", bar: "\u0304", vec: "\u20d7", overrightarrow: "→", overleftarrow: "←" }; // combining marks, arrows after
const GREEK = { lVert: "‖", rVert: "‖", Vert: "‖", mid: "|", sqrt: "√", rho: "ρ", ell: "ℓ", sum: "Σ", prod: "Π", cdots: "⋯", in: "∈", quad: " ", qquad: " ", alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", eta: "η", theta: "θ", lambda: "λ", mu: "μ", pi: "π", sigma: "σ", tau: "τ", phi: "φ", psi: "ψ", omega: "ω", Delta: "Δ", Sigma: "Σ", partial: "∂", nabla: "∇", odot: "⊙", cdot: "·", times: "×", top: "ᵀ", to: "→", leftarrow: "←", rightarrow: "→", approx: "≈", le: "≤", ge: "≥", ldots: "…", dots: "…", langle: "⟨", rangle: "⟩", infty: "∞" };
export function texWords(tex) {
  return tex
    .replace(/\\htmlClass\{[^}]*\}/g, "")
    .replace(/\\(mathbf|mathrm|mathit|boldsymbol|text|operatorname|mathcal|textbf|textit)\b/g, "")
    .replace(/\\(hat|tilde|bar|vec|overrightarrow|overleftarrow)\s*(?:\{([^{}]*)\}|([A-Za-z]))/g, (m, a, arg, ch) => (arg ?? ch) + ACCENT[a])
    .replace(/\\([A-Za-z]+)/g, (m, w) => GREEK[w] ?? w)
    .replace(/\\[,;:! ]/g, " ")
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

// plainText is an element's text with each rendered formula (KaTeX) read as its TeX
// in words, once: a KaTeX element holds the formula twice (MathML and HTML).
export function plainText(el) {
  if (!el) return "";
  const copy = el.cloneNode(true);
  copy.querySelectorAll("button.table-toggle").forEach((b) => b.remove());
  copy.querySelectorAll(".katex").forEach((k) => {
    const tex = k.querySelector("annotation")?.textContent ?? k.textContent;
    k.replaceWith(texWords(tex));
  });
  return copy.textContent.replace(/\\\((.+?)\\\)/g, (m, t) => texWords(t)).replace(/\s+/g, " ").trim();
}

const cut = (s) => (s.length > MAX_LABEL_CHARS ? s.slice(0, MAX_LABEL_CHARS - 1) + "…" : s);

// renderTable writes one table spec as a <table>: a caption, column headers (scope
// col) and row headers (scope row: each row's first cell).
function renderTable(spec) {
  const t = document.createElement("table");
  const cap = document.createElement("caption");
  cap.textContent = spec.caption + (spec.rows.length > MAX_TABLE_ROWS ? ` (the first ${MAX_TABLE_ROWS} of ${spec.rows.length} rows)` : "");
  t.append(cap);
  const thead = document.createElement("thead"), hr = document.createElement("tr");
  for (const h of spec.head) { const th = document.createElement("th"); th.scope = "col"; th.textContent = h; hr.append(th); }
  thead.append(hr);
  const tbody = document.createElement("tbody");
  for (const row of spec.rows.slice(0, MAX_TABLE_ROWS)) {
    const tr = document.createElement("tr");
    row.forEach((c, i) => {
      const cell = document.createElement(i === 0 ? "th" : "td");
      if (i === 0) cell.scope = "row";
      cell.textContent = c === undefined || c === null ? "" : String(c);
      tr.append(cell);
    });
    tbody.append(tr);
  }
  t.append(thead, tbody);
  if (!spec.note) return [t];
  return [t, Object.assign(document.createElement("p"), { className: "table-note", textContent: spec.note })];
}

// bindA11y labels the panels' canvases, wires their table buttons and the announcer,
// and returns refresh (page.js calls it after each redraw) and lines (a panel's title
// and description, which links.js shows when its canvas takes the focus).
export function bindA11y({ panels, store }) {
  const titles = new Map(panels.map((p) => [p, plainText($("figcaption", p.el)) || p.id]));
  const said = new Map(); // panel → its description at the last key
  let key = "", snapshot = null, snapshots = 0;

  function cfgView(p) { return panelView(view(store), p.id, p.contract); }
  function describe(p) {
    const mod = DRAW[p.kind];
    if (!mod?.describe) return "";
    try { return mod.describe(p, cfgView(p)) || ""; } catch (err) { console.error(`a11y: panel ${p.id}: ${err.message}`); return ""; }
  }
  function fillTable(p) {
    const slot = tid(`table-${p.id}`);
    if (!slot || slot.hidden) return;
    const mod = DRAW[p.kind];
    let specs = null;
    try { specs = mod?.table ? mod.table(p, cfgView(p)) : null; } catch (err) { console.error(`a11y: panel ${p.id}: ${err.message}`); }
    const list = (Array.isArray(specs) ? specs : specs ? [specs] : []).filter((s) => s && s.rows);
    if (!list.length) { slot.replaceChildren(Object.assign(document.createElement("p"), { className: "table-note", textContent: "no values yet" })); return; }
    slot.replaceChildren(...list.flatMap(renderTable));
  }
  for (const p of panels) {
    const button = tid(`table-toggle-${p.id}`), slot = tid(`table-${p.id}`);
    if (!button || !slot) continue;
    button.title = "Show this panel's numbers as a table";
    slot.tabIndex = 0; // a wide table scrolls: the keyboard scrolls it
    slot.setAttribute("role", "region");
    slot.setAttribute("aria-label", `${titles.get(p)}, as a table`);
    button.addEventListener("click", () => {
      const open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      button.textContent = open ? "hide table" : "table";
      slot.hidden = !open;
      if (open) fillTable(p); else slot.replaceChildren();
    });
  }

  // keyOf changes when what the labels and tables describe changes
  function keyOf() {
    if (store.staticArrays !== snapshot) { snapshot = store.staticArrays; snapshots++; }
    const t = store.train;
    return `${snapshots}|${store.step}|${store.steps}|${t.running}|${t.done}|${t.curve.length}`;
  }
  function refresh() {
    const k = keyOf();
    if (k !== key) {
      const began = performance.now();
      key = k;
      for (const p of panels) {
        const d = describe(p);
        said.set(p, d);
        p.canvas?.setAttribute("aria-label", cut(d ? `${titles.get(p)}: ${d}` : titles.get(p)));
        fillTable(p);
      }
      document.body.dataset.a11yMs = (performance.now() - began).toFixed(2); // the labels' and tables' rebuild (tests report it)
    }
    announce();
  }

  // The announcer speaks when the state a person acted on settles: a step taken (a
  // click, a key, the scrubber), a pause or the end of the sequence, the end of
  // training. While playing it is quiet: the step readout is visible, and a screen
  // reader that spoke every step would say nothing else.
  const region = tid("announce");
  let lastStep = -1, wasPlaying = false, wasTraining = false, live = false;
  function announce() {
    if (!region || store.seq < 0) return;
    const t = store.train;
    if (!live) { live = true; lastStep = store.step; wasPlaying = store.playing; wasTraining = t.running; return; } // the first paint says nothing
    let text = "";
    if (wasTraining && !t.running) text = `Training finished: ${t.done} steps` + (t.loss !== undefined ? `, loss ${fact(t.loss, true)}` : "") + ".";
    else if (store.playing || t.running) { /* quiet */ }
    else if (wasPlaying) text = `${store.step >= store.steps ? "End" : "Paused"} at step ${store.step} of ${store.steps}. ${factWords()}`;
    else if (store.step !== lastStep) text = `Step ${store.step} of ${store.steps}. ${factWords()}`;
    wasPlaying = store.playing; wasTraining = t.running;
    if (!store.playing) lastStep = store.step;
    text = text.trim();
    if (text && text !== region.textContent) region.textContent = text; // a snapshot after training ends the same training again
  }
  function factWords() {
    if (store.step === 0) return "";
    return (store.facts || []).filter((f) => typeof f.value === "number" || typeof f.value === "string" || typeof f.value === "boolean").slice(0, ANNOUNCE_FACTS)
      .map((f) => `${f.label} ${typeof f.value === "number" ? fact(f.value, !!f.measured) : typeof f.value === "boolean" ? (f.value ? "yes" : "no") : f.value}`).join("; ");
  }

  return { refresh, lines: (p) => [titles.get(p), said.get(p) || describe(p)].filter(Boolean) };
}
