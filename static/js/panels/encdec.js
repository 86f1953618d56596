// encdec draws the encoder-decoder of lecture 4.6 (Figures 14 and 15) for one
// sentence: the encoder's columns (token x_t below, state h_t above it), the context c,
// then one band per decoder run (static "dec_rows": label and the per-step meta keys
// of its input, output and correctness, the array of its state, and "feedback" when
// it reads its own previous output), each column with
// the input y_{t'-1} below, the state s_t' and the output above. Steps 1..T
// (static "enc_steps") are the encoder's, step T+1 the context's, the rest the
// decoder's; a column appears when its step has been computed, and the current step is
// highlighted. Outputs are green and ✓ when meta says they are correct, orange and ✗
// when not, and a run's label has its role's colour (as on the other panels); a
// run's first divergence (meta "diverges_here") is circled in red. Source tokens the
// vocabulary reads as <unk> (static "source_unk") and <unk> tokens of the decoder are
// drawn red. Columns share the panel's width while they are at least MIN_COL wide (or
// as wide as the longest token needs); a longer sentence gets columns as wide as its
// longest token needs (in the small font, up to MAX_COL), and the diagram scrolls
// sideways, keeping the current step in view.
import { fit, room, zoomOf, stageRoom, empty, shown, EMOJI, fmt, FONT, SMALL, INK, MUTED, GRID, optMeta } from "./common.js";
import { scaleFor, roleOf, verdictBadge, CORRECT, WRONG } from "../colors.js";

// sub writes a whole number as a subscript, as the lecture sets h_3: h₃.
const sub = (n) => String(n).replace(/[0-9]/g, (d) => "₀₁₂₃₄₅₆₇₈₉"[d]);
const LEFT = 58, RIGHT = 8, BAND_GAP = 10;
const HEAD_H = 32, ROW_H = 48, NODE = 32; // a band's heading, its three rows and a node, at full height
const SQUEEZE = 0.45; // on the stage the rows close up to this share of their height at most (the text keeps its size)
const MAX_COL = 96; // widest column, so a short sentence does not spread over the panel
const MIN_COL = 48; // narrowest column before the diagram scrolls: a 38 px node still shows five or six letters
const STRIP = 12; // units shown in a node's colour strip
const UNK_FILL = "#fecaca", UNK_LINE = "#dc2626"; // as the mt-data tables mark <unk>
const UNK = "<unk>";
const lastStep = new WeakMap(); // canvas → the step it last scrolled to

// clipText shortens s to fit w pixels in the current font.
function clipText(ctx, s, w) {
  if (ctx.measureText(s).width <= w) return s;
  let out = s;
  while (out.length > 1 && ctx.measureText(out + "…").width > w) out = out.slice(0, -1);
  return out + "…";
}

