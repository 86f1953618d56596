// present.js is the lecture hall's view of a lesson page: presenter mode (a stage for
// a projector: no navigation, the prose folded into a one-line caption, the equations
// beside the panels, every canvas text at least 18 CSS px) and the spotlight (one
// panel fills the stage, its equations beside it). Both are in the URL, present=1 and
// spot=ID, like the rest of the view; the server renders the first paint from them.
//
// The stage never scrolls: the panels that do not fit below the first ones leave it,
// and their titles wait in a strip under it (click one, or press S, to spotlight it).
import { $, $$, tid } from "./dom.js";
import { setZoom, zoomOf } from "./panels/common.js";
import { fitEquations } from "./math.js";
import { stageRank, stageOrder, offstage, relabel, STAGE_LAST } from "./stage.js";

const SMALLEST_FONT = 11; // common.js's SMALL, the smallest text any panel draws
const STAGE_FONT = 18; // CSS px: the smallest text on a projector, 1280×720, read from the back
const STAGE_W = 1280, STAGE_H = 720; // the projector the stage is laid out for
const SPOT_MAX_ZOOM = 2.5; // a spotlit panel grows until it fills the stage, and no further than this over the stage's zoom
const FIT_PASSES = 7; // a spotlit panel's zoom settles in at most this many redraws
const SAME_ZOOM = 0.02; // zooms this close (relative) draw alike: no redraw for less
const STAGE_CHROME = 104; // CSS px around a chart on the stage: its title, a note, padding, and the strip of panels off the stage
// On a phone (unroll.css's "model first" block, the same width) the stage is the page
// itself, which scrolls: presenter mode and the spotlight show there what they show on
// the projector (the instructor's, on a follower's phone) at the page's own zoom, and no
// panel leaves the stage for the strip.
const PHONE = matchMedia("(max-width: 600px)");
const PHONE_LEAST = 140; // CSS px: the least height a phone's lead drawing is squeezed to (a few rows, a chart)
const PHONE_MARGIN = 6; // CSS px between the lead drawing and the first screen's bottom edge

// stageZoom is presenter mode's zoom for this window: SMALL drawn at STAGE_FONT on a
// 1280×720 screen, and growing (gently: the square root) on larger ones.
function stageZoom() {
  const grow = Math.max(1, Math.min(window.innerWidth / STAGE_W, window.innerHeight / STAGE_H));
  return (STAGE_FONT / SMALLEST_FONT) * Math.sqrt(grow);
}

