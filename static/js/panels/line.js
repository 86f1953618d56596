// line draws curves against the step: per-step scalars (one point per computed step) or
// static curves (one value per step, or any length for training curves), on a linear or
// logarithmic y axis, with the current step marked. Per-step scalars are placed on
// common.js's time axis: an array declared Backward (BPTT's ‖∂L/∂H_t‖) grows from t = T down as
// the backward pass reaches each t, and is absent during the forward pass. Arrays declared
// Marker are markers: a triangle on the steps where the value is
// non-zero. Tooltips name x by the meta "axes" col_title ("rank", "n", "day"), else
// "t = …" on a time axis and "step …" on the scrubber's.
import { fit, flexHeight, fmt, tick, empty, niceTicks, optStatic, timeSteps, hasTimeAxis, timeOf, nowTime, axisOf, SMALL, MUTED, GRID, INK, NOW } from "./common.js";
import { styles, drawMarker, legendSwatch, WRONG } from "../colors.js";

const LEFT = 52, RIGHT = 12, BOTTOM = 26, HEIGHT = 200;
const LEGEND = 18; // a row above the plot for the curves' names

function curves(cfg, view) {
  if (cfg.source === "train") {
    const c = view.train.curve;
    return c && c.length ? [{ name: "loss", label: "loss", xs: c.map((_, i) => i + 1), ys: Array.from(c) }] : [];
  }
  const out = [];
  for (const [i, name] of cfg.arrays.entries()) {
    const pts = [];
    for (let s = 1; s <= Math.min(view.step, view.steps); s++) {
      const a = view.at(name, s), t = timeOf(view, name, s);
      if (a && t) pts.push([t, a.data[0]]);
    }
    pts.sort((p, q) => p[0] - q[0]); // a backward array arrives from the end
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    if (!xs.length && !view.known(name)) {
      const s = view.staticArray(name);
      if (s) s.data.forEach((v, i) => { xs.push(i + 1); ys.push(v); });
    }
    if (xs.length || view.known(name)) out.push({ name, label: cfg.legend?.[i] || view.decl(name)?.plain || "", xs, ys, marker: !!view.decl(name)?.marker });
  }
  return out;
}

