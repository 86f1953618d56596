// tokens draws the sequence as a row of boxes with the current token marked: the input
// (static "tokens"), the targets when the lesson has them (static "targets" or
// "answers", blank where a step has none) and what the model predicted at each
// computed step (per-step meta "pred" or "prediction"; green and ✓ when meta "correct"
// is true, orange and ✗ when false). A <unk> token is drawn red, and emoji, which classroom
// fonts often lack, as their code points (common.js's shown). While training, a panel
// that declares the training key "sample" (the rnn page) adds a row with the newest
// sample the model wrote (progress meta "sample", drawn at "sample_step").
import { fit, room, empty, shown as token, timeOf, inputShown, optStatic, optMeta, FONT, SMALL, INK, MUTED } from "./common.js";
import { CORRECT, WRONG, verdictBadge } from "../colors.js";

const UNK = "<unk>", UNK_FILL = "#fecaca", UNK_LINE = "#dc2626"; // as the mt-data tables mark <unk>

const BOX = 30, GAP = 4, LABEL = 64, ROWGAP = 8;

function rows(view) {
  const out = [];
  if (Array.isArray(optStatic(view, "tokens"))) {
    const items = view.static.tokens.map((x, i) => (inputShown(view, i + 1) ? x : undefined));
    out.push({ label: "input", items, timed: true });
  }
  const targets = optStatic(view, "targets") || optStatic(view, "answers");
  if (Array.isArray(targets)) out.push({ label: "answer", items: targets.map((x) => (x === null ? undefined : x)), timed: true });
  const preds = [], right = [];
  for (let t = 1; t <= view.step; t++) {
    const m = view.metaAt(t);
    const p = m && (optMeta(view, "pred", m) ?? optMeta(view, "prediction", m));
    if (p !== undefined) { preds[t - 1] = p; right[t - 1] = optMeta(view, "correct", m); }
  }
  if (preds.length) out.push({ label: "predicted", items: preds, right, timed: true, pred: true });
  const live = view.train.running && view.declaresTrain?.("sample") ? view.train.metrics.sample : undefined;
  if (typeof live === "string" && live) out.push({ label: "sample", items: Array.from(live), live: true, at: view.train.metrics.sample_step });
  return out;
}

