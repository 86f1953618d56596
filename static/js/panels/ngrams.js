// ngrams draws BLEU's matching (the bleu lesson). Static meta: "candidate" (words),
// "references" (a list of word lists), "ngrams" (every candidate n-gram occurrence as
// models.NGram: n, words, start, count, clip, matched, credited, refs), "edits" (the
// word error rate's alignment as models.Edit) and "max_n". Step n ≤ max_n shows the
// n-grams of order n under the candidate (green solid bars credited, orange dashed
// clipped, thin grey in no reference: they differ by shape as well as colour), the
// reference words the credited ones matched (underlined), and a table of count,
// clip and matched per distinct n-gram; the step after shows the WER alignment. All
// numbers come from the server; this module only lays them out.
import { fit, room, empty, token, FONT, SMALL, INK, MUTED } from "./common.js";
import { CORRECT, WRONG } from "../colors.js";

const BOX = 26, GAP = 4, LABEL = 92, LANE = 7, ROWGAP = 10, LINE = 18;
const GREEN = CORRECT.line, ORANGE = WRONG.line, GREY = "#9ca3af";
const FILL = { credited: CORRECT.fill, none: "#ffffff" };
const EDIT = { match: "#ffffff", substitute: "#fed7aa", delete: "#fecaca", insert: "#bfdbfe" };
const EDIT_LETTER = { match: "C", substitute: "S", delete: "D", insert: "I" };

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
  if (view.step > maxN) return drawAlignment(canvas, width, st.edits || [], view.meta);

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

// drawAlignment shows the word error rate's alignment: reference above, candidate
// below, each column one edit.
function drawAlignment(canvas, width, edits, meta) {
  const probe = canvas.getContext("2d");
  probe.font = FONT;
  const cols = [];
  let x = LABEL, y = 4;
  for (const e of edits) {
    const w = Math.max(BOX, probe.measureText(e.ref_word).width + 12, probe.measureText(e.hyp_word).width + 12);
    if (x + w > width - 4 && cols.length) { x = LABEL; y += 3 * BOX + 3 * GAP + ROWGAP; }
    cols.push({ e, x, y, w });
    x += w + GAP;
  }
  const height = y + 3 * BOX + 2 * GAP + ROWGAP + 2 * LINE;
  const { ctx } = fit(canvas, height);
  const rowsAt = new Set(cols.map((c) => c.y));
  for (const ry of rowsAt) {
    label(ctx, "reference 1", ry); label(ctx, "candidate", ry + BOX + GAP); label(ctx, "edit", ry + 2 * (BOX + GAP));
  }
  for (const { e, x: cx, y: cy, w } of cols) {
    const fill = EDIT[e.kind] || "#ffffff";
    drawBox(ctx, { x: cx, y: cy, w, s: e.ref_word || "—" }, e.kind === "insert" ? "#f8fafc" : fill, "#cbd5e1");
    drawBox(ctx, { x: cx, y: cy + BOX + GAP, w, s: e.hyp_word || "—" }, e.kind === "delete" ? "#f8fafc" : fill, "#cbd5e1");
    ctx.fillStyle = e.kind === "match" ? MUTED : INK; ctx.textAlign = "center"; ctx.font = SMALL;
    ctx.fillText(EDIT_LETTER[e.kind] || "?", cx + w / 2, cy + 2 * (BOX + GAP) + BOX / 2);
    ctx.textAlign = "left"; ctx.font = FONT;
  }
  ctx.fillStyle = INK;
  ctx.fillText(`word error rate ${meta.WER ?? ""}`, 0, height - 1.5 * LINE);
  ctx.font = SMALL; ctx.fillStyle = MUTED;
  ctx.fillText("C correct, S substituted (orange), D deleted (red), I inserted (blue)", 0, height - LINE / 2);
  return {
    hit(px, py) {
      for (const c of cols) {
        if (px >= c.x && px <= c.x + c.w && py >= c.y && py <= c.y + 3 * BOX) return { lines: [`${c.e.kind}: ${c.e.ref_word || "—"} → ${c.e.hyp_word || "—"}`] };
      }
      return null;
    },
  };
}

// In words (a11y.js): at order n the n-grams' counts, clips and matches; after the
// last order the word error rate's edits. The tables are the same numbers.
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
    return `${cand}; word error rate alignment: ${count("substitute")} substitutions, ${count("delete")} deletions, ${count("insert")} insertions, ${count("match")} matches`;
  }
  const gs = distinct(st, view.step);
  const total = (k) => gs.reduce((a, g) => a + (g[k] || 0), 0);
  return `${cand}; ${view.step}-grams: ${gs.length} distinct, counted ${total("count")}, matched ${total("matched")}`;
}

export function table(cfg, view) {
  const st = view.static;
  if (!Array.isArray(st.candidate) || view.step === 0) return null;
  if (view.step > (st.max_n || 0)) {
    return { caption: "Word error rate: the alignment of reference 1 and the candidate", head: ["position", "reference 1", "candidate", "edit"],
      rows: (st.edits || []).map((e, i) => [String(i + 1), e.ref_word || "—", e.hyp_word || "—", e.kind]) };
  }
  return { caption: `The candidate's ${view.step}-grams`, head: ["n-gram", "count", "clip", "matched"],
    rows: distinct(st, view.step).map((g) => [g.words.map(token).join(" "), String(g.count), String(g.clip), String(g.matched)]) };
}
