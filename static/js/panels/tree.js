// tree draws a beam search's hypothesis tree (the beam-search lesson), growing one
// column per step up to the current one. Static meta under the panel's ID: {nodes,
// counts, k, alpha, best, bos}. A node is {id, parent, t, word, p, log_p, score, rank,
// fate, best}: fate "kept" (in the top k, a live beam), "finished" (in the top k and
// ending in <eos>) or "pruned"; p = P(y_t | prefix), log_p = Σ log P so far, score =
// log_p / t^α. An entry with "more" counts further pruned expansions of its parent
// that are not drawn. counts[t-1] is {kept, finished, pruned} of step t. The server
// chooses, orders and scores everything; this module lays it out: columns are steps,
// each parent's expansions sit next to it, and at the last step the path of the best
// hypothesis ŷ is outlined (the lesson's step after the search's last); greedy's
// path (nodes with greedy: true) is underlined.
import { fit, room, fmt, empty, FONT, SMALL, INK, MUTED, NOW } from "./common.js";
import { SERIES, roleOf, tint } from "../colors.js";

const LEGEND = 24, HEAD = 46, ROOT_W = 56, HGAP = 30, VGAP = 4, GROUPGAP = 8, PAD = 6;
const H = { kept: 34, finished: 34, pruned: 22, more: 16 };
// Okabe–Ito (colors.js): blue for kept, bluish green for finished; the best path in
// beam search's colour and greedy's path in greedy's (their roles, as in the log P
// plot and the exports); pruned boxes are grey and dashed, the best path thick, greedy's
// dashed, so no state depends on hue alone.
const STYLE = {
  kept: { stroke: SERIES[0], fill: tint(SERIES[0], 0.89), text: INK },
  finished: { stroke: SERIES[2], fill: tint(SERIES[2], 0.86), text: INK },
  pruned: { stroke: "#9ca3af", fill: "#ffffff", text: MUTED },
};
const BEST = roleOf("beam search").colour;
const GREEDY = roleOf("greedy").colour;

const kind = (n) => (n.more ? "more" : n.fate);
const sumCounts = (c) => (c ? (c.kept || 0) + (c.finished || 0) + (c.pruned || 0) : 0);

// layout places every entry of every step (so the tree does not move while it
// grows): each parent's expansions form a group centred on the parent where there
// is room, pushed down where there is not.
function layout(tree) {
  const steps = tree.counts.length;
  const cols = Array.from({ length: steps + 1 }, () => []);
  for (const n of tree.nodes) if (n.t >= 1 && n.t <= steps) cols[n.t].push(n);
  const y = new Map([[0, 0]]); // node id → centre y (relative)
  const placed = [];
  for (let t = 1; t <= steps; t++) {
    const groups = new Map();
    for (const n of cols[t]) {
      if (!groups.has(n.parent)) groups.set(n.parent, []);
      groups.get(n.parent).push(n);
    }
    const parents = [...groups.keys()].sort((a, b) => (y.get(a) ?? 0) - (y.get(b) ?? 0));
    let cursor = -Infinity;
    for (const p of parents) {
      const g = groups.get(p).sort((a, b) => (a.more ? 1 : 0) - (b.more ? 1 : 0) || a.rank - b.rank);
      const h = g.reduce((s, n) => s + H[kind(n)], 0) + VGAP * (g.length - 1);
      let top = Math.max((y.get(p) ?? 0) - h / 2, cursor);
      for (const n of g) {
        const hh = H[kind(n)];
        const e = { n, top, h: hh };
        if (!n.more) y.set(n.id, top + hh / 2);
        placed.push(e);
        top += hh + VGAP;
      }
      cursor = top - VGAP + GROUPGAP;
    }
  }
  return { placed, y, steps };
}

// place shifts the layout so that the columns in view [first, last] start under the
// heads, and returns the canvas height they need.
function place(L, first, last) {
  let lo = Infinity, hi = -Infinity;
  if (first === 1) { lo = -H.kept / 2; hi = H.kept / 2; } // the root
  for (const e of L.placed) if (e.n.t >= first && e.n.t <= last) { lo = Math.min(lo, e.top); hi = Math.max(hi, e.top + e.h); }
  if (!(lo <= hi)) { lo = 0; hi = H.kept; }
  const shift = LEGEND + HEAD - lo;
  for (const e of L.placed) e.top += shift;
  for (const [id, v] of L.y) L.y.set(id, v + shift);
  return hi - lo + LEGEND + HEAD + PAD;
}

