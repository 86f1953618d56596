// draw.js draws the page from the store: every panel (each kind by its module in
// panels/), the step readouts and transport, the training control and the facts, all
// once per animation frame however many messages arrived (schedule).
import { view } from "./store.js";
import { fmt, fact, token } from "./panels/common.js";
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

const DRAW = { heatmap, bars, line, graph, tokens, topk, ngrams, table, scatter, alignment, encdec, topks, samples, tree };
const LONG_FACT_CHARS = 60; // a fact's value longer than this is a sentence: it goes last, on its own line

// findPanels lists the page's panels with what the templates say about each.
export function findPanels() {
  return $$(".panel[data-kind]").map((el) => ({
    el, canvas: $("canvas", el), kind: el.dataset.kind, id: el.dataset.panel,
    arrays: (el.dataset.arrays || "").split(",").filter(Boolean),
    legend: el.dataset.legend ? el.dataset.legend.split("|") : [],
    scale: el.dataset.scale ? el.dataset.scale.split(",").map(Number) : null,
    symbol: el.dataset.symbol || "", also: (el.dataset.also || "").split(",").filter(Boolean), logy: el.dataset.logy === "true", source: el.dataset.source || "",
    hover: null, layout: null,
  }));
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
    for (const p of panels) {
      const mod = DRAW[p.kind];
      if (!mod || !p.canvas) continue;
      try { p.layout = mod.draw(p.canvas, p, v); } catch (err) { p.layout = null; showError({ message: `panel ${p.id} could not be drawn: ${err.message}` }); }
      p.el.dataset.step = String(store.step);
    }
    tid("step").textContent = String(store.step);
    tid("steps").textContent = String(store.steps);
    scrubber.max = String(store.steps);
    if (!state.scrubbing) scrubber.value = String(store.step);
    // while training the server refuses to step; so do the controls
    for (const id of ["step-back", "step-forward", "play", "scrubber"]) tid(id).disabled = store.train.running;
    const play = tid("play");
    play.textContent = store.playing ? "❚❚" : "▶";
    play.setAttribute("aria-pressed", String(store.playing));
    drawTraining(store, state);
    facts(tid("facts-now"), store.step > 0 ? store.meta : {}, `step ${store.step}`);
    if (staticShown !== store.staticMeta) { staticShown = store.staticMeta; facts(tid("facts-model"), store.staticMeta, ""); }
    for (const f of extra) f();
    document.body.dataset.drawMs = (performance.now() - began).toFixed(2); // the whole page's redraw (tests report it)
    document.body.dataset.seq = String(store.seq); // the last message drawn (tests wait on it)
    if (!state.live && store.seq >= 0) { wentLive(state); document.body.dataset.stream = "live"; }
  }
  window.addEventListener("resize", schedule);
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

// facts lists a meta object's plain values (numbers, words, yes/no) as term/value pairs
// under a heading; lists and objects are the panels' business.
function facts(dl, meta, heading) {
  if (!dl) return;
  const items = [], long = [];
  for (const [k, v] of Object.entries(meta || {})) {
    if (v === null || typeof v === "object") continue;
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = k.replaceAll("_", " ");
    dd.textContent = typeof v === "number" ? fact(v, k) : typeof v === "boolean" ? (v ? "yes" : "no") : v.length === 1 ? token(v) : String(v);
    if (dd.textContent.length > LONG_FACT_CHARS) { dd.className = "long"; long.push(dt, dd); } else items.push(dt, dd);
  }
  items.push(...long); // sentences after the numbers
  if (!items.length) { dl.replaceChildren(); return; }
  if (!heading) { dl.replaceChildren(...items); return; }
  const h = document.createElement("dt");
  h.className = "head"; h.textContent = heading;
  dl.replaceChildren(h, document.createElement("dd"), ...items);
}

// describeMachine writes a trained_on value ("arm64-c8506759") for people.
function describeMachine(m) {
  const [arch, fp] = m.split("-");
  return fp ? `${arch}, arithmetic ${fp}` : arch;
}
