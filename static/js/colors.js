// Colours of the panels, from the one palette of Unroll (palette.js, generated from the
// Go package palette, which the exports draw with too). Sequential values such as gates
// in (0, 1) take viridis; values around 0 (tanh outputs, states) take the blue–orange
// diverging map, negative blue, zero near white, positive orange. Curves and bars take
// a style each (colour, dash, marker) from styles(): a role the lessons compare (the
// LSTM, the GRU, the RNN, bidirectional, teacher forcing, …) looks the same on every
// panel and in every export. Correct and wrong tokens are marked (✓/✗), not only tinted.

import { CATEGORICAL, REST, DASHES, MARKERS, ROLES, CORRECT, WRONG, VIRIDIS, BLUE_ORANGE } from "./palette.js";

export { CORRECT, WRONG, REST };

// SERIES are the categorical colours in order, for series without a role.
export const SERIES = CATEGORICAL;

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const VIR = VIRIDIS.map(rgb);
const DIV = BLUE_ORANGE.map(rgb);

function interpolate(stops, u) {
  if (!(u >= 0)) u = 0; // NaN and negatives
  if (u > 1) u = 1;
  const x = u * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = stops[i], b = stops[i + 1];
  return `rgb(${Math.round(a[0] + (b[0] - a[0]) * f)},${Math.round(a[1] + (b[1] - a[1]) * f)},${Math.round(a[2] + (b[2] - a[2]) * f)})`;
}

// scaleFor returns {lo, hi, diverging, color(v)} for a fixed [lo, hi] range, or one
// fitted to values (symmetric around 0 when the values change sign).
export function scaleFor(fixed, values) {
  let lo, hi;
  if (fixed && fixed.length === 2) {
    [lo, hi] = fixed;
  } else {
    lo = Infinity; hi = -Infinity;
    for (const v of values) if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    if (lo < 0 && hi > 0) { const m = Math.max(-lo, hi); lo = -m; hi = m; }
    if (lo === hi) { lo -= 1; hi += 1; }
  }
  const diverging = lo < 0 && hi > 0;
  const stops = diverging ? DIV : VIR;
  return { lo, hi, diverging, color: (v) => (Number.isFinite(v) ? interpolate(stops, (v - lo) / (hi - lo)) : "#bbb") };
}

// tint mixes a "#rrggbb" colour with white: f = 0 is the colour, f = 1 white (as
// palette.RGB.Tint).
export function tint(hex, f) {
  const [r, g, b] = rgb(hex).map((v) => Math.floor(v + (255 - v) * f + 0.5));
  return `rgb(${r},${g},${b})`;
}

// The role functions mirror palette.RoleOf and palette.Assign (palette/palette.go);
// a browser test (web/palette_browser_test.go) checks that both give the same styles.
const WORD = /[\p{L}\p{N}]/u;
const edge = (s, i, before) => (before ? i === 0 || !WORD.test(Array.from(s.slice(0, i)).at(-1)) : i >= s.length || !WORD.test(Array.from(s.slice(i))[0]));

// roleOf is the role (of palette.js's ROLES) whose alias appears first in the label as a
// whole word, case ignored (the longer alias at one position), or null.
export function roleOf(label) {
  const s = String(label ?? "").toLowerCase();
  let best = -1, at = Infinity, length = 0;
  ROLES.forEach((r, k) => {
    for (const a of r.aliases) {
      for (let j = s.indexOf(a); j >= 0; j = s.indexOf(a, j + 1)) {
        if (edge(s, j, true) && edge(s, j + a.length, false) && (j < at || (j === at && a.length > length))) { best = k; at = j; length = a.length; }
      }
    }
  });
  return best < 0 ? null : ROLES[best];
}

