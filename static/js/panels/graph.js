// graph draws the unfolded computational graph for the current input: a column per
// time step with the input X_t, one row of hidden nodes per state array (or per layer
// when a step's array is layers × units) and the outputs, arrows for every dependence,
// the current step highlighted. Each hidden node shows its state vector as a small
// colour strip. Static meta "arch" (or "archs", by panel id) picks the lecture's
// architecture: "A" hidden→hidden (default), "B" output→hidden, "C" one output after
// the sequence. Arrays whose name mentions "bwd" or "back" run from the end
// (bidirectional): their step s holds the state at time T − s + 1, so at step s the
// current columns are t = s (forward) and t = T − s + 1 (backward), and an output o_t
// exists once every row has reached t. Input tokens come from static "tokens"; when
// the lesson sends "prompt_len", the tokens after it are the model's own samples and
// x_t is drawn only from step t on (each step's meta "token" names it too).
import { fit, empty, token, fmt, optStatic, optMeta, backward, timeOf, stepOf, inputShown, FONT, SMALL, INK, MUTED, GRID } from "./common.js";
import { scaleFor } from "../colors.js";

const MAX_COLS = 16; // columns drawn; longer sequences show a window around the current step
const MIN_COL_W = 34; // a 20 px node and a 14 px H→H arrow: narrower graphs show fewer columns
const ROW = 58, NODE_W = 46, NODE_H = 30, TOP = 18, LEFT = 48;

function rowsOf(cfg, view) {
  const rows = [];
  for (const name of cfg.arrays) {
    const shape = view.knownShape(name);
    const layers = shape && shape.length === 2 ? shape[0] : 1;
    for (let l = 0; l < layers; l++) rows.push({ name, plain: view.decl(name)?.plain || "", layer: l, layers, backward: backward(view, name), units: shape ? shape[shape.length - 1] : 0 });
  }
  return rows;
}

