// scatter draws labelled points in 2-D: the embeddings lesson's map of the word
// vectors on their first two principal components. The points are the static array
// named by the panel ([V, 2]), or, while the model trains, the progress message's
// meta "points" (redrawn as it learns). Labels come from the static "words", colours
// from "word_class" indexing "class_names" (the last class is grey). The current
// step's meta "example" {c, t, n, s} is drawn on top: the centre word ringed, lines
// to its true context (green) and negatives (red) with their scores; the static
// "focus" {word, neighbours} marks the typed word and its nearest neighbours.
// Labels are placed greedily in priority order (marked words, then by frequency:
// words come most frequent first) and skipped where they would overlap.
import { fit, flexHeight, fmt, empty, FONT, SMALL, INK, MUTED, GRID } from "./common.js";
import { SERIES, REST, CORRECT, WRONG } from "../colors.js";

const HEIGHT = 520, PAD = 14, LEGEND = 22, DOT = 3.2;
const GREY = REST, POSITIVE = CORRECT.line, NEGATIVE = WRONG.line; // the true context and the sampled negatives (dashed)
const BOLD = FONT.replace("13px", "bold 14px");
const score = (v) => (v === undefined || v === null ? "" : v < 0.005 ? "<0.01" : v.toFixed(2)); // σ, a probability

function points(cfg, view) {
  const live = view.train.running && Array.isArray(view.train.metrics?.points) ? view.train.metrics.points : null;
  if (live) return live.map((p) => [p[0], p[1]]);
  const a = view.staticArray(cfg.arrays[0]);
  if (!a || a.shape.length !== 2 || a.shape[1] !== 2) return [];
  const out = [];
  for (let i = 0; i < a.shape[0]; i++) out.push([a.data[2 * i], a.data[2 * i + 1]]);
  return out;
}

