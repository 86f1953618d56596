// bars draws one per-step vector at the current step: one bar per unit, coloured with
// the same scale as the heatmaps, on a fixed axis when the panel has a scale. Bars are
// named by the meta "axes" (col_title: what they count, "n" or "word"; cols: a name
// each), else by the static list the array's declaration names (its Labels: classes,
// vocabulary) when it has a name per bar, else numbered as units.
import { fit, flexHeight, fmt, tick, empty, axisOf, SMALL, MUTED, GRID, INK } from "./common.js";
import { scaleFor, styles, roleOf } from "../colors.js";

const FONT_LABEL = SMALL.replace("11px", "13px");
const LEFT = 44, RIGHT = 10, TOP = 10, BOTTOM = 24, HEIGHT = 190;
const LEGEND = 16; // a row above the bars for the arrays' names when there are several
const VALUE_BAR = 34; // bars at least this wide (CSS px) print their value above them

export function draw(canvas, cfg, view) {
  const { ctx, width, height } = fit(canvas, flexHeight(canvas, HEIGHT));
  const sets = cfg.arrays.map((name, i) => ({ i, name: cfg.legend?.[i] || view.decl(name)?.plain || "", a: view.at(name, view.step) || view.staticArray(name), perStep: !!view.at(name, view.step) })).filter((s) => s.a);
  if (!sets.length) { empty(ctx, width, height, view.step === 0 ? "step forward to see values" : "nothing to show at this step"); return null; }
  const all = sets.flatMap((s) => Array.from(s.a.data));
  const scale = scaleFor(cfg.scale, all);
  let lo = Math.min(0, scale.lo), hi = Math.max(0, scale.hi);
  const n = Math.max(...sets.map((s) => s.a.data.length));
  const several = cfg.arrays.length > 1; // a colour and a legend per array, even while one is absent (a run that stopped)
  const top = several ? TOP + LEGEND : TOP; // the legend's row stays clear of the bars
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
  // units are numbered; a softmax over the lesson's classes is labelled with them
  const axis = axisOf(view, cfg.arrays);
  const names = [axis.cols, ...cfg.arrays.map((a) => view.labelsOf(a))].find((l) => Array.isArray(l) && l.length === n);
  // several arrays: a colour each, a role's where it has one (teacher forcing, with
  // attention), the same while one is absent; one array whose bars are all roles (LSTM,
  // GRU, RNN): their colours; else the colour scale
  const setColour = styles(cfg.arrays.map((name, i) => cfg.legend?.[i] || name)).map((st) => st.colour);
  const roles = names ? names.map((l) => roleOf(l)) : [];
  const barColour = sets.length === 1 && roles.length && roles.every(Boolean) ? roles.map((r) => r.colour) : null;
  sets.forEach((s, si) => {
    for (let i = 0; i < s.a.data.length; i++) {
      const v = s.a.data[i], x = LEFT + i * group + group * 0.1 + si * bw;
      ctx.fillStyle = several ? setColour[s.i] : barColour ? barColour[i] : scale.color(v);
      const y0 = y(0), y1 = y(v);
      ctx.fillRect(x, Math.min(y0, y1), Math.max(1, bw - 1), Math.max(1, Math.abs(y1 - y0)));
      if (cfg.hover && cfg.hover.unit === i) { ctx.strokeStyle = "#f59e0b"; ctx.lineWidth = 2; ctx.strokeRect(x, top, bw, plotH); ctx.lineWidth = 1; }
      if (bw >= VALUE_BAR) { // a wide bar says its value (a score's number on its bar)
        ctx.font = SMALL; ctx.fillStyle = INK;
        ctx.fillText(fmt(v), x + bw / 2 - 0.5, v >= 0 ? Math.max(top + 9, y1 - 4) : Math.min(top + plotH - 2, y1 + 11));
      }
    }
  });
  const label = (i) => (names ? String(names[i]) : String(i + 1));
  const what = (i) => (axis.col_title ? `${axis.col_title} = ${label(i)}` : names ? label(i) : `unit ${i + 1}`);
  const every = Math.max(1, Math.ceil(n / Math.floor(plotW / (names ? 60 : 20))));
  ctx.fillStyle = MUTED;
  if (names) ctx.font = FONT_LABEL;
  for (let i = 0; i < n; i += every) ctx.fillText(label(i), LEFT + (i + 0.5) * group, height - BOTTOM + 12);
  ctx.font = SMALL;
  ctx.textAlign = "left";
  if (several) legend(ctx, sets.map((s) => s.name), sets.map((s) => setColour[s.i]), width - RIGHT);
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

function legend(ctx, names, colours, right) { // one row, right-aligned, as the line panel's
  ctx.font = SMALL; ctx.textAlign = "left";
  let x = right;
  for (let i = names.length - 1; i >= 0; i--) {
    x -= ctx.measureText(names[i]).width;
    ctx.fillStyle = INK; ctx.fillText(names[i], x, 9);
    x -= 14;
    ctx.fillStyle = colours[i]; ctx.fillRect(x, 4, 10, 10);
    x -= 12;
  }
}

// In words (a11y.js): each set of bars summed up, named as the axis names them; the
// table has a row per bar and a column per set.
import { summary, cellText } from "./common.js";

function barSets(cfg, view) {
  const sets = cfg.arrays.map((name, i) => ({ name: cfg.legend?.[i] || name, a: view.at(name, view.step) || view.staticArray(name), perStep: !!view.at(name, view.step) })).filter((s) => s.a);
  const n = Math.max(0, ...sets.map((s) => s.a.data.length));
  const axis = axisOf(view, cfg.arrays);
  const names = [axis.cols, ...cfg.arrays.map((a) => view.labelsOf(a))].find((l) => Array.isArray(l) && l.length === n);
  const what = (i) => (axis.col_title ? `${axis.col_title} ${names ? names[i] : i + 1}` : names ? `“${names[i]}”` : `unit ${i + 1}`);
  return { sets, n, what };
}

export function describe(cfg, view) {
  const { sets, n, what } = barSets(cfg, view);
  if (!sets.length) return view.step === 0 ? "step forward to see values" : "nothing to show at this step";
  const when = sets.some((s) => s.perStep) ? ` at step ${view.step}` : "";
  return `${n} bars${when}: ` + sets.map((s) => `${s.name} ${summary(s.a.data, what)}`).join("; ");
}

export function table(cfg, view) {
  const { sets, n, what } = barSets(cfg, view);
  if (!sets.length) return null;
  return {
    caption: `${sets.map((s) => s.name).join(", ")}` + (sets.some((s) => s.perStep) ? ` at step ${view.step}` : ""),
    head: ["bar", ...sets.map((s) => s.name)],
    rows: Array.from({ length: n }, (_, i) => [what(i), ...sets.map((s) => cellText(s.a.data[i]))]),
  };
}
