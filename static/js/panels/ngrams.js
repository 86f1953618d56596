// ngrams draws BLEU's matching (the bleu lesson). Static meta: "candidate" (words),
// "references" (a list of word lists), "ngrams" (every candidate n-gram occurrence as
// models.NGram: n, words, start, count, clip, matched, credited, refs), "edits" (the
// word error rate's alignment as models.Edit) and "max_n". Step n ≤ max_n shows the
// n-grams of order n under the candidate (green solid bars credited, orange dashed
// clipped, thin grey in no reference: they differ by shape as well as colour), the
// reference words the credited ones matched (underlined), and a table of count,
// clip and matched per distinct n-gram; the step after shows the WER alignment and,
// from static "ter" (lessons.terView), TER's shifts and alignment on the same pair. All
// numbers come from the server; this module only lays them out.
import { fit, room, empty, token, FONT, SMALL, INK, MUTED } from "./common.js";
import { CORRECT, WRONG } from "../colors.js";

const BOX = 26, GAP = 4, LABEL = 92, LANE = 7, ROWGAP = 10, LINE = 18;
const GREEN = CORRECT.line, ORANGE = WRONG.line, GREY = "#9ca3af";
const FILL = { credited: CORRECT.fill, none: "#ffffff" };
const EDIT = { match: "#ffffff", substitute: "#fed7aa", delete: "#fecaca", insert: "#bfdbfe" };
const EDIT_LETTER = { match: "C", substitute: "S", delete: "D", insert: "I" };
const SHIFT = "#7c3aed", SHIFT_FILL = "#ede9fe"; // TER's shifted words: violet, framed thick as well

function status(g) {
  if (g.credited) return "credited";
  return g.clip > 0 ? "clipped" : "unmatched";
}
const COLOR = { credited: GREEN, clipped: ORANGE, unmatched: GREY };

// lane draws an n-gram's bar in its status's colour and shape: credited solid,
// clipped dashed, unmatched a thin line, so the status does not rest on colour alone.
function lane(ctx, st, x, y, w, h) {
  ctx.fillStyle = COLOR[st];
  if (st === "credited") ctx.fillRect(x, y, w, h);
  else if (st === "clipped") for (let d = 0; d < w; d += 7) ctx.fillRect(x + d, y, Math.min(4, w - d), h);
  else ctx.fillRect(x, y + h / 2 - 1, w, 2);
}

// wordRow lays out words from y, wrapping at width; extra is the space under each line
// (the n-gram lanes). It returns the boxes and the y after the row.
function wordRow(ctx, words, y, width, extra) {
  const boxes = [];
  let x = LABEL;
  for (let i = 0; i < words.length; i++) {
    const w = Math.max(BOX, ctx.measureText(token(words[i])).width + 12);
    if (x + w > width - 4 && i > 0) { x = LABEL; y += BOX + extra + GAP; }
    boxes.push({ x, y, w, s: token(words[i]) });
    x += w + GAP;
  }
  return { boxes, end: y + BOX + extra };
}

function drawBox(ctx, b, fill, stroke) {
  ctx.fillStyle = fill; ctx.strokeStyle = stroke; ctx.lineWidth = 1;
  ctx.beginPath(); ctx.roundRect(b.x + 0.5, b.y + 0.5, b.w, BOX, 5); ctx.fill(); ctx.stroke();
  ctx.fillStyle = INK; ctx.textAlign = "center";
  ctx.fillText(b.s, b.x + b.w / 2, b.y + BOX / 2 + 1);
  ctx.textAlign = "left";
}

function label(ctx, text, y) {
  ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(text, 0, y + BOX / 2); ctx.font = FONT;
}

