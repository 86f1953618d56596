// alignment draws a matrix with labelled rows and columns, such as attention weights
// α_t'j (rows = output tokens, columns = source tokens). A per-step vector array adds
// one row per step: row t is step t's vector, rows not computed yet stay blank and the
// current row is framed. A static [rows, cols] array is drawn whole. Labels and titles
// come from the static meta "axes"[array] = {rows, cols, row_title, col_title, value,
// mask}: value names a cell's value in the tooltip, and mask names a static array of
// the same shape, 1 where a cell is allowed and 0 where it is masked (drawn hatched,
// weight exactly 0); a per-step array may name one too, a row per step.
import { fit, room, stageRoom, fmt, empty, token, colourBar, FONT, SMALL, INK, MUTED, GRID, NOW } from "./common.js";
import { scaleFor } from "../colors.js";

const TITLE = 18; // the axis titles' line above the matrix
const RIGHT = 54; // the colour bar and its ticks
const MAX_CELL = 40, MIN_ROW = 16; // a cell is square up to MAX_CELL; rows stay readable
const VALUE_CELL = 28; // cells at least this wide print their weight
const VALUE_MIN = 0.1; // smaller weights are not printed: the large ones stand out
const LABEL_CHARS = 12; // longer labels are cut
const TURNED = 11; // the spacing turned column labels need

// matrix describes what to draw: rows, columns, a value getter, which rows exist yet.
function matrix(cfg, view) {
  const name = cfg.arrays[0];
  const axes = (view.static.axes || {})[name] || {};
  if (view.known(name)) { // one row per step
    let cols = 0;
    const rows = [];
    for (let t = 1; t <= view.steps; t++) { const a = view.at(name, t); rows[t - 1] = a && a.data; if (a) cols = Math.max(cols, a.data.length); }
    cols = cols || view.known(name);
    const mask = axes.mask && view.staticArray(axes.mask); // [steps, cols], 1 where allowed (a decoder's causal mask)
    const mc = mask && mask.shape.length === 2 ? mask.shape[1] : cols;
    return { name, axes, rows: view.steps, cols, timed: true, value: (r, c) => (r < view.step && rows[r] ? rows[r][c] : undefined), allowed: (i, j) => !mask || mask.data[i * mc + j] !== 0 };
  }
  const s = view.staticArray(name);
  if (!s) return null;
  const [r, c] = s.shape.length === 2 ? s.shape : [1, s.data.length];
  const m = axes.mask && view.staticArray(axes.mask);
  return { name, axes, rows: r, cols: c, timed: false, value: (i, j) => s.data[i * c + j], allowed: (i, j) => !m || m.data[i * c + j] !== 0 };
}

const label = (s) => { const t = token(s ?? ""); return t.length > LABEL_CHARS ? t.slice(0, LABEL_CHARS - 1) + "…" : t; };