export function draw(canvas, cfg, view) {
  const rs = rows(view);
  // the tokens being read now: one per array of the panel (a backward pass reads from
  // the end), or the step's own token
  const nowT = new Set((cfg.arrays.length ? cfg.arrays.map((n) => timeOf(view, n, view.step)) : [view.step]).filter((t) => t > 0));
  const probe = canvas.getContext("2d");
  probe.font = FONT;
  const width = room(canvas);
  // lay out each row, wrapping at the panel's width
  const laid = [];
  let y = 6;
  // one width per step across the rows, so that a step's input, answer and prediction
  // line up; when that does not fit on one line, each row wraps on its own
  const cols = Math.max(0, ...rs.map((r) => r.items.length), optStatic(view, "tokens")?.length || 0);
  const colW = [];
  for (const r of rs) for (let i = 0; i < cols; i++) {
    const s = r.items[i] === undefined ? "" : token(r.items[i]);
    colW[i] = Math.max(colW[i] || BOX, probe.measureText(s).width + 14);
  }
  const aligned = LABEL + colW.reduce((a, w) => a + w + GAP, 0) <= width;
  for (const r of rs) {
    const y0 = y;
    let x = LABEL, n = 0;
    const boxes = [];
    const count = r.pred ? cols : r.items.length;
    for (let i = 0; i < count; i++) {
      const s = r.items[i] === undefined ? "" : token(r.items[i]);
      const w = aligned ? colW[i] : Math.max(BOX, probe.measureText(s).width + 14);
      if (x + w > width - 4 && n > 0) { x = LABEL; y += BOX + GAP; }
      boxes.push({ x, y, w, s, t: i + 1 });
      x += w + GAP; n++;
    }
    laid.push({ r, y0, boxes });
    y += BOX + ROWGAP;
  }
  const { ctx } = fit(canvas, Math.max(50, y));
  if (!rs.length) { empty(ctx, width, 50, "no tokens"); return null; }
  for (const { r, y0, boxes } of laid) {
    ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(r.label, 0, y0 + BOX / 2);
    if (r.live) ctx.fillText(`at step ${r.at}`, 0, y0 + BOX / 2 + 14); // the training step it was drawn at
    ctx.font = FONT; ctx.textAlign = "center";
    for (const b of boxes) {
      const now = !r.live && nowT.has(b.t), past = r.live || b.t < view.step;
      const verdict = r.right && r.right[b.t - 1];
      const unk = b.s === UNK;
      const v = verdict === true ? CORRECT : verdict === false ? WRONG : null;
      ctx.fillStyle = now ? "#fde68a" : v ? v.fill : unk ? UNK_FILL : past ? "#eef2f7" : "#ffffff";
      ctx.strokeStyle = now ? "#b45309" : unk ? UNK_LINE : v ? v.line : "#cbd5e1"; ctx.lineWidth = now || unk ? 2 : 1;
      if (b.s === "" && !now) { ctx.strokeStyle = "#eef0f3"; }
      ctx.beginPath(); ctx.roundRect(b.x + 0.5, b.y + 0.5, b.w, BOX, 5); ctx.fill(); ctx.stroke();
      ctx.fillStyle = past || now ? INK : MUTED;
      ctx.fillText(b.s, b.x + b.w / 2, b.y + BOX / 2 + 1);
      if (v) verdictBadge(ctx, v, b.x + b.w - 1, b.y + 2); // the verdict, not by colour alone
    }
    ctx.textAlign = "left";
  }
  return {
    hit(px, py) {
      for (const { r, boxes } of laid) for (const b of boxes) {
        if (px >= b.x && px <= b.x + b.w && py >= b.y && py <= b.y + BOX && r.live) return { lines: [`sample written after ${r.at} training steps`, `character ${b.t}: ${JSON.stringify(String(r.items[b.t - 1] ?? ""))}`] };
        if (px >= b.x && px <= b.x + b.w && py >= b.y && py <= b.y + BOX) { const v = r.right?.[b.t - 1]; return { lines: [`${r.label} at step ${b.t}`, JSON.stringify(String(r.items[b.t - 1] ?? "")) + (v === true ? ` ${CORRECT.mark} correct` : v === false ? ` ${WRONG.mark} wrong` : "")], t: b.t }; }
      }
      return null;
    },
  };
}

// In words (a11y.js): each row's tokens so far and the one at this step; the table has
// a row per row of boxes and a column per time step.
const A11Y_TOKENS = 24; // tokens read out in the label; the table has them all

function itemWord(r, i) {
  const x = r.items[i];
  if (x === undefined) return "";
  const mark = r.pred && r.right?.[i] === true ? " (right)" : r.pred && r.right?.[i] === false ? " (wrong)" : "";
  return token(String(x)) + mark;
}

export function describe(cfg, view) {
  const rs = rows(view);
  if (!rs.length) return "no tokens yet";
  return rs.map((r) => {
    const shown = r.items.map((_, i) => itemWord(r, i)).filter(Boolean);
    const label = r.live ? `sample written after ${r.at} training steps` : r.label;
    return `${label}: ${shown.slice(0, A11Y_TOKENS).join(" ")}${shown.length > A11Y_TOKENS ? " …" : ""}`;
  }).join("; ") + (view.step > 0 ? `; now at t = ${view.step}` : "");
}

export function table(cfg, view) {
  const rs = rows(view);
  if (!rs.length) return null;
  const n = Math.max(...rs.map((r) => r.items.length));
  return {
    caption: `The tokens at step ${view.step}: a row per sequence, a column per time step`,
    head: ["sequence", ...Array.from({ length: n }, (_, i) => `t = ${i + 1}`)],
    rows: rs.map((r) => [r.label, ...Array.from({ length: n }, (_, i) => itemWord(r, i))]),
  };
}