export function draw(canvas, cfg, view) {
  const st = view.static;
  const cand = Array.isArray(st.candidate) ? st.candidate : null;
  const refs = Array.isArray(st.references) ? st.references : [];
  const maxN = st.max_n || 0;
  const probe = canvas.getContext("2d");
  probe.font = FONT;
  const width = room(canvas);
  if (!cand) { const { ctx } = fit(canvas, 50); empty(ctx, width, 50, "no candidate"); return null; }
  if (view.step > maxN) return drawAlignment(canvas, width, st, view.meta);

  const n = view.step;
  const grams = n > 0 ? (st.ngrams || []).filter((g) => g.n === n) : [];
  // measure: candidate with n lanes under it, each reference, then the table
  let y = 4;
  const candRow = wordRow(probe, cand, y, width, n > 0 ? n * LANE + 2 : 0);
  y = candRow.end + ROWGAP;
  const refRows = refs.map((r) => { const row = wordRow(probe, r, y, width, 0); y = row.end + GAP + 2; return row; });
  y += ROWGAP;
  const types = [];
  const seen = new Map();
  for (const g of grams) {
    const key = g.words.join(" ");
    if (!seen.has(key)) { seen.set(key, types.length); types.push({ key, g }); }
  }
  const tableTop = y;
  y += n > 0 ? LINE * (types.length + 1) + LINE + 6 : LINE + 6;
  const { ctx } = fit(canvas, Math.max(60, y));

  // the candidate and its n-gram lanes
  label(ctx, "candidate", candRow.boxes[0]?.y ?? 4);
  for (const b of candRow.boxes) drawBox(ctx, b, "#ffffff", "#cbd5e1");
  grams.forEach((g) => {
    const row = g.start % n;
    for (let i = g.start; i < g.start + n && i < candRow.boxes.length; i++) {
      const b = candRow.boxes[i], next = candRow.boxes[i + 1];
      const joins = i < g.start + n - 1 && next && next.y === b.y;
      lane(ctx, status(g), b.x + 2, b.y + BOX + 2 + row * LANE, b.w - 4 + (joins ? GAP + 4 : 0), LANE - 2);
    }
  });
  // the references, with the words credited n-grams matched
  const hit = refs.map(() => new Set());
  for (const g of grams) for (const span of g.refs || []) for (const p of span.positions) hit[span.ref]?.add(p);
  refRows.forEach((row, r) => {
    label(ctx, refs.length > 1 ? `reference ${r + 1}` : "reference", row.boxes[0]?.y ?? 0);
    row.boxes.forEach((b, i) => {
      drawBox(ctx, b, hit[r].has(i) ? FILL.credited : FILL.none, hit[r].has(i) ? GREEN : "#cbd5e1");
      if (hit[r].has(i)) { ctx.fillStyle = GREEN; ctx.fillRect(b.x + 6, b.y + BOX - 6, b.w - 11, 2); } // underlined: matched
    });
  });

  // the clipped counts
  ctx.font = SMALL;
  if (n === 0) {
    ctx.fillStyle = MUTED;
    ctx.fillText("step forward: step n shows the candidate's n-grams of order n", 0, tableTop + LINE / 2);
    return null;
  }
  const cols = [0, Math.min(width * 0.45, 260), Math.min(width * 0.45, 260) + 60, Math.min(width * 0.45, 260) + 120, Math.min(width * 0.45, 260) + 190];
  const head = [`${n}-gram`, "count", "clip", "matched", ""];
  ctx.fillStyle = MUTED;
  head.forEach((h, i) => ctx.fillText(h, cols[i], tableTop + LINE / 2));
  let matched = 0, total = grams.length;
  types.forEach(({ key, g }, i) => {
    const yy = tableTop + LINE * (i + 1) + LINE / 2;
    const s = status(g.matched > 0 ? { credited: true } : g);
    lane(ctx, s, cols[0], yy - 3, 11, 6);
    ctx.fillStyle = INK; ctx.font = FONT;
    ctx.fillText(`“${key}”`, cols[0] + 16, yy);
    ctx.font = SMALL;
    ctx.fillText(String(g.count), cols[1], yy); ctx.fillText(String(g.clip), cols[2], yy); ctx.fillText(String(g.matched), cols[3], yy);
    ctx.fillStyle = MUTED;
    ctx.fillText(g.count > g.matched && g.clip > 0 ? `clipped to ${g.clip}` : g.clip === 0 ? "in no reference" : "", cols[4], yy);
    matched += g.matched;
  });
  const yy = tableTop + LINE * (types.length + 1) + LINE / 2 + 4;
  ctx.font = FONT; ctx.fillStyle = INK;
  ctx.fillText(total > 0 ? `p${n} = Σ matched / n-grams = ${matched}/${total}` : `no ${n}-grams: the candidate has fewer than ${n} words, p${n} = 0`, 0, yy);
  return {
    hit(px, py) {
      for (const [i, b] of candRow.boxes.entries()) {
        if (px >= b.x && px <= b.x + b.w && py >= b.y && py <= b.y + BOX + n * LANE) {
          const here = grams.filter((g) => i >= g.start && i < g.start + n);
          return { lines: [`candidate word ${i + 1}: ${b.s}`, ...here.map((g) => `“${g.words.join(" ")}”: ${status(g)}`)], t: view.step };
        }
      }
      return null;
    },
  };
}