export function draw(canvas, cfg, view) {
  const m = matrix(cfg, view);
  const width = room(canvas);
  if (!m || !m.rows || !m.cols) { const { ctx } = fit(canvas, 90); empty(ctx, width, 90, "waiting for the model…"); return null; }
  const rowLabels = (m.axes.rows || []).map(label), colLabels = (m.axes.cols || []).map(label);
  const probe = canvas.getContext("2d");
  probe.font = FONT;
  const left = 10 + Math.max(24, ...rowLabels.map((s) => probe.measureText(s).width));
  const cell = Math.max(6, Math.min(MAX_CELL, Math.floor((width - left - RIGHT) / m.cols)));
  let rowH = Math.max(MIN_ROW, Math.min(MAX_CELL, cell));
  const colW = Math.max(0, ...colLabels.map((s) => probe.measureText(s).width));
  // every column is labelled when the labels fit (turned if need be); numbers (units)
  // are labelled upright at a round interval instead
  const numeric = colLabels.length > 0 && colLabels.every((s) => /^\d+$/.test(s));
  const every = numeric ? [1, 2, 4, 8, 16, 32].find((k) => k * cell >= colW + 6) || 64 : Math.max(1, Math.ceil(Math.min(colW + 4, TURNED) / cell));
  const upright = colW + 4 <= every * cell; // else the column labels are turned
  const labelled = (c) => (numeric ? c === 0 || (c + 1) % every === 0 : c % every === 0);
  const top = TITLE + (upright ? 18 : Math.min(80, colW * 0.75 + 12));
  // on the stage (present.js sets maxHeight) rows shrink to its room, down to MIN_ROW
  const cap = stageRoom(canvas);
  if (cap < Infinity) rowH = Math.max(MIN_ROW, Math.min(rowH, Math.floor((cap - top - 8) / m.rows)));
  const gridW = cell * m.cols, gridH = rowH * m.rows;
  const { ctx } = fit(canvas, top + gridH + 8, left + gridW + RIGHT); // at the least cell width the grid may be wider than the panel: it scrolls

  const values = [];
  for (let r = 0; r < m.rows; r++) for (let c = 0; c < m.cols; c++) { const v = m.value(r, c); if (v !== undefined) values.push(v); }
  const scale = scaleFor(cfg.scale, values);
  const cur = m.timed ? view.step - 1 : -1; // the current row
  const curRow = cur >= 0 ? Array.from({ length: m.cols }, (_, c) => m.value(cur, c) ?? -1) : null;
  const focus = curRow && !scale.diverging ? curRow.indexOf(Math.max(...curRow)) : -1; // the column the current row weighs most

  // axis titles
  ctx.font = SMALL; ctx.fillStyle = MUTED;
  ctx.fillText(`rows: ${m.axes.row_title || "row"} · columns: ${m.axes.col_title || "column"}`, 0, 8);

  // cells
  ctx.font = SMALL; ctx.textAlign = "center";
  for (let r = 0; r < m.rows; r++) for (let c = 0; c < m.cols; c++) {
    const x = left + c * cell, y = top + r * rowH, v = m.value(r, c);
    if (!m.allowed(r, c)) { hatch(ctx, x, y, cell, rowH); continue; }
    ctx.fillStyle = v === undefined ? "#eceef2" : scale.color(v);
    ctx.fillRect(x, y, cell, rowH);
    if (v !== undefined && cell >= VALUE_CELL && rowH >= MIN_ROW && v >= VALUE_MIN) {
      ctx.fillStyle = (v - scale.lo) / (scale.hi - scale.lo) > 0.55 ? INK : "#ffffff";
      ctx.fillText(v.toFixed(2).replace(/^0/, ""), x + cell / 2, y + rowH / 2 + 1);
    }
  }
  ctx.strokeStyle = "#ffffff"; ctx.lineWidth = 1; // rows still to come are empty slots
  for (let r = Math.max(0, cur + 1); m.timed && r < m.rows; r++) { ctx.beginPath(); ctx.moveTo(left, top + r * rowH + 0.5); ctx.lineTo(left + gridW, top + r * rowH + 0.5); ctx.stroke(); }
  ctx.strokeStyle = GRID;
  ctx.strokeRect(left + 0.5, top + 0.5, gridW - 1, gridH - 1);

  // row labels (a per-step row is labelled once it is computed)
  ctx.font = FONT; ctx.textAlign = "right";
  for (let r = 0; r < m.rows; r++) {
    const shown = !m.timed || r <= cur;
    ctx.font = r === cur ? "bold " + FONT : FONT;
    ctx.fillStyle = r === cur ? INK : shown ? MUTED : "#c4c9d2";
    ctx.fillText(shown ? rowLabels[r] ?? String(r + 1) : "·", left - 6, top + r * rowH + rowH / 2 + 1);
  }
  // column labels, upright when they fit, else turned
  for (let c = 0; c < m.cols; c++) {
    if (!labelled(c)) continue;
    const s = colLabels[c] ?? String(c + 1), x = left + c * cell + cell / 2;
    ctx.font = c === focus ? "bold " + FONT : FONT;
    ctx.fillStyle = c === focus ? INK : MUTED;
    if (upright) { ctx.textAlign = "center"; ctx.fillText(s, x, top - 9); continue; }
    ctx.save(); ctx.translate(x + 3, top - 5); ctx.rotate(-Math.PI / 4); ctx.textAlign = "left"; ctx.fillText(s, 0, 0); ctx.restore();
  }
  ctx.textAlign = "left"; ctx.font = FONT;

  if (cur >= 0 && cur < m.rows) { // the current row
    ctx.strokeStyle = NOW; ctx.lineWidth = 2;
    ctx.strokeRect(left + 1, top + cur * rowH + 1, gridW - 2, rowH - 2);
  }
  colourBar(ctx, scale, left + gridW + 12, top, Math.min(gridH, 160));

  return {
    hit(px, py) {
      if (px < left || px >= left + gridW || py < top || py >= top + gridH) return null;
      const r = Math.floor((py - top) / rowH), c = Math.floor((px - left) / cell);
      const rowName = m.timed && r > cur ? "" : ` ${JSON.stringify(String(m.axes.rows?.[r] ?? r + 1))}`; // a row to come keeps its token to itself
      const where = `${m.axes.row_title || "row"}${rowName} (row ${r + 1}) → ${m.axes.col_title || "column"} ${JSON.stringify(String(m.axes.cols?.[c] ?? c + 1))} (column ${c + 1})`;
      if (!m.allowed(r, c)) return { lines: [where, "masked: weight exactly 0"] };
      const v = m.value(r, c);
      if (v === undefined) return { lines: [where, "not computed yet"] };
      return { lines: [where, `${m.axes.value || "value"} = ${fmt(v)}`], t: m.timed ? r + 1 : undefined };
    },
  };
}

