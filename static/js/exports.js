// exports.js runs the panels' export menus, the figure pack link and the model download: each export is
// fetched for the page's current state (its URL's query, the page's own session so
// the server copies this page's model rather than training it again, and the chosen
// PNG width), then offered as a download; a refusal is said in the menu. While the
// model trains, an export waits: the menu shows the training's progress and the
// file follows when it ends.
import { $, $$ } from "./dom.js";

const HIDDEN_VIEW = ["present", "spot"]; // how the page is shown, not what it shows
const WAIT_POLL_MS = 250; // how often a waiting export looks at the training's progress

// hrefOf is the export's URL for the page's state now.
function hrefOf(a, store) {
  const q = new URLSearchParams(location.search);
  for (const k of HIDDEN_VIEW) q.delete(k);
  if (store.session) q.set("session", store.session);
  const menu = a.closest(".export-items");
  const width = menu?.querySelector(".export-width input");
  if (a.dataset.ext === "png" && width && width.value) q.set("width", width.value); // an animation keeps the server's slide width
  for (const [key, sel] of [["slide", ".export-slide select"], ["theme", ".export-theme select"]]) {
    const v = menu?.querySelector(sel)?.value;
    if (v && a.dataset.ext !== "csv") q.set(key, v);
  }
  if (a.dataset.exportModel) q.set("model", a.dataset.exportModel); // a model the page shows beside its own
  return a.dataset.panelExport + "?" + q;
}

// filename is the download's name from the response (Content-Disposition), else the link's.
function filename(res, a) {
  const m = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") || "");
  return m ? m[1] : a.dataset.panelExport.split("/").pop();
}

export function bindExports(store) {
  for (const a of $$("a[data-panel-export]")) {
    const status = a.closest(".export-items, .figure-pack")?.querySelector(".export-status");
    const say = (text) => { if (status) status.textContent = text; };
    a.addEventListener("click", async (e) => {
      e.preventDefault();
      if (a.getAttribute("aria-busy") === "true") return;
      a.setAttribute("aria-busy", "true");
      try {
        while (store.train.running) { // the file is of the trained model: wait for it
          const pct = store.train.of ? Math.round((100 * store.train.done) / store.train.of) : 0;
          say(`training to step ${store.trained + (store.train.of - store.train.done)}: ${pct} %; the file follows`);
          await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
        }
        say(a.dataset.ext === "safetensors" ? "writing the model…" : a.dataset.ext === "gif" || a.dataset.ext === "zip" ? "drawing every figure…" : "drawing…");
        const res = await fetch(hrefOf(a, store));
        if (!res.ok) {
          let why = `the server answered ${res.status}`;
          try { why = (await res.json()).error || why; } catch { /* not JSON */ }
          say(why);
          return;
        }
        const url = URL.createObjectURL(await res.blob());
        const save = document.createElement("a");
        save.href = url; save.download = filename(res, a);
        document.body.append(save); save.click(); save.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
        say(`saved ${save.download}`);
      } catch (err) {
        say(`the export failed: ${err.message}`);
      } finally {
        a.removeAttribute("aria-busy");
      }
    });
  }
  // One menu open at a time; Esc closes it.
  for (const d of $$("details.export-menu")) {
    d.addEventListener("toggle", () => { if (d.open) for (const o of $$("details.export-menu[open]")) if (o !== d) o.open = false; });
    d.addEventListener("keydown", (e) => { if (e.key === "Escape" && d.open) { d.open = false; $("summary", d).focus(); e.stopPropagation(); } });
  }
}
