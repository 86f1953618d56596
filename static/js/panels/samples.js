// samples shows how a translator is doing while it trains: held-out BLEU against the
// training step (meta "bleu_curve", a list of [step, bleu]) and a few sample
// translations (meta "samples": {source, output, reference}), green and ✓ where the
// output equals the reference, orange and ✗ where not. While training it reads the newest progress message; otherwise
// the static meta, which describes the current weights.
import { fit, room, tick, fmt, empty, FONT, SMALL, INK, MUTED, GRID } from "./common.js";
import { SERIES, CORRECT, WRONG } from "../colors.js";

const CURVE_H = 150, LINE = 19, LEFT = 40, PAD = 10;
const NARROW = 480; // below this width (a phone) a sample's reference gets a line of its own

export function draw(canvas, cfg, view) {
  const live = view.train.running && view.train.metrics && Array.isArray(view.train.metrics.samples);
  const src = live ? view.train.metrics : view.static;
  const curve = Array.isArray(src.bleu_curve) ? src.bleu_curve : [];
  const samples = Array.isArray(src.samples) ? src.samples : [];
  const narrow = room(canvas) < NARROW;
  const per = narrow ? 4 : 3; // lines per sample: source, output (and reference), a gap
  const height = CURVE_H + samples.length * per * LINE + PAD;
  const { ctx, width } = fit(canvas, height);
  if (!curve.length && !samples.length) { empty(ctx, width, height, "no scores yet"); return null; }

  // the BLEU curve, y in [0, 1]
  const top = 16, plotH = CURVE_H - top - 22, plotW = width - LEFT - 12;
  const xmax = Math.max(25, ...curve.map((p) => p[0]));
  const X = (s) => LEFT + (s / xmax) * plotW, Y = (b) => top + plotH * (1 - b);
  ctx.font = SMALL; ctx.textAlign = "right";
  for (const v of [0, 0.3, 0.5, 1]) {
    ctx.strokeStyle = v === 0.3 ? "#fca5a5" : GRID; ctx.lineWidth = 1;
    ctx.setLineDash(v === 0.3 ? [4, 3] : []);
    ctx.beginPath(); ctx.moveTo(LEFT, Y(v)); ctx.lineTo(LEFT + plotW, Y(v)); ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = MUTED; ctx.fillText(tick(v), LEFT - 5, Y(v));
  }
  ctx.textAlign = "center";
  for (const s of [0, xmax / 2, xmax]) ctx.fillText(String(Math.round(s)), X(s), top + plotH + 12);
  ctx.fillStyle = MUTED; ctx.fillText("training step", X(xmax / 4), top + plotH + 12);
  ctx.textAlign = "left";
  const last = curve.at(-1);
  ctx.fillStyle = INK; ctx.font = FONT;
  ctx.fillText(last ? `held-out BLEU ${fmt(last[1])} after ${last[0]} training steps` + (live ? " (training…)" : "") : "", narrow ? 0 : LEFT, 6);
  ctx.strokeStyle = SERIES[0]; ctx.fillStyle = SERIES[0]; ctx.lineWidth = 2;
  ctx.beginPath();
  curve.forEach((p, i) => (i ? ctx.lineTo(X(p[0]), Y(p[1])) : ctx.moveTo(X(p[0]), Y(p[1]))));
  ctx.stroke();
  if (curve.length <= 80) curve.forEach((p) => { ctx.beginPath(); ctx.arc(X(p[0]), Y(p[1]), 2.5, 0, 7); ctx.fill(); });

  // the samples: source, output (coloured), reference
  let y = CURVE_H + 14;
  const rows = [];
  for (const s of samples) {
    const ok = s.output === s.reference;
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText("EN", 0, y); ctx.fillStyle = INK; ctx.font = FONT; ctx.fillText(s.source, 26, y);
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText("model", 0, y + LINE);
    const verdict = ok ? CORRECT : WRONG; // a mark beside the colour
    ctx.fillStyle = verdict.fill; ctx.font = FONT;
    const w = ctx.measureText(s.output || "(nothing)").width;
    ctx.fillRect(36, y + LINE - 9, w + 8, 18);
    ctx.fillStyle = INK; ctx.fillText(s.output || "(nothing)", 40, y + LINE);
    ctx.font = "bold " + FONT; ctx.fillStyle = verdict.line; ctx.fillText(verdict.mark, 40 + w + 10, y + LINE);
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(`reference: ${s.reference}`, narrow ? 40 : 40 + w + 30, narrow ? y + 2 * LINE : y + LINE);
    rows.push({ y0: y - 9, y1: y + (per - 2) * LINE + 9, lines: [s.source, `model: ${s.output} ${verdict.mark}`, `reference: ${s.reference}`] });
    y += per * LINE;
  }
  return {
    hit(px, py) {
      if (py < CURVE_H) {
        if (!curve.length || px < LEFT) return null;
        const s = ((px - LEFT) / plotW) * xmax;
        const p = curve.reduce((a, b) => (Math.abs(b[0] - s) < Math.abs(a[0] - s) ? b : a));
        return { lines: [`after ${p[0]} training steps`, `held-out BLEU ${fmt(p[1])}`] };
      }
      const r = rows.find((r) => py >= r.y0 && py <= r.y1);
      return r ? { lines: r.lines } : null;
    },
  };
}

// In words (a11y.js): the newest held-out BLEU and how many samples match; two tables,
// the BLEU curve and the samples.
function scores(view) {
  const live = view.train.running && view.train.metrics && Array.isArray(view.train.metrics.samples);
  const src = live ? view.train.metrics : view.static;
  return { curve: Array.isArray(src.bleu_curve) ? src.bleu_curve : [], samples: Array.isArray(src.samples) ? src.samples : [], live };
}

export function describe(cfg, view) {
  const { curve, samples, live } = scores(view);
  if (!curve.length && !samples.length) return "no scores yet";
  const last = curve.at(-1);
  return (last ? `held-out BLEU ${fmt(last[1])} after ${last[0]} training steps${live ? " (training)" : ""}; ` : "") +
    `${samples.filter((s) => s.output === s.reference).length} of ${samples.length} sample translations equal their reference`;
}

export function table(cfg, view) {
  const { curve, samples } = scores(view);
  return [
    curve.length ? { caption: "Held-out BLEU by training step", head: ["training step", "BLEU"], rows: curve.map((p) => [String(p[0]), fmt(p[1])]) } : null,
    samples.length ? { caption: "Sample translations", head: ["source", "model", "reference", "equal"], rows: samples.map((s) => [s.source, s.output || "(nothing)", s.reference, s.output === s.reference ? "yes" : "no"]) } : null,
  ].filter(Boolean);
}
