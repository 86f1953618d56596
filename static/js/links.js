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
// The keyboard reaches the same: each symbol of an equation is a button in the Tab
// order (exposeSymbols), and a panel's canvas takes the focus too. A focused symbol
// shows its readout and lights its panels, as hovering it does; a focused canvas shows
// the panel's description (a11y.js) where the tooltip would be and lights its symbol.
// Esc or leaving hides them; Enter on a symbol does what a click does.
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
import { $$, tid } from "./dom.js";

const READOUT_VALUES = 32; // values listed for a hovered symbol; h = 64 would fill the column
const READOUT_TOP = 5; // a probability vector's entries named in the readout: a glance (the panels show more)
const SUM_TOLERANCE = 1e-4; // a softmax sent as float32 sums to 1 within rounding, even over a few hundred entries
const MIN_VISIBLE_PX = 48; // a panel counts as in view when this much of it shows (its ring and some drawing)
const FOUND_MS = 1400; // how long a panel scrolled to by a click flashes
const TIP_GAP = 6; // CSS px between a focused drawing and its description
const AFTER_TAP_MS = 800; // the mouse events a browser sends after a tap (to pages written for a mouse) come within this

// labelsFor is the declared label list of the array if it has one label per entry of
// a vector of n values.
function labelsFor(v, name, n) {
  const l = v.labelsOf(name);
  return l && l.length === n ? l : null;
}

const quoted = (s) => `'${token(String(s))}'`;

