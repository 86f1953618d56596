// table draws tables of cells that a lesson puts in its meta under the panel's ID:
// the static meta's table if there is one, otherwise the tables of steps 1..now (one
// per step, the current one highlighted). A table is {title, head?, rows: [{label,
// cells: [{text, sub?, mark?}], inline?, mark?}]}. Inline rows are text drawn
// character by character; other rows are boxes. Marks colour a cell: changed,
// inserted, unk, special, pad, cut, on, off; a row marked "now" is highlighted.
import { fit, room, stageRoom, empty, optStatic, optMeta, FONT, SMALL, INK, MUTED } from "./common.js";

const MINLABEL = 60, BOX = 22, SUBBOX = 34, GAP = 3, TITLE = 20, ROWGAP = 5, TABLEGAP = 12;
const LABEL_ROOM = 150; // the row labels' least room, however narrow the panel (px)
const FILL = {
  changed: "#fde68a", inserted: "#fdba74", unk: "#fecaca", special: "#bfdbfe",
  pad: "#e5e7eb", cut: "#f3f4f6", on: "#bbf7d0", off: "#f3f4f6",
};

function tables(cfg, view) {
  const s = optStatic(view, cfg.id);
  if (s && Array.isArray(s.rows)) return [{ table: s, now: false }];
  const out = [];
  for (let t = 1; t <= view.step; t++) {
    const tab = optMeta(view, cfg.id, view.metaAt(t));
    if (tab && Array.isArray(tab.rows)) out.push({ table: tab, now: t === view.step });
  }
  return out;
}

const shown = (s) => (s === " " ? "␣" : s);

// wrapWords breaks text at spaces into lines at most width px wide in ctx's font (a
// word longer than that is a line of its own).
function wrapWords(ctx, text, width) {
  const lines = [];
  let line = "";
  for (const w of text.split(" ")) {
    const next = line ? line + " " + w : w;
    if (line && ctx.measureText(next).width > width) { lines.push(line); line = w; } else line = next;
  }
  lines.push(line);
  return lines;
}

// layout places every cell; drawing and hit-testing share it.
function layout(ctx, ts, width) {
  const items = [];
  let y = 4, right = 0;
  for (const { table, now } of ts) {
    ctx.font = FONT; // a title wider than the panel takes more lines
    for (const line of wrapWords(ctx, (now ? "▸ " : "") + (table.title ?? ""), width)) { items.push({ kind: "title", y, text: line, now }); y += TITLE; }
    const hasSub = table.rows.some((r) => r.cells.some((c) => c.sub));
    // the label column fits the longest row label (up to 40% of the width, or
    // LABEL_ROOM on a narrow panel: a phone scrolls the table rather than cut its labels)
    ctx.font = SMALL;
    const LABEL = Math.round(Math.min(Math.max(0.4 * width, LABEL_ROOM), Math.max(MINLABEL, ...table.rows.map((r) => ctx.measureText(r.label ?? "").width + 10))));
    const h = hasSub ? SUBBOX : BOX;
    // one width per column so that the rows line up (a step is a column)
    const colW = [];
    for (const r of table.rows) if (!r.inline) r.cells.forEach((c, i) => {
      ctx.font = FONT; let w = ctx.measureText(c.text).width + 10;
      if (c.sub) { ctx.font = SMALL; w = Math.max(w, ctx.measureText(c.sub).width + 8); }
      colW[i] = Math.max(colW[i] || BOX, w);
    });
    if (table.head) { ctx.font = SMALL; table.head.forEach((t, i) => { colW[i] = Math.max(colW[i] || BOX, ctx.measureText(t).width + 8); }); }
    if (table.head) {
      let x = LABEL;
      table.head.forEach((t, i) => { const w = colW[i] || BOX; items.push({ kind: "head", x, y, w, text: t }); x += w + GAP; });
      y += 16;
    }
    for (const r of table.rows) {
      items.push({ kind: "label", y, h, text: r.label, mark: r.mark });
      let x = LABEL;
      ctx.font = FONT;
      r.cells.forEach((c, i) => {
        const w = r.inline ? Math.max(6, ctx.measureText(shown(c.text)).width) : colW[i] || BOX;
        // Text wraps at the panel's width; a row of boxes is a matrix row and never
        // wraps (its columns must line up): the panel scrolls sideways instead.
        if (r.inline && x + w > width - 2 && x > LABEL) { x = LABEL; y += h + GAP; }
        items.push({ kind: "cell", x, y, w, h, cell: c, inline: r.inline, row: r.label, col: i + 1 });
        x += w + (r.inline ? 0 : GAP);
        right = Math.max(right, x);
      });
      y += h + ROWGAP;
    }
    y += TABLEGAP;
  }
  return { items, height: y, right };
}