export function draw(canvas, cfg, view) {
  const { ctx, width, height } = fit(canvas, flexHeight(canvas, HEIGHT));
  const cs = curves(cfg, view);
  const lines = cs.filter((c) => !c.marker);
  const pts = lines.flatMap((c) => c.ys.filter((v) => Number.isFinite(v) && (!cfg.logy || v > 0)));
  if (!pts.length) { empty(ctx, width, height, cfg.source === "train" ? "press Train to see the loss" : "step forward to see values"); return null; }
  // per-step curves span the scrubber; static curves (one value per time step t, or a
  // training curve) span their own length, and the marker sits at the frame's "t"
  // when the lesson's steps are not the time steps (BPTT's forward then backward pass)
  const timed = cfg.source !== "train" && cs.some((c) => view.known(c.name));
  let xmax = timed ? timeSteps(view) : Math.max(...lines.map((c) => c.xs.at(-1) || 0));
  xmax = Math.max(2, xmax);
  const mark = optStatic(view, "marks")?.[cfg.id]; // a lesson may pin a static curve's marker (mt-data: the min-frequency cut)
  const now = cfg.source === "train" ? 0 : timed ? nowTime(view, cfg.arrays) : mark !== undefined ? Number(mark) : nowTime(view, []);
  // the y range: the panel's declared scale, or one the lesson fixes for its run in the
  // static meta "scales" (BPTT: every ‖∂L/∂H_t‖ to come, so the axis does not move as
  // the backward pass adds points), else fitted to the points drawn
  const fixed = optStatic(view, "scales")?.[cfg.id] || cfg.scale;
  const usable = fixed && fixed.length === 2 && fixed[0] < fixed[1] && (!cfg.logy || fixed[0] > 0);
  let [lo, hi] = usable ? fixed : [Math.min(...pts), Math.max(...pts)];
  const tr = cfg.logy ? Math.log10 : (v) => v;
  if (cfg.logy) { lo = Math.pow(10, Math.floor(Math.log10(lo))); hi = Math.pow(10, Math.ceil(Math.log10(hi))); if (lo === hi) hi = lo * 10; }
  else if (!usable) { const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1; lo -= pad; hi += pad; if (Math.min(...pts) >= 0) lo = Math.max(0, lo); }
  const legend = cs.length > 1 ? legendRows(ctx, cs, width - RIGHT) : [];
  const TOP = legend.length ? 10 + legend.length * LEGEND : 12;
  const plotW = width - LEFT - RIGHT, plotH = height - TOP - BOTTOM;
  const X = (x) => LEFT + ((x - 1) / Math.max(1, xmax - 1)) * plotW;
  const Y = (v) => TOP + plotH * (1 - (tr(v) - tr(lo)) / (tr(hi) - tr(lo)));

  ctx.font = SMALL; ctx.textAlign = "right"; ctx.lineWidth = 1;
  const yt = cfg.logy ? decades(lo, hi) : niceTicks(lo, hi);
  for (const v of yt) {
    ctx.strokeStyle = GRID; ctx.beginPath(); ctx.moveTo(LEFT, Y(v)); ctx.lineTo(width - RIGHT, Y(v)); ctx.stroke();
    ctx.fillStyle = MUTED; ctx.fillText(tick(v), LEFT - 5, Y(v));
  }
  ctx.textAlign = "center";
  for (const x of stepTicks(xmax, Math.floor(plotW / 34))) ctx.fillText(String(x), X(x), height - BOTTOM + 13);
  ctx.textAlign = "left";
  if (now > 0 && now <= xmax) { // the current step
    ctx.strokeStyle = NOW; ctx.setLineDash([4, 3]); ctx.beginPath(); ctx.moveTo(X(now), TOP); ctx.lineTo(X(now), TOP + plotH); ctx.stroke(); ctx.setLineDash([]);
  }
  const style = styles(lines.map((c) => c.label)); // a role (LSTM, GRU, …) looks the same on every panel and export
  lines.forEach((c, i) => {
    ctx.strokeStyle = style[i].colour; ctx.fillStyle = ctx.strokeStyle; ctx.lineWidth = 2;
    ctx.setLineDash(style[i].dash);
    ctx.beginPath();
    let pen = false;
    c.xs.forEach((x, j) => {
      const v = c.ys[j];
      if (!Number.isFinite(v) || (cfg.logy && v <= 0)) { pen = false; return; }
      if (pen) ctx.lineTo(X(x), Y(v)); else ctx.moveTo(X(x), Y(v));
      pen = true;
    });
    ctx.stroke();
    ctx.setLineDash([]);
    if (c.xs.length <= 64) c.xs.forEach((x, j) => { if (Number.isFinite(c.ys[j]) && !(cfg.logy && c.ys[j] <= 0)) drawMarker(ctx, style[i].marker, X(x), Y(c.ys[j]), 2.5); });
  });
  for (const c of cs.filter((c) => c.marker)) { // clipping fired
    ctx.fillStyle = WRONG.line;
    c.xs.forEach((x, j) => { if (c.ys[j]) { ctx.beginPath(); ctx.moveTo(X(x), TOP + 2); ctx.lineTo(X(x) - 5, TOP - 6 + 2); ctx.lineTo(X(x) + 5, TOP - 6 + 2); ctx.fill(); } });
  }
  legend.forEach((row, r) => { // the legend: rows above the plot, right-aligned
    ctx.font = SMALL;
    let x = width - RIGHT;
    const y = 9 + r * LEGEND;
    for (const { c, label } of row) {
      x -= ctx.measureText(label).width;
      ctx.fillStyle = INK; ctx.fillText(label, x, y);
      x -= 26;
      if (c.marker) { ctx.fillStyle = WRONG.line; ctx.fillRect(x + 8, y - 1, 14, 4); }
      else legendSwatch(ctx, style[lines.indexOf(c)], x + 2, y, 20);
      x -= 14;
    }
  });
  return {
    hit(px) {
      if (px < LEFT || px > width - RIGHT) return null;
      const x = Math.round(1 + ((px - LEFT) / plotW) * Math.max(1, xmax - 1));
      const axis = axisOf(view, cfg.arrays);
      const named = Array.isArray(axis.cols) && axis.cols[x - 1] !== undefined ? `: ${axis.cols[x - 1]}` : "";
      const out = [cfg.source === "train" ? `training step ${x}`
        : axis.col_title ? `${axis.col_title} = ${x}${named}`
        : timed && !hasTimeAxis(view) ? `step ${x}`
        : xmax === timeSteps(view) ? `t = ${x}` : `point ${x}`];
      for (const c of cs) { const j = c.xs.indexOf(x); if (j >= 0) out.push(`${c.label} = ${fmt(c.ys[j])}`); }
      return out.length > 1 ? { lines: out, t: x } : null;
    },
  };
}