export function draw(canvas, cfg, view) {
  const rows = rowsOf(cfg, view);
  const arch = optStatic(view, "archs")?.[cfg.id] || optStatic(view, "arch") || "A";
  const nRows = rows.length + 2; // inputs, hidden rows, outputs
  const { ctx, width, height } = fit(canvas, TOP + nRows * ROW);
  if (!view.steps) { empty(ctx, width, height, "waiting for the model…"); return null; }
  const cols = Math.max(1, Math.min(view.steps, MAX_COLS, Math.floor((width - LEFT - 8) / MIN_COL_W)));
  const first = Math.max(1, Math.min(view.steps - cols + 1, view.step - Math.floor(cols / 2)));
  const colW = (width - LEFT - 8) / cols;
  const NW = Math.max(20, Math.min(NODE_W, colW - 16)); // narrower nodes when packed, so the H→H arrows stay visible
  const X = (t) => LEFT + (t - first + 0.5) * colW;
  const Y = (r) => TOP + (nRows - 1 - r) * ROW + ROW / 2; // row 0 (inputs) at the bottom
  const scale = scaleFor(cfg.scale && cfg.scale.length ? cfg.scale : [-1, 1], []);
  const nodes = [];

  ctx.font = SMALL; ctx.fillStyle = MUTED;
  ctx.fillText("X", 4, Y(0)); ctx.fillText("O", 4, Y(nRows - 1));
  // the row's symbol only: a label's trailing "(architecture B)" would run into the nodes
  rows.forEach((r, i) => ctx.fillText(r.layers > 1 ? `H⁽${r.layer + 1}⁾` : r.plain.replace(/\s*\(.*\)$/, ""), 4, Y(i + 1)));
  // the current step's columns: t = step for a forward row, t = T − step + 1 for a backward one
  const current = new Set(view.step > 0 ? (rows.length ? rows : [{ name: "" }]).map((r) => timeOf(view, r.name, view.step)) : []);
  for (const t of current) if (t >= first && t < first + cols) { ctx.fillStyle = "#fef3c7"; ctx.fillRect(X(t) - colW / 2 + 2, 2, colW - 4, height - 4); }
  const arrow = (x1, y1, x2, y2, on, color) => {
    ctx.strokeStyle = on ? color || "#475569" : GRID; ctx.fillStyle = ctx.strokeStyle; ctx.lineWidth = on ? 1.6 : 1;
    const a = Math.atan2(y2 - y1, x2 - x1);
    ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(x2, y2); ctx.lineTo(x2 - 7 * Math.cos(a - 0.4), y2 - 7 * Math.sin(a - 0.4)); ctx.lineTo(x2 - 7 * Math.cos(a + 0.4), y2 - 7 * Math.sin(a + 0.4)); ctx.fill();
  };
  // a polyline with an arrowhead at its end: an arrow that goes around a node
  const bent = (pts, on) => {
    for (let k = 0; k < pts.length - 2; k++) {
      ctx.strokeStyle = on ? "#475569" : GRID; ctx.lineWidth = on ? 1.6 : 1;
      ctx.beginPath(); ctx.moveTo(...pts[k]); ctx.lineTo(...pts[k + 1]); ctx.stroke();
    }
    arrow(...pts[pts.length - 2], ...pts[pts.length - 1], on);
  };
  // Two directions of one layer (a bidirectional RNN) sit in parallel rows, not stacked
  // layers: x_t feeds both, and o_t reads both; the arrows that skip a row go around it.
  const parallel = rows.length > 1 && rows.every((r) => r.layers === 1);
  const last = first + cols - 1;
  const done = (r, t) => view.step > 0 && stepOf(view, r.name, t) <= view.step;
  const outDone = (t) => (rows.length ? rows.every((r) => done(r, t)) : t <= view.step); // o_t needs every direction at t
  const inRead = (t) => (rows.length ? rows.some((r) => done(r, t)) : t <= view.step); // some pass has read x_t
  // arrows first, nodes on top
  for (let t = first; t <= last; t++) {
    rows.forEach((r, i) => {
      const y = Y(i + 1), on = done(r, t);
      const below = i === 0 || rows[i - 1].name !== r.name ? Y(0) : Y(i);
      if (parallel && i > 0) { // from x_t, around the rows below, on the right
        const side = X(t) + NW / 2 + 4;
        bent([[X(t) + NW / 2 - 4, Y(0) - NODE_H / 2], [side, Y(0) - NODE_H / 2 - 6], [side, y + NODE_H / 2 + 6], [X(t) + NW / 2 - 4, y + NODE_H / 2]], on);
      } else if (r.layer === 0) arrow(X(t), Y(0) - NODE_H / 2, X(t), y + NODE_H / 2, on);
      else arrow(X(t), below - NODE_H / 2, X(t), y + NODE_H / 2, on);
      if (parallel && i < rows.length - 1 && arch !== "C") { // to o_t, around the rows above, on the left
        const side = X(t) - NW / 2 - 4, o = Y(nRows - 1) + NODE_H / 2;
        bent([[X(t) - NW / 2 + 4, y - NODE_H / 2], [side, y - NODE_H / 2 - 6], [side, o + 6], [X(t) - NW / 2 + 4, o]], outDone(t));
      }
      const prev = r.backward ? t + 1 : t - 1;
      if (arch !== "B" && prev >= first && prev <= last) {
        const dir = r.backward ? -1 : 1;
        arrow(X(prev) + (dir * NW) / 2, y, X(t) - (dir * NW) / 2, y, on);
      }
      // B: the previous output feeds this hidden state, drawn from o's bottom to H's top across the gap
      if (arch === "B" && t > first && i === rows.length - 1) arrow(X(t - 1) + NW / 4, Y(nRows - 1) + NODE_H / 2, X(t) - NW / 4, y - NODE_H / 2, on, "#15803d");
    });
    const top = rows.length ? Y(rows.length) : Y(0);
    if (arch !== "C" || t === view.steps) arrow(X(t), top - NODE_H / 2, X(t), Y(nRows - 1) + NODE_H / 2, outDone(t));
  }
  const box = (x, y, fill, stroke) => {
    ctx.fillStyle = fill; ctx.strokeStyle = stroke; ctx.lineWidth = 1.2;
    ctx.beginPath(); ctx.roundRect(x - NW / 2, y - NODE_H / 2, NW, NODE_H, 6); ctx.fill(); ctx.stroke();
  };
  const tokens = optStatic(view, "tokens") || [];
  const label = (t) => { // x_t's token, or null while it is not sampled yet
    if (!inputShown(view, t)) return null;
    const s = tokens[t - 1] ?? optMeta(view, "token", view.metaAt(t));
    return s !== undefined ? token(s).slice(0, 5) : `x${t}`;
  };
  ctx.textAlign = "center";
  for (let t = first; t <= last; t++) {
    box(X(t), Y(0), inRead(t) ? "#e0f2fe" : "#fff", "#7dd3fc");
    const s = label(t);
    ctx.font = FONT; ctx.fillStyle = s === null ? MUTED : INK; ctx.fillText(s ?? "?", X(t), Y(0) + 1);
    rows.forEach((r, i) => {
      const y = Y(i + 1);
      const a = view.at(r.name, stepOf(view, r.name, t)); // a backward pass's step s is time T − s + 1
      box(X(t), y, "#fff", done(r, t) ? "#64748b" : "#cbd5e1");
      if (a && done(r, t)) {
        const n = r.units || a.data.length / r.layers, off = r.layer * n, k = Math.min(n, 12);
        for (let u = 0; u < k; u++) { ctx.fillStyle = scale.color(a.data[off + u]); ctx.fillRect(X(t) - NW / 2 + 4 + (u * (NW - 8)) / k, y - 8, (NW - 8) / k + 0.5, 16); }
        nodes.push({ x: X(t), y, t, r, values: Array.from(a.data.slice(off, off + n)) });
      }
    });
    if (arch !== "C" || t === view.steps) {
      box(X(t), Y(nRows - 1), outDone(t) ? "#dcfce7" : "#fff", "#86efac");
      ctx.font = SMALL; ctx.fillStyle = INK; ctx.fillText(`o${t}`, X(t), Y(nRows - 1) + 1);
    }
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(String(t), X(t), height - 6);
  }
  if (arch === "C" && view.steps > last) { // C's one output lies beyond the window
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "right";
    const note = `one output only, after the last step (t = ${view.steps}) →`;
    ctx.fillText(ctx.measureText(note).width < width - LEFT - 8 ? note : `output at t = ${view.steps} →`, width - 8, Y(nRows - 1) + 4);
  }
  ctx.textAlign = "left";
  if (first > 1) { ctx.fillStyle = MUTED; ctx.fillText("…", LEFT - 12, Y(1)); }
  return {
    hit(px, py) {
      const n = nodes.find((n) => Math.abs(px - n.x) <= NW / 2 && Math.abs(py - n.y) <= NODE_H / 2);
      if (!n) return null;
      const lab = n.r.layers > 1 ? `${n.r.plain} layer ${n.r.layer + 1}` : n.r.plain;
      return { lines: [`${lab} at step ${n.t}`, n.values.slice(0, 8).map(fmt).join("  ") + (n.values.length > 8 ? " …" : "")], t: n.t };
    },
  };
}

