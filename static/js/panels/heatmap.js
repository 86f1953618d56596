// heatmap draws per-step vectors as a unit × time grid (one column per time step t, one
// row per unit) with a fixed, labelled colour scale and the current time step marked.
// Columns follow common.js's time axis: usually step s fills column s; a per-step array
// declared Backward (a bidirectional RNN's backward direction, BPTT's ∂L/∂H_t) fills
// from the right; on a model with a forward and a backward pass (BPTT) there are T
// columns, and a step whose value is off the axis (H during the backward pass) fills
// none. A static matrix of the same name is drawn as it is
// (rows × columns). A per-step array of shape [L, h] (a deep RNN's layers) is drawn as
// one block per layer. A per-step 0/1 array declared Marker (BPTT's "cut by
// truncation") is no block: the columns where it is 1 are hatched, not filled, and a key
// under the time axis names the hatch, so they differ from columns not computed yet
// (plain grey) without relying on colour.
import { fit, stageRoom, fmt, empty, token, colourBar, optStatic, timeSteps, hasTimeAxis, timeOf, stepOf, nowTime, inputShown, SMALL, INK, MUTED, GRID, NOW } from "./common.js";
import { scaleFor, roleOf } from "../colors.js";

const LEFT = 34, RIGHT = 64, TOP = 8, AXIS = 34; // margins in CSS px: unit labels, colour bar, time axis
const MAX_BLOCK = 240; // tallest block of rows, so h = 64 still fits a laptop screen
const MIN_ROW = 3, MAX_ROW = 18, GAP = 14;
const LAYER_GAP = 5; // between the blocks of a deep RNN's layers, which carry their name inside

// plain is an array's label as a canvas writes it (lessons.PlainLabel), never its name.
const plain = (view, name) => view.decl(name)?.plain || "";

// blocks describes what to draw for each array: rows, columns and a value getter. A
// timed block's column c is time step t = c + 1, computed at scrubber step arrives(c).
function blocks(cfg, view) {
  const out = [];
  const T = timeSteps(view);
  for (const name of cfg.arrays) {
    if (view.decl(name)?.marker) continue; // a mask (masks below), not a block
    const byTime = [];
    let rows = 0;
    for (let s = 1; s <= view.steps; s++) {
      const a = view.at(name, s), t = timeOf(view, name, s);
      if (a && t) { byTime[t] = a.data; rows = Math.max(rows, a.data.length); }
    }
    const arrives = (c) => stepOf(view, name, c + 1);
    const shape = view.knownShape(name);
    if (shape && shape.length === 2 && shape[0] > 1) { // layers × units (deep RNN): a block per layer, the top layer first as in the graph
      const [L, h] = shape;
      for (let l = L - 1; l >= 0; l--) out.push({ name: `${plain(view, name)} layer ${l + 1}`, array: name, layer: l + 1, rows: h, cols: T, timed: true, arrives, value: (r, c) => byTime[c + 1]?.[l * h + r] });
      continue;
    }
    if (rows > 0 || view.known(name)) {
      out.push({ name: plain(view, name), array: name, rows: rows || view.known(name) || 1, cols: T, timed: true, arrives, value: (r, c) => byTime[c + 1]?.[r] });
      continue;
    }
    const st = view.staticArray(name);
    if (st) {
      const [r, c] = st.shape.length === 2 ? st.shape : [st.shape[0] || st.data.length, 1];
      out.push({ name: plain(view, name), array: name, rows: r, cols: c, timed: c === T, arrives: (j) => j + 1, value: (i, j) => st.data[i * c + j] });
    }
  }
  return out;
}

// masks lists the panel's Marker arrays: each with its label and the set of time steps
// t where it is 1 at the current step.
function masks(cfg, view) {
  return cfg.arrays.filter((name) => view.decl(name)?.marker).map((name) => {
    const on = new Set();
    for (let s = 1; s <= view.step; s++) {
      const a = view.at(name, s), t = timeOf(view, name, s);
      if (a && t && a.data[0]) on.add(t);
    }
    return { label: plain(view, name), on };
  });
}

const KEY = 18; // the height of the hatch key under the time axis