export function draw(canvas, cfg, view) {
  let ts = tables(cfg, view);
  const width = room(canvas);
  const probe = canvas.getContext("2d");
  let lay = layout(probe, ts, width);
  // On the stage (presenter mode gives the room, stageRoom) the steps' tables grow
  // taller than it: the current one alone stays, what the step changed, marked.
  if (ts.length > 1 && stageRoom(canvas) < Infinity) { ts = ts.slice(-1); lay = layout(probe, ts, width); }
  const { items, height, right } = lay;
  const { ctx, width: drawn } = fit(canvas, Math.max(50, height), right + 4);
  if (!ts.length) { empty(ctx, width, 50, "step forward to follow the pair"); return null; }
  for (const it of items) {
    if (it.kind === "title") {
      ctx.font = FONT; ctx.fillStyle = it.now ? "#b45309" : INK; ctx.textAlign = "left";
      ctx.fillText(it.text, 0, it.y + TITLE / 2);
    } else if (it.kind === "head") {
      ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "center";
      ctx.fillText(it.text, it.x + it.w / 2, it.y + 7);
    } else if (it.kind === "label") {
      if (it.mark === "now") { ctx.fillStyle = "#fef3c7"; ctx.fillRect(0, it.y - 1, drawn, it.h + 2); }
      ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "left";
      ctx.fillText(it.text, 0, it.y + it.h / 2);
    } else {
      const c = it.cell;
      const fill = FILL[c.mark];
      if (it.inline) {
        if (fill) { ctx.fillStyle = fill; ctx.fillRect(it.x, it.y + 2, it.w, it.h - 4); }
        ctx.font = FONT; ctx.fillStyle = c.mark === "inserted" ? "#9a3412" : INK; ctx.textAlign = "center";
        ctx.fillText(c.mark === "inserted" ? "␣" : c.text, it.x + it.w / 2, it.y + it.h / 2);
        continue;
      }
      ctx.fillStyle = fill || "#ffffff"; ctx.strokeStyle = "#cbd5e1"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.roundRect(it.x + 0.5, it.y + 0.5, it.w, it.h, 4); ctx.fill(); ctx.stroke();
      ctx.textAlign = "center";
      const faint = c.mark === "pad" || c.mark === "off" || c.mark === "cut";
      ctx.font = FONT; ctx.fillStyle = faint ? MUTED : INK;
      const ty = c.sub ? it.y + 11 : it.y + it.h / 2 + 1;
      ctx.fillText(c.text, it.x + it.w / 2, ty);
      if (c.mark === "cut") { ctx.strokeStyle = "#b91c1c"; ctx.beginPath(); ctx.moveTo(it.x + 3, it.y + it.h / 2); ctx.lineTo(it.x + it.w - 3, it.y + it.h / 2); ctx.stroke(); }
      if (c.sub) { ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.fillText(c.sub, it.x + it.w / 2, it.y + 25); }
    }
  }
  ctx.textAlign = "left";
  return {
    hit(px, py) {
      for (const it of items) {
        if (it.kind !== "cell" || px < it.x || px > it.x + it.w || py < it.y || py > it.y + it.h) continue;
        const c = it.cell;
        const lines = [`${it.row}, ${it.inline ? "character" : "column"} ${it.col}`, JSON.stringify(c.text) + (c.sub ? ` = ${c.sub}` : "")];
        if (c.mark) lines.push(c.mark);
        return { lines };
      }
      return null;
    },
  };
}

// In words (a11y.js): how many tables and the current one's title; the HTML table is
// the current one (the last when none is the step's), its marks in words.
function cellWord(c) {
  const t = shown(String(c.text ?? ""));
  return (c.sub ? `${t} (${c.sub})` : t) + (c.mark ? ` [${c.mark}]` : "");
}

function current(cfg, view) {
  const ts = tables(cfg, view);
  return ts.find((t) => t.now) || ts.at(-1);
}

export function describe(cfg, view) {
  const ts = tables(cfg, view);
  if (!ts.length) return "step forward to follow the pair";
  const cur = current(cfg, view).table;
  return `${ts.length === 1 ? "one table" : `${ts.length} tables, one per step`}; ${cur.title}: ${cur.rows.length} rows` +
    (cur.rows.length ? `, first ${cur.rows[0].label ?? ""}: ${cur.rows[0].cells.map(cellWord).join(" ")}` : "");
}

export function table(cfg, view) {
  const cur = current(cfg, view);
  if (!cur) return null;
  const t = cur.table;
  const n = Math.max(0, ...t.rows.map((r) => r.cells.length));
  const head = Array.isArray(t.head) && t.head.length ? t.head : Array.from({ length: n }, (_, i) => String(i + 1));
  return {
    caption: t.title + (t.rows.some((r) => r.mark === "now") ? " (the row marked now is the current one)" : ""),
    head: ["row", ...head],
    rows: t.rows.map((r) => [(r.label ?? "") + (r.mark ? ` [${r.mark}]` : ""), ...(r.inline ? [r.cells.map((c) => shown(String(c.text ?? ""))).join("")] : r.cells.map(cellWord))]),
  };
}
