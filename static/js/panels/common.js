// Shared helpers for the drawing modules: canvas sizing for crisp lines at any pixel
// ratio, fonts, number formatting and the view accessors every panel uses.
import { scrollBox } from "../dom.js";

export const FONT = '13px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const SMALL = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const INK = "#1d2430";
export const MUTED = "#6b7280";
export const GRID = "#e5e7eb";
export const NOW = "#111827"; // the current-step marker

// The zoom: how many CSS pixels one drawing pixel takes. Modules draw in drawing
// pixels (a 13 px font, a 34 px margin) and never see it; presenter mode (present.js)
// sets it so that the smallest text, SMALL's 11 px, is at least 18 CSS px on a
// projector, and a spotlit panel gets a larger one of its own (canvas.dataset.zoom).
let zoom = 1;
export function setZoom(z) { zoom = z > 0 ? z : 1; }
export const zoomOf = (canvas) => Number(canvas?.dataset.zoom) || zoom;

// room is the width the canvas's box offers, in drawing pixels.
export const room = (canvas) => Math.max(120, canvas.parentElement.clientWidth) / zoomOf(canvas);

// spanRow lets a panel whose drawing needs more than one column of the panel grid
// (need, CSS px) take the whole row (.panel-wide), so that it scrolls only when the row
// is too narrow too. One column's width does not depend on the panel's span, so the
// choice does not flip back when the panel widens.
function spanRow(wrap, need) {
  const panel = wrap.closest(".panel"), grid = panel?.parentElement;
  if (!grid?.classList.contains("panels")) return;
  const track = parseFloat(getComputedStyle(grid).gridTemplateColumns); // the first column, px
  const inset = panel.offsetWidth - wrap.clientWidth; // the panel's padding and border
  panel.classList.toggle("panel-wide", track > 0 && need > track - inset);
}

// flexHeight is the height of a drawing that can be any height (a chart, a map): want,
// or less when the stage has less room (canvas.dataset.maxHeight, drawing pixels, set
// by present.js), down to least.
export function flexHeight(canvas, want, least = 110) {
  const cap = stageRoom(canvas);
  return cap < Infinity ? Math.max(least, Math.min(want, cap)) : want;
}

// stageRoom is the most height (drawing pixels) the stage gives a drawing that can be
// drawn shorter (canvas.dataset.maxHeight, set by present.js), Infinity off the
// stage; it marks the canvas as such a drawing, which present.js may give less room
// to keep it on the stage.
export function stageRoom(canvas) {
  canvas.dataset.flex = "1";
  return Number(canvas.dataset.maxHeight) || Infinity;
}

// fit sizes the canvas to its box width and the given height (drawing pixels) and
// returns a 2-D context in drawing pixels, cleared.
export function fit(canvas, height, minWidth = 0) {
  // Wider than its box when the drawing needs minWidth (a long sentence, a wide
  // matrix): then the box scrolls sideways rather than the drawing wrapping or shrinking.
  const wrap = canvas.parentElement;
  const z = zoomOf(canvas);
  if (minWidth > 0 || wrap.parentElement.classList.contains("panel-wide")) spanRow(wrap, minWidth * z); // before measuring: it changes the room
  const avail = room(canvas);
  const width = Math.max(avail, Math.ceil(minWidth));
  const wide = width > avail;
  wrap.style.overflowX = wide ? "auto" : "";
  scrollBox(wrap, wide, () => wrap.closest(".panel")?.querySelector("figcaption")?.textContent || "drawing");
  canvas.style.width = wide ? Math.ceil(width * z) + "px" : "";
  const scale = (window.devicePixelRatio || 1) * z;
  const w = Math.round(width * scale), h = Math.round(height * scale);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w; canvas.height = h;
  }
  canvas.style.height = Math.round(height * z) + "px";
  canvas.dataset.drawnFor = `${canvas.dataset.maxHeight || ""}×${z}`; // the stage's room and zoom it was drawn for (present.js)
  const ctx = canvas.getContext("2d");
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = FONT;
  ctx.textBaseline = "middle";
  return { ctx, width, height, wide };
}

// fmt writes a value for a tooltip or a readout with 4 significant digits, trailing
// zeros kept and a true minus sign ("1.000", "−1.000", "0.002469", "1.235e−5"): a
// saturated gate reads 1.000, which says it is a measured value and not a count. Exact
// 0 is "0". A whole number of magnitude ≥ WHOLE is a count, a size or a step (238
// tokens, T = 30) and is written whole: a continuous value is practically never whole
// there. Magnitudes outside [SMALLEST, LARGEST) are written with an exponent.
const DIGITS = 4; // the lecture's tables show 4 significant digits
const WHOLE = 2; // ±1 is a saturated σ or tanh far more often than a count
const SMALLEST = 1e-3; // below it, fixed notation needs too many zeros
const LARGEST = 10 ** DIGITS; // from here toPrecision writes an exponent anyway
export function fmt(v) {
  if (v === undefined || v === null) return "–";
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (Number.isInteger(v) && a >= WHOLE && a < Number.MAX_SAFE_INTEGER) return minus(String(v));
  if (a >= LARGEST || a < SMALLEST) return minus(v.toExponential(DIGITS - 1).replace("e+", "e"));
  return minus(v.toPrecision(DIGITS));
}