function box(ctx, x, top, w, h, style, dashed, best) {
  ctx.fillStyle = style.fill; ctx.strokeStyle = best ? BEST : style.stroke; ctx.lineWidth = best ? 3 : 1.5;
  if (dashed) ctx.setLineDash([4, 3]);
  ctx.beginPath(); ctx.roundRect(x + 0.5, top + 0.5, w, h, 5); ctx.fill(); ctx.stroke();
  ctx.setLineDash([]);
}

function legend(ctx, width) {
  const items = [["kept (top k)", STYLE.kept, false, false], ["finished (<eos>)", STYLE.finished, false, false], ["pruned", STYLE.pruned, true, false], ["best ŷ", STYLE.kept, false, true], ["greedy's path", null]];
  let x = 0;
  ctx.font = SMALL; ctx.textAlign = "left";
  for (const [label, st, dashed, best] of items) {
    if (st) box(ctx, x, 4, 22, 14, st, dashed, best);
    else { ctx.strokeStyle = GREEDY; ctx.lineWidth = 3; ctx.setLineDash([3, 3]); ctx.beginPath(); ctx.moveTo(x, 15); ctx.lineTo(x + 22, 15); ctx.stroke(); ctx.setLineDash([]); }
    ctx.fillStyle = INK; ctx.fillText(label, x + 28, 11);
    x += 36 + ctx.measureText(label).width;
    if (x > width - 150) break; // room for "ŷ chosen by score" on the right
  }
}

