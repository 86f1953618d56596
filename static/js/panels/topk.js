// topk draws a per-step softmax's k most likely entries as a ranked table with bars.
// A per-step meta "topk" list of {token, p} is drawn whole: the lesson chose k (the
// rnn page's slider) and ranked it. Otherwise the panel ranks its array itself, with
// labels from the static list its declaration names (lessons.Array.Labels). The canvas grows with k.
// Blank tokens are drawn visibly (␣, ↵), as in every panel.
import { fit, fmt, empty, token, optMeta, FONT, SMALL, INK, MUTED } from "./common.js";
import { SERIES, roleOf, tint } from "../colors.js";

const ARRAY_K = 5; // a bare probability array names no k: its five most likely entries (the attention page's title says "top 5")
const ROW = 26, TOP = 8; // a row fits a 13 px label over a 16 px bar
const LABEL_MIN = 40, LABEL_SHARE = 0.35; // the label column: at least this, at most this share of the width
const LABEL_CHARS = 14; // longer labels (seq2seq's words are short) are cut

function ranked(cfg, view) {
  const m = optMeta(view, "topk");
  if (Array.isArray(m)) return m.map((e) => ({ label: e.token ?? e.label, p: e.p }));
  const a = cfg.arrays.length ? view.at(cfg.arrays[0], view.step) : null;
  if (!a) return [];
  const labels = view.labelsOf(cfg.arrays[0]) || [];
  const idx = Array.from(a.data.keys()).sort((i, j) => a.data[j] - a.data[i]).slice(0, ARRAY_K);
  return idx.map((i) => ({ label: labels[i] ?? `#${i}`, p: a.data[i] }));
}

// waiting says why a step has no prediction.
function waiting(view) {
  const phase = optMeta(view, "phase");
  if (phase === "encoder" || phase === "context") return "the decoder has not started yet: step on past the context";
  return view.step === 0 ? "step forward to see predictions" : "no prediction at this step";
}

const shown = (label) => token(String(label)).slice(0, LABEL_CHARS);

export function draw(canvas, cfg, view) {
  const rows = ranked(cfg, view);
  const { ctx, width, height } = fit(canvas, TOP * 2 + (rows.length || ARRAY_K) * ROW);
  if (!rows.length) { empty(ctx, width, height, waiting(view)); return null; }
  ctx.font = FONT;
  const widest = Math.max(...rows.map((r) => ctx.measureText(shown(r.label)).width));
  const labelW = Math.min(width * LABEL_SHARE, Math.max(LABEL_MIN, widest + 6)), barX = labelW + 10, barW = width - barX - 70;
  // a model's role (unidirectional, bidirectional) colours its bars as on every page
  const colour = roleOf(cfg.arrays.length ? view.decl(cfg.arrays[0])?.label : "")?.colour || SERIES[0];
  rows.forEach((r, i) => {
    const y = TOP + i * ROW + ROW / 2;
    ctx.font = FONT; ctx.fillStyle = INK; ctx.textAlign = "right";
    ctx.fillText(shown(r.label), labelW, y);
    ctx.textAlign = "left";
    ctx.fillStyle = "#eef2f7"; ctx.fillRect(barX, y - 8, barW, 16);
    ctx.fillStyle = i === 0 ? colour : tint(colour, 0.5); ctx.fillRect(barX, y - 8, Math.max(1, barW * Math.min(1, r.p)), 16);
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(r.p < 1e-4 ? "< 0.01 %" : `${(r.p * 100).toPrecision(3)} %`, barX + barW + 6, y);
  });
  return {
    hit(px, py) {
      const i = Math.floor((py - TOP) / ROW);
      return rows[i] ? { lines: [`step ${view.step}, rank ${i + 1} of ${rows.length}`, `p(${token(String(rows[i].label))}) = ${fmt(rows[i].p)}`] } : null;
    },
  };
}

// In words (a11y.js): the ranking at this step; the table has a row per rank.
export function describe(cfg, view) {
  const rows = ranked(cfg, view);
  if (!rows.length) return waiting(view);
  return `step ${view.step}, the ${rows.length} most likely: ` + rows.map((r) => `“${token(String(r.label))}” ${fmt(r.p)}`).join(", ");
}

export function table(cfg, view) {
  const rows = ranked(cfg, view);
  if (!rows.length) return null;
  return { caption: `The ${rows.length} most likely at step ${view.step}`, head: ["rank", "token", "p"], rows: rows.map((r, i) => [String(i + 1), token(String(r.label)), fmt(r.p)]) };
}