// fact writes a fact's value (the facts lists, sim.Fact): a measured number (an
// accuracy, a norm) as fmt, even when the server rounded it to a whole 1 or 0 (an
// accuracy of 1 reads 1.000); other whole numbers are counts, sizes and steps (layers
// 1, not 1.000), written whole.
export function fact(v, measured = false) {
  if (measured) return fmt(v);
  return Number.isInteger(v) && Math.abs(v) < Number.MAX_SAFE_INTEGER ? minus(String(v)) : fmt(v);
}

const minus = (s) => s.replaceAll("-", "\u2212"); // U+2212, as in the equations

// The time axis. Heatmaps and line panels draw per-step arrays against the time step t.
// Usually the scrubber's step s is t. A model whose steps are more than one pass over
// its sequence (BPTT: the forward pass t = 1..T, then the backward pass t = T..1) says
// so in its passes (sim.Pass, the snapshot's "passes"): the time axis is then the
// largest index of its passes that count t. A per-step array that the panel's contract
// declares Backward is computed from the end: its step s holds the time step
// steps + 1 − s (a bidirectional RNN's backward direction; BPTT's backward pass, whose
// steps T+1..2T hold t = T..1). The one rule for every panel that draws time.

// passAt is the pass that scrubber step s (1 ≤ s ≤ steps) belongs to, with its index
// there (t, counting up or down) and its position k = 1..pass.steps; null at step 0.
export function passAt(view, s) {
  let start = 0;
  for (const p of view.passes || []) {
    if (s > start && s <= start + p.steps) {
      const k = s - start;
      const first = p.first || 1, last = p.last || p.steps;
      const index = first <= last ? first + (k - 1) : first - (k - 1);
      return { pass: p, k, index, of: Math.max(first, last) };
    }
    start += p.steps;
  }
  return null;
}

// timeSteps is the number of time steps t = 1..T the time axis shows.
export function timeSteps(view) {
  const timed = (view.passes || []).filter((p) => p.index === "t");
  if (timed.length < 2) return view.steps;
  return Math.max(...timed.map((p) => Math.max(p.first || 1, p.last || p.steps)));
}

// hasTimeAxis reports whether the time steps are not the scrubber's steps, so that
// tooltips must say "t = 21" rather than "step 21".
export const hasTimeAxis = (view) => timeSteps(view) !== view.steps;

// backward reports whether a per-step array is computed from the end, as its
// declaration says.
export const backward = (view, name) => view.decl?.(name)?.dir === "backward";

// timeOf is the time step t that the per-step array holds at scrubber step s, or 0
// when its value at s is off the time axis (a forward array during BPTT's backward
// pass, a backward array during the forward pass).
export function timeOf(view, name, s) {
  const t = backward(view, name) ? view.steps + 1 - s : s;
  return s >= 1 && t >= 1 && t <= timeSteps(view) ? t : 0;
}

// stepOf is the scrubber step at which the per-step array's value for time t arrives.
export const stepOf = (view, name, t) => (backward(view, name) ? view.steps + 1 - t : t);

// nowTime is the time step the current scrubber step works on, for a panel drawing
// these arrays: the first per-step array's time, else the current pass's t (BPTT:
// the step being processed), else the step itself.
export function nowTime(view, names) {
  for (const n of names) { const t = view.known(n) ? timeOf(view, n, view.step) : 0; if (t) return t; }
  // BPTT's gradient before the backward pass: nothing is being computed there yet
  if (hasTimeAxis(view) && names.length && names.every((n) => backward(view, n))) return 0;
  const at = passAt(view, view.step);
  return at && at.pass.index === "t" ? at.index : view.step;
}

// optStatic and optMeta read a key that only some lessons give a shared drawing module
// (a fixed scale, a pinned marker): the value when the panel's contract declares the
// key, else undefined without a read. A key a panel needs it reads directly, and an
// undeclared read is counted (contract.js).
export const optStatic = (view, key) => (view.declaresStatic(key) ? view.static[key] : undefined);
export const optMeta = (view, key, meta = view.meta) => (view.declaresMeta(key) && meta ? meta[key] : undefined);

// inputShown reports whether the input token x_t may be drawn at the current step:
// the first "prompt_len" tokens are typed and known from the start; the rest are the
// model's own samples (rnn), drawn once step t is.
export function inputShown(view, t) {
  const typed = Number.isInteger(optStatic(view, "prompt_len")) ? view.static.prompt_len : Infinity;
  return t <= typed || t <= view.step;
}