// describe writes a symbol's values as the readout's text lines; symbol is the array's
// label in Unicode (lessons.PlainLabel), never its name.
function describe(name, symbol, a, v, perStep) {
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
    return [tok !== undefined ? `${symbol} = one-hot(${quoted(tok)}), entry ${hot + 1} of ${n}` : `${symbol} = one-hot: entry ${hot + 1} of ${n} is 1`];
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
// exposeSymbols puts an equation's symbols in the Tab order. KaTeX hides its HTML from
// screen readers (they read its MathML); that HTML holds the symbols, so it is shown
// again with everything but the symbols hidden: the formula is read once, from the
// MathML, and each symbol is a labelled button. A symbol inside another is left to the
// outer one (no nested buttons).
function exposeSymbols(eq, symbolArray) {
  const html = eq.querySelector(".katex-html");
  if (!html) return;
  const syms = [...html.querySelectorAll("[class*='sym-']")].filter((el) => symbolIdOf(el) && !el.parentElement.closest("[class*='sym-']"));
  if (!syms.length) return;
  html.removeAttribute("aria-hidden");
  const hide = (node) => {
    for (const child of [...node.children]) {
      if (syms.includes(child)) continue;
      if (syms.some((s) => child.contains(s))) hide(child); else child.setAttribute("aria-hidden", "true");
    }
  };
  hide(html);
  for (const el of syms) {
    const id = symbolIdOf(el);
    el.tabIndex = 0;
    el.setAttribute("role", "button");
    // the name starts with what the symbol shows (a speech-input user says what they see), then the array it is
    const shown = el.textContent.replace(/[\u200b-\u200d\ufeff]/g, "").replace(/\s+/g, " ").trim();
    el.setAttribute("aria-label", `${shown}, ${symbolArray.get(id) || id}: show its values now`);
    el.setAttribute("aria-describedby", "symbol-readout");
  }
}

// symbolIdOf is the symbol id an element's sym-<id> class names, or null.
function symbolIdOf(el) {
  return [...el.classList].find((c) => c.startsWith("sym-") && c !== "sym-hot" && c !== "sym-label" && c !== "sym-away" && c !== "sym-focus")?.slice(4) || null;
}

export function linkSymbols(panels, store, schedule, describePanel = () => []) {
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
    head.textContent = `${(arr && v.decl(arr)?.plain) || id} at ${t ? `t = ${t} (step ${store.step})` : `step ${store.step}`}`;
    const lines = a ? describe(arr, v.decl(arr)?.plain || "", a, v, !!perStep) : [store.step === 0 ? "step forward to compute it" : notYet ? "not computed yet: the backward pass has not reached this step" : "no values at this step"];
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
    return (el && symbolIdOf(el)) || null;
  };
  // The symbol shown is the hovered one, else the focused one.
  let pointed = null, focused = null;
  function showOrHide() {
    const id = pointed || focused;
    if (id === symbolHover) return;
    if (symbolHover) { hot(symbolHover, false); $$(".sym-away").forEach((e) => e.classList.remove("sym-away")); panels.forEach((p) => p.el.classList.remove("panel-hot")); }
    symbolHover = id;
    if (!id) { readout.hidden = true; return; }
    hot(id, true);
    panelsOf(id).forEach((p) => p.el.classList.add("panel-hot"));
    showSymbol(id);
  }
  document.addEventListener("mouseover", (e) => { pointed = symbolOf(e.target); showOrHide(); });
  for (const eq of $$(".equation")) exposeSymbols(eq, symbolArray);

  // The keyboard: a focused symbol as a hovered one; a focused canvas says what its
  // panel shows where the tooltip would be, and lights its symbol.
  let focusedPanel = null;
  function showPanel(p) { // the description under the drawing (above it near the window's foot), never on it
    const r = p.canvas.getBoundingClientRect();
    showTip(describePanel(p), r.left, 0);
    const h = tip.offsetHeight, below = r.bottom + TIP_GAP, above = r.top - h - TIP_GAP;
    tip.style.top = (below + h <= window.innerHeight ? below : above >= 0 ? above : Math.max(0, window.innerHeight - h - TIP_GAP)) + "px";
    tip.style.left = Math.max(TIP_GAP, Math.min(window.innerWidth - tip.offsetWidth - 2 * TIP_GAP, r.left)) + "px";
    hot(p.symbol, true);
    p.el.classList.add("panel-hot");
  }
  function hidePanel() {
    if (!focusedPanel) return;
    tip.hidden = true; hot(focusedPanel.symbol, false); focusedPanel.el.classList.remove("panel-hot");
    focusedPanel = null;
  }
  document.addEventListener("focusin", (e) => {
    if (!e.target.matches?.(":focus-visible")) { focused = null; showOrHide(); hidePanel(); return; } // a click's focus: the pointer shows what it hovers
    const sym = e.target.closest?.(".equation [role=button][class*='sym-']");
    focused = sym ? symbolIdOf(sym) : null;
    showOrHide();
    const p = panels.find((q) => q.canvas && q.canvas === e.target);
    if (p !== focusedPanel) hidePanel();
    if (p) { focusedPanel = p; showPanel(p); }
  });
  document.addEventListener("focusout", (e) => {
    if (!e.relatedTarget || !document.contains(e.relatedTarget)) { focused = null; showOrHide(); hidePanel(); }
  });
  document.addEventListener("keydown", (e) => {
    const sym = e.target.closest?.(".equation [role=button][class*='sym-']");
    const onPanel = focusedPanel && e.target === focusedPanel.canvas;
    if (e.key === "Escape" && ((sym && symbolHover) || (onPanel && !tip.hidden))) {
      e.stopPropagation(); // the first Esc hides the readout; the next is the page's (leaving the spotlight)
      if (sym) { focused = null; pointed = null; showOrHide(); } else { tip.hidden = true; hot(focusedPanel.symbol, false); focusedPanel.el.classList.remove("panel-hot"); }
    } else if (e.key === "Enter" && sym) {
      e.preventDefault();
      sym.click();
    }
  }, true);
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
  return {
    refresh: () => {
      if (symbolHover) showSymbol(symbolHover);
      if (focusedPanel && !tip.hidden && document.activeElement === focusedPanel.canvas) showPanel(focusedPanel);
    },
    // an equation rendered again (math.js syncEquations): its symbols are new elements
    equationChanged: (eq) => { exposeSymbols(eq, symbolArray); if (symbolHover) hot(symbolHover, true); },
  };
}