// In words (a11y.js): the graph's rows and the time steps computed; the table has a
// row per time step with x_t and each state's values (a node's colour strip).
import { summary, plural } from "./common.js";
const A11Y_VALUES = 8; // a state's values in a table cell: the strip shows a dozen, the heatmaps all

const stateAt = (view, r, t) => {
  const s = stepOf(view, r.name, t);
  const a = s >= 1 && s <= view.step ? view.at(r.name, s) : undefined;
  if (!a) return undefined;
  return r.layers > 1 ? a.data.subarray(r.layer * r.units, (r.layer + 1) * r.units) : a.data;
};
const rowName = (r) => (r.layers > 1 ? `${r.name} layer ${r.layer + 1}` : r.name);
const inputWord = (view, t) => {
  const tokens = optStatic(view, "tokens") || [];
  if (!inputShown(view, t)) return "";
  const s = tokens[t - 1] ?? optMeta(view, "token", view.metaAt(t));
  return s !== undefined ? token(String(s)) : "";
};

export function describe(cfg, view) {
  if (!view.steps) return "waiting for the model";
  const rows = rowsOf(cfg, view);
  const arch = optStatic(view, "archs")?.[cfg.id] || optStatic(view, "arch") || "A";
  const head = `the network unrolled over ${plural(view.steps, "time step")}: inputs X, ${rows.map(rowName).join(", ") || "hidden states"}, outputs O (architecture ${arch})`;
  if (view.step === 0) return `${head}; step forward to compute t = 1`;
  const now = rows.map((r) => { const t = timeOf(view, r.name, view.step); const a = t ? stateAt(view, r, t) : undefined; return a ? `${rowName(r)} at t = ${t}: ${summary(a)}` : ""; }).filter(Boolean);
  const x = inputWord(view, view.step);
  return `${head}; step ${view.step}` + (x ? `, x = “${x}”` : "") + (now.length ? `; ${now.join("; ")}` : "");
}

export function table(cfg, view) {
  if (!view.steps || view.step === 0) return null;
  const rows = rowsOf(cfg, view);
  const out = [];
  for (let t = 1; t <= view.steps; t++) {
    const cells = rows.map((r) => { const a = stateAt(view, r, t); return a ? Array.from(a.slice(0, A11Y_VALUES), fmt).join(" ") + (a.length > A11Y_VALUES ? " …" : "") : ""; });
    if (cells.some(Boolean)) out.push([`t = ${t}`, inputWord(view, t), ...cells]);
  }
  return { caption: `The unrolled graph's states up to step ${view.step} (the first ${A11Y_VALUES} values of each)`, head: ["time step", "input x", ...rows.map(rowName)], rows: out };
}
