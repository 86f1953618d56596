// ngrams draws BLEU's matching (the bleu lesson). Static meta: "candidate" (words),
// "references" (a list of word lists), "ngrams" (every candidate n-gram occurrence as
// models.NGram: n, words, start, count, clip, matched, credited, refs), "edits" (the
// word error rate's alignment as models.Edit) and "max_n". Step n ≤ max_n shows the
// n-grams of order n under the candidate (green solid bars credited, orange dashed
// clipped, thin grey in no reference: they differ by shape as well as colour), the
// reference words the credited ones matched (underlined), and a table of count,
// clip and matched per distinct n-gram; the step after shows the WER alignment and,
// from static "ter" (lessons.terView), TER's shifts and alignment on the same pair
// (edits.js). All numbers come from the server; this module only lays them out.
import { fit, room, empty, token, FONT, SMALL, INK, MUTED } from "./common.js";
import { CORRECT, WRONG } from "../colors.js";
import { BOX, GAP, ROWGAP, LINE, wordRow, drawBox, label, drawAlignment } from "./edits.js"; // the step after max_n, and the word boxes

const LANE = 7; // an n-gram's bar under the candidate
const GREEN = CORRECT.line, ORANGE = WRONG.line, GREY = "#9ca3af";
const FILL = { credited: CORRECT.fill, none: "#ffffff" };

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