// legendRows lays the curves' names out right to left in rows of at most right px
// (a narrow panel, a phone, gets more rows rather than names cut at its left edge);
// each row lists its entries from the right.
function legendRows(ctx, cs, right) {
  ctx.font = SMALL;
  const rows = [[]];
  let used = 0;
  for (const c of [...cs].reverse()) {
    const label = c.marker ? `${c.label} ▼` : c.label;
    const w = ctx.measureText(label).width + 40; // the swatch, its gap and the gap to the next entry
    if (used + w > right && rows.at(-1).length) { rows.push([]); used = 0; }
    rows.at(-1).push({ c, label });
    used += w;
  }
  return rows.reverse(); // the first curves on top
}

// decades are the log axis's ticks: powers of ten (every few when the range is wide),
// with 2× and 5× between them when it spans only a decade or two.
function decades(lo, hi) {
  const out = [];
  const span = Math.log10(hi) - Math.log10(lo);
  const step = Math.max(1, Math.ceil(span / 5));
  for (let e = Math.log10(lo); e <= Math.log10(hi) + 1e-9; e += step) {
    const p = Math.pow(10, e);
    out.push(p);
    if (span <= 2) for (const m of [2, 5]) if (p * m < hi) out.push(p * m);
  }
  return out;
}

// stepTicks labels a step axis 1..xmax with at most n labels: every step when they fit,
// else 1 and the multiples of a round step (1, 2 or 5 × 10^k), never two labels crowded.
function stepTicks(xmax, n) {
  const raw = xmax / Math.max(1, n), mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = raw <= 1 ? 1 : [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = step >= 5 ? [1] : [];
  for (let x = step; x <= xmax; x += step) if (x - (out.at(-1) ?? -step) >= step * 0.75) out.push(x);
  return step === 1 ? Array.from({ length: xmax }, (_, i) => i + 1) : out;
}

// In words (a11y.js): each curve's length, its latest point and its extremes; the
// table has a row per x and a column per curve.
import { stats, cellText } from "./common.js";

function xName(cfg, view) {
  if (cfg.source === "train") return "training step";
  const axis = axisOf(view, cfg.arrays);
  if (axis.col_title) return axis.col_title;
  return "t";
}

export function describe(cfg, view) {
  const cs = curves(cfg, view);
  if (!cs.some((c) => c.xs.length)) return cfg.source === "train" ? "press Train to see the loss" : "step forward to see values";
  const x = xName(cfg, view);
  return cs.filter((c) => c.xs.length).map((c) => {
    if (c.marker) return `${c.label}: fired at ${c.xs.filter((_, j) => c.ys[j]).length} of ${c.xs.length} points`;
    const s = stats(c.ys), j = c.ys.length - 1;
    return `${c.label}, ${c.xs.length} points: ${x === "t" ? "t =" : x} ${c.xs[j]} is ${fmt(c.ys[j])}` +
      (c.xs.length > 1 ? `; lowest ${fmt(s.min)} (${x === "t" ? "t =" : x} ${c.xs[s.imin]}), highest ${fmt(s.max)} (${x === "t" ? "t =" : x} ${c.xs[s.imax]})` : "");
  }).join("; ");
}

export function table(cfg, view) {
  const cs = curves(cfg, view).filter((c) => c.xs.length);
  if (!cs.length) return null;
  const xs = [...new Set(cs.flatMap((c) => c.xs))].sort((a, b) => a - b);
  const at = cs.map((c) => new Map(c.xs.map((x, j) => [x, c.ys[j]])));
  const x = xName(cfg, view);
  return {
    caption: cs.map((c) => c.label).join(", ") + (cfg.source === "train" ? " by training step" : ` by ${x}`),
    head: [x, ...cs.map((c) => c.label)],
    rows: xs.map((v) => [String(v), ...at.map((m) => cellText(m.get(v)))]),
  };
}