export function draw(canvas, cfg, view) {
  const tree = view.static[cfg.id];
  const width = room(canvas);
  if (!tree || !Array.isArray(tree.nodes) || !Array.isArray(tree.counts)) {
    const { ctx } = fit(canvas, 50); empty(ctx, width, 50, "no search to show"); return null;
  }
  const L = layout(tree);
  const byId = new Map(tree.nodes.filter((n) => !n.more).map((n) => [n.id, n]));
  const now = Math.min(view.step, L.steps), done = view.step > L.steps; // the step after the last chooses ŷ
  const alpha = Number(tree.alpha) || 0;

  // node width from the longest word; as many columns as fit, the current step always in view
  const probe = canvas.getContext("2d");
  probe.font = FONT;
  let wordW = 0, pW = 0; // the longest word, and the longest P(y_t | prefix) beside it
  for (const n of tree.nodes) if (!n.more) wordW = Math.max(wordW, probe.measureText(n.word).width);
  probe.font = SMALL;
  for (const n of tree.nodes) if (!n.more) pW = Math.max(pW, probe.measureText(fmt(n.p)).width);
  const nodeW = Math.min(170, Math.max(96, wordW + pW + 22));
  const avail = width - ROOT_W - 16; // 16: the ŷ mark after the last column
  // column t spans [X(t) − gap, X(t) + nodeW]: as many as fit; few steps spread out (up to 3 gaps)
  const nCols = Math.max(1, Math.floor(avail / (nodeW + HGAP)));
  const colW = Math.min(nodeW + 3 * HGAP, Math.max(nodeW + HGAP, avail / Math.min(nCols, Math.max(1, L.steps))));
  let first = 1;
  // in view: the current step, or once ŷ is chosen the step where it ended
  const focus = done && byId.has(tree.best) ? byId.get(tree.best).t : Math.max(now, 1);
  if (L.steps > nCols) first = Math.max(1, Math.min(L.steps - nCols + 1, focus - nCols + 1));
  const gap = colW - nodeW;
  const X = (t) => (t === 0 ? 0 : ROOT_W + gap + (t - first) * colW);
  const visible = (t) => t === 0 ? first === 1 : t >= first && t < first + nCols;
  const height = Math.max(80, place(L, first, first + nCols - 1));
  const { ctx } = fit(canvas, height);

  legend(ctx, width);
  // column heads: the step, its counts; steps still to come are faint
  for (let t = first; t < first + nCols && t <= L.steps; t++) {
    const c = tree.counts[t - 1] || {};
    const x = X(t) + nodeW / 2;
    ctx.textAlign = "center";
    ctx.font = FONT; ctx.fillStyle = t === now ? NOW : t < now ? INK : "#c4c8cf";
    ctx.fillText((t === now ? "▸ " : "") + `t = ${t}`, x, LEGEND + 9);
    ctx.font = SMALL; ctx.fillStyle = t <= now ? MUTED : "#c4c8cf";
    const parts = [];
    if (c.kept) parts.push(`${c.kept} kept`);
    if (c.finished) parts.push(`${c.finished} done`);
    ctx.fillText(parts.join(" · "), x, LEGEND + 23);
    if (c.pruned) ctx.fillText(`${c.pruned} pruned`, x, LEGEND + 36);
  }
  if (done) { ctx.font = FONT; ctx.fillStyle = BEST; ctx.textAlign = "right"; ctx.fillText("▸ ŷ chosen by score", width - 2, 11); }
  if (first > 1) { ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "left"; ctx.fillText(`… steps 1–${first - 1}`, 0, LEGEND + 9); }
  ctx.textAlign = "left";

  // the root, the <bos> prefix
  const rootY = L.y.get(0);
  if (visible(0)) {
    box(ctx, 0, rootY - H.kept / 2, ROOT_W - 6, H.kept, STYLE.kept, false, done && tree.best > 0);
    ctx.font = FONT; ctx.fillStyle = INK; ctx.textAlign = "center";
    ctx.fillText(tree.bos || "<bos>", (ROOT_W - 6) / 2, rootY);
    ctx.textAlign = "left";
  }

  const shown = L.placed.filter((e) => e.n.t <= now && visible(e.n.t));
  // edges first, best path last so it lies on top
  const edge = (e, best, greedy) => {
    const p = e.n.parent, py = Math.min(height - PAD, Math.max(LEGEND + HEAD, L.y.get(p)));
    const x0 = p === 0 ? ROOT_W - 6 : visible(e.n.t - 1) ? X(e.n.t - 1) + nodeW : X(e.n.t) - gap + 4;
    const x1 = X(e.n.t), y1 = e.top + e.h / 2;
    const st = STYLE[e.n.fate] || STYLE.pruned;
    ctx.strokeStyle = best ? BEST : greedy ? GREEDY : st.stroke; ctx.lineWidth = best || greedy ? 3 : e.n.fate === "pruned" ? 1 : 1.5;
    ctx.globalAlpha = best || greedy ? 1 : e.n.fate === "pruned" ? 0.6 : 0.9;
    if (greedy) ctx.setLineDash([5, 4]);
    ctx.beginPath(); ctx.moveTo(x0, py); ctx.bezierCurveTo(x0 + gap / 2, py, x1 - gap / 2, y1, x1, y1); ctx.stroke();
    ctx.setLineDash([]); ctx.globalAlpha = 1;
  };
  for (const e of shown) if (!(done && e.n.best)) edge(e, false, false);
  for (const e of shown) if (e.n.greedy && !(done && e.n.best)) edge(e, false, true);
  if (done) for (const e of shown) if (e.n.best) edge(e, true, false);

  const hits = [];
  for (const e of shown) {
    const n = e.n, x = X(n.t);
    if (n.more) {
      ctx.font = SMALL; ctx.fillStyle = MUTED;
      ctx.fillText(`+${n.more} more pruned`, x + 4, e.top + e.h / 2);
      hits.push({ x, top: e.top, w: nodeW, h: e.h, n });
      continue;
    }
    const st = STYLE[n.fate] || STYLE.pruned;
    const best = done && n.best;
    box(ctx, x, e.top, nodeW, e.h, st, n.fate === "pruned", best);
    const p = fmt(n.p);
    ctx.font = SMALL; const pw = ctx.measureText(p).width;
    ctx.fillStyle = MUTED; ctx.textAlign = "right";
    const line1 = n.fate === "pruned" ? e.top + e.h / 2 : e.top + 11;
    ctx.fillText(p, x + nodeW - 5, line1);
    ctx.textAlign = "left"; ctx.font = FONT; ctx.fillStyle = st.text;
    ctx.fillText(clipText(ctx, n.word, nodeW - pw - 14), x + 6, line1);
    if (n.fate !== "pruned") {
      ctx.font = SMALL; ctx.fillStyle = INK;
      const s = alpha ? `score ${fmt(n.score)}` : `P ${fmt(Math.exp(n.log_p))}`;
      ctx.fillText(s, x + 6, e.top + 25);
    }
    if (n.greedy) { // greedy's path: a dotted underline
      ctx.strokeStyle = GREEDY; ctx.lineWidth = 3; ctx.setLineDash([3, 3]);
      ctx.beginPath(); ctx.moveTo(x + 4, e.top + e.h + 2); ctx.lineTo(x + nodeW - 4, e.top + e.h + 2); ctx.stroke();
      ctx.setLineDash([]);
    }
    if (best && n.fate === "finished") {
      ctx.font = FONT; ctx.fillStyle = BEST; ctx.fillText("ŷ", x + nodeW + 5, e.top + e.h / 2);
    }
    hits.push({ x, top: e.top, w: nodeW, h: e.h, n });
  }
  if (now === 0) {
    ctx.font = SMALL; ctx.fillStyle = MUTED;
    ctx.fillText("step forward to expand the beam", ROOT_W + gap, rootY);
  }

  const prefix = (n) => {
    const words = [];
    for (let m = n; m; m = byId.get(m.parent)) words.unshift(m.word);
    return words.join(" ");
  };
  return {
    hit(px, py) {
      for (const h of hits) {
        if (px < h.x || px > h.x + h.w || py < h.top || py > h.top + h.h) continue;
        const n = h.n;
        if (n.more) {
          const par = byId.get(n.parent);
          return { lines: [`${n.more} more expansions pruned`, `of “${par ? prefix(par) : tree.bos}” at step ${n.t}, each below the ones drawn`] };
        }
        const par = byId.get(n.parent);
        const lines = [
          prefix(n),
          `step ${n.t}, rank ${n.rank + 1} of ${sumCounts(tree.counts[n.t - 1])}: ${n.fate}`,
          `P(${n.word} | ${par ? prefix(par) : tree.bos}) = ${fmt(n.p)}`,
          `log P = ${fmt(n.log_p)}  (P = ${fmt(Math.exp(n.log_p))})`,
        ];
        if (alpha) lines.push(`score = log P / ${n.t}^${alpha} = ${fmt(n.score)}`);
        if (done && n.best) lines.push("on the path of the best hypothesis ŷ");
        if (n.greedy) lines.push("on greedy search's path");
        return { lines };
      }
      return null;
    },
  };
}