// gridLayout lays out an alignment's columns from y0, wrapping at width: each line
// three rows (two of words, one of edit letters).
function gridLayout(probe, edits, width, y0) {
  const cols = [];
  let x = LABEL, y = y0;
  for (const e of edits) {
    const w = Math.max(BOX, probe.measureText(e.ref_word).width + 12, probe.measureText(e.hyp_word).width + 12);
    if (x + w > width - 4 && cols.length) { x = LABEL; y += 3 * BOX + 3 * GAP + ROWGAP; }
    cols.push({ e, x, y, w });
    x += w + GAP;
  }
  return { cols, end: (cols.length ? cols[cols.length - 1].y : y0) + 3 * BOX + 2 * GAP };
}

// drawGrid draws an alignment's columns: rows[0] and rows[1] name the word rows
// ("ref" or "hyp" each), the third row the edit letters. moved(e) marks a candidate
// word that a shift moved (TER): a violet frame.
function drawGrid(ctx, cols, rows, names, moved) {
  for (const ry of new Set(cols.map((c) => c.y))) {
    label(ctx, names[0], ry); label(ctx, names[1], ry + BOX + GAP); label(ctx, "edit", ry + 2 * (BOX + GAP));
  }
  for (const { e, x: cx, y: cy, w } of cols) {
    const fill = EDIT[e.kind] || "#ffffff";
    rows.forEach((side, r) => {
      const word = side === "ref" ? e.ref_word : e.hyp_word;
      const gap = side === "ref" ? e.kind === "insert" : e.kind === "delete";
      const shifted = side === "hyp" && moved(e);
      drawBox(ctx, { x: cx, y: cy + r * (BOX + GAP), w, s: word || "—" }, gap ? "#f8fafc" : fill, shifted ? SHIFT : "#cbd5e1");
      if (shifted) { ctx.strokeStyle = SHIFT; ctx.lineWidth = 2; ctx.beginPath(); ctx.roundRect(cx + 1.5, cy + r * (BOX + GAP) + 1.5, w - 2, BOX - 2, 5); ctx.stroke(); ctx.lineWidth = 1; }
    });
    ctx.fillStyle = e.kind === "match" ? MUTED : INK; ctx.textAlign = "center"; ctx.font = SMALL;
    ctx.fillText(EDIT_LETTER[e.kind] || "?", cx + w / 2, cy + 2 * (BOX + GAP) + BOX / 2);
    ctx.textAlign = "left"; ctx.font = FONT;
  }
}

// arrow draws a line from (x0, y0) down to (x1, y1) with a head at the end.
function arrow(ctx, x0, y0, x1, y1) {
  ctx.strokeStyle = SHIFT; ctx.fillStyle = SHIFT; ctx.lineWidth = 1.5;
  ctx.beginPath(); ctx.moveTo(x0, y0); ctx.bezierCurveTo(x0, (y0 + y1) / 2, x1, (y0 + y1) / 2, x1, y1 - 5); ctx.stroke();
  ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x1 - 4, y1 - 7); ctx.lineTo(x1 + 4, y1 - 7); ctx.closePath(); ctx.fill();
  ctx.lineWidth = 1;
}

// movedWords maps each original candidate position a TER shift moved to the shift's
// number (1, 2, …).
function movedWords(ter) {
  const moved = new Map();
  (ter?.shifts || []).forEach((s, k) => { for (const o of s.block || []) moved.set(o, k + 1); });
  return moved;
}