// axisOf names a line or bars panel's x axis and its points, from the meta "axes"
// (the same key the alignment panel reads): axes[array] = {col_title, cols}, the
// step's meta over the static one, for the first of the arrays that has it. col_title
// is what x counts ("rank", "n", "day"), cols a name per bar or point.
export function axisOf(view, names) {
  for (const n of names) {
    const a = { ...(optStatic(view, "axes")?.[n] || {}), ...(optMeta(view, "axes")?.[n] || {}) };
    if (a.col_title || Array.isArray(a.cols)) return a;
  }
  return {};
}

// tick formats an axis label: short.
export function tick(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-2) return v.toExponential(0).replace("e+", "e");
  return Number(v.toPrecision(3)).toString();
}

// niceTicks are about n round values between lo and hi, 1, 2 or 5 × 10^k apart.
export function niceTicks(lo, hi, n = 4) {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span)) return [lo];
  const raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let k = Math.ceil(lo / step); k * step <= hi * (1 + 1e-12) + 1e-300; k++) out.push(Number((k * step).toPrecision(12)));
  return out;
}

// empty draws a centred message when there is nothing to show yet.
export function empty(ctx, width, height, text) {
  ctx.fillStyle = MUTED;
  ctx.textAlign = "center";
  ctx.fillText(text, width / 2, height / 2);
  ctx.textAlign = "left";
}

// token shows a token so that blanks are visible.
export function token(s) {
  if (s === " ") return "␣";
  if (s === "\n") return "↵";
  return String(s);
}

// colourBar draws a heatmap's fixed colour scale, h pixels tall at (x, y), with its
// end and middle values.
export function colourBar(ctx, scale, x, y, h) {
  const w = 12, n = 64;
  for (let i = 0; i < n; i++) {
    ctx.fillStyle = scale.color(scale.hi - ((i + 0.5) / n) * (scale.hi - scale.lo));
    ctx.fillRect(x, y + (i * h) / n, w, h / n + 1);
  }
  ctx.strokeStyle = GRID; ctx.strokeRect(x + 0.5, y + 0.5, w, h);
  ctx.font = SMALL; ctx.fillStyle = INK;
  ctx.fillText(tick(scale.hi), x + w + 4, y + 5);
  ctx.fillText(tick((scale.hi + scale.lo) / 2), x + w + 4, y + h / 2);
  ctx.fillText(tick(scale.lo), x + w + 4, y + h - 5);
}

export const EMOJI = /\p{Extended_Pictographic}/u; // a character the classroom's fonts may lack
const JOINERS = /[\u200d\ufe0e\ufe0f\u{1f3fb}-\u{1f3ff}]/gu; // zero-width joiner, variation selectors, skin tones

// shown writes a token for the canvas: blanks visible (token), and emoji, which the
// classroom's fonts often lack (an empty box), as their code points, U+1F600.
export function shown(s) {
  const t = token(String(s));
  if (!EMOJI.test(t)) return t;
  return [...t.replace(JOINERS, "")].map((ch) => (EMOJI.test(ch) && ch.codePointAt(0) >= 0x1f000 ? "U+" + ch.codePointAt(0).toString(16).toUpperCase() : ch)).join("");
}

// Words for the panels' descriptions and tables (a11y.js): each module's describe(cfg,
// view) says what it shows now in a sentence, and table(cfg, view) gives its numbers
// as {caption, head, rows} (a row's first cell names it). These are their shared parts.

// stats are a vector's mean and its largest and smallest entries (with their index).
export function stats(data) {
  let sum = 0, max = -Infinity, min = Infinity, imax = -1, imin = -1, n = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) continue;
    n++; sum += v;
    if (v > max) { max = v; imax = i; }
    if (v < min) { min = v; imin = i; }
  }
  return { n, mean: n ? sum / n : NaN, max, imax, min, imin };
}

// summary says a vector in a few words: "mean 0.4300, max 0.9100 (unit 3)", and its
// minimum when some entry is negative; name(i) names entry i ("unit 3", "'a'").
export function summary(data, name = (i) => `unit ${i + 1}`) {
  const s = stats(data);
  if (!s.n) return "no values";
  if (s.n === 1) return fmt(s.max);
  const out = [`mean ${fmt(s.mean)}`, `max ${fmt(s.max)} (${name(s.imax)})`];
  if (s.min < 0) out.push(`min ${fmt(s.min)} (${name(s.imin)})`);
  return out.join(", ");
}

// plural counts a thing: "1 unit", "8 units".
export const plural = (n, word, many = word + "s") => `${n} ${n === 1 ? word : many}`;

// cellText writes a table cell's value: a number as fmt, a missing one as "–".
export const cellText = (v) => (typeof v === "number" ? fmt(v) : v === undefined || v === null ? "–" : String(v));

// timeWord names the time step a panel is at: "t = 5", or "step 5" when the steps
// are not the time steps (none is being computed).
export const timeWord = (view, t) => (t > 0 ? `t = ${t}` : `step ${view.step}`);
