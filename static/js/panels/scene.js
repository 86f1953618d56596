// scene draws a small image of coloured shapes on a grid (static "scene": [{row, col,
// colour, shape}], "grid" cells a side, the "colours" and "shapes" to choose from) and
// lets the reader draw one: under the grid a row of colours and shapes picks the
// brush; a click on an empty cell places the brush's shape there, a click on a filled
// cell takes its shape away (or, with a different brush, replaces it). The new image
// goes to the server through the page's own parameter control (static "param", the
// text field of the image), as if it had been typed there: the "set" command, the
// URL and a refusal's note all stay params.js's. The text field is also the way to
// draw without a pointer.
import { fit, room, stageRoom, empty, zoomOf, FONT, SMALL, INK, MUTED } from "./common.js";
import { SCENE } from "../palette.js";

const MAX_SHAPES = 2; // the captions' grammar describes one or two shapes (data.SceneMaxShapes)
const CELL_MAX = 80, CELL_MIN = 36, PAD = 4;
const SWATCH = 26, SWATCH_GAP = 6, PALETTE_TOP = 10, NOTE_H = 18;
// the colours are the palette's (palette.ScenePaint), which the panel's export draws with too
const BACKGROUND = SCENE.ground; // the raster's black, softened: what the encoder sees is black where no shape is
const LINES = SCENE.lines;
const paint = (c) => SCENE.paint[c] || SCENE.unknown;

// sceneOf reads the panel's static meta.
function sceneOf(view) {
  const s = view.static;
  return {
    shapes: Array.isArray(s.scene) ? s.scene : [],
    grid: Number(s.grid) || 0,
    colours: Array.isArray(s.colours) ? s.colours : [],
    kinds: Array.isArray(s.shapes) ? s.shapes : [],
    param: typeof s.param === "string" ? s.param : "",
  };
}

// shapePath draws one shape centred at (cx, cy) with half-size r, as the raster does:
// a disc, a square's outline, a triangle.
function shapePath(ctx, kind, cx, cy, r, colour) {
  ctx.fillStyle = colour; ctx.strokeStyle = colour;
  ctx.beginPath();
  if (kind === "circle") { ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.fill(); }
  else if (kind === "square") { ctx.lineWidth = Math.max(2, r / 3); const w = ctx.lineWidth / 2; ctx.strokeRect(cx - r + w, cy - r + w, 2 * r - 2 * w, 2 * r - 2 * w); }
  else if (kind === "triangle") { ctx.moveTo(cx, cy - r); ctx.lineTo(cx + r, cy + r); ctx.lineTo(cx - r, cy + r); ctx.closePath(); ctx.fill(); }
}

// brushOf is the canvas's chosen colour and shape (the first of each until chosen).
function brushOf(canvas, sc) {
  const colour = sc.colours.includes(canvas.dataset.brushColour) ? canvas.dataset.brushColour : sc.colours[0];
  const kind = sc.kinds.includes(canvas.dataset.brushShape) ? canvas.dataset.brushShape : sc.kinds[0];
  return { colour, kind };
}

// text is the image in the parameter's form, "red circle 1 1, blue square 2 3".
const text = (shapes) => shapes.map((s) => `${s.colour} ${s.shape} ${s.row + 1} ${s.col + 1}`).join(", ");

export function draw(canvas, cfg, view) {
  const sc = sceneOf(view);
  // as wide as the panel allows and, on the stage (present.js sets maxHeight), no taller than its room
  const cap = stageRoom(canvas);
  const fromHeight = Math.floor((cap - 2 * PAD - PALETTE_TOP - SWATCH - NOTE_H) / Math.max(1, sc.grid));
  const cell = Math.max(CELL_MIN, Math.min(CELL_MAX, fromHeight, Math.floor((room(canvas) - 2 * PAD) / Math.max(1, sc.grid))));
  const side = sc.grid * cell;
  const height = PAD + side + PALETTE_TOP + SWATCH + NOTE_H + PAD;
  const { ctx, width } = fit(canvas, height, side + 2 * PAD);
  if (!sc.grid) { empty(ctx, width, height, "no image"); return null; }
  const x0 = PAD, y0 = PAD;
  ctx.fillStyle = BACKGROUND; ctx.fillRect(x0, y0, side, side);
  ctx.strokeStyle = LINES; ctx.lineWidth = 1;
  for (let i = 0; i <= sc.grid; i++) {
    ctx.beginPath(); ctx.moveTo(x0 + i * cell + 0.5, y0); ctx.lineTo(x0 + i * cell + 0.5, y0 + side); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(x0, y0 + i * cell + 0.5); ctx.lineTo(x0 + side, y0 + i * cell + 0.5); ctx.stroke();
  }
  const hits = [];
  for (let r = 0; r < sc.grid; r++) for (let c = 0; c < sc.grid; c++) {
    const s = sc.shapes.find((q) => q.row === r && q.col === c);
    const x = x0 + c * cell, y = y0 + r * cell;
    if (s) shapePath(ctx, s.shape, x + cell / 2, y + cell / 2, cell * 0.36, paint(s.colour));
    hits.push({ x0: x, y0: y, x1: x + cell, y1: y + cell, cell: { row: r, col: c }, lines: [`row ${r + 1}, column ${c + 1}`, s ? `${s.colour} ${s.shape}: click to take it away` : "empty: click to place the chosen shape"] });
  }
  // the brush: colours, then shapes, the chosen ones outlined
  const brush = brushOf(canvas, sc);
  let x = x0;
  const py = y0 + side + PALETTE_TOP;
  const pick = (kind, value, drawIt, chosen, label) => {
    ctx.fillStyle = "#f3f4f6"; ctx.fillRect(x, py, SWATCH, SWATCH);
    drawIt(x + SWATCH / 2, py + SWATCH / 2);
    if (chosen) { ctx.strokeStyle = INK; ctx.lineWidth = 2; ctx.strokeRect(x - 2, py - 2, SWATCH + 4, SWATCH + 4); }
    hits.push({ x0: x, y0: py, x1: x + SWATCH, y1: py + SWATCH, brush: { kind, value }, lines: [label + (chosen ? " (chosen)" : ": click to choose")] });
    x += SWATCH + SWATCH_GAP;
  };
  for (const c of sc.colours) pick("colour", c, (cx, cy) => { ctx.fillStyle = paint(c); ctx.fillRect(cx - 8, cy - 8, 16, 16); }, c === brush.colour, `colour ${c}`);
  x += SWATCH_GAP;
  for (const k of sc.kinds) pick("shape", k, (cx, cy) => shapePath(ctx, k, cx, cy, 8, paint(brush.colour)), k === brush.kind, `shape ${k}`);
  ctx.font = SMALL; ctx.fillStyle = MUTED; ctx.textAlign = "left";
  ctx.fillText(canvas.dataset.sceneNote || `brush: ${brush.colour} ${brush.kind}`, x0, py + SWATCH + NOTE_H / 2 + 2, width - 2 * x0);
  ctx.font = FONT;
  canvas._scene = { cfg, view }; // the click handler redraws and reads the image the page shows now
  listen(canvas);
  const layout = {
    hit(px, py2) {
      const h = hits.find((q) => px >= q.x0 && px <= q.x1 && py2 >= q.y0 && py2 <= q.y1);
      return h ? { lines: h.lines, cell: h.cell, brush: h.brush } : null;
    },
  };
  canvas._sceneLayout = layout;
  return layout;
}

