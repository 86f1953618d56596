// Colour scales for the panels. Both are colour-blind safe: viridis (sequential, for
// values in (0, 1) such as gates) and ColorBrewer's RdBu (diverging, for values around 0
// such as tanh outputs), negative blue, zero white, positive red.

const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];
const RDBU = ["#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b"];

// Okabe–Ito: distinguishable by every common form of colour blindness; for curves.
export const SERIES = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000"];

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const VIR = VIRIDIS.map(rgb);
const DIV = RDBU.map(rgb);

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
