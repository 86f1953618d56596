// links.js ties the equations to the panels, both ways: hovering a symbol of an
// equation (an element with class sym-<id>, from \htmlClass in the TeX) highlights the
// panels that show it and lists its values at the current step; hovering a drawn panel
// shows what is under the pointer (a heatmap cell's unit, step and value) and
// highlights the panel's symbol in the equations.
//
// The symbol readout sits under the equations (pinned beside the panels on wide
// screens), so its values are next to the symbol; the highlighted panel may be far
// away, though. When none of a symbol's panels is in view, the readout says where it
// is, and clicking the symbol scrolls it into view and flashes it. Hovering never
// scrolls: the page moving under the pointer would lose the symbol being read.
//
// The readout reads its values with the lesson's labels: a one-hot vector is named by
// its token, X = one-hot('a'); a probability vector lists its most likely entries,
// 'a' 0.91, 'e' 0.05, …. Labels come from the static list the array's declaration
// names (lessons.Array.Labels) when it is as long as the vector (one label per entry);
// for a one-hot input without such a list, the step's input token (static "tokens", x_t
// at step t, when a panel declares it). Everything is read through the lesson's
// contract (contract.js's lessonView).
import { fmt, token, hasTimeAxis, nowTime, backward, timeOf, zoomOf } from "./panels/common.js";
import { view } from "./store.js";
import { lessonContract, lessonView } from "./contract.js";

const $$ = (sel) => [...document.querySelectorAll(sel)];
const tid = (id) => document.querySelector(`[data-testid="${id}"]`);
const READOUT_VALUES = 32; // values listed for a hovered symbol; h = 64 would fill the column
const READOUT_TOP = 5; // a probability vector's entries named in the readout: a glance (the panels show more)
const SUM_TOLERANCE = 1e-4; // a softmax sent as float32 sums to 1 within rounding, even over a few hundred entries
const MIN_VISIBLE_PX = 48; // a panel counts as in view when this much of it shows (its ring and some drawing)
const FOUND_MS = 1400; // how long a panel scrolled to by a click flashes
const AFTER_TAP_MS = 800; // the mouse events a browser sends after a tap (to pages written for a mouse) come within this

// labelsFor is the declared label list of the array if it has one label per entry of
// a vector of n values.
function labelsFor(v, name, n) {
  const l = v.labelsOf(name);
  return l && l.length === n ? l : null;
}

const quoted = (s) => `'${token(String(s))}'`;

