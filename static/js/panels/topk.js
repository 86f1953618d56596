// topk draws a per-step softmax's k most likely entries as a ranked table with bars.
// Labels come from the lesson's static "vocab" (or "labels"); a per-step meta "topk"
// list of {token, p} is used when the lesson sends one instead of an array.
import { fit, fmt, empty, FONT, SMALL, INK, MUTED } from "./common.js";
import { SERIES } from "../colors.js";

const K = 5, ROW = 26, TOP = 8;

function ranked(cfg, view) {
  const m = view.meta && view.meta.topk;
  if (Array.isArray(m)) return m.slice(0, K).map((e) => ({ label: e.token ?? e.label, p: e.p }));
  const a = cfg.arrays.length ? view.at(cfg.arrays[0], view.step) : null;
  if (!a) return [];
  const labels = view.static.vocab || view.static.labels || [];
  const idx = Array.from(a.data.keys()).sort((i, j) => a.data[j] - a.data[i]).slice(0, K);
  return idx.map((i) => ({ label: labels[i] ?? `#${i}`, p: a.data[i] }));
}

// waiting says why a step has no prediction.
function waiting(view) {
  const phase = view.meta?.phase;
  if (phase === "encoder" || phase === "context") return "the decoder has not started yet: step on past the context";
  return view.step === 0 ? "step forward to see predictions" : "no prediction at this step";
}

export function draw(canvas, cfg, view) {
  const rows = ranked(cfg, view);
  const { ctx, width, height } = fit(canvas, TOP * 2 + K * ROW);
  if (!rows.length) { empty(ctx, width, height, waiting(view)); return null; }
  const labelW = 70, barX = labelW + 10, barW = width - barX - 70;
  rows.forEach((r, i) => {
    const y = TOP + i * ROW + ROW / 2;
    ctx.font = FONT; ctx.fillStyle = INK; ctx.textAlign = "right";
    ctx.fillText(JSON.stringify(String(r.label)).slice(0, 10), labelW, y);
    ctx.textAlign = "left";
    ctx.fillStyle = "#eef2f7"; ctx.fillRect(barX, y - 8, barW, 16);
    ctx.fillStyle = i === 0 ? SERIES[0] : "#7fb2d6"; ctx.fillRect(barX, y - 8, Math.max(1, barW * Math.min(1, r.p)), 16);
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(r.p < 1e-4 ? "< 0.01 %" : `${(r.p * 100).toPrecision(3)} %`, barX + barW + 6, y);
  });
  return {
    hit(px, py) {
      const i = Math.floor((py - TOP) / ROW);
      return rows[i] ? { lines: [`step ${view.step}, rank ${i + 1}`, `p(${JSON.stringify(String(rows[i].label))}) = ${fmt(rows[i].p)}`] } : null;
    },
  };
}