// hatch draws diagonal lines over the box (x, y, w, h) on a light ground.
function hatch(ctx, x, y, w, h) {
  ctx.save();
  ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip();
  ctx.fillStyle = "#ffffff"; ctx.fillRect(x, y, w, h);
  ctx.strokeStyle = MUTED; ctx.lineWidth = 1;
  ctx.beginPath();
  for (let d = -h; d < w + h; d += 5) { ctx.moveTo(x + d, y + h); ctx.lineTo(x + d + h, y); }
  ctx.stroke();
  ctx.restore();
}

export function draw(canvas, cfg, view) {
  const bs = blocks(cfg, view), ms = masks(cfg, view);
  const masked = (c) => ms.some((m) => m.on.has(c + 1));
  const rowH = bs.map((b) => Math.max(MIN_ROW, Math.min(MAX_ROW, Math.floor(MAX_BLOCK / b.rows))));
  const layered = bs.length > 1 && bs.every((b) => b.layer);
  const directions = new Set(bs.map((b) => b.array)).size > 1; // layered blocks of two arrays (a bidirectional stack's →H and ←H): each tag names its array
  const named = bs.length > 1 && !layered;
  const gap = (i) => (named ? GAP : layered && i > 0 ? LAYER_GAP : 0);
  // On the stage (present.js sets maxHeight) the rows shrink to the stage's room, down
  // to MIN_ROW: the lesson's main map stays whole beside the equations.
  const fixed = TOP + AXIS + (ms.length ? KEY : 0) + bs.reduce((s, b, i) => s + gap(i), 0);
  const cap = stageRoom(canvas), rowsH = bs.reduce((s, b, i) => s + b.rows * rowH[i], 0);
  if (rowsH > 0 && fixed + rowsH > cap) rowH.forEach((h, i) => { rowH[i] = Math.max(MIN_ROW, Math.floor(h * (cap - fixed) / rowsH)); });
  const height = fixed + bs.reduce((s, b, i) => s + b.rows * rowH[i], 0) + (bs.length ? 0 : 60);
  const { ctx, width } = fit(canvas, Math.max(90, height));
  if (!bs.length || view.steps === 0) { empty(ctx, width, 90, view.steps ? "step forward to fill the heatmap" : "waiting for the model…"); return null; }

  const values = [];
  for (const b of bs) for (let r = 0; r < b.rows; r++) for (let c = 0; c < b.cols; c++) { const v = b.value(r, c); if (v !== undefined) values.push(v); }
  const scale = scaleFor(optStatic(view, "scales")?.[cfg.id] || cfg.scale, values); // a lesson may fix a panel's scale for its current values
  const plotW = width - LEFT - RIGHT;
  const geo = [];
  let y = TOP;
  bs.forEach((b, bi) => {
    const h = rowH[bi], cw = plotW / b.cols;
    if (named) { // a model's name with its role's colour (LSTM, GRU, RNN), as on the other panels
      const role = roleOf(b.name);
      if (role) { ctx.fillStyle = role.colour; ctx.fillRect(LEFT, y + 1, 10, 10); }
      ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(b.name, LEFT + (role ? 14 : 0), y + 6); y += GAP;
    }
    else if (layered && bi > 0) y += LAYER_GAP;
    for (let c = 0; c < b.cols; c++) {
      const live = !b.timed || b.arrives(c) <= view.step;
      if (live && b.timed && masked(c)) { hatch(ctx, LEFT + c * cw, y, Math.ceil(cw), b.rows * h); continue; }
      for (let r = 0; r < b.rows; r++) {
        const v = live ? b.value(r, c) : undefined;
        ctx.fillStyle = v === undefined ? "#f3f4f6" : scale.color(v);
        ctx.fillRect(LEFT + c * cw, y + r * h, Math.ceil(cw), Math.ceil(h));
      }
    }
    ctx.strokeStyle = GRID; ctx.lineWidth = 1;
    ctx.strokeRect(LEFT + 0.5, y + 0.5, plotW - 1, b.rows * h - 1);
    if (layered) { // the layer's name on a light tag inside its block
      const label = directions ? `${plain(view, b.array)}, layer ${b.layer}` : `layer ${b.layer}`;
      ctx.font = SMALL; const w = ctx.measureText(label).width + 8;
      ctx.fillStyle = "rgba(255,255,255,0.85)"; ctx.fillRect(LEFT + plotW - w - 2, y + 2, w, 14);
      ctx.fillStyle = INK; ctx.fillText(label, LEFT + plotW - w + 2, y + 9);
    }
    if (cfg.hover && cfg.hover.block === bi) { // the hovered unit's row
      ctx.strokeStyle = "#f59e0b"; ctx.lineWidth = 2;
      ctx.strokeRect(LEFT, y + cfg.hover.row * h, plotW, h);
    }
    // unit labels: first, last and a few between
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "right";
    const every = Math.max(1, Math.ceil(b.rows / Math.max(1, Math.floor((b.rows * h) / 16))));
    for (let r = 0; r < b.rows; r += every) ctx.fillText(String(r + 1), LEFT - 4, y + r * h + h / 2);
    ctx.textAlign = "left";
    geo.push({ b, y, h, cw });
    y += b.rows * h;
  });

  // time axis: time steps, and the input tokens when the lesson has them
  const tokens = optStatic(view, "tokens");
  const T = timeSteps(view), cw = plotW / T;
  const cur = view.step > 0 ? nowTime(view, cfg.arrays) : 0; // the time step being computed
  ctx.font = SMALL; ctx.textAlign = "center";
  const labelEvery = Math.max(1, Math.ceil(T / Math.floor(plotW / 22)));
  for (let t = 1; t <= T; t++) {
    const x = LEFT + (t - 0.5) * cw;
    if (t === cur) { ctx.font = "bold " + SMALL; ctx.fillStyle = INK; ctx.fillText(String(t), x, y + 9); ctx.font = SMALL; }
    else if (t % labelEvery === 0 || t === 1) {
      if (Math.abs(t - cur) * cw >= 16 || cur === 0) { ctx.fillStyle = MUTED; ctx.fillText(String(t), x, y + 9); }
    }
    if (Array.isArray(tokens) && tokens[t - 1] !== undefined && cw >= 9 && inputShown(view, t)) {
      ctx.fillStyle = t === cur ? INK : MUTED;
      ctx.fillText(token(tokens[t - 1]).slice(0, Math.max(1, Math.floor(cw / 7))), x, y + 23);
    }
  }
  ctx.textAlign = "left";
  // the key: what a hatched column and a plain grey one mean
  if (ms.length) {
    const ky = y + AXIS + 6;
    let kx = LEFT;
    ctx.save(); ctx.font = SMALL; ctx.textBaseline = "middle";
    for (const m of ms) {
      hatch(ctx, kx, ky - 6, 14, 12); ctx.strokeStyle = GRID; ctx.strokeRect(kx + 0.5, ky - 5.5, 13, 11);
      ctx.fillStyle = INK; ctx.fillText(m.label, kx + 18, ky);
      kx += 24 + ctx.measureText(m.label).width;
    }
    ctx.fillStyle = "#f3f4f6"; ctx.fillRect(kx, ky - 6, 14, 12); ctx.strokeStyle = GRID; ctx.strokeRect(kx + 0.5, ky - 5.5, 13, 11);
    ctx.fillStyle = INK; ctx.fillText("not computed yet", kx + 18, ky);
    ctx.restore();
  }
  // the current time step: an outlined column
  if (cur >= 1 && cur <= T) {
    const x = LEFT + (cur - 1) * cw;
    ctx.strokeStyle = NOW; ctx.lineWidth = 2;
    ctx.strokeRect(x + 1, TOP + (named ? GAP : 0) - 1, Math.max(2, cw - 2), y - TOP - (named ? GAP : 0) + 2);
  }
  colourBar(ctx, scale, width - RIGHT + 12, TOP + (named ? GAP : 0), Math.min(y - TOP, 200));

  return {
    hit(px, py) {
      for (let i = 0; i < geo.length; i++) {
        const g = geo[i];
        if (py < g.y || py >= g.y + g.b.rows * g.h || px < LEFT || px >= LEFT + plotW) continue;
        const row = Math.floor((py - g.y) / g.h), col = Math.floor((px - LEFT) / g.cw);
        const t = col + 1;
        const when = hasTimeAxis(view) ? `t = ${t}` : `step ${t}`; // BPTT's columns are time steps, not the scrubber's
        if (g.b.timed && g.b.arrives(col) > view.step) return { lines: [`${g.b.name}: unit ${row + 1}, ${when}`, `not computed yet (step ${g.b.arrives(col)})`], block: i, row };
        const mask = g.b.timed && ms.find((m) => m.on.has(t));
        if (mask) return { lines: [`${g.b.name}: unit ${row + 1}, ${when}`, `${mask.label}: no value (hatched)`], block: i, row, t };
        const v = g.b.value(row, col);
        const where = g.b.timed ? `unit ${row + 1}, ${when}` : `row ${row + 1}, column ${col + 1}`;
        return { lines: [`${g.b.name}: ${where}`, `value ${fmt(v)}`], block: i, row, t };
      }
      return null;
    },
  };
}


