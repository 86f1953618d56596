// draw.js draws the page from the store: every panel (each kind by its module in
// panels/), the step readouts and transport, the training control and the facts, all
// once per animation frame however many messages arrived (schedule).
import { view } from "./store.js";
import { readContract, panelView } from "./contract.js";
import { $, $$, tid } from "./dom.js";
import { wentLive } from "./state.js";
import { drawTraining } from "./training.js";
import { facts, readout, position } from "./readout.js";
import { idleAt } from "./stage.js";
// KINDS are the panel kinds, each drawn by its module panels/<kind>.js. A page loads
// only the kinds it shows (loadKinds): the templates preload them with the page, and
// the other modules never cross a crowded network.
export const KINDS = ["heatmap", "bars", "line", "graph", "tokens", "topk", "ngrams", "table", "scatter", "alignment", "encdec", "topks", "samples", "tree", "scene"];

// DRAW maps each loaded kind to its module (loadKinds fills it).
export const DRAW = {};

// loadKinds imports the modules of the kinds listed (a kind not in KINDS is skipped:
// no module of that name is asked for) and resolves once all have loaded. Each is
// found next to this module's own URL, at panels/<kind>.js: the server's bundle
// (web/bundle.go) keeps them there, and the URL is built at run time so that the
// bundler leaves each a file of its own.
export function loadKinds(kinds) {
  return Promise.all([...new Set(kinds)].filter((k) => KINDS.includes(k) && !DRAW[k])
    .map((k) => import(new URL(`./panels/${k}.js`, import.meta.url).href).then((mod) => { DRAW[k] = mod; })));
}

// findPanels lists the page's panels with what the templates say about each.
export function findPanels() {
  return $$(".panel[data-kind]").map((el) => {
    const contract = readContract(el);
    return {
    el, canvas: $("canvas", el), kind: el.dataset.kind, id: el.dataset.panel, contract,
    arrays: contract.arrays.map((a) => a.name),
    legend: el.dataset.legend ? el.dataset.legend.split("|") : [],
    scale: contract.scale || null,
    optional: el.dataset.optional === "true",
    symbol: el.dataset.symbol || "", also: (el.dataset.also || "").split(",").filter(Boolean), logy: el.dataset.logy === "true", source: el.dataset.source || "",
    hover: null, layout: null,
    };
  });
}

// createDraw returns schedule (draw at the next animation frame) and afterDraw (add a
// step to every drawing, after the panels and readouts); showError reports a panel that
// could not be drawn.
export function createDraw({ store, state, panels, showError }) {
  const scrubber = tid("scrubber");
  const extra = [];
  let pending = false, staticShown = null;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; drawAll(); });
  }
  function drawAll() {
    const began = performance.now();
    const v = view(store);
    const present = store.staticMeta.arrays; // a model whose panels are Optional lists the arrays it has (lessons.Panel.Optional)
    for (const p of panels) {
      const mod = DRAW[p.kind];
      p.idle = idleAt(v, p); // nothing on it changes at this step (stage.js: the stage's order follows the phase)
      if (p.optional) {
        const has = Array.isArray(present) && p.arrays.some((n) => present.includes(n));
        if (p.el.hidden === has) p.el.hidden = !has;
        if (!has) { p.el.dataset.step = String(store.step); continue; } // this model has none of its arrays: nothing to draw at any step
      }
      if (p.el.hidden && p.el.dataset.whenParam) { p.el.dataset.step = String(store.step); continue; } // hidden by its condition (a notation switch): nothing to draw at this step
      if (!mod || !p.canvas || p.el.offsetParent === null) continue; // not shown (off the stage, out of the spotlight): drawn when it is again
      try { p.layout = mod.draw(p.canvas, p, panelView(v, p.id, p.contract)); } catch (err) { p.layout = null; showError({ message: `panel ${p.id} could not be drawn: ${err.message}` }); }
      p.el.dataset.step = String(store.step);
    }
    readout(store);
    scrubber.max = String(store.steps);
    if (!state.scrubbing) scrubber.value = String(store.step);
    // while training the server refuses to step; so do the controls
    for (const id of ["step-back", "step-forward", "play", "scrubber"]) tid(id).disabled = store.train.running;
    const play = tid("play");
    play.textContent = store.playing ? "❚❚" : "▶";
    play.setAttribute("aria-pressed", String(store.playing));
    drawTraining(store, state);
    // on a model whose steps are passes (BPTT), the heading says the pass and its t, as the transport does
    const where = position(store);
    facts(tid("facts-now"), store.step > 0 ? store.facts : [], where ? `${where} (step ${store.step})` : `step ${store.step}`);
    if (staticShown !== store.staticFacts) { staticShown = store.staticFacts; facts(tid("facts-model"), store.staticFacts, ""); }
    for (const f of extra) f();
    document.body.dataset.drawMs = (performance.now() - began).toFixed(2); // the whole page's redraw (tests report it)
    document.body.dataset.seq = String(store.seq); // the last message drawn (tests wait on it)
    if (!state.live && store.seq >= 0) { wentLive(state); document.body.dataset.stream = "live"; }
  }
  window.addEventListener("resize", schedule);
  // a panel's box can change width while the window does not (it takes the whole row,
  // the fonts arrive): draw again then
  const widths = new WeakMap();
  const resized = new ResizeObserver((entries) => {
    let changed = false;
    for (const e of entries) {
      const w = Math.round(e.contentRect.width);
      changed ||= widths.has(e.target) && widths.get(e.target) !== w;
      widths.set(e.target, w);
    }
    if (changed) schedule();
  });
  for (const p of panels) if (p.canvas) resized.observe(p.canvas.parentElement);
  return { schedule, afterDraw: (f) => extra.push(f) };
}