// clipText shortens s with an ellipsis to fit w pixels.
function clipText(ctx, s, w) {
  if (ctx.measureText(s).width <= w) return s;
  let t = s;
  while (t.length > 1 && ctx.measureText(t + "…").width > w) t = t.slice(0, -1);
  return t + "…";
}

// In words (a11y.js): the step's counts and live beams, and ŷ once chosen; the table
// has a row per hypothesis drawn up to the current step.
function searchAt(cfg, view) {
  const tree = view.static[cfg.id];
  if (!tree || !Array.isArray(tree.nodes) || !Array.isArray(tree.counts)) return null;
  const steps = tree.counts.length;
  const byId = new Map(tree.nodes.filter((n) => !n.more).map((n) => [n.id, n]));
  const prefix = (n) => { const w = []; for (let m = n; m; m = byId.get(m.parent)) w.unshift(m.word); return w.join(" "); };
  return { tree, steps, byId, prefix, now: Math.min(view.step, steps), done: view.step > steps };
}

export function describe(cfg, view) {
  const s = searchAt(cfg, view);
  if (!s) return "no search to show";
  const head = `beam search, beam width ${s.tree.k}, ${s.steps} steps`;
  if (s.done && s.byId.has(s.tree.best)) { const b = s.byId.get(s.tree.best); return `${head}; ŷ chosen by score: “${s.prefix(b)}”, score ${fmt(b.score)}`; }
  if (s.now === 0) return `${head}; step forward to expand “${s.tree.bos || "<bos>"}”`;
  const c = s.tree.counts[s.now - 1] || {};
  const live = s.tree.nodes.filter((n) => !n.more && n.t === s.now && n.fate !== "pruned");
  return `${head}; t = ${s.now}: ${c.kept || 0} kept, ${c.finished || 0} finished, ${c.pruned || 0} pruned; ` + live.map((n) => `“${s.prefix(n)}” ${fmt(n.score)}`).join(", ");
}

export function table(cfg, view) {
  const s = searchAt(cfg, view);
  if (!s || (s.now === 0 && !s.done)) return null;
  const upto = s.done ? s.steps : s.now;
  const ns = s.tree.nodes.filter((n) => !n.more && n.t >= 1 && n.t <= upto).sort((a, b) => a.t - b.t || (a.rank ?? 0) - (b.rank ?? 0));
  return {
    caption: `Hypotheses up to step ${upto}: P(y_t | prefix), log P so far, score = log P / t^α` + (s.done ? "; ŷ is marked best" : ""),
    head: ["hypothesis", "t", "p", "log P", "score", "fate"],
    rows: ns.map((n) => [s.prefix(n), String(n.t), fmt(n.p), fmt(n.log_p), fmt(n.score), n.fate + (s.done && n.best ? ", best" : "") + (n.greedy ? ", greedy" : "")]),
  };
}
