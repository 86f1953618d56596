// draw.js draws the page from the store: every panel (each kind by its module in
// panels/), the step readouts and transport, the training control and the facts, all
// once per animation frame however many messages arrived (schedule).
import { view } from "./store.js";
import { fmt, fact, token, passAt } from "./panels/common.js";
import { readContract, panelView } from "./contract.js";
import { $, $$, tid } from "./dom.js";
import { wentLive } from "./state.js";
import * as heatmap from "./panels/heatmap.js";
import * as bars from "./panels/bars.js";
import * as line from "./panels/line.js";
import * as graph from "./panels/graph.js";
import * as tokens from "./panels/tokens.js";
import * as topk from "./panels/topk.js";
import * as table from "./panels/table.js";
import * as ngrams from "./panels/ngrams.js";
import * as scatter from "./panels/scatter.js";
import * as alignment from "./panels/alignment.js";
import * as encdec from "./panels/encdec.js";
import * as topks from "./panels/topks.js";
import * as samples from "./panels/samples.js";
import * as tree from "./panels/tree.js";
import * as scene from "./panels/scene.js";

export const DRAW = { heatmap, bars, line, graph, tokens, topk, ngrams, table, scatter, alignment, encdec, topks, samples, tree, scene };
const LONG_FACT_CHARS = 60; // a fact's value longer than this is a sentence: it goes last, on its own line

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

// drawTraining draws the training control: progress, status, the Train/Stop button and
// the note on a model trained by another kind of machine.
function drawTraining(store, state) {
  const prog = tid("train-progress");
  if (!prog) return;
  const t = store.train;
  prog.max = t.of || 1; prog.value = t.done || 0;
  const status = tid("train-status");
  if (t.running) status.textContent = (state.replayTo ? "training again, as the URL says: " : "") + `${t.done} / ${t.of}` + (t.loss !== undefined ? ` · loss ${fmt(t.loss)}` : "");
  else if (t.done) status.textContent = `trained ${store.trained || t.done} steps` + (t.loss !== undefined ? ` · loss ${fmt(t.loss)}` : "");
  const elsewhere = tid("trained-elsewhere");
  const foreign = state.trainedOn !== "" && state.trainedOn !== state.machine;
  elsewhere.hidden = !foreign;
  if (foreign) elsewhere.textContent = `The shared view's model was trained on a server that rounds differently (${describeMachine(state.trainedOn)}) and is trained again here (${describeMachine(state.machine)}). ` +
    "Processors and builds differ in fused multiply-adds and in exp and log, so the two models differ slightly: " +
    "after a few hundred steps beyond the digits shown here, after a thousand steps from random weights in about the fourth digit.";
  const button = tid("train");
  button.textContent = t.running ? "Stop" : "Train";
  button.dataset.cmd = t.running ? "stop" : "train";
}

// facts lists the lesson's facts (sim.Fact: a label in the lecture's words, a value)
// as term/value pairs under a heading; long values (sentences) go last.
function facts(dl, list, heading) {
  if (!dl) return;
  const items = [], long = [];
  for (const f of list || []) {
    const v = f.value;
    if (v === null || v === undefined || typeof v === "object") continue;
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = f.label;
    dd.textContent = typeof v === "number" ? fact(v, !!f.measured) : typeof v === "boolean" ? (v ? "yes" : "no") : v.length === 1 ? token(v) : String(v);
    if (dd.textContent.length > LONG_FACT_CHARS) { dd.className = "long"; long.push(dt, dd); } else items.push(dt, dd);
  }
  items.push(...long); // sentences after the numbers
  if (!items.length) { dl.replaceChildren(); return; }
  if (!heading) { dl.replaceChildren(...items); return; }
  const h = document.createElement("dt");
  h.className = "head"; h.textContent = heading;
  dl.replaceChildren(h, document.createElement("dd"), ...items);
}

// readout writes the transport's position: the scrubber's step of its steps (the
// URL's step=), and, when the model's steps are not simply t = 1..T, first the pass and
// its own index, "backward pass, t = 15 / 30" or "pipeline, tokens (3 / 7)", with the
// scrubber's step small under it.
// The scrubber's aria-valuetext says the same, so a screen reader hears the pass and its
// t rather than the bare step number.
function readout(store) {
  tid("step").textContent = String(store.step);
  tid("steps").textContent = String(store.steps);
  const pass = tid("pass-readout"), of = tid("step-of"), scrubber = tid("scrubber");
  const where = position(store), plain = where === null;
  of.dataset.plain = String(plain);
  if (plain) {
    pass.replaceChildren(Object.assign(document.createElement("i"), { textContent: "t" }), " = ");
    scrubber.setAttribute("aria-valuetext", `t = ${store.step} / ${store.steps}`);
    return;
  }
  pass.textContent = where;
  scrubber.setAttribute("aria-valuetext", `${where}, step ${store.step} / ${store.steps}`);
}

// position is where the scrubber's step falls in the model's passes, "backward pass,
// t = 15 / 30" or "pipeline, tokens (3 / 7)", or null when the steps are simply
// t = 1..T.
function position(store) {
  const passes = store.passes || [];
  const plain = passes.length <= 1 && !passes[0]?.name && !passes[0]?.stages && (passes[0]?.index || "t") === "t";
  if (plain) return null;
  const at = passAt({ passes }, store.step);
  if (!at) return "before the first step";
  const p = at.pass, name = p.name ? `${p.name}, ` : "";
  if (p.stages) return `${name}${p.stages[at.k - 1]}${p.steps > 1 ? ` (${at.k} / ${p.steps})` : ""}`;
  return `${name}${p.index || "step"} = ${at.index} / ${at.of}`;
}

// describeMachine writes a trained_on value ("arm64-c8506759") for people.
function describeMachine(m) {
  const [arch, fp] = m.split("-");
  return fp ? `${arch}, arithmetic ${fp}` : arch;
}
