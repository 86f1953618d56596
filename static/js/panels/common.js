// Shared helpers for the drawing modules: canvas sizing for crisp lines at any pixel
// ratio, fonts, number formatting and the view accessors every panel uses.

export const FONT = '13px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const SMALL = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const INK = "#1d2430";
export const MUTED = "#6b7280";
export const GRID = "#e5e7eb";
export const NOW = "#111827"; // the current-step marker

// fit sizes the canvas to its box width and the given CSS height and returns a 2-D
// context in CSS pixels, cleared.
export function fit(canvas, height) {
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(120, canvas.parentElement.clientWidth);
  const w = Math.round(width * dpr), h = Math.round(height * dpr);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w; canvas.height = h;
    canvas.style.height = height + "px";
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = FONT;
  ctx.textBaseline = "middle";
  return { ctx, width, height };
}

// fmt writes a value with 4 significant digits (what the lecture's tables show).
export function fmt(v) {
  if (v === undefined || v === null) return "–";
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(3);
  return Number(v.toPrecision(4)).toString();
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