// drawAlignment shows the word error rate's alignment (reference above, candidate
// below, each column one edit), then TER's on the same pair: the candidate with the
// blocks its shifts move (violet, numbered, arrows to where they land), and the
// shifted candidate's alignment with the reference.
function drawAlignment(canvas, width, st, meta) {
  const probe = canvas.getContext("2d");
  const ter = st.ter && Array.isArray(st.ter.alignment) ? st.ter : null;
  // the text under each grid, wrapped to the width: [font, colour, text] lines
  const para = (font, colour, text) => { probe.font = font; return wrapLines(probe, text, width).map((l) => [font, colour, l]); };
  const werNotes = [...para(FONT, INK, `word error rate ${meta.WER ?? ""}`), ...para(SMALL, MUTED, "C correct, S substituted (orange), D deleted (red), I inserted (blue)")];
  probe.font = FONT;
  const wer = gridLayout(probe, st.edits || [], width, 4);
  let y = wer.end + ROWGAP + werNotes.length * LINE;
  let orig = null, grid = null, terHead = [], terNotes = [], terTop = 0;
  if (ter) {
    const n = ter.shifts.length;
    terHead = para(SMALL, INK, `TER on the same pair: ${n} shift${n === 1 ? "" : "s"} first (violet, numbered), then the edits of the shifted candidate`);
    terNotes = [...para(FONT, INK, `TER ${meta.TER ?? ""}`), ...para(SMALL, MUTED, "a shift moves a block of words for 1 edit; the search is tercom's greedy one")];
    probe.font = FONT;
    terTop = y + 6;
    orig = wordRow(probe, st.candidate, terTop + terHead.length * LINE, width, 0);
    grid = gridLayout(probe, ter.alignment, width, orig.end + 34);
    y = grid.end + ROWGAP + terNotes.length * LINE;
  }
  const { ctx } = fit(canvas, y);
  const write = (lines, top) => {
    lines.forEach(([font, colour, text], i) => { ctx.font = font; ctx.fillStyle = colour; ctx.fillText(text, 0, top + i * LINE + LINE / 2); });
    ctx.font = FONT;
  };
  drawGrid(ctx, wer.cols, ["ref", "hyp"], ["reference 1", "candidate"], () => false);
  write(werNotes, wer.end + ROWGAP);
  if (!ter) return { hit: (px, py) => hitGrid(wer.cols, px, py) };

  // TER: the candidate as typed, its moved blocks numbered, arrows to where they land
  const moved = movedWords(ter);
  write(terHead, terTop);
  const hypOrigin = (e) => (e.hyp_pos >= 0 ? ter.origin[e.hyp_pos] : -1);
  for (const c of grid.cols) { // the arrows first: a wrapped row's words are drawn over them
    const o = hypOrigin(c.e), b = orig.boxes[o];
    if (o >= 0 && moved.has(o) && b) arrow(ctx, b.x + b.w / 2, b.y + BOX + 1, c.x + c.w / 2, c.y - 1);
  }
  label(ctx, "candidate", orig.boxes[0]?.y ?? terTop);
  orig.boxes.forEach((b, i) => drawBox(ctx, b, moved.has(i) ? SHIFT_FILL : "#ffffff", moved.has(i) ? SHIFT : "#cbd5e1"));
  drawGrid(ctx, grid.cols, ["hyp", "ref"], ["shifted", "reference 1"], (e) => moved.has(hypOrigin(e)));
  ctx.font = SMALL; ctx.fillStyle = SHIFT;
  (ter.shifts || []).forEach((s, k) => { // the shift's number beside its first word's arrow
    const b = orig.boxes[s.block?.[0]];
    if (b) ctx.fillText(String(k + 1), b.x + b.w / 2 + 5, b.y + BOX + 10);
  });
  ctx.font = FONT;
  write(terNotes, grid.end + ROWGAP);
  return {
    hit(px, py) {
      const w = hitGrid(wer.cols, px, py);
      if (w) return w;
      for (const [i, b] of orig.boxes.entries()) {
        if (px >= b.x && px <= b.x + b.w && py >= b.y && py <= b.y + BOX) {
          const k = moved.get(i);
          return { lines: [`candidate word ${i + 1}: ${b.s}`, k ? `moved by shift ${k}` : "not moved"] };
        }
      }
      return hitGrid(grid.cols, px, py);
    },
  };
}