export function draw(canvas, cfg, view) {
  const T = Number(view.static.enc_steps) || 0;
  const rows = Array.isArray(view.static.dec_rows) ? view.static.dec_rows : [];
  const D = Math.max(0, view.steps - T - 1);
  // On the stage (presenter mode gives the room, stageRoom) a diagram of two runs is
  // taller than the room: its rows close up, down to SQUEEZE, rather than it leaving.
  const gaps = Math.max(0, rows.length - 1) * BAND_GAP, full = rows.length * (HEAD_H + 3 * ROW_H);
  const cap = stageRoom(canvas);
  const k = rows.length && cap < full + gaps + 24 ? Math.max(SQUEEZE, Math.min(1, (cap - gaps - 24) / full)) : 1;
  const HEAD = HEAD_H * k, ROW = ROW_H * k, NODE_H = Math.min(NODE, ROW - 4);
  const bandH = HEAD + 3 * ROW;
  const height = 6 + rows.length * bandH + Math.max(0, rows.length - 1) * BAND_GAP + 18;
  const cols = T + 1 + D;
  // the column width every token needs in the small font (the outputs the decoder
  // will write are in the translation and, for seq2seq, the labels)
  const probe = canvas.getContext("2d");
  probe.font = SMALL;
  const words = [...(view.static.source || []), ...(view.static.tokens || []), ...String(view.static.translation || "").split(" ")];
  const need = Math.min(MAX_COL, Math.max(MIN_COL, ...words.map((w) => probe.measureText(shown(w)).width + 14)));
  const avail = room(canvas);
  const natural = (avail - LEFT - RIGHT) / Math.max(1, cols);
  // the panel's width when the columns stay legible there (a token may be shortened),
  // else as wide as the tokens need, scrolling
  const colW = Math.min(MAX_COL, natural >= MIN_COL ? natural : need);
  const { ctx, width, wide } = fit(canvas, Math.max(120, height), T && rows.length ? LEFT + cols * colW + RIGHT : 0);
  if (!T || !rows.length) { empty(ctx, width, 120, "waiting for the model…"); return null; }

  const NW = Math.max(14, Math.min(64, colW - 10));
  const unkSrc = Array.isArray(view.static.source_unk) ? view.static.source_unk : [];
  const X = (c) => LEFT + (c - 0.5) * colW; // column c = 1..cols (page step c)
  const bandTop = (b) => 6 + b * (bandH + BAND_GAP);
  const yOut = (b) => bandTop(b) + HEAD + ROW / 2;
  const yState = (b) => yOut(b) + ROW;
  const yIn = (b) => yState(b) + ROW;
  const scale = scaleFor(cfg.scale && cfg.scale.length ? cfg.scale : [-1, 1], []);
  const step = view.step;
  const hits = [];

  // the current step's column
  if (step > 0) {
    ctx.fillStyle = "#fef3c7";
    ctx.fillRect(X(step) - colW / 2 + 1, 2, colW - 2, height - 20);
  }
  // headings: encoder, context, decoder (per band)
  ctx.font = SMALL; ctx.fillStyle = MUTED;
  ctx.fillText("encoder", X(1) - colW / 2 + 2, bandTop(0) + 8);
  ctx.textAlign = "center"; ctx.fillText(colW >= 64 ? "context c" : "c", X(T + 1), bandTop(0) + 8); ctx.textAlign = "left";
  rows.forEach((r, b) => {
    const role = roleOf(r.label), lx = X(T + 2) - colW / 2 + 2;
    if (role) { ctx.fillStyle = role.colour; ctx.fillRect(lx, bandTop(b) + 3, 10, 10); }
    ctx.fillStyle = INK; ctx.font = "bold " + SMALL;
    ctx.fillText(`decoder: ${r.label}`, lx + (role ? 14 : 0), bandTop(b) + 8);
    ctx.font = SMALL; ctx.fillStyle = MUTED;
    ctx.fillText("output", 2, yOut(b)); ctx.fillText("state", 2, yState(b)); ctx.fillText("input", 2, yIn(b));
  });

  const arrow = (x1, y1, x2, y2, on, color) => {
    ctx.strokeStyle = on ? color || "#475569" : GRID; ctx.fillStyle = ctx.strokeStyle; ctx.lineWidth = on ? 1.5 : 1;
    const a = Math.atan2(y2 - y1, x2 - x1);
    ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(x2, y2); ctx.lineTo(x2 - 6 * Math.cos(a - 0.4), y2 - 6 * Math.sin(a - 0.4)); ctx.lineTo(x2 - 6 * Math.cos(a + 0.4), y2 - 6 * Math.sin(a + 0.4)); ctx.fill();
  };
  const box = (x, y, w, h, fill, stroke, lw = 1.2) => {
    ctx.fillStyle = fill; ctx.strokeStyle = stroke; ctx.lineWidth = lw;
    ctx.beginPath(); ctx.roundRect(x - w / 2, y - h / 2, w, h, 5); ctx.fill(); ctx.stroke();
  };
  const strip = (x, y, a) => {
    const k = Math.min(STRIP, a.data.length), w = NW - 6;
    for (let u = 0; u < k; u++) { ctx.fillStyle = scale.color(a.data[u]); ctx.fillRect(x - w / 2 + (u * w) / k, y - 7, w / k + 0.5, 14); }
  };
  const label = (s, x, y, w, bold, unk) => { // the normal font, a smaller one if that does not fit, then clipped
    const text = shown(s);
    ctx.font = (bold ? "bold " : "") + FONT;
    if (unk || ctx.measureText(text).width > w - 4) ctx.font = (bold ? "bold " : "") + SMALL;
    ctx.fillStyle = INK; ctx.textAlign = "center";
    const dy = unk && text !== UNK ? -6 : 0; // room for the "<unk>" under the word
    ctx.fillText(clipText(ctx, text, w - 4), x, y + 1 + dy);
    if (dy) { ctx.font = SMALL; ctx.fillStyle = UNK_LINE; ctx.fillText(clipText(ctx, UNK, w - 4), x, y + 8); }
    ctx.textAlign = "left";
  };
  const unkLines = (s) => (EMOJI.test(String(s)) ? [[...String(s)].map((ch) => "U+" + ch.codePointAt(0).toString(16).toUpperCase()).join(" ")] : []);

  // ---- the encoder: x_t → h_t, h_{t-1} → h_t ----
  const source = view.static.source || [];
  for (let t = 1; t <= T; t++) {
    const done = t <= step, now = t === step;
    arrow(X(t), yIn(0) - NODE_H / 2, X(t), yState(0) + NODE_H / 2, done);
    if (t > 1) arrow(X(t - 1) + NW / 2, yState(0), X(t) - NW / 2, yState(0), done);
    const unk = unkSrc[t - 1] === true;
    box(X(t), yIn(0), NW, NODE_H, unk ? UNK_FILL : now ? "#fde68a" : done ? "#e0f2fe" : "#fff", now ? "#b45309" : unk ? UNK_LINE : "#7dd3fc", now || unk ? 2 : 1.2);
    label(source[t - 1] ?? `x${t}`, X(t), yIn(0), NW, now, unk);
    hits.push({ x: X(t), y: yIn(0), lines: [`x${sub(t)}: the encoder reads`, JSON.stringify(String(source[t - 1] ?? ""))]
      .concat(unkLines(source[t - 1] ?? ""), unk ? ["not in the vocabulary: read as <unk>"] : []) });
    const a = view.at("h", t);
    box(X(t), yState(0), NW, NODE_H, "#fff", done ? "#64748b" : "#cbd5e1");
    if (a && done) { strip(X(t), yState(0), a); hits.push({ x: X(t), y: yState(0), lines: [`h${sub(t)}, encoder state after "${source[t - 1]}"`, Array.from(a.data.slice(0, 8), fmt).join("  ") + " …"], t }); }
    else { ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "center"; ctx.fillText(`h${t}`, X(t), yState(0) + 1); ctx.textAlign = "left"; }
  }

  // ---- the context c = h_T: one tall box beside the encoder, feeding every band ----
  const cDone = step >= T + 1;
  const cTop = yState(0) - NODE_H / 2, cBot = yState(rows.length - 1) + NODE_H / 2;
  arrow(X(T) + NW / 2, yState(0), X(T + 1) - NW / 2, yState(0), cDone, "#7c3aed");
  box(X(T + 1), (cTop + cBot) / 2, NW, cBot - cTop, cDone ? "#ede9fe" : "#fff", cDone ? "#7c3aed" : "#cbd5e1", cDone ? 2 : 1.2);
  const ca = view.at("c", T + 1);
  if (ca && cDone) {
    rows.forEach((_, b) => strip(X(T + 1), yState(b), ca)); // the same c beside every decoder run's s_0
    hits.push({ x: X(T + 1), y: (cTop + cBot) / 2, h: cBot - cTop, lines: [`context c = h${sub(T)}`, Array.from(ca.data.slice(0, 8), fmt).join("  ") + " …"], t: T + 1 });
  } else {
    ctx.font = "bold " + FONT; ctx.fillStyle = MUTED; ctx.textAlign = "center";
    ctx.fillText("c", X(T + 1), yState(0) + 1); ctx.textAlign = "left";
  }

  // ---- each decoder run ----
  rows.forEach((r, b) => {
    const cx = X(T + 1) + NW / 2;
    // s_0 = c, and c is part of every step's input: a dashed bus under the states
    const busY = yState(b) + NODE_H / 2 + 6;
    ctx.setLineDash([3, 3]);
    ctx.strokeStyle = cDone ? "#a78bfa" : GRID; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(cx, busY); ctx.lineTo(X(cols) + NW / 4, busY); ctx.stroke();
    ctx.setLineDash([]);
    for (let tp = 1; tp <= D; tp++) {
      const s = T + 1 + tp, x = X(s), m = s <= step ? view.metaAt(s) || {} : null;
      const done = !!m && m[r.input] !== undefined;
      arrow(tp === 1 ? cx : X(s - 1) + NW / 2, yState(b), x - NW / 2, yState(b), done, tp === 1 ? "#7c3aed" : undefined);
      arrow(x + NW / 4, busY, x + NW / 4, yState(b) + NODE_H / 2, done, "#a78bfa");
      arrow(x - NW / 4, yIn(b) - NODE_H / 2, x - NW / 4, yState(b) + NODE_H / 2, done);
      arrow(x, yState(b) - NODE_H / 2, x, yOut(b) + NODE_H / 2, done);
      if (r.feedback && tp < D && done && (view.metaAt(s + 1) || {})[r.input] !== undefined && s + 1 <= step) {
        arrow(x + NW / 2 - 4, yOut(b) + NODE_H / 2 - 2, X(s + 1) - NW / 2 + 4, yIn(b) - NODE_H / 2 + 2, true, "#16a34a"); // the output fed back in
      }
      const now = s === step;
      const unkIn = done && m[r.input] === UNK, unkOut = done && m[r.output] === UNK;
      box(x, yIn(b), NW, NODE_H, unkIn ? UNK_FILL : done ? "#e0f2fe" : "#fff", unkIn ? UNK_LINE : done ? "#7dd3fc" : "#eef0f3");
      const a = r.state ? view.at(r.state, s) : null;
      box(x, yState(b), NW, NODE_H, "#fff", done ? "#64748b" : "#e5e7eb");
      const verdict = m && r.correct ? m[r.correct] : undefined;
      const stopped = m && m[r.input] === undefined && m[r.output] !== undefined;
      const v = verdict === true ? CORRECT : verdict === false ? WRONG : null;
      box(x, yOut(b), NW, NODE_H, !done ? "#fff" : v ? v.fill : unkOut ? UNK_FILL : "#f1f5f9", unkOut ? UNK_LINE : done ? (v ? v.line : "#86efac") : "#eef0f3");
      if (m && optMeta(view, "mask", m) === 0 && b === 0) { // a padded step: the mask zeros its loss; say so once
        ctx.fillStyle = "rgba(229,231,235,0.55)";
        ctx.fillRect(x - colW / 2 + 1, yOut(b) - ROW / 2, colW - 2, 3 * ROW);
        if (optMeta(view, "mask", view.metaAt(s - 1)) !== 0) {
          ctx.font = SMALL; ctx.fillStyle = MUTED;
          ctx.fillText("padding: m = 0 →", x - colW / 2 + 2, bandTop(b) + 22);
        }
      }
      if (done) {
        label(m[r.input], x, yIn(b), NW, false);
        if (a) strip(x, yState(b), a);
        label(m[r.output], x, yOut(b), NW, now);
        if (v) verdictBadge(ctx, v, x + NW / 2 - 1, yOut(b) - NODE_H / 2 + 2); // the verdict, not by colour alone
        hits.push({ x, y: yIn(b), lines: [`${r.label}, input y${sub(tp - 1)} at t′ = ${tp}`, JSON.stringify(String(m[r.input]))] });
        hits.push({ x, y: yOut(b), lines: [`${r.label}, output at t′ = ${tp}`, JSON.stringify(String(m[r.output]))].concat(optMeta(view, "label", m) !== undefined ? [`label ${JSON.stringify(String(m.label))}`] : []) });
        if (a) hits.push({ x, y: yState(b), lines: [`s${sub(tp)} (${r.label})`, Array.from(a.data.slice(0, 8), fmt).join("  ") + " …"], t: s });
        if (optMeta(view, "diverges_here", m) && b === rows.length - 1 && rows.length > 1) { // circled: free running leaves the reference here
          ctx.strokeStyle = "#dc2626"; ctx.lineWidth = 2.5;
          ctx.beginPath(); ctx.ellipse(x, yOut(b), NW / 2 + 6, NODE_H / 2 + 6, 0, 0, 7); ctx.stroke();
          ctx.font = "bold " + SMALL; ctx.fillStyle = "#dc2626"; ctx.textAlign = "center";
          ctx.fillText("diverges", x, bandTop(b) + 22); ctx.textAlign = "left";
        }
      } else if (stopped) {
        ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "center"; ctx.fillText("—", x, yOut(b)); ctx.textAlign = "left";
      }
    }
  });
  // step numbers under the columns
  ctx.font = SMALL; ctx.textAlign = "center";
  const every = Math.max(1, Math.ceil(22 / colW));
  for (let c = 1; c <= cols; c++) {
    if (c % every && c !== step) continue;
    ctx.fillStyle = c === step ? INK : MUTED;
    ctx.fillText(c <= T ? `t=${c}` : c === T + 1 ? "c" : `t'=${c - T - 1}`, X(c), height - 8);
  }
  ctx.textAlign = "left";
  // a wide diagram scrolls: bring the current step's column into view when it moves
  const wrap = canvas.parentElement;
  if (wide && step > 0 && lastStep.get(canvas) !== step) {
    const z = zoomOf(canvas), x = X(step) * z, left = wrap.scrollLeft, w = wrap.clientWidth; // CSS pixels
    if (x - colW * z < left || x + colW * z > left + w) wrap.scrollLeft = Math.max(0, x - w / 2);
  }
  lastStep.set(canvas, step);
  return {
    hit(px, py) {
      const h = hits.find((h) => Math.abs(px - h.x) <= NW / 2 && Math.abs(py - h.y) <= (h.h || NODE_H) / 2);
      return h ? { lines: h.lines, t: h.t } : null;
    },
  };
}