// describe writes a symbol's values as the readout's text lines.
function describe(name, a, v, perStep) {
  const d = a.data, n = d.length;
  const labels = labelsFor(v, name, n);
  let ones = 0, hot = -1, zeros = 0, sum = 0, probs = true;
  for (let i = 0; i < n; i++) {
    const v = d[i];
    if (v === 1) { ones++; hot = i; } else if (v === 0) zeros++;
    if (!(v >= 0 && v <= 1)) probs = false;
    sum += v;
  }
  if (n > 1 && ones === 1 && zeros === n - 1) {
    const tokens = v.declaresStatic("tokens") ? v.static.tokens : undefined;
    const tok = labels ? labels[hot] : perStep && Array.isArray(tokens) ? tokens[v.step - 1] : undefined;
    return [tok !== undefined ? `${name} = one-hot(${quoted(tok)}), entry ${hot + 1} of ${n}` : `${name} = one-hot: entry ${hot + 1} of ${n} is 1`];
  }
  if (n > 1 && probs && Math.abs(sum - 1) < SUM_TOLERANCE) {
    const order = Array.from(d.keys()).sort((i, j) => d[j] - d[i]).slice(0, READOUT_TOP);
    const top = order.map((i) => `${labels ? quoted(labels[i]) : `#${i + 1}`} ${fmt(d[i])}`).join(", ");
    return [top + (n > order.length ? `, … (${n} values, sum 1)` : "")];
  }
  const ids = d.every(Number.isInteger); // token ids, a mask, lengths: whole numbers, written whole
  return [Array.from(d.slice(0, READOUT_VALUES), ids ? String : fmt).join("  ") + (n > READOUT_VALUES ? `  … (${n} values)` : "")];
}

// inView reports whether enough of el shows below the sticky transport bar.
function inView(el) {
  const r = el.getBoundingClientRect();
  const bar = tid("transport")?.getBoundingClientRect();
  const top = bar && bar.top <= 1 ? bar.bottom : 0; // the bar covers the top only while it sticks there
  return Math.min(r.bottom, window.innerHeight) - Math.max(r.top, top) >= MIN_VISIBLE_PX;
}

// linkSymbols wires the hover handlers for the page's panels and returns refresh, which
// page.js calls after each redraw so a hovered symbol's values follow the step.
export function linkSymbols(panels, store, schedule) {
  const contract = lessonContract();
  const symbolArray = new Map(); // equation symbol id → the array it names
  for (const eq of $$(".equation[data-symbols]")) for (const pair of eq.dataset.symbols.split(" ").filter(Boolean)) {
    const [id, arr] = pair.split(":"); symbolArray.set(id, arr);
  }
  const tip = tid("tooltip");
  function showTip(lines, x, y, above) {
    tip.replaceChildren(...lines.map((l, i) => Object.assign(document.createElement(i ? "div" : "strong"), { textContent: l })));
    tip.hidden = false;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = Math.max(8, Math.min(window.innerWidth - w - 8, x + 14)) + "px";
    tip.style.top = (above && y - h - 24 > 0 ? y - h - 24 : y + 14) + "px"; // above a finger, which would cover it
  }
  const hot = (id, on) => id && $$(`.sym-${CSS.escape(id)}`).forEach((e) => e.classList.toggle("sym-hot", on));
  // A finger has no hover: a tap on a panel shows what hovering shows, until a tap
  // elsewhere or a scroll. A touch that scrolls the page is cancelled, not a tap.
  let tapped = null, touched = -Infinity; // the panel tapped, and when
  const leave = (p) => { tip.hidden = true; hot(p.symbol, false); p.hover = null; schedule(); };
  document.addEventListener("pointerdown", (e) => { if (tapped && e.target !== tapped.canvas) { leave(tapped); tapped = null; } });
  window.addEventListener("scroll", () => { if (tapped) { leave(tapped); tapped = null; } }, { passive: true });
  for (const p of panels) {
    const point = (e) => {
      const r = p.canvas.getBoundingClientRect();
      const z = zoomOf(p.canvas); // the layout is in drawing pixels
      const h = p.layout && p.layout.hit((e.clientX - r.left) / z, (e.clientY - r.top) / z);
      if (!h) { tip.hidden = true; hot(p.symbol, false); if (p.hover) { p.hover = null; schedule(); } return; }
      showTip(h.lines, e.clientX, e.clientY, e.pointerType === "touch");
      hot(p.symbol, true);
      p.hover = h.block !== undefined ? { block: h.block, row: h.row } : h.unit !== undefined ? { unit: h.unit } : null;
      schedule();
    };
    p.canvas?.addEventListener("mousemove", (e) => { if (e.timeStamp - touched > AFTER_TAP_MS) point(e); });
    p.canvas?.addEventListener("mouseleave", () => leave(p));
    p.canvas?.addEventListener("pointerup", (e) => { if (e.pointerType === "touch") { tapped = p; touched = e.timeStamp; point(e); } });
  }
  const panelsOf = (id) => panels.filter((p) => p.symbol === id || p.also.includes(id));
  // away is where a symbol's panels are when none is in view: "below", "above", or "" (one shows, or none exists)
  function away(id) {
    const ps = panelsOf(id);
    if (!ps.length || ps.some((p) => inView(p.el))) return "";
    return ps[0].el.getBoundingClientRect().top > 0 ? "below" : "above";
  }

  let symbolHover = null;
  const readout = tid("symbol-readout");
  function showSymbol(id) {
    const arr = symbolArray.get(id);
    const v = lessonView(view(store), contract);
    if (arr && !v.decl(arr)) return; // an undeclared array: lessonView has reported it
    let perStep = v.at(arr, store.step);
    // On a time axis (BPTT) a step works on time t: name it, and a backward array has
    // nothing before its pass reaches the step.
    const t = arr && hasTimeAxis(v) ? nowTime(v, [arr]) : 0;
    const notYet = perStep && hasTimeAxis(v) && backward(v, arr) && !timeOf(v, arr, store.step);
    if (notYet) perStep = undefined;
    const a = arr && (perStep || (notYet ? undefined : v.staticArray(arr)));
    readout.hidden = false;
    readout.replaceChildren();
    const head = document.createElement("strong");
    head.textContent = `${arr || id} at ${t ? `t = ${t} (step ${store.step})` : `step ${store.step}`}`;
    const lines = a ? describe(arr, a, v, !!perStep) : [store.step === 0 ? "step forward to compute it" : notYet ? "not computed yet: the backward pass has not reached this step" : "no values at this step"];
    const body = lines.map((l) => Object.assign(document.createElement("div"), { className: "values", textContent: l }));
    readout.append(head, ...body);
    const where = away(id);
    $$(`.equation .sym-${CSS.escape(id)}`).forEach((e) => e.classList.toggle("sym-away", !!where)); // a click will scroll
    if (where) {
      const n = panelsOf(id).length;
      const hint = Object.assign(document.createElement("div"), { className: "where" });
      hint.textContent = `${where === "below" ? "↓" : "↑"} ${n > 1 ? `its ${n} panels are` : "its panel is"} ${where}: click the symbol to scroll there`;
      readout.append(hint);
    }
  }
  const symbolOf = (target) => {
    const el = target.closest && target.closest("[class*='sym-']");
    return (el && [...el.classList].find((c) => c.startsWith("sym-") && c !== "sym-hot" && c !== "sym-label" && c !== "sym-away")?.slice(4)) || null;
  };
  document.addEventListener("mouseover", (e) => {
    const id = symbolOf(e.target);
    if (id === symbolHover) return;
    if (symbolHover) { hot(symbolHover, false); $$(".sym-away").forEach((e) => e.classList.remove("sym-away")); panels.forEach((p) => p.el.classList.remove("panel-hot")); }
    symbolHover = id;
    if (!id) { readout.hidden = true; return; }
    hot(id, true);
    panelsOf(id).forEach((p) => p.el.classList.add("panel-hot"));
    showSymbol(id);
  });
  // a click on a symbol whose panels are out of view brings the nearest one in
  document.addEventListener("click", (e) => {
    const id = symbolOf(e.target);
    if (!id || !e.target.closest(".equation") || !away(id)) return;
    const target = panelsOf(id).map((p) => p.el).sort((a, b) => Math.abs(a.getBoundingClientRect().top) - Math.abs(b.getBoundingClientRect().top))[0];
    const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    target.scrollIntoView({ block: "center", behavior: smooth ? "smooth" : "auto" });
    target.classList.remove("panel-found");
    void target.offsetWidth; // restart the flash when clicked again
    target.classList.add("panel-found");
    setTimeout(() => target.classList.remove("panel-found"), FOUND_MS);
    if (symbolHover === id) setTimeout(() => symbolHover === id && showSymbol(id), FOUND_MS); // the hint follows the scroll
  });
  return { refresh: () => { if (symbolHover) showSymbol(symbolHover); } };
}