// wrapLines breaks text at spaces into lines no wider than width (in ctx's font).
function wrapLines(ctx, text, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (line && ctx.measureText(next).width > width - 4) { lines.push(line); line = word; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

function hitGrid(cols, px, py) {
  for (const c of cols) {
    if (px >= c.x && px <= c.x + c.w && py >= c.y && py <= c.y + 3 * BOX) return { lines: [`${c.e.kind}: ${c.e.ref_word || "—"} → ${c.e.hyp_word || "—"}`] };
  }
  return null;
}

// In words (a11y.js): at order n the n-grams' counts, clips and matches; after the
// last order the word error rate's edits and TER's shifts and edits. The tables are the
// same numbers.
function distinct(st, n) {
  const seen = new Map();
  for (const g of st.ngrams || []) if (g.n === n && !seen.has(g.words.join(" "))) seen.set(g.words.join(" "), g);
  return [...seen.values()];
}

export function describe(cfg, view) {
  const st = view.static;
  if (!Array.isArray(st.candidate)) return "no candidate";
  const maxN = st.max_n || 0;
  const cand = `candidate: ${st.candidate.map(token).join(" ")}`;
  if (view.step === 0) return `${cand}; step forward to match its n-grams`;
  if (view.step > maxN) {
    const edits = st.edits || [], count = (k) => edits.filter((e) => e.kind === k).length;
    const werText = `${cand}; word error rate alignment: ${count("substitute")} substitutions, ${count("delete")} deletions, ${count("insert")} insertions, ${count("match")} matches`;
    const ter = st.ter;
    if (!ter || !Array.isArray(ter.alignment)) return werText;
    const shifts = (ter.shifts || []).map((s) => `“${s.words.map(token).join(" ")}” from word ${s.from + 1} to ${s.to + 1}`);
    return `${werText}; TER: ${ter.edits} edits, ${shifts.length} shift${shifts.length === 1 ? "" : "s"}${shifts.length ? ` (${shifts.join("; ")})` : ""}, then ${ter.edits - shifts.length} word edits`;
  }
  const gs = distinct(st, view.step);
  const total = (k) => gs.reduce((a, g) => a + (g[k] || 0), 0);
  return `${cand}; ${view.step}-grams: ${gs.length} distinct, counted ${total("count")}, matched ${total("matched")}`;
}

export function table(cfg, view) {
  const st = view.static;
  if (!Array.isArray(st.candidate) || view.step === 0) return null;
  if (view.step > (st.max_n || 0)) {
    const wer = { caption: "Word error rate: the alignment of reference 1 and the candidate", head: ["position", "reference 1", "candidate", "edit"],
      rows: (st.edits || []).map((e, i) => [String(i + 1), e.ref_word || "—", e.hyp_word || "—", e.kind]) };
    const ter = st.ter;
    if (!ter || !Array.isArray(ter.alignment)) return wer;
    const shifts = { caption: "TER: the shifts, in order (positions count from 1 in the candidate as it stood)", head: ["shift", "words", "from", "to"],
      rows: (ter.shifts || []).map((s, i) => [String(i + 1), s.words.map(token).join(" "), String(s.from + 1), String(s.to + 1)]) };
    const edits = { caption: "TER: the shifted candidate aligned with reference 1", head: ["position", "shifted candidate", "reference 1", "edit"],
      rows: ter.alignment.map((e, i) => [String(i + 1), e.hyp_word || "—", e.ref_word || "—", e.kind]) };
    return shifts.rows.length ? [wer, shifts, edits] : [wer, edits];
  }
  return { caption: `The candidate's ${view.step}-grams`, head: ["n-gram", "count", "clip", "matched"],
    rows: distinct(st, view.step).map((g) => [g.words.map(token).join(" "), String(g.count), String(g.clip), String(g.matched)]) };
}
