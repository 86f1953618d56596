// page.js wires a lesson page: it renders the TeX, opens the socket and hands each
// message to the modules that act on it. The work is theirs:
//
//   state.js      the page's own state (beyond the store.js the server fills), and what changes it
//   limits.js     the protocol's limits, which the server renders from sim's constants
//   commands.js   what the page sends: step, back, play, pause, reset, seek, resume, train, set
//   transport.js  the time scrubber and the speed slider
//   params.js     the parameter controls: edits, refusals noted under a field, long pastes
//   url.js        the query string is the state: writing it, the history, back and forward
//                 (urlstate.js: the state as a query and back, pure)
//   keys.js       the page's key bindings and the rules for when a key fires
//   present.js    presenter mode and the spotlight: the stage for a projector
//   exports.js    the panels' export menus and the figure pack: the page's state, downloaded
//   upload.js     the yours page's drop box: the student's own model file, sent to the page's session
//                 (these two load after the page is live: deferModules, below)
//   draw.js       every panel and readout, once per animation frame
//   readout.js    the facts and the transport's position, in words
//   training.js   the training control: progress, status, Train/Stop
//   links.js      ties the equations' symbols to the panels
//   room.js       the page's part in a room (roomui.js shows it; keepstage.js keeps a
//                 follower's stage in view)
//   a11y.js       the drawings in words (labels, tables) and the announcer, the one live region
import { connect } from "./socket.js";
import { createStore, applySnapshot, applyFrame, applyTrain, gaps } from "./store.js";
import { renderEquation, renderInline, fitEquations, syncEquations, whenReady } from "./math.js";
import { linkSymbols } from "./links.js";
import { bindA11y } from "./a11y.js";
import { $, $$, tid } from "./dom.js";
import { createState, snapshotArrived, setRefused, connectionLost } from "./state.js";
import { readLimits } from "./limits.js";
import { createCommands, bindButtons } from "./commands.js";
import { bindTransport } from "./transport.js";
import { bindParams } from "./params.js";
import { sharedModel, wsURL, bindURL } from "./url.js";
import { pageKeys, bindKeys } from "./keys.js";
import { findPanels, createDraw, loadKinds } from "./draw.js";
import { bindPresenter } from "./present.js";
import * as room from "./room.js"; // a class following its instructor: room.js picks the page's socket

const ERROR_SHOW_MS = 10000; // an error stays up this long (a refused parameter's, until it is fixed)
const FIT_AFTER_RESIZE_MS = 100;
const MATH_FIRST_SCREENS = 1.5; // inline maths this many screens from the top is set before the first frame; the rest when idle
const DEFER_IDLE_MS = 1000; // idle work (the deferred modules, the rest of the maths) waits at most this for the browser to be idle
const IDLE_SLICE_MS = 16;
const KATEX_AT_LATEST_MS = 3000; // KaTeX waits for the first frame, but no longer than this // without requestIdleCallback, work in slices of a frame
const STATUS = { // what the connection's state line says (retry and full say when they try again)
  live: "live", bad: "bad message from server", connecting: "connecting…",
  reconnecting: "connection lost — reconnecting…", // issue 22: said at once, until live again
  replaced: "opened again elsewhere: reload to continue here",
};

// The model comes first on a crowded network: the socket opens at once and the page
// draws its first message as soon as its panels' modules are loaded; KaTeX (its
// script and fonts, a third of a cold page's bytes) is asked for only then, so that
// it does not share the bandwidth with what the first screen needs. Until it has run,
// an equation shows its TeX source.
const root = $("#lesson");
const lesson = root ? start(root) : null;
document.body.dataset.math = "rendering";
katexReady(lesson ? lesson.live : Promise.resolve(), () => {
  // The equations and the inline maths on the first screens now; the rest of the prose
  // in slices while the browser is idle (a phone takes seconds to set all of it).
  $$(".equation[data-tex]").forEach(renderEquation);
  const later = [];
  const near = MATH_FIRST_SCREENS * window.innerHeight;
  const now = [];
  for (const el of $$(".math")) (el.getBoundingClientRect().top < near ? now : later).push(el); // every place read before any changes
  now.forEach(renderInline);
  document.fonts.ready.then(fitEquations); // KaTeX's fonts change the widths
  let fitTimer = 0;
  window.addEventListener("resize", () => { clearTimeout(fitTimer); fitTimer = setTimeout(fitEquations, FIT_AFTER_RESIZE_MS); });
  lesson?.mathRendered();
  const slice = (deadline) => {
    if (!later.length) { lesson?.mathDone(); document.body.dataset.math = "rendered"; return; }
    do renderInline(later.shift()); while (later.length && deadline.timeRemaining() > 0); // one at least: a timed-out callback has no time left
    idle(slice); // the next slice, or the end: "rendered" (tests wait for it before looking for KaTeX's errors)
  };
  idle(slice);
});
showOpenLesson();