// assign gives the series of one panel their styles from their labels: {colour, dash:
// index, marker: index}. A series with a role takes its role's style (a second one of
// the same role keeps the colour and takes the first dash and marker no role of the
// panel uses); the others take the categorical colours no role of the panel holds, in
// order.
export function assign(labels) {
  const roles = labels.map((l) => roleOf(l));
  const held = new Set(roles.filter(Boolean).map((r) => r.colour));
  const dashUsed = new Set(roles.filter(Boolean).map((r) => r.dash)), markerUsed = new Set(roles.filter(Boolean).map((r) => r.marker));
  let free = CATEGORICAL.filter((c) => !held.has(c));
  if (!free.length) free = CATEGORICAL;
  const unused = (used, n) => { for (let i = 0; i < n; i++) if (!used.has(i)) { used.add(i); return i; } return 0; };
  const seen = new Set();
  let next = 0;
  return roles.map((r) => {
    if (r) {
      const again = seen.has(r.name);
      seen.add(r.name);
      return again ? { colour: r.colour, dash: unused(dashUsed, DASHES.length), marker: unused(markerUsed, MARKERS.length) } : { colour: r.colour, dash: r.dash, marker: r.marker };
    }
    const st = { colour: free[next % free.length], dash: next % DASHES.length, marker: next % MARKERS.length };
    next++;
    return st;
  });
}

// styles is assign with the dash pattern and the marker's shape resolved:
// {colour, dash: [on, off, …] in drawing pixels, marker: "circle" | "square" | …}.
export function styles(labels) {
  return assign(labels).map((s) => ({ colour: s.colour, dash: DASHES[s.dash], marker: MARKERS[s.marker] }));
}

// drawMarker fills (or, for a cross, strokes) a marker of radius r at (x, y) in the
// context's current fill and stroke colours.
export function drawMarker(ctx, shape, x, y, r) {
  ctx.beginPath();
  switch (shape) {
    case "square": ctx.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7); break;
    case "triangle": ctx.moveTo(x, y - r * 1.15); ctx.lineTo(x + r, y + r * 0.75); ctx.lineTo(x - r, y + r * 0.75); ctx.closePath(); break;
    case "diamond": ctx.moveTo(x, y - r * 1.2); ctx.lineTo(x + r * 1.2, y); ctx.lineTo(x, y + r * 1.2); ctx.lineTo(x - r * 1.2, y); ctx.closePath(); break;
    case "cross": {
      const w = ctx.lineWidth, d = ctx.getLineDash();
      ctx.lineWidth = 1.5; ctx.setLineDash([]);
      ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r); ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r);
      ctx.stroke(); ctx.lineWidth = w; ctx.setLineDash(d);
      return;
    }
    default: ctx.arc(x, y, r, 0, 2 * Math.PI);
  }
  ctx.fill();
}

// legendSwatch draws a line's key, `w` wide, centred on height y from x: a short
// stretch of the line in its dash, with its marker in the middle.
export function legendSwatch(ctx, style, x, y, w) {
  ctx.save();
  ctx.strokeStyle = style.colour; ctx.fillStyle = style.colour; ctx.lineWidth = 2;
  ctx.setLineDash(style.dash);
  ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + w, y); ctx.stroke();
  ctx.setLineDash([]);
  drawMarker(ctx, style.marker, x + w / 2, y, 3);
  ctx.restore();
}

// verdictBadge draws a correct or wrong token's mark (CORRECT or WRONG) as a badge
// centred at (x, y), typically a box's top-right corner: a disc of the verdict's colour
// with the mark in white, so the verdict does not rest on the box's tint alone.
export function verdictBadge(ctx, verdict, x, y) {
  ctx.save();
  ctx.fillStyle = verdict.line;
  ctx.beginPath(); ctx.arc(x, y, 6.5, 0, 2 * Math.PI); ctx.fill();
  ctx.fillStyle = "#ffffff"; ctx.font = 'bold 10px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  ctx.textAlign = "center"; ctx.textBaseline = "middle";
  ctx.fillText(verdict.mark, x, y + 0.5);
  ctx.restore();
}