// hatch draws a masked cell: light, with diagonal strokes.
function hatch(ctx, x, y, w, h) {
  ctx.fillStyle = "#f8fafc"; ctx.fillRect(x, y, w, h);
  ctx.save();
  ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip();
  ctx.strokeStyle = "#cbd5e1"; ctx.lineWidth = 1;
  for (let d = -h; d < w; d += 6) { ctx.beginPath(); ctx.moveTo(x + d, y + h); ctx.lineTo(x + d + h, y); ctx.stroke(); }
  ctx.restore();
}


// In words (a11y.js): the matrix's size and, for the newest row, where its weight
// goes; the table has a row per row computed so far (a row to come stays unnamed, as
// on the canvas) and a column per column label.
import { stats, cellText } from "./common.js";

function rowWords(m, r) {
  const vals = Array.from({ length: m.cols }, (_, c) => (m.allowed(r, c) ? m.value(r, c) : undefined)).map((v) => (v === undefined ? NaN : v));
  const s = stats(vals);
  return s.n ? `${m.axes.row_title || "row"} ${JSON.stringify(String(m.axes.rows?.[r] ?? r + 1))}: most ${m.axes.value || "weight"} ${fmt(s.max)} on ${m.axes.col_title || "column"} ${JSON.stringify(String(m.axes.cols?.[s.imax] ?? s.imax + 1))}` : "";
}

export function describe(cfg, view) {
  const m = matrix(cfg, view);
  if (!m) return "nothing to show";
  const size = `${m.name}, ${m.rows} ${m.axes.row_title || "rows"} × ${m.cols} ${m.axes.col_title || "columns"}`;
  if (!m.timed) return `${size}; ` + Array.from({ length: Math.min(m.rows, 3) }, (_, r) => rowWords(m, r)).filter(Boolean).join("; ");
  const r = Math.min(view.step, m.rows) - 1;
  return r < 0 ? `${size}; step forward to fill its rows` : `${size}; at step ${view.step}, ${rowWords(m, r) || "no weights"}`;
}

export function table(cfg, view) {
  const m = matrix(cfg, view);
  if (!m) return null;
  const n = m.timed ? Math.min(view.step, m.rows) : m.rows;
  return {
    caption: `${m.name}: ${m.axes.value || "values"}, a row per ${m.axes.row_title || "row"}, a column per ${m.axes.col_title || "column"}` + (m.timed ? ` (rows up to step ${view.step})` : ""),
    head: [m.axes.row_title || "row", ...Array.from({ length: m.cols }, (_, c) => String(m.axes.cols?.[c] ?? c + 1))],
    rows: Array.from({ length: n }, (_, r) => [String(m.axes.rows?.[r] ?? r + 1), ...Array.from({ length: m.cols }, (_, c) => (m.allowed(r, c) ? cellText(m.value(r, c)) : "masked"))]),
  };
}