// showOpenLesson keeps the open lesson in view in the navigation, one line that scrolls
// sideways (a phone shows two or three lessons of it): centred at once, and again
// whenever the line changes size — a phone turned, or the header shown again after
// presenter mode hid it (it had no size to scroll then). A reader's own scroll of the
// line stays until then.
function showOpenLesson() {
  const here = $("header.site nav [aria-current=page]"), nav = here?.parentElement;
  if (!here) return;
  const centre = () => {
    if (nav.scrollWidth <= nav.clientWidth || nav.clientWidth === 0) return;
    const r = here.getBoundingClientRect(), box = nav.getBoundingClientRect();
    nav.scrollLeft += r.left + r.width / 2 - (box.left + box.width / 2);
  };
  centre();
  let width = nav.clientWidth;
  new ResizeObserver(() => { if (nav.clientWidth !== width) { width = nav.clientWidth; centre(); } }).observe(nav);
}

// idle calls fn with a deadline when the browser is idle (at the latest after
// DEFER_IDLE_MS), or soon where there is no requestIdleCallback.
function idle(fn) {
  if (window.requestIdleCallback) requestIdleCallback(fn, { timeout: DEFER_IDLE_MS });
  else setTimeout(() => { const end = performance.now() + IDLE_SLICE_MS; fn({ timeRemaining: () => end - performance.now() }); }, 0);
}

// katexReady loads KaTeX (the layout names its URL in body's data-katex) once first
// resolves, or after KATEX_AT_LATEST_MS whatever happens (a page that cannot go live
// still shows its maths), and calls fn once it has run.
function katexReady(first, fn) {
  if (window.katex) return fn();
  let asked = false;
  const ask = () => {
    if (asked) return;
    asked = true;
    const script = document.createElement("script");
    script.id = "katex-js";
    script.src = document.body.dataset.katex;
    script.addEventListener("load", () => whenReady(fn), { once: true });
    script.addEventListener("error", () => console.warn("KaTeX did not load"), { once: true });
    document.head.append(script);
  };
  first.then(ask, ask);
  setTimeout(ask, KATEX_AT_LATEST_MS);
}

