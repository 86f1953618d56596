// params.js runs the lesson's parameter controls (the elements with data-param): a
// change goes to the server as a "set", and the URL changes only once the server has
// accepted it (url.js). A drag or an edit is one history entry: its first change pushes,
// the rest replace. A refused value is explained under its field; a typed one stays, to
// be fixed, and a slider or choice snaps back. The browser cuts a paste longer than a
// text field's maxlength (the server's limit, rendered from sim) silently: the field
// says so.
import { $$, tid } from "./dom.js";

const TYPING_PAUSE_MS = 300; // a text field sends what was typed after this long without a key

// bindParams wires the controls to commands.set and returns sync (the snapshot's
// canonical values back into the controls) and refused (note a refused "set" under the
// fields it changed).
export function bindParams({ store, state, commands }) {
  const controls = $$("[data-param]");
  for (const c of controls) watch(c, commands);
  return {
    sync() {
      for (const c of controls) {
        const v = store.params[c.dataset.param];
        if (v === undefined || typed(c) && (c === document.activeElement || c.getAttribute("aria-invalid") === "true")) continue;
        if (c.type === "checkbox") c.checked = v === "true"; else if (c.value !== v) c.value = v;
        const out = tid(`value-${c.dataset.param}`);
        if (out) out.textContent = v;
      }
    },
    refused(message) {
      for (const c of controls) {
        if (!(c.dataset.param in state.set.sent)) continue;
        if (typed(c)) c.setAttribute("aria-invalid", "true"); // typed text stays, to be fixed
        fieldNote(c, message);
      }
    },
  };
}

// watch sends one control's changes.
function watch(c, commands) {
  const name = c.dataset.param;
  const out = tid(`value-${name}`);
  let editing = false; // the control's current edit has made its history entry
  const edit = (value) => { commands.set({ [name]: value }, editing ? "replace" : "push"); editing = true; };
  if (c.type === "range") {
    c.addEventListener("input", () => { if (out) out.textContent = c.value; edit(c.value); });
    c.addEventListener("change", () => { editing = false; });
  } else if (c.type === "text") {
    let timer = 0;
    c.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => edit(c.value), TYPING_PAUSE_MS); });
    c.addEventListener("change", () => { clearTimeout(timer); edit(c.value); editing = false; });
    c.addEventListener("paste", (e) => noteLongPaste(c, e));
  } else {
    c.addEventListener("change", () => commands.set({ [name]: valueOf(c) }));
  }
}

// noteLongPaste says under a text field when a paste does not fit its maxlength.
function noteLongPaste(c, e) {
  const pasted = (e.clipboardData && e.clipboardData.getData("text")) || "";
  const room = c.maxLength - (c.value.length - (c.selectionEnd - c.selectionStart));
  if (c.maxLength > 0 && pasted.length > room) {
    fieldNote(c, `The pasted text was cut to fit: this field takes at most ${c.maxLength} characters.`);
  }
}

const valueOf = (c) => (c.type === "checkbox" ? String(c.checked) : c.value);

// typed reports whether a control is typed into (text, a number): a refused value
// stays in it, marked, rather than being replaced by the server's.
const typed = (c) => c.type === "text" || c.type === "number";

// fieldNote shows a message under one control (its .param box) until the control changes.
function fieldNote(c, message) {
  const box = c.closest(".param") || c.parentElement;
  let note = box.querySelector(".field-note");
  if (!note) {
    note = document.createElement("p");
    note.className = "field-note"; note.setAttribute("role", "status");
    note.dataset.testid = `note-${c.dataset.param}`;
    box.append(note);
    c.addEventListener("input", () => { note.hidden = true; c.removeAttribute("aria-invalid"); });
  }
  note.textContent = message; note.hidden = false;
}
