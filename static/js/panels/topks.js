// topks draws several decoder runs' softmax top-k lists side by side (one under the
// other on a narrow panel) at the current step: one column per static "dec_rows" entry
// that names a per-step meta "topk" list of {token, p}, headed by the run's label and
// its input. The reference label (meta "label") is outlined wherever it appears, and a
// run's chosen token is the top row.
// Each list is drawn whole (the lesson chose k); the canvas grows with the longest.
import { fit, room, fmt, empty, token, optMeta, FONT, SMALL, INK, MUTED } from "./common.js";
import { SERIES, CORRECT, roleOf, tint } from "../colors.js";

const ROW = 24, HEAD = 38, GAP = 18;
const EMPTY_ROWS = 5; // the height while no list has arrived, the lessons' usual k
const MIN_COL = 240; // a run's column narrower than this (a phone): the runs are stacked instead
const quoted = (s) => `“${token(String(s))}”`; // a token in running text, blanks visible

export function draw(canvas, cfg, view) {
  const runs = (Array.isArray(view.static.dec_rows) ? view.static.dec_rows : []).filter((r) => r.topk);
  const m = view.meta;
  const lists = runs.map((r) => ({ r, list: Array.isArray(m[r.topk]) ? m[r.topk] : null }));
  const k = Math.max(0, ...lists.map((l) => (l.list ? l.list.length : 0)));
  const stacked = runs.length > 1 && room(canvas) / runs.length < MIN_COL;
  const block = HEAD + (k || EMPTY_ROWS) * ROW + 10; // one run's list, headed
  // stacked, each run takes its list's height (a run that has stopped, only its head)
  const tops = [0];
  for (const l of lists) tops.push(tops.at(-1) + (l.list ? HEAD + l.list.length * ROW + 10 : HEAD));
  const { ctx, width, height } = fit(canvas, stacked && lists.some((l) => l.list) ? tops.at(-1) : block);
  if (!lists.some((l) => l.list)) {
    empty(ctx, width, height, optMeta(view, "phase") === "encoder" || optMeta(view, "phase") === "context" ? "the decoder has not started yet: step on past the context" : view.step === 0 ? "step forward to see predictions" : "no prediction at this step");
    return null;
  }
  const colW = stacked ? width : (width - GAP * (runs.length - 1)) / runs.length;
  const label = m.label;
  const rects = [];
  lists.forEach(({ r, list }, i) => {
    const x0 = stacked ? 0 : i * (colW + GAP), top = stacked ? tops[i] : 0;
    const colour = roleOf(r.label)?.colour || SERIES[i % SERIES.length]; // a run's role (teacher forcing, free running) as on the other panels
    ctx.font = "bold " + FONT; ctx.fillStyle = INK; ctx.textAlign = "left";
    ctx.fillText(r.label, x0, top + 10);
    ctx.font = SMALL; ctx.fillStyle = MUTED;
    ctx.fillText(m[r.input] !== undefined ? `reads ${quoted(m[r.input])}` + (label !== undefined ? `, label ${quoted(label)}` : "") : String(m[r.output] ?? "finished"), x0, top + 27, colW);
    if (!list) return;
    const labelW = Math.min(96, colW * 0.35), barX = x0 + labelW + 8, barW = colW - labelW - 8 - 56;
    list.forEach((e, k) => {
      const y = top + HEAD + k * ROW + ROW / 2;
      const isLabel = label !== undefined && e.token === label;
      ctx.font = FONT; ctx.fillStyle = INK; ctx.textAlign = "right";
      ctx.fillText(token(String(e.token)).slice(0, 12), x0 + labelW, y);
      ctx.textAlign = "left";
      ctx.fillStyle = "#eef2f7"; ctx.fillRect(barX, y - 8, barW, 16);
      ctx.fillStyle = k === 0 ? colour : tint(colour, 0.5); ctx.fillRect(barX, y - 8, Math.max(1, barW * Math.min(1, e.p)), 16);
      if (isLabel) { ctx.strokeStyle = CORRECT.line; ctx.lineWidth = 2; ctx.strokeRect(barX - 2, y - 10, barW + 4, 20); }
      ctx.font = SMALL; ctx.fillStyle = MUTED;
      ctx.fillText(e.p < 1e-4 ? "< 0.01 %" : `${(e.p * 100).toPrecision(3)} %`, barX + barW + 6, y);
      rects.push({ x0, x1: x0 + colW, y0: y - ROW / 2, y1: y + ROW / 2, lines: [`${r.label}, rank ${k + 1}`, `p(${token(String(e.token))}) = ${fmt(e.p)}` + (isLabel ? " (the label)" : "")] });
    });
  });
  return {
    hit(px, py) {
      const h = rects.find((q) => px >= q.x0 && px <= q.x1 && py >= q.y0 && py <= q.y1);
      return h ? { lines: h.lines } : null;
    },
  };
}

// In words (a11y.js): each run's most likely tokens at this step; the table has a row
// per rank and a column per run.
function runLists(view) {
  const runs = (Array.isArray(view.static.dec_rows) ? view.static.dec_rows : []).filter((r) => r.topk);
  return runs.map((r) => ({ r, list: Array.isArray(view.meta[r.topk]) ? view.meta[r.topk] : null }));
}

export function describe(cfg, view) {
  const lists = runLists(view).filter((l) => l.list);
  if (!lists.length) return view.step === 0 ? "step forward to see predictions" : "no prediction at this step";
  return `step ${view.step}: ` + lists.map(({ r, list }) => `${r.label}: ` + list.slice(0, 3).map((e) => `${quoted(e.token)} ${fmt(e.p)}`).join(", ")).join("; ");
}

export function table(cfg, view) {
  const lists = runLists(view).filter((l) => l.list);
  if (!lists.length) return null;
  const k = Math.max(...lists.map((l) => l.list.length));
  return {
    caption: `The most likely tokens of each run at step ${view.step}`,
    head: ["rank", ...lists.flatMap(({ r }) => [`${r.label}: token`, `${r.label}: p`])],
    rows: Array.from({ length: k }, (_, i) => [String(i + 1), ...lists.flatMap(({ list }) => (list[i] ? [token(String(list[i].token)), fmt(list[i].p)] : ["", ""]))]),
  };
}
