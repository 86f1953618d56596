// bars draws one per-step vector at the current step: one bar per unit, coloured with
// the same scale as the heatmaps, on a fixed axis when the panel has a scale. Bars are
// named by the meta "axes" (col_title: what they count, "n" or "word"; cols: a name
// each), else by the static list the array's declaration names (its Labels: classes,
// vocabulary) when it has a name per bar, else numbered as units.
import { fit, flexHeight, fmt, tick, empty, axisOf, SMALL, MUTED, GRID, INK } from "./common.js";
import { scaleFor, SERIES } from "../colors.js";

const FONT_LABEL = SMALL.replace("11px", "13px");
const LEFT = 44, RIGHT = 10, TOP = 10, BOTTOM = 24, HEIGHT = 190;
const LEGEND = 16; // a row above the bars for the arrays' names when there are several

export function draw(canvas, cfg, view) {
  const { ctx, width, height } = fit(canvas, flexHeight(canvas, HEIGHT));
  const sets = cfg.arrays.map((name, i) => ({ name: cfg.legend?.[i] || view.decl(name)?.plain || "", a: view.at(name, view.step) || view.staticArray(name), perStep: !!view.at(name, view.step) })).filter((s) => s.a);
  if (!sets.length) { empty(ctx, width, height, view.step === 0 ? "step forward to see values" : "nothing to show at this step"); return null; }
  const all = sets.flatMap((s) => Array.from(s.a.data));
  const scale = scaleFor(cfg.scale, all);
  let lo = Math.min(0, scale.lo), hi = Math.max(0, scale.hi);
  const n = Math.max(...sets.map((s) => s.a.data.length));
  const top = sets.length > 1 ? TOP + LEGEND : TOP; // the legend's row stays clear of the bars
  const plotW = width - LEFT - RIGHT, plotH = height - top - BOTTOM;
  const y = (v) => top + plotH * (1 - (Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo));
  // axis and grid
  ctx.font = SMALL; ctx.textAlign = "right";
  for (const v of [lo, (lo + hi) / 2, hi, 0]) {
    ctx.strokeStyle = v === 0 ? "#9ca3af" : GRID; ctx.beginPath(); ctx.moveTo(LEFT, y(v)); ctx.lineTo(width - RIGHT, y(v)); ctx.stroke();
    ctx.fillStyle = MUTED; ctx.fillText(tick(v), LEFT - 5, y(v));
  }
  ctx.textAlign = "center";
  const group = plotW / n, bw = Math.max(1, (group * 0.8) / sets.length);
  sets.forEach((s, si) => {
    for (let i = 0; i < s.a.data.length; i++) {
      const v = s.a.data[i], x = LEFT + i * group + group * 0.1 + si * bw;
      ctx.fillStyle = sets.length > 1 ? SERIES[si % SERIES.length] : scale.color(v);
      const y0 = y(0), y1 = y(v);
      ctx.fillRect(x, Math.min(y0, y1), Math.max(1, bw - 1), Math.max(1, Math.abs(y1 - y0)));
      if (cfg.hover && cfg.hover.unit === i) { ctx.strokeStyle = "#f59e0b"; ctx.lineWidth = 2; ctx.strokeRect(x, top, bw, plotH); ctx.lineWidth = 1; }
    }
  });
  // units are numbered; a softmax over the lesson's classes is labelled with them
  const axis = axisOf(view, cfg.arrays);
  const names = [axis.cols, ...cfg.arrays.map((a) => view.labelsOf(a))].find((l) => Array.isArray(l) && l.length === n);
  const label = (i) => (names ? String(names[i]) : String(i + 1));
  const what = (i) => (axis.col_title ? `${axis.col_title} = ${label(i)}` : names ? label(i) : `unit ${i + 1}`);
  const every = Math.max(1, Math.ceil(n / Math.floor(plotW / (names ? 60 : 20))));
  ctx.fillStyle = MUTED;
  if (names) ctx.font = FONT_LABEL;
  for (let i = 0; i < n; i += every) ctx.fillText(label(i), LEFT + (i + 0.5) * group, height - BOTTOM + 12);
  ctx.font = SMALL;
  ctx.textAlign = "left";
  if (sets.length > 1) legend(ctx, sets.map((s) => s.name), width - RIGHT);
  return {
    hit(px, py) {
      if (px < LEFT || px >= width - RIGHT || py < top || py > top + plotH) return null;
      const i = Math.floor((px - LEFT) / group);
      const lines = [sets.some((s) => s.perStep) ? `${what(i)}, step ${view.step}` : what(i)]; // static bars do not change with the step
      for (const s of sets) lines.push(`${s.name} = ${fmt(s.a.data[i])}`);
      return { lines, unit: i, t: view.step };
    },
  };
}

function legend(ctx, names, right) { // one row, right-aligned, as the line panel's
  ctx.font = SMALL; ctx.textAlign = "left";
  let x = right;
  for (let i = names.length - 1; i >= 0; i--) {
    x -= ctx.measureText(names[i]).width;
    ctx.fillStyle = INK; ctx.fillText(names[i], x, 9);
    x -= 14;
    ctx.fillStyle = SERIES[i % SERIES.length]; ctx.fillRect(x, 4, 10, 10);
    x -= 12;
  }
}