// In words (a11y.js): each block's size and the current time step's column; the
// table has a row per unit and a column per time step computed so far.
import { summary, plural, cellText } from "./common.js";
const A11Y_BLOCKS = 4; // blocks named in the label: a deep RNN's layers; the table has them all

const liveCol = (b, view, c) => !b.timed || b.arrives(c) <= view.step;
const colOf = (b, view, c) => Array.from({ length: b.rows }, (_, r) => b.value(r, c)).filter((v) => v !== undefined);

export function describe(cfg, view) {
  const bs = blocks(cfg, view);
  if (!bs.length || !view.steps) return "waiting for the model";
  const cur = view.step > 0 ? nowTime(view, cfg.arrays) : 0;
  const words = bs.slice(0, A11Y_BLOCKS).map((b) => {
    if (!b.timed) {
      const all = [];
      for (let r = 0; r < b.rows; r++) for (let c = 0; c < b.cols; c++) all.push(b.value(r, c));
      return `${b.name}, ${b.rows} × ${b.cols} matrix: ${summary(all, (i) => `row ${Math.floor(i / b.cols) + 1}, column ${(i % b.cols) + 1}`)}`;
    }
    const size = `${b.name}, ${plural(b.rows, "unit")} × ${plural(b.cols, "step")}`;
    const col = cur >= 1 && cur <= b.cols && liveCol(b, view, cur - 1) ? colOf(b, view, cur - 1) : [];
    return `${size}; ` + (col.length ? `at t = ${cur}: ${summary(col)}` : view.step === 0 ? "step forward to compute it" : cur ? `nothing at t = ${cur}` : `nothing yet at step ${view.step}`);
  });
  const hatched = masks(cfg, view).filter((m) => m.on.size).map((m) => `${plural(m.on.size, "column")} hatched: ${m.label}`);
  return [...words, ...hatched].join(". ") + (bs.length > A11Y_BLOCKS ? `. ${bs.length - A11Y_BLOCKS} more in the table` : "");
}

export function table(cfg, view) {
  const tokens = optStatic(view, "tokens"), ms = masks(cfg, view);
  const maskOf = (c) => ms.find((m) => m.on.has(c + 1));
  return blocks(cfg, view).map((b) => {
    const cols = [];
    for (let c = 0; c < b.cols; c++) if (liveCol(b, view, c)) cols.push(c);
    const name = (c) => {
      if (!b.timed) return `column ${c + 1}`;
      const tok = Array.isArray(tokens) && tokens[c] !== undefined && inputShown(view, c + 1) ? ` “${token(tokens[c])}”` : "";
      return `t = ${c + 1}${tok}`;
    };
    return {
      caption: `${b.name} at step ${view.step}` + (b.timed ? ": a row per unit, a column per time step computed" : ""),
      head: [b.timed ? "unit" : "row", ...cols.map(name)],
      rows: cols.length ? Array.from({ length: b.rows }, (_, r) => [`${b.timed ? "unit" : "row"} ${r + 1}`, ...cols.map((c) => (b.timed && maskOf(c) ? maskOf(c).label : cellText(b.value(r, c))))]) : [],
    };
  }).filter((t) => t.rows.length);
}