// listen adds the click handler once per canvas.
function listen(canvas) {
  if (canvas.dataset.sceneClicks) return;
  canvas.dataset.sceneClicks = "1";
  canvas.style.cursor = "pointer";
  canvas.addEventListener("click", (e) => {
    const layout = canvas._sceneLayout, cur = canvas._scene;
    if (!layout || !cur) return;
    const r = canvas.getBoundingClientRect(), z = zoomOf(canvas);
    const h = layout.hit((e.clientX - r.left) / z, (e.clientY - r.top) / z);
    if (!h) return;
    const sc = sceneOf(cur.view);
    delete canvas.dataset.sceneNote;
    if (h.brush) {
      canvas.dataset[h.brush.kind === "colour" ? "brushColour" : "brushShape"] = h.brush.value;
    } else if (h.cell) {
      const brush = brushOf(canvas, sc);
      const at = (s) => s.row === h.cell.row && s.col === h.cell.col;
      const here = sc.shapes.find(at);
      let next = null;
      if (here && here.colour === brush.colour && here.shape === brush.kind) {
        if (sc.shapes.length === 1) canvas.dataset.sceneNote = "an image needs at least one shape: choose another brush to replace it";
        else next = sc.shapes.filter((s) => !at(s));
      } else if (here) {
        next = sc.shapes.map((s) => (at(s) ? { ...s, colour: brush.colour, shape: brush.kind } : s));
      } else if (sc.shapes.length >= MAX_SHAPES) {
        canvas.dataset.sceneNote = `at most ${MAX_SHAPES} shapes, as in the grammar: click one with its own colour and shape chosen to take it away`;
      } else {
        next = [...sc.shapes, { row: h.cell.row, col: h.cell.col, colour: brush.colour, shape: brush.kind }];
      }
      if (next) setImage(sc.param, text(next));
    }
    draw(canvas, cur.cfg, cur.view); // the brush or the note changed: drawn now, the new image when the server answers
  });
}

// setImage puts the image into the page's parameter control and tells params.js, as
// typing it and leaving the field would.
function setImage(param, value) {
  const field = document.querySelector(`[data-param="${CSS.escape(param)}"]`);
  if (!field || field.disabled) return;
  field.value = value;
  field.dispatchEvent(new Event("change", { bubbles: true }));
}

const where = (s) => `${s.colour} ${s.shape} in row ${s.row + 1}, column ${s.col + 1}`;

export function describe(cfg, view) {
  const sc = sceneOf(view);
  if (!sc.grid) return "no image";
  return `a ${sc.grid} by ${sc.grid} image with ${sc.shapes.length === 1 ? "one shape" : `${sc.shapes.length} shapes`}: ${sc.shapes.map(where).join("; ")}. Draw another by clicking its cells, or type it in the image field.`;
}

export function table(cfg, view) {
  const sc = sceneOf(view);
  if (!sc.grid) return null;
  const cols = Array.from({ length: sc.grid }, (_, c) => `column ${c + 1}`);
  return {
    caption: "the image: the shape in each cell",
    head: ["row", ...cols],
    rows: Array.from({ length: sc.grid }, (_, r) => [`row ${r + 1}`, ...cols.map((_, c) => {
      const s = sc.shapes.find((q) => q.row === r && q.col === c);
      return s ? `${s.colour} ${s.shape}` : "–";
    })]),
  };
}