function start(root) {
  const store = createStore();
  const maxTrained = Number(tid("training")?.dataset.maxTrained) || 0;
  const state = createState({ machine: root.dataset.machine || "", maxTrained, ...sharedModel(location.search, maxTrained) });
  const panels = findPanels();
  const kindsLoaded = loadKinds(panels.map((p) => p.kind)); // the drawing modules this page shows, preloaded by the HTML
  const draw = createDraw({ store, state, panels, showError });
  const sock = room.open(root, { onMessage, onStatus, onRefused: (cmd, why) => showError({ message: why }) }); // socket.js's connect(() => wsURL(slug), …), or the room's
  window.addEventListener("pagehide", () => sock.close());
  const commands = createCommands({ sock, store, state, limits: readLimits(), schedule: draw.schedule, showError });
  bindButtons(commands);
  const transport = bindTransport({ store, state, commands });
  const params = bindParams({ store, state, commands });
  let url = null;
  const presenter = bindPresenter({ panels, schedule: draw.schedule, writeURL: (how) => url?.write(how) });
  url = bindURL({ store, state, commands, view: presenter.query });
  bindKeys([...pageKeys(commands), ...presenter.keys], { store });
  const a11y = bindA11y({ panels, store });
  const links = linkSymbols(panels, store, draw.schedule, a11y.lines);
  draw.afterDraw(a11y.refresh); // before links: a focused canvas's tooltip reads the new description
  draw.afterDraw(() => links.refresh());
  draw.afterDraw(presenter.afterDraw);
  const deferred = deferModules(store);
  room.follow(presenter); // a room relays the presenter's view to the followers, whose presenter shows it

  let held = []; // the messages that came before the panels' modules were loaded
  let wentLiveNow;
  const live = new Promise((resolve) => { wentLiveNow = resolve; }); // the first message drawn: KaTeX may load
  draw.afterDraw(() => { if (store.seq >= 0) wentLiveNow(); });
  kindsLoaded.then(() => { // then the panels can draw what the socket sent meanwhile
    const early = held;
    held = null;
    early.forEach(onMessage);
  }, (err) => showError({ message: `the page's drawings could not load (${err.message}); reload the page` }));
  function onMessage(msg) {
    if (held) { held.push(msg); return; }
    const type = msg.header.type;
    if (type === "snapshot") {
      applySnapshot(store, msg);
      if (state.set.inFlight && !params.accepted() && setToast) hideError(); // the refused value is fixed: its toast goes
      const entry = snapshotArrived(state, store);
      commands.flushSet(); syncControls();
      syncEquations(store.params).forEach(links.equationChanged); // an equation that depends on a parameter
      url.write(entry);
    }
    else if (type === "frame") { applyFrame(store, msg); url.writeSoon(); if (gaps(store)) transport.fillGapsSoon(); }
    else if (type === "train") applyTrain(store, msg, tid("training")?.dataset.loss || "");
    else if (type === "error") {
      const meta = msg.header.meta || {};
      if (meta.command === "set") { setRefused(state); commands.flushSet(); }
      if (meta.command === "train") store.train.running = false;
      showError(meta);
    }
    draw.schedule();
    deferred.soon();
  }
  function onStatus(status, seconds) {
    if (status === "retry" || status === "full") connectionLost(state, store);
    const el = tid("conn");
    const text = status === "retry" ? `connection lost — reconnecting in ${seconds.toFixed(1)} s…`
      : status === "full" ? `the server is full; trying again in ${seconds.toFixed(1)} s…` : STATUS[status];
    if (el.dataset.state === status && el.textContent === text) return; // every message says "live": a live region speaks only when it changes
    el.dataset.state = status;
    el.textContent = text;
  }
  function syncControls() { // the snapshot's canonical values back into the controls
    params.sync(); transport.sync();
  }
  // mathRendered: the equations are rendered; expose their symbols (links.js).
  function mathRendered() {
    for (const eq of $$(".equation")) links.equationChanged(eq);
    requestAnimationFrame(fitEquations); // presenter mode fits the stage's column to them
    draw.schedule(); // the panels' titles are set in maths too: the stage fits its panels again
    presenter.relabel(); // and the strip's chips copy them
  }
  // mathDone: every formula of the page is set (the prose's last ones while idle).
  function mathDone() { presenter.relabel(); }
  let errTimer = 0, setToast = false; // a refused "set"'s toast stays until the server accepts the fixed value
  function hideError() { clearTimeout(errTimer); setToast = false; tid("error").hidden = true; }
  function showError(meta) {
    const el = tid("error");
    el.textContent = meta.message || "something went wrong";
    el.hidden = false;
    clearTimeout(errTimer);
    setToast = meta.command === "set" && room.role() !== "follower"; // a follower's refusal ("you are following") has no value to fix
    if (!setToast) errTimer = setTimeout(hideError, ERROR_SHOW_MS);
    if (meta.command === "set") params.refused(meta.message); // the fields of the refused change say why under themselves
    syncControls(); // a refused slider or choice snaps back
  }
  return { mathRendered, mathDone, live };
}

// deferModules loads what the first screen does not need — the export menus and the
// figure pack (exports.js), the yours page's drop box (upload.js) — once the page has
// its first message and the browser is idle (soon), so they never hold up the stage.
// A control used before then still works: its click, file choice or drop is held,
// the modules load, and it is done again. body's data-deferred says "loaded" when
// they are bound (tests wait for it).
function deferModules(store) {
  let loading = null;
  const load = () => loading ??= Promise.all([import("./exports.js"), import("./upload.js")]).then(([exp, up]) => {
    exp.bindExports(store);
    up.bindUpload(store);
    for (const [type, fn] of early) document.removeEventListener(type, fn, true);
    document.body.dataset.deferred = "loaded";
  });
  const held = (e) => { e.preventDefault(); e.stopImmediatePropagation(); };
  const files = (e) => [...(e.dataTransfer?.types || [])].includes("Files");
  const early = [
    ["click", (e) => { // an export link: fetch it once exports.js is bound
      const a = e.target.closest?.("a[data-panel-export]");
      if (!a) return;
      held(e); load().then(() => a.click());
    }],
    ["change", (e) => { // the drop box's file input: upload.js sends the chosen file
      if (!e.target.matches?.("[data-testid=upload-file]")) return;
      e.stopImmediatePropagation(); load().then(() => e.target.dispatchEvent(new Event("change")));
    }],
    ["dragover", (e) => { if (files(e)) e.preventDefault(); }], // a file dropped now must not replace the page
    ["drop", (e) => {
      if (!files(e)) return;
      held(e);
      const dt = new DataTransfer();
      for (const f of e.dataTransfer.files) dt.items.add(f);
      load().then(() => document.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true })));
    }],
  ];
  for (const [type, fn] of early) document.addEventListener(type, fn, true);
  document.body.dataset.deferred = "waiting";
  let asked = false;
  return {
    soon() {
      if (asked) return;
      asked = true;
      idle(load);
    },
  };
}