// In words (a11y.js): where the step is (encoder, context, decoder) and what each
// decoder run has written so far; the table has a row per step computed, with what
// the encoder read and each run's input, output and verdict.
import { summary as a11ySummary } from "./common.js";

function runWords(view, r, T) {
  const out = [];
  for (let s = T + 2; s <= view.step; s++) {
    const m = view.metaAt(s) || {};
    if (m[r.output] !== undefined) out.push(shown(String(m[r.output])) + (r.correct && m[r.correct] === false ? " (wrong)" : ""));
  }
  return out;
}

export function describe(cfg, view) {
  const T = Number(view.static.enc_steps) || 0;
  const rows = Array.isArray(view.static.dec_rows) ? view.static.dec_rows : [];
  if (!T || !rows.length) return "waiting for the model";
  const source = view.static.source || [];
  const head = `encoder over ${T} source tokens (${source.map((s) => shown(String(s))).join(" ")}), then ${rows.length === 1 ? "a decoder" : `${rows.length} decoder runs`}`;
  const s = view.step;
  if (s === 0) return `${head}; step forward to read the first token`;
  if (s <= T) { const a = view.at("h", s); return `${head}; step ${s}: the encoder reads “${shown(String(source[s - 1] ?? ""))}”` + (a ? `, h_${s} ${a11ySummary(a.data)}` : ""); }
  if (s === T + 1) { const c = view.at("c", s); return `${head}; step ${s}: the context c = h_${T}` + (c ? `, ${a11ySummary(c.data)}` : ""); }
  return `${head}; step ${s}, decoder t' = ${s - T - 1}: ` + rows.map((r) => `${r.label} wrote ${runWords(view, r, T).join(" ") || "nothing yet"}`).join("; ");
}

export function table(cfg, view) {
  const T = Number(view.static.enc_steps) || 0;
  const rows = Array.isArray(view.static.dec_rows) ? view.static.dec_rows : [];
  if (!T || !rows.length || view.step === 0) return null;
  const source = view.static.source || [];
  const out = [];
  for (let s = 1; s <= view.step; s++) {
    const m = s > T + 1 ? view.metaAt(s) || {} : null;
    const what = s <= T ? `x_${s} = “${shown(String(source[s - 1] ?? ""))}”` : s === T + 1 ? "context c" : "";
    out.push([s <= T ? `encoder t = ${s}` : s === T + 1 ? "context" : `decoder t' = ${s - T - 1}`, what,
      ...rows.flatMap((r) => (m ? [m[r.input] === undefined ? "" : shown(String(m[r.input])), m[r.output] === undefined ? "" : shown(String(m[r.output])), r.correct && m[r.correct] !== undefined ? (m[r.correct] ? "right" : "wrong") : ""] : ["", "", ""]))]);
  }
  return {
    caption: `The encoder-decoder up to step ${view.step}`,
    head: ["step", "encoder", ...rows.flatMap((r) => [`${r.label}: input`, `${r.label}: output`, `${r.label}: verdict`])],
    rows: out,
  };
}
