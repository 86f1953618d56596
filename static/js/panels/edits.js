// edits.js draws the bleu lesson's last step for ngrams.js: the word error rate's
// alignment of the candidate with reference 1 and, from static "ter"
// (lessons.terView), TER's shifts and alignment on the same pair; and the word boxes
// in rows that ngrams.js draws its candidate and references with too. All numbers
// come from the server; this module only lays them out.
import { fit, token, FONT, SMALL, INK, MUTED } from "./common.js";

// The word boxes' sizes, shared with ngrams.js: a box's height, the gap between boxes,
// the margin for a row's name, the gap between rows and a line of text.
export const BOX = 26, GAP = 4, LABEL = 92, ROWGAP = 10, LINE = 18;
const EDIT = { match: "#ffffff", substitute: "#fed7aa", delete: "#fecaca", insert: "#bfdbfe" };
const EDIT_LETTER = { match: "C", substitute: "S", delete: "D", insert: "I" };
const SHIFT = "#7c3aed", SHIFT_FILL = "#ede9fe"; // TER's shifted words: violet, framed thick as well

// wordRow lays out words from y, wrapping at width; extra is the space under each line
// (the n-gram lanes). It returns the boxes and the y after the row.
export function wordRow(ctx, words, y, width, extra) {
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

// drawBox draws a word box b ({x, y, w, s}) filled and framed in the colours given.
export function drawBox(ctx, b, fill, stroke) {
  ctx.fillStyle = fill; ctx.strokeStyle = stroke; ctx.lineWidth = 1;
  ctx.beginPath(); ctx.roundRect(b.x + 0.5, b.y + 0.5, b.w, BOX, 5); ctx.fill(); ctx.stroke();
  ctx.fillStyle = INK; ctx.textAlign = "center";
  ctx.fillText(b.s, b.x + b.w / 2, b.y + BOX / 2 + 1);
  ctx.textAlign = "left";
}

// label writes a row's name in the margin left of the boxes at y.
export function label(ctx, text, y) {
  ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(text, 0, y + BOX / 2); ctx.font = FONT;
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
export function drawAlignment(canvas, width, st, meta) {
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

// hitGrid is what the pointer at (px, py) is over in an alignment's columns, or null.
function hitGrid(cols, px, py) {
  for (const c of cols) {
    if (px >= c.x && px <= c.x + c.w && py >= c.y && py <= c.y + 3 * BOX) return { lines: [`${c.e.kind}: ${c.e.ref_word || "—"} → ${c.e.hyp_word || "—"}`] };
  }
  return null;
}