export function draw(canvas, cfg, view) {
  const { ctx, width, height } = fit(canvas, flexHeight(canvas, HEIGHT));
  const pts = points(cfg, view);
  const words = view.static.words || [];
  if (!pts.length) { empty(ctx, width, height, "no embeddings yet"); return null; }
  const classes = view.static.word_class || [];
  const names = view.static.class_names || [];
  const colour = (i) => { const c = classes[i]; return c === undefined || c >= names.length - 1 ? GREY : SERIES[c % SERIES.length]; };

  // axes: the same scale on both, so distances on screen are distances in the plane
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const [x, y] of pts) { if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y; }
  // the legend: one swatch per class, left to right, in as many rows as the width needs
  ctx.font = SMALL;
  const keys = [];
  let lx = 0, ly = 9;
  names.forEach((n, c) => {
    const w = 13 + ctx.measureText(n).width + 14;
    if (lx > 0 && lx + w - 14 > width) { lx = 0; ly += LEGEND; }
    keys.push({ n, c, x: lx, y: ly });
    lx += w;
  });
  const legendH = ly - 9 + LEGEND;
  const top = legendH + PAD, plotW = width - 2 * PAD, plotH = height - top - PAD;
  const s = Math.min(plotW / Math.max(1e-9, x1 - x0), plotH / Math.max(1e-9, y1 - y0));
  const ox = PAD + (plotW - s * (x1 - x0)) / 2, oy = top + (plotH - s * (y1 - y0)) / 2;
  const X = (x) => ox + (x - x0) * s, Y = (y) => oy + (y1 - y) * s;

  ctx.strokeStyle = GRID; ctx.lineWidth = 1;
  if (x0 < 0 && x1 > 0) { ctx.beginPath(); ctx.moveTo(X(0), top); ctx.lineTo(X(0), top + plotH); ctx.stroke(); }
  if (y0 < 0 && y1 > 0) { ctx.beginPath(); ctx.moveTo(PAD, Y(0)); ctx.lineTo(PAD + plotW, Y(0)); ctx.stroke(); }

  // the current example and the focus word
  const ex = view.step > 0 ? view.meta.example : null;
  const focus = view.static.focus || {};
  const marked = new Map(); // word → {colour, text}
  if (focus.word !== undefined) marked.set(focus.word, { colour: INK, text: words[focus.word] });
  for (const n of focus.neighbours || []) if (!marked.has(n)) marked.set(n, { colour: INK, text: words[n], faint: true });
  if (ex && pts[ex.c]) {
    const [cx, cy] = pts[ex.c];
    const line = (w, col, dash) => {
      if (!pts[w]) return;
      ctx.strokeStyle = col; ctx.lineWidth = 1.5; ctx.setLineDash(dash);
      ctx.beginPath(); ctx.moveTo(X(cx), Y(cy)); ctx.lineTo(X(pts[w][0]), Y(pts[w][1])); ctx.stroke();
      ctx.setLineDash([]);
    };
    (ex.n || []).forEach((w, i) => { line(w, NEGATIVE, [4, 3]); marked.set(w, { colour: NEGATIVE, text: `${words[w]} ${score(ex.s?.[i + 1])}` }); });
    line(ex.t, POSITIVE, []);
    marked.set(ex.t, { colour: POSITIVE, text: `${words[ex.t]} ${score(ex.s?.[0])}` });
    marked.set(ex.c, { colour: INK, text: words[ex.c], ring: true });
  }

  // dots: function words first (underneath), then the rest
  const order = pts.map((_, i) => i).sort((a, b) => (colour(a) === GREY ? 0 : 1) - (colour(b) === GREY ? 0 : 1));
  for (const i of order) {
    ctx.fillStyle = colour(i);
    ctx.beginPath(); ctx.arc(X(pts[i][0]), Y(pts[i][1]), DOT, 0, 7); ctx.fill();
  }
  for (const [w, m] of marked) {
    if (!pts[w]) continue;
    ctx.strokeStyle = m.colour; ctx.lineWidth = m.ring ? 2.5 : 1.5;
    ctx.beginPath(); ctx.arc(X(pts[w][0]), Y(pts[w][1]), m.ring ? 8 : 5.5, 0, 7); ctx.stroke();
  }

  // labels, greedily without overlaps: marked words first, then by frequency
  const boxes = [];
  const free = (b) => boxes.every((o) => b.x1 < o.x0 || b.x0 > o.x1 || b.y1 < o.y0 || b.y0 > o.y1);
  const place = (i, text, font, fill, force) => {
    ctx.font = font;
    const w = ctx.measureText(text).width, h = 14, px = X(pts[i][0]), py = Y(pts[i][1]);
    const gap = force ? 10 : 6; // clear of a marked word's ring
    for (const [dx, dy] of [[gap, -7], [gap, 7], [-gap - w, -7], [-gap - w, 7]]) {
      const b = { x0: px + dx - 1, x1: px + dx + w + 1, y0: py + dy - h / 2, y1: py + dy + h / 2 };
      if (b.x0 < 0 || b.x1 > width || b.y0 < legendH || b.y1 > height) continue;
      if (!force && !free(b)) continue;
      boxes.push(b);
      ctx.fillStyle = "rgba(255,255,255,0.75)"; ctx.fillRect(b.x0, b.y0 + 1, b.x1 - b.x0, h - 2);
      ctx.fillStyle = fill; ctx.textAlign = "left"; ctx.fillText(text, px + dx, py + dy);
      return;
    }
  };
  for (const [w, m] of marked) if (pts[w] && !m.faint) place(w, m.text, BOLD, m.colour, true);
  for (const [w, m] of marked) if (pts[w] && m.faint) place(w, m.text, FONT, INK, false);
  for (let i = 0; i < pts.length; i++) if (!marked.has(i) && words[i] !== undefined) place(i, words[i], FONT, colour(i) === GREY ? MUTED : INK, false);

  ctx.font = SMALL; ctx.textAlign = "left";
  for (const { n, c, x, y } of keys) {
    ctx.fillStyle = c === names.length - 1 ? GREY : SERIES[c % SERIES.length];
    ctx.beginPath(); ctx.arc(x + 5, y, 4.5, 0, 7); ctx.fill();
    ctx.fillStyle = INK; ctx.fillText(n, x + 13, y);
  }
  if (view.train.running) { ctx.fillStyle = MUTED; ctx.textAlign = "right"; ctx.fillText(`training: step ${view.train.done}`, width - 2, 9); ctx.textAlign = "left"; }

  return {
    hit(px, py) {
      let best = -1, bestD = 100; // within 10 px
      pts.forEach(([x, y], i) => { const d = (X(x) - px) ** 2 + (Y(y) - py) ** 2; if (d < bestD) { bestD = d; best = i; } });
      if (best < 0) return null;
      return { lines: [`${words[best] ?? "#" + best} (${names[classes[best]] ?? "?"})`, `PC1 = ${fmt(pts[best][0])}, PC2 = ${fmt(pts[best][1])}`] };
    },
  };
}

// In words (a11y.js): how many words, the typed word's neighbours and the step's
// example; the table has a row per word with its two coordinates.
import { cellText } from "./common.js";

export function describe(cfg, view) {
  const pts = points(cfg, view);
  if (!pts.length) return "no embeddings yet";
  const words = view.static.words || [];
  const w = (i) => `“${words[i] ?? i}”`;
  const out = [`${pts.length} words on their first two principal components`];
  const focus = view.static.focus || {};
  if (focus.word !== undefined) out.push(`${w(focus.word)} is typed; its nearest: ${(focus.neighbours || []).map(w).join(", ")}`);
  const ex = view.step > 0 ? view.meta.example : null;
  if (ex && ex.c !== undefined) out.push(`at step ${view.step}: centre ${w(ex.c)}, context ${w(ex.t)} ${score(ex.s?.[0])}` + ((ex.n || []).length ? `, negatives ${(ex.n || []).map((n, i) => `${w(n)} ${score(ex.s?.[i + 1])}`).join(", ")}` : ""));
  return out.join("; ");
}

export function table(cfg, view) {
  const pts = points(cfg, view);
  if (!pts.length) return null;
  const words = view.static.words || [], classes = view.static.word_class || [], names = view.static.class_names || [];
  return { caption: "The words' embeddings on their first two principal components", head: ["word", "PC 1", "PC 2", "class"],
    rows: pts.map((p, i) => [String(words[i] ?? i + 1), cellText(p[0]), cellText(p[1]), names[classes[i]] ?? ""]) };
}
