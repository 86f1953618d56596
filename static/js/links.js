// links.js ties the equations to the panels, both ways: hovering a symbol of an
// equation (an element with class sym-<id>, from \htmlClass in the TeX) highlights the
// panels that show it and lists its values at the current step; hovering a drawn panel
// shows what is under the pointer (a heatmap cell's unit, step and value) and
// highlights the panel's symbol in the equations.
import { fmt } from "./panels/common.js";

const $$ = (sel) => [...document.querySelectorAll(sel)];
const tid = (id) => document.querySelector(`[data-testid="${id}"]`);
const READOUT_VALUES = 32; // values listed for a hovered symbol; h = 64 would fill the column

// linkSymbols wires the hover handlers for the page's panels and returns refresh, which
// page.js calls after each redraw so a hovered symbol's values follow the step.
export function linkSymbols(panels, store, schedule) {
  const symbolArray = new Map(); // equation symbol id → the array it names
  for (const eq of $$(".equation[data-symbols]")) for (const pair of eq.dataset.symbols.split(" ").filter(Boolean)) {
    const [id, arr] = pair.split(":"); symbolArray.set(id, arr);
  }
  const tip = tid("tooltip");
  function showTip(lines, x, y) {
    tip.replaceChildren(...lines.map((l, i) => Object.assign(document.createElement(i ? "div" : "strong"), { textContent: l })));
    tip.hidden = false;
    const w = tip.offsetWidth;
    tip.style.left = Math.min(window.innerWidth - w - 8, x + 14) + "px";
    tip.style.top = y + 14 + "px";
  }
  const hot = (id, on) => id && $$(`.sym-${CSS.escape(id)}`).forEach((e) => e.classList.toggle("sym-hot", on));
  for (const p of panels) {
    p.canvas?.addEventListener("mousemove", (e) => {
      const r = p.canvas.getBoundingClientRect();
      const h = p.layout && p.layout.hit(e.clientX - r.left, e.clientY - r.top);
      if (!h) { tip.hidden = true; hot(p.symbol, false); if (p.hover) { p.hover = null; schedule(); } return; }
      showTip(h.lines, e.clientX, e.clientY);
      hot(p.symbol, true);
      p.hover = h.block !== undefined ? { block: h.block, row: h.row } : h.unit !== undefined ? { unit: h.unit } : null;
      schedule();
    });
    p.canvas?.addEventListener("mouseleave", () => { tip.hidden = true; hot(p.symbol, false); p.hover = null; schedule(); });
  }
  let symbolHover = null;
  const readout = tid("symbol-readout");
  function showSymbol(id) {
    const arr = symbolArray.get(id);
    const a = arr && (store.perStep.get(arr)?.[store.step] || store.staticArrays.get(arr));
    readout.hidden = false;
    readout.replaceChildren();
    const head = document.createElement("strong");
    head.textContent = `${arr || id} at step ${store.step}`;
    const body = document.createElement("div");
    body.className = "values";
    body.textContent = a ? Array.from(a.data.slice(0, READOUT_VALUES), fmt).join("  ") + (a.data.length > READOUT_VALUES ? `  … (${a.data.length} values)` : "") : store.step === 0 ? "step forward to compute it" : "no values at this step";
    readout.append(head, body);
  }
  document.addEventListener("mouseover", (e) => {
    const el = e.target.closest && e.target.closest("[class*='sym-']");
    const id = el && [...el.classList].find((c) => c.startsWith("sym-") && c !== "sym-hot" && c !== "sym-label")?.slice(4);
    if (id === symbolHover) return;
    if (symbolHover) { hot(symbolHover, false); panels.forEach((p) => p.el.classList.remove("panel-hot")); }
    symbolHover = id || null;
    if (!id) { readout.hidden = true; return; }
    hot(id, true);
    panels.filter((p) => p.symbol === id).forEach((p) => p.el.classList.add("panel-hot"));
    showSymbol(id);
  });
  return { refresh: () => { if (symbolHover) showSymbol(symbolHover); } };
}
