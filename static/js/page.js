// page.js wires a lesson page: it renders the TeX, opens the socket, turns controls and
// keys into commands, keeps the URL query equal to the state and draws every panel once
// per animation frame (coalescing however many messages arrived); links.js ties the
// equations' symbols to the panels.
import { connect } from "./socket.js";
import { createStore, applySnapshot, applyFrame, applyTrain, gaps, view } from "./store.js";
import { renderEquation, renderInline, fitEquation, whenReady } from "./math.js";
import { fmt, fact, token } from "./panels/common.js";
import { linkSymbols } from "./links.js";
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
const URL_EVERY_MS = 250; // step changes while playing rewrite the URL at most this often
const GAP_FILL_MS = 150; // after a seek, wait this long for the scrubber to settle before asking for a snapshot
const ERROR_SHOW_MS = 10000;
const MAX_COMMAND_BYTES = 16 << 10; // sim.MaxCommandBytes: a larger command closes the socket

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
const tid = (id) => $(`[data-testid="${id}"]`);

whenReady(() => {
  $$(".equation[data-tex]").forEach(renderEquation);
  $$(".math").forEach(renderInline);
  document.fonts.ready.then(() => $$(".equation[data-tex]").forEach(fitEquation)); // KaTeX's fonts change the widths
  let fitTimer = 0;
  window.addEventListener("resize", () => { clearTimeout(fitTimer); fitTimer = setTimeout(() => $$(".equation[data-tex]").forEach(fitEquation), 100); });
  const root = $("#lesson");
  if (root) start(root);
});

