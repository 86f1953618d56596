// contract.js is the one way a panel reads the server's data: through the panel's
// contract, which the lesson declares in Go (lessons.Panel, lessons.Array) and the
// template renders as JSON on the panel (data-contract). A panel's view answers only
// for the arrays and the static and per-step meta keys its contract declares; a read
// of anything else answers nothing and is counted as an undeclared read: reported on
// the console and in document.body.dataset.undeclared (the browser tests require 0).
//
// The contract also carries what the page used to guess from names: which way an
// array runs along the time axis (dir), what its dimensions count (axes), which
// static list names its entries (labels), its scale and its label in the lecture's
// symbols.
import { parseContract, createTally, restrictView } from "./guard.js";

const undeclared = createTally(); // "panel kind key" → times read

// report counts an undeclared read (once on the console per panel and key).
function report(panel, kind, key) {
  if (undeclared.add(panel, kind, key) === 0) console.error(`contract: panel ${panel} read the undeclared ${kind} ${JSON.stringify(key)}`);
  document.body.dataset.undeclared = String(undeclared.total());
  document.body.dataset.undeclaredKeys = undeclared.keys().join("; ");
}

// readContract parses a panel element's data-contract (an empty contract when absent).
export function readContract(el) {
  return parseContract(el?.dataset.contract);
}

// lessonContract is the page's contract for what is not one panel's (the symbol
// readout): every array the lesson declares (an equation symbol names one of them) and
// every static key some panel declares.
export function lessonContract() {
  return parseContract(document.getElementById("contract")?.textContent, { arrays: [], static: [] });
}

// panelView restricts the store's view to one panel's contract (guard.js, restrictView),
// counting the panel's undeclared reads on the page.
export const panelView = (v, id, contract) => restrictView(v, id, contract, report);

// lessonView is the store's view restricted to the lesson's contract, for the symbol
// readout (reported as "symbol-readout"); it reads no per-step meta.
export function lessonView(v, contract) {
  return panelView(v, "symbol-readout", { arrays: contract.arrays, static: contract.static, meta: [] });
}