// bindPresenter reads the view from the page, wires the buttons and the panels'
// titles, and returns the key bindings (keys.js rows), query (the view's part of the
// URL), afterDraw (the stage's fitting, after every drawing) and onChange (called with
// the view whenever it changes: a room relays it to its followers).
export function bindPresenter({ panels, schedule, writeURL }) {
  const root = $("#lesson");
  const view = { present: root.classList.contains("present"), spot: root.dataset.spot || "" };
  const listeners = [];
  const help = tid("keys-help");
  let fitted = ""; // the spotlight and window size the spotlit panel's zoom was fitted for
  let sorted = ""; // the stage's and the drawings' sizes when offstage last sorted the panels
  let order = ""; // the main panels' order on the projector's stage (stage.js stageOrder) when apply laid it out
  const phased = () => view.present && !PHONE.matches; // the projector's stage follows the model's phase; a phone's page does not reorder under a reader
  let passes = 0;

  // apply shows the view; how is the history entry it makes (none when null), and
  // tell says whether it changed (listeners hear it) or only the window did.
  function apply(how, tell = true) {
    root.classList.toggle("present", view.present);
    if (!view.present) showJoin(false); // off the stage the join panel is the page's own
    root.classList.toggle("spotlit", view.spot !== "");
    root.dataset.spot = view.spot;
    const button = tid("present");
    button.setAttribute("aria-pressed", String(view.present));
    button.textContent = view.present ? "Exit presenter" : "Present";
    const staged = (view.present || view.spot !== "") && !PHONE.matches;
    setZoom(staged ? stageZoom() : 1);
    // the spotlit panel's equations: those with its symbol (links.js ties the two)
    const spot = panels.find((p) => p.id === view.spot);
    for (const eq of $$(".equation")) eq.classList.toggle("eq-spot", Boolean(spot?.symbol && $(`.sym-${CSS.escape(spot.symbol)}`, eq)));
    for (const p of panels) {
      const on = p.id === view.spot;
      p.el.style.order = view.present ? String(stageRank(p, phased()) - STAGE_LAST) : ""; // the lesson's main panels first, the changing ones before the idle
      p.el.classList.toggle("spot", on);
      $(".spot-toggle", p.el)?.setAttribute("aria-pressed", String(on));
      if (!p.canvas) continue;
      delete p.canvas.dataset.zoom;
      delete p.canvas.dataset.maxHeight;
      delete p.canvas.dataset.fitHeight;
    }
    if (staged) stageHeight();
    fitted = ""; passes = 0; sorted = ""; order = stageOrder(panels, phased());
    requestAnimationFrame(fitEquations); // the equations' column changed size
    schedule();
    if (how) writeURL(how);
    if (tell) for (const f of listeners) f({ ...view });
  }

  function set(changes, how = "push") {
    const next = { ...view, ...changes };
    if (next.present === view.present && next.spot === view.spot) return;
    Object.assign(view, next);
    apply(how);
  }

  const togglePresent = () => set({ present: !view.present });
  // spotNext spotlights the panel after the spotlit one (the first when none is), and
  // none after the last; only panels that draw something count, not those hidden (a
  // condition that does not hold, an Optional panel the model has no values for).
  function spotNext() {
    const ids = panels.filter((p) => p.canvas && !p.source && (!p.el.hidden || p.id === view.spot)).map((p) => p.id);
    const i = ids.indexOf(view.spot);
    set({ spot: i + 1 < ids.length ? ids[i + 1] : "" });
  }
  function escape() {
    if (help.open) help.close();
    else if (joinFull()) showJoin(false);
    else if (view.spot) set({ spot: "" });
  }

  // ---- the class's join panel on the stage (room.css): in presenter mode an open join
  // panel is a strip over the stage; J shows it full size over the stage and back. Off
  // the stage J opens and hides the panel. A page that leads no class ignores J.
  const roomSlot = tid("room");
  const joinFull = () => roomSlot?.dataset.join === "full";
  function showJoin(full) {
    if (!roomSlot) return;
    if (full) roomSlot.dataset.join = "full"; else delete roomSlot.dataset.join;
    const b = tid("room-enlarge");
    if (b) b.textContent = full ? "Strip (J)" : "Full size (J)";
  }
  function toggleJoin() {
    const panel = tid("room-panel"), show = tid("room-show");
    if (!panel || !tid("room-code")?.textContent) return; // no class led from this page
    if (panel.hidden) {
      if (show.hidden) return; // the class ended
      show.click();
      if (view.present) showJoin(true);
    } else if (view.present) showJoin(!joinFull());
    else tid("room-hide").click();
  }
  tid("room-enlarge")?.addEventListener("click", toggleJoin);
  tid("room-hide")?.addEventListener("click", () => showJoin(false));
  function fullscreen() {
    if (document.fullscreenElement) document.exitFullscreen?.();
    else document.documentElement.requestFullscreen?.().catch(() => {}); // refused outside a key press: nothing to do
  }
  const showHelp = () => (help.open ? help.close() : help.showModal());

  tid("present").addEventListener("click", togglePresent);
  tid("keys-open").addEventListener("click", showHelp);
  for (const b of $$(".spot-toggle")) b.addEventListener("click", () => set({ spot: view.spot === b.dataset.spot ? "" : b.dataset.spot }));
  tid("offstage").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-spot]");
    if (b) set({ spot: b.dataset.spot });
  });
  window.addEventListener("popstate", () => { // back and forward: the view follows the URL too
    const q = new URLSearchParams(location.search);
    set({ present: q.get("present") === "1", spot: panels.some((p) => p.id === q.get("spot")) ? q.get("spot") : "" }, null);
  });
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (view.present || view.spot) apply(null, false); }, 100);
  });
  apply(null, false);
  // The equations' column changes height without the window (a room's join panel opens
  // above the stage): fit the equations to it again.
  let columnHeight = 0;
  const column = $(".lesson-text");
  if (column) new ResizeObserver(() => {
    const h = Math.round(column.clientHeight);
    if (h === columnHeight) return;
    columnHeight = h;
    if (view.present || view.spot) requestAnimationFrame(fitEquations);
  }).observe(column);

  // afterDraw fits the stage after a drawing: in presenter mode the panels that do not
  // fit leave it for the strip; a spotlit panel's zoom grows until it fills the stage.
  function afterDraw() {
    const phone = PHONE.matches;
    if ((view.present || view.spot) && !phone && stageHeight()) { schedule(); return; } // the stage's room changed (the facts above it wrapped): draw again
    if (fitPhone(phone)) { schedule(); return; }
    // The model's phase moved the main panels (BPTT's backward pass began or ended): lay
    // the stage out afresh, every drawing given the whole room again, and sort it.
    if (view.present && !view.spot && stageOrder(panels, phased()) !== order) { apply(null, false); return; }
    const strip = tid("offstage");
    if (!view.present || view.spot || phone) {
      for (const p of panels) p.el.classList.remove("offstage");
      strip.hidden = true;
    } else {
      // Sorting the panels lays the page out once for each: only when a drawing's size
      // or the stage's changed since the last sort, not on every frame of a play.
      // A table panel's rows arrive after its first sort, so its content's height counts
      // too; the key is taken again after a sort, which moves panels on and off.
      const box = $(".panels");
      const key = () => `${box.clientWidth}×${box.clientHeight} ${panels.map((p) => `${p.canvas?.style.width}/${p.canvas?.style.height}/${p.canvas?.dataset.drawnFor}/${p.el.scrollHeight}`).join(" ")}`;
      if (key() !== sorted) {
        const moved = offstage(panels, strip, phased());
        sorted = key();
        if (moved) schedule(); // a panel came back on the stage: draw it
      }
    }
    if (view.spot && !phone) fitSpot();
  }

  // fitPhone keeps a phone's first screen whole: the panel that leads it (the spotlit
  // one, else the lesson's first stage panel shown), under the transport and its step
  // readout, is given at most the height left on the first screen (a chart, a map or a
  // heatmap can be drawn shorter: common.js stageRoom), never less than PHONE_LEAST.
  // Off a phone the height it gave is taken back. It reports whether it changed.
  function fitPhone(phone) {
    if (!phone) {
      let changed = false;
      for (const p of panels) {
        if (!p.canvas?.dataset.phoneCap) continue;
        delete p.canvas.dataset.phoneCap;
        if (!view.present && !view.spot) { delete p.canvas.dataset.maxHeight; changed = true; }
      }
      return changed;
    }
    const shown = panels.filter((p) => p.canvas && p.el.getClientRects().length > 0 && (view.spot ? p.id === view.spot : p.el.dataset.stage));
    const lead = shown.sort((a, b) => stageRank(a) - stageRank(b))[0];
    if (!lead) return false;
    const c = lead.canvas.getBoundingClientRect();
    if (c.height === 0) return false;
    const want = String(Math.max(PHONE_LEAST, Math.floor(innerHeight - (c.top + scrollY) - PHONE_MARGIN))); // its place on the page, wherever it is scrolled
    if (lead.canvas.dataset.maxHeight === want) return false;
    for (const p of panels) if (p !== lead && p.canvas?.dataset.phoneCap) { delete p.canvas.dataset.phoneCap; delete p.canvas.dataset.maxHeight; }
    lead.canvas.dataset.maxHeight = want;
    lead.canvas.dataset.phoneCap = "1";
    return true;
  }

  // stageHeight gives every canvas the stage's room as its most height (common.js,
  // flexHeight: a chart or a map takes that at most; a heatmap's rows shrink to it) and
  // reports whether it changed.
  function stageHeight() {
    const room = Math.floor(($(".panels").getBoundingClientRect().height - STAGE_CHROME) / stageZoom());
    let changed = false;
    for (const p of panels) {
      const want = Math.min(room, Number(p.canvas?.dataset.fitHeight) || Infinity); // less for a panel that offstage shrank
      if (!p.canvas || room <= 0 || Number(p.canvas.dataset.maxHeight) === want) continue;
      p.canvas.dataset.maxHeight = String(want);
      changed = true;
    }
    return changed;
  }

  // fitSpot searches the spotlit panel's zoom, a redraw at a time: the largest from the
  // stage's zoom up to SPOT_MAX_ZOOM times it at which the panel still fits the stage
  // (a drawing's height need not grow in proportion: a narrower drawing may wrap).
  // A drawing whose own height changed at the same zoom (the model's first frame, a
  // search tree that grew) starts the search again.
  let search = null; // {lo, hi}: the largest zoom known to fit, the smallest known not to
  let last = { zoom: 0, height: 0 }; // the spotlit drawing's zoom and height (drawing px) when last measured
  function fitSpot() {
    const p = panels.find((q) => q.id === view.spot);
    if (!p?.canvas) return;
    const z = zoomOf(p.canvas), height = p.canvas.getBoundingClientRect().height / z;
    if (z === last.zoom && Math.abs(height - last.height) > 0.05 * last.height) fitted = "";
    last = { zoom: z, height };
    const key = `${view.spot} ${window.innerWidth}×${window.innerHeight}`;
    if (fitted !== key) { fitted = key; passes = 0; search = { lo: stageZoom(), hi: stageZoom() * SPOT_MAX_ZOOM }; }
    if (passes >= FIT_PASSES) return;
    passes++;
    const box = $(".panels").getBoundingClientRect();
    const c = p.canvas.getBoundingClientRect();
    const note = $(".note", p.el);
    const rest = (note ? note.getBoundingClientRect().height + 6 : 0) + 8; // the note under the canvas, the padding
    if (c.height <= 0) return;
    const now = zoomOf(p.canvas);
    const fits = c.bottom + rest <= box.bottom + 1;
    if (fits) search.lo = Math.max(search.lo, now); else search.hi = Math.min(search.hi, now);
    let next = passes === 1 && fits ? Math.min(search.hi, now * ((box.bottom - rest - c.top) / c.height)) : (search.lo + search.hi) / 2;
    if (passes >= FIT_PASSES || search.hi / search.lo < 1.04) { next = search.lo; passes = FIT_PASSES; }
    if (Math.abs(next - now) / now < SAME_ZOOM) return;
    p.canvas.dataset.zoom = String(next);
    schedule();
  }

  return {
    keys: [
      { keys: ["p", "P"], run: togglePresent, whileTraining: true },
      { keys: ["s", "S"], run: spotNext, whileTraining: true },
      { keys: ["f", "F"], run: fullscreen, whileTraining: true },
      { keys: ["j", "J"], run: toggleJoin, whileTraining: true },
      { keys: ["?"], run: showHelp, whileTraining: true },
      { keys: ["Escape"], run: escape, whileTraining: true },
    ],
    query: (q) => {
      if (view.present) q.set("present", "1");
      if (view.spot) q.set("spot", view.spot);
    },
    afterDraw,
    relabel: () => relabel(tid("offstage"), panels), // the maths is set: the strip's chips show it (stage.js)
    onChange: (f) => listeners.push(f),
    view: () => ({ ...view }),
    set: (changes) => set(changes, "replace"),
  };
}