function start(root) {
  const slug = root.dataset.slug;
  const store = createStore();
  const panels = $$(".panel[data-kind]").map((el) => ({
    el, canvas: $("canvas", el), kind: el.dataset.kind, id: el.dataset.panel,
    arrays: (el.dataset.arrays || "").split(",").filter(Boolean),
    legend: el.dataset.legend ? el.dataset.legend.split("|") : [],
    scale: el.dataset.scale ? el.dataset.scale.split(",").map(Number) : null,
    symbol: el.dataset.symbol || "", also: (el.dataset.also || "").split(",").filter(Boolean), logy: el.dataset.logy === "true", source: el.dataset.source || "",
    hover: null, layout: null,
  }));
  const controls = $$("[data-param]");
  // A URL with trained=N (a shared trained model) is trained again by the server when the
  // socket opens; until its trained snapshot arrives, N stays in the URL.
  // The lesson's cap on training steps since the model was built (lessons.Lesson.MaxTrained).
  const maxTrained = Number(tid("training")?.dataset.maxTrained) || 0;
  let replayTo = wantedTraining(location.search, maxTrained);
  // The machine that trained the URL's model (trained_on: GOARCH-fingerprint, see
  // models.Fingerprint). Training rounds differently from one processor and build to
  // another, so a model trained again elsewhere can differ from the shared view in its
  // last digits: the page says so until the model changes (docs/protocol.md).
  const machine = root.dataset.machine || "";
  let trainedOn = replayTo > 0 ? new URLSearchParams(location.search).get("trained_on")?.slice(0, 20) || "" : "";
  const scrubber = tid("scrubber"), speed = tid("speed");
  let live = false;

  // ---- the socket and the messages ----
  const sock = connect(() => wsURL(slug), {
    onMessage(msg) {
      const type = msg.header.type;
      if (type === "snapshot") {
        applySnapshot(store, msg); setInFlight = false; flushSet(); syncControls();
        if (accepted) trainedOn = ""; // a new model
        if (store.trained > 0 || accepted) replayTo = 0; // the server has the trained model now, or a new one
        writeURL(accepted || "replace"); accepted = null; // an edit enters the history once the server took it
      }
      else if (type === "frame") { applyFrame(store, msg); writeURLSoon(); if (gaps(store)) fillGapsSoon(); }
      else if (type === "train") applyTrain(store, msg);
      else if (type === "error") {
        const meta = msg.header.meta || {};
        if (meta.command === "set") { setInFlight = false; accepted = null; flushSet(); }
        if (meta.command === "train") store.train.running = false;
        showError(meta);
      }
      schedule();
    },
    onStatus(state, seconds) {
      if (state === "retry" || state === "full") replayTo = Math.max(replayTo, store.trained); // a new server may have to train it again
      const el = tid("conn");
      el.dataset.state = state;
      el.textContent = state === "retry" ? `reconnecting in ${seconds.toFixed(1)} s…`
        : state === "full" ? `the server is full; trying again in ${seconds.toFixed(1)} s…` : {
        live: "live", bad: "bad message from server", connecting: "connecting…",
        replaced: "opened again elsewhere: reload to continue here",
      }[state];
    },
  });
  window.addEventListener("pagehide", () => sock.close());

  // ---- drawing, once per animation frame ----
  let pending = false;
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
    if (!scrubbing) scrubber.value = String(store.step);
    // while training the server refuses to step; so do the controls
    for (const id of ["step-back", "step-forward", "play", "scrubber"]) tid(id).disabled = store.train.running;
    const play = tid("play");
    play.textContent = store.playing ? "❚❚" : "▶";
    play.setAttribute("aria-pressed", String(store.playing));
    drawTraining();
    facts(tid("facts-now"), store.step > 0 ? store.meta : {}, `step ${store.step}`);
    if (staticShown !== store.staticMeta) { staticShown = store.staticMeta; facts(tid("facts-model"), store.staticMeta, ""); }
    links.refresh();
    document.body.dataset.drawMs = (performance.now() - began).toFixed(2); // the whole page's redraw (tests report it)
    document.body.dataset.seq = String(store.seq); // the last message drawn (tests wait on it)
    if (!live && store.seq >= 0) { live = true; document.body.dataset.stream = "live"; }
  }
  window.addEventListener("resize", schedule);
  let staticShown = null;

  function drawTraining() {
    const prog = tid("train-progress");
    if (!prog) return;
    const t = store.train;
    prog.max = t.of || 1; prog.value = t.done || 0;
    const status = tid("train-status");
    if (t.running) status.textContent = (replayTo ? "training again, as the URL says: " : "") + `${t.done} / ${t.of}` + (t.loss !== undefined ? ` · loss ${fmt(t.loss)}` : "");
    else if (t.done) status.textContent = `trained ${store.trained || t.done} steps` + (t.loss !== undefined ? ` · loss ${fmt(t.loss)}` : "");
    const elsewhere = tid("trained-elsewhere");
    const foreign = trainedOn !== "" && trainedOn !== machine;
    elsewhere.hidden = !foreign;
    if (foreign) elsewhere.textContent = `The shared view's model was trained on a server that rounds differently (${describeMachine(trainedOn)}) and is trained again here (${describeMachine(machine)}). ` +
      "Processors and builds differ in fused multiply-adds and in exp and log, so the two models differ slightly: " +
      "after a few hundred steps beyond the digits shown here, after a thousand steps from random weights in about the fourth digit.";
    const button = tid("train");
    button.textContent = t.running ? "Stop" : "Train";
    button.dataset.cmd = t.running ? "stop" : "train";
  }

  // ---- commands ----
  const send = (cmd) => sock.send(cmd);
  let setInFlight = false, queuedSet = null; // at most one "set" awaits its snapshot; the newest change waits
  let accepted = null; // how the next accepted "set" enters the history: "push" (a new edit) or "replace"
  function setParams(params, how = "push") {
    const next = { ...(queuedSet || {}), ...params };
    const bytes = new TextEncoder().encode(JSON.stringify({ v: 1, type: "set", params: next })).length;
    if (bytes > MAX_COMMAND_BYTES) { // the server would close the socket (1009): say so here instead
      showError({ message: `That is too long to send (${bytes} bytes; the limit is ${MAX_COMMAND_BYTES}). Nothing was changed.` });
      return;
    }
    queuedSet = next;
    accepted = accepted === "push" ? "push" : how;
    flushSet();
  }
  let sentSet = {}; // the parameters of the "set" in flight, which an error is about
  function flushSet() {
    if (setInFlight || !queuedSet) return;
    if (send({ type: "set", params: queuedSet })) { setInFlight = true; sentSet = queuedSet; queuedSet = null; }
  }
  const command = {
    step: () => send({ type: "step" }),
    back: () => send({ type: "back" }),
    reset: () => { send({ type: "reset" }); store.playing = false; },
    play: () => {
      if (store.playing) { send({ type: "pause" }); store.playing = false; }
      else { send({ type: "play", speed: Number(speed.value) }); store.playing = true; }
      schedule();
    },
    train: () => {
      const n = Math.max(1, Math.min(maxTrained, Number(tid("train-steps").value) || 1)); // past the cap, the server says why
      if (send({ type: "train", steps: n })) { store.train = { curve: [], done: 0, of: n, running: true }; trainedOn = ""; schedule(); }
    },
  };
  command.stop = () => send({ type: "pause" }); // pause stops training; a snapshot follows
  for (const b of $$("button[data-cmd]")) b.addEventListener("click", () => command[b.dataset.cmd]());

  // the scrubber: seek while dragging, at most once per animation frame
  let scrubbing = false, seekWanted = null;
  scrubber.addEventListener("input", () => {
    scrubbing = true;
    if (seekWanted === null) requestAnimationFrame(() => { send({ type: "seek", step: seekWanted }); seekWanted = null; });
    seekWanted = Number(scrubber.value);
  });
  scrubber.addEventListener("change", () => { scrubbing = false; });
  let gapTimer = 0;
  function fillGapsSoon() { // a seek skipped steps: ask for a snapshot of everything up to here
    clearTimeout(gapTimer);
    gapTimer = setTimeout(() => { if (!scrubbing && gaps(store)) send({ type: "resume", seq: store.seq }); }, GAP_FILL_MS);
  }

  let chosenSpeed = null; // the student's speed; the server learns it with the next play
  speed.addEventListener("input", () => {
    chosenSpeed = Number(speed.value);
    tid("speed-readout").textContent = `${speed.value}/s`;
    if (store.playing) send({ type: "play", speed: Number(speed.value) });
  });

  // parameter controls
  const valueOf = (c) => (c.type === "checkbox" ? String(c.checked) : c.value);
  for (const c of controls) {
    const name = c.dataset.param;
    const out = tid(`value-${name}`);
    // A drag or an edit is one history entry: its first change pushes, the rest replace.
    // The URL changes only when the server has accepted the value (see onMessage).
    let editing = false;
    const edit = (value) => { setParams({ [name]: value }, editing ? "replace" : "push"); editing = true; };
    if (c.type === "range") {
      c.addEventListener("input", () => { if (out) out.textContent = c.value; edit(c.value); });
      c.addEventListener("change", () => { editing = false; });
    } else if (c.type === "text") {
      let timer = 0;
      c.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => edit(c.value), 300); });
      c.addEventListener("change", () => { clearTimeout(timer); edit(c.value); editing = false; });
      c.addEventListener("paste", (e) => { // maxlength cuts a long paste silently: say so
        const pasted = (e.clipboardData && e.clipboardData.getData("text")) || "";
        const room = c.maxLength - (c.value.length - (c.selectionEnd - c.selectionStart));
        if (c.maxLength > 0 && pasted.length > room) {
          fieldNote(c, `The pasted text was cut to fit: this field takes at most ${c.maxLength} characters.`);
        }
      });
    } else {
      c.addEventListener("change", () => setParams({ [name]: valueOf(c) }));
    }
  }
  // fieldNote shows a message under one control (its .param box) until the control changes.
  function fieldNote(c, message) {
    const box = c.closest(".param") || c.parentElement;
    let note = box.querySelector(".field-note");
    if (!note) {
      note = document.createElement("p");
      note.className = "field-note"; note.setAttribute("role", "status");
      note.dataset.testid = `note-${c.dataset.param}`;
      box.append(note);
      c.addEventListener("input", () => { note.hidden = true; c.removeAttribute("aria-invalid"); });
    }
    note.textContent = message; note.hidden = false;
  }
  // typed reports whether a control is typed into (text, a number): a refused value
  // stays in it, marked, rather than being replaced by the server's.
  const typed = (c) => c.type === "text" || c.type === "number";
  function syncControls() { // the snapshot's canonical values back into the controls
    for (const c of controls) {
      const v = store.params[c.dataset.param];
      if (v === undefined || typed(c) && (c === document.activeElement || c.getAttribute("aria-invalid") === "true")) continue;
      if (c.type === "checkbox") c.checked = v === "true"; else if (c.value !== v) c.value = v;
      const out = tid(`value-${c.dataset.param}`);
      if (out) out.textContent = v;
    }
    speed.value = String(chosenSpeed ?? store.speed);
    tid("speed-readout").textContent = `${speed.value}/s`;
  }

  // ---- keyboard: ← → step, space play/pause, R reset ----
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t.closest && t.closest("input, select, textarea") && !(t.type === "range" && t === scrubber)) return;
    const key = { ArrowRight: "step", ArrowLeft: "back", " ": "play", r: "reset", R: "reset" }[e.key];
    if (!key) return;
    e.preventDefault();
    if (store.train.running && key !== "reset") return;
    command[key]();
  });

  // ---- the URL is the state ----
  function query() { // the values the server accepted: a refused one never enters the URL
    const q = new URLSearchParams();
    for (const k of Object.keys(store.params).sort()) q.set(k, store.params[k]);
    if (store.step > 0) q.set("step", String(store.step));
    const trained = store.trained || replayTo; // the server trains it again from the seed
    if (trained > 0) {
      q.set("trained", String(trained));
      q.set("trained_on", replayTo > 0 && trainedOn ? trainedOn : machine); // this server trained the model once its snapshot came
    }
    return q.toString();
  }
  function writeURL(how) {
    if (!Object.keys(store.params).length) return; // nothing from the server yet
    const q = query();
    if ("?" + q === location.search) return;
    history[how === "push" ? "pushState" : "replaceState"](null, "", "?" + q);
    for (const a of $$("a[data-plot]")) a.href = a.dataset.plot + "?" + q;
  }
  let urlTimer = 0;
  function writeURLSoon() {
    if (urlTimer) return;
    urlTimer = setTimeout(() => { urlTimer = 0; writeURL("replace"); }, URL_EVERY_MS);
  }
  window.addEventListener("popstate", () => { // back/forward: make the run match the URL
    const q = new URLSearchParams(location.search);
    const changes = {};
    for (const k of Object.keys(store.params)) if (q.has(k) && q.get(k) !== store.params[k]) changes[k] = q.get(k);
    if (Object.keys(changes).length) setParams(changes, "replace"); // the history already has this entry
    const step = Number(q.get("step") || 0);
    if (step !== store.step) send({ type: "seek", step });
  });

  // ---- errors ----
  let errTimer = 0;
  function showError(meta) {
    const el = tid("error");
    el.textContent = meta.message || "something went wrong";
    el.hidden = false;
    clearTimeout(errTimer);
    errTimer = setTimeout(() => { el.hidden = true; }, ERROR_SHOW_MS);
    if (meta.command === "set") { // the fields of the refused change say why under themselves
      for (const c of controls) {
        if (!(c.dataset.param in sentSet)) continue;
        if (typed(c)) c.setAttribute("aria-invalid", "true"); // typed text stays, to be fixed
        fieldNote(c, meta.message);
      }
    }
    syncControls(); // a refused slider or choice snaps back
  }

  const links = linkSymbols(panels, store, schedule);
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
    if (dd.textContent.length > 60) { dd.className = "long"; long.push(dt, dd); } else items.push(dt, dd);
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

// wantedTraining is the URL's trained=N when it is one the server replays (1…max), else 0.
function wantedTraining(search, max) {
  const n = Number(new URLSearchParams(search).get("trained"));
  return Number.isInteger(n) && n > 0 && n <= max ? n : 0;
}

// wsURL is the socket's address for the page's current state.
function wsURL(slug) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/lessons/${encodeURIComponent(slug)}/ws${location.search}`;
}
