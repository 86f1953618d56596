// params.js runs the lesson's parameter controls (the elements with data-param): a
// change goes to the server as a "set", and the URL changes only once the server has
// accepted it (url.js). A drag or an edit is one history entry: its first change pushes,
// the rest replace. A refused value is explained under its field; a typed one stays, to
// be fixed, and a slider or choice snaps back; the note (and the page's toast) stays
// until the server accepts a fixed value. The browser cuts a paste longer than a text
// field's maxlength (the server's limit, rendered from sim) silently, and drops keys
// typed past it: the field says what was cut and why (data-limit-why, the limit's
// reason from sim.ParamSpec.TextLimitReason). A parameter that applies only while another
// has certain values (sim.ParamSpec.When: data-when-param and data-when-values on its
// .param box) is disabled, with its reason shown, while the server's values say it
// does not apply; an equation or a panel with such a condition (a notation switch) is
// hidden while it does not hold.
import { $$, tid } from "./dom.js";

const TYPING_PAUSE_MS = 300; // a text field sends what was typed after this long without a key

// bindParams wires the controls to commands.set and returns sync (the snapshot's
// canonical values back into the controls), refused (note a refused "set" under the
// fields it changed) and accepted (the server took the "set" in flight: its fields'
// notes go; it reports whether a typed field still holds a refused value).
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
      for (const c of controls) applies(c, store.params);
      for (const el of $$("[data-when-param]:not(.param)")) el.hidden = !holds(el, store.params); // a notation switch's equations and panels
    },
    refused(message) {
      for (const c of controls) {
        if (!(c.dataset.param in state.set.sent)) continue;
        if (typed(c)) c.setAttribute("aria-invalid", "true"); // typed text stays, to be fixed
        fieldNote(c, message);
      }
    },
    accepted() {
      let still = false;
      for (const c of controls) {
        const note = c.closest(".param")?.querySelector(".field-note") || c.parentElement.querySelector(".field-note");
        if (c.dataset.param in state.set.sent || !typed(c)) { // fixed, or snapped back to a valid value
          c.removeAttribute("aria-invalid");
          if (note && note.dataset.kind === "refused") note.hidden = true;
        }
        if (c.getAttribute("aria-invalid") === "true") still = true;
      }
      return still;
    },
  };
}

// applies disables a control whose parameter does not apply with the values params
// (its box's data-when-*), and shows why in the box's .applies-note, which the control
// names as its description; a control without a condition is left alone.
function applies(c, params) {
  const box = c.closest(".param");
  if (!box || !box.dataset.whenParam) return;
  const on = holds(box, params);
  c.disabled = !on;
  box.classList.toggle("inapplicable", !on);
  const note = box.querySelector(".applies-note");
  if (note) {
    note.hidden = on;
    if (on) c.removeAttribute("aria-describedby"); else c.setAttribute("aria-describedby", note.id);
  }
}

// holds reports whether an element's condition (data-when-param, data-when-values) holds
// with the values params.
const holds = (el, params) => JSON.parse(el.dataset.whenValues).includes(params[el.dataset.whenParam]);

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
    c.addEventListener("beforeinput", (e) => noteFull(c, e));
  } else {
    c.addEventListener("change", () => commands.set({ [name]: valueOf(c) }));
  }
}

// noteLongPaste says under a text field what of a paste did not fit its maxlength,
// and why the field has that limit.
function noteLongPaste(c, e) {
  const pasted = (e.clipboardData && e.clipboardData.getData("text")) || "";
  const room = Math.max(0, c.maxLength - (c.value.length - (c.selectionEnd - c.selectionStart)));
  if (c.maxLength > 0 && pasted.length > room) {
    const kept = room === 0 ? "none of it" : `its first ${room}`;
    fieldNote(c, `The paste was ${pasted.length} characters long, and this field takes at most ${c.maxLength} characters, so it kept ${kept}: ${limitWhy(c)}.`, "cut", room > 0);
  }
}

// noteFull says under a text field that is full why a typed key adds nothing.
function noteFull(c, e) {
  if (!e.inputType?.startsWith("insert") || e.inputType === "insertFromPaste" || !(c.maxLength > 0)) return;
  if (c.value.length - (c.selectionEnd - c.selectionStart) >= c.maxLength) {
    fieldNote(c, `This field is full: it takes at most ${c.maxLength} characters, so what was typed past them was dropped: ${limitWhy(c)}.`, "cut");
  }
}

// limitWhy is the reason for a text field's length limit, as the server states it.
const limitWhy = (c) => c.dataset.limitWhy || "the server takes no more";

const valueOf = (c) => (c.type === "checkbox" ? String(c.checked) : c.value);

// typed reports whether a control is typed into (text, a number): a refused value
// stays in it, marked, rather than being replaced by the server's.
const typed = (c) => c.type === "text" || c.type === "number";

// fieldNote shows a message under one control (its .param box). A refusal's stays until
// the server accepts a fixed value (accepted); a cut's until the field is next edited
// without one.
// inserting: an input event (the paste's kept part) is on its way and keeps the note.
function fieldNote(c, message, kind = "refused", inserting = false) {
  const box = c.closest(".param") || c.parentElement;
  let note = box.querySelector(".field-note");
  if (!note) {
    note = document.createElement("p");
    note.className = "field-note"; note.setAttribute("role", "status");
    note.dataset.testid = `note-${c.dataset.param}`;
    box.append(note);
    c.addEventListener("input", () => { if (note.dataset.kind === "cut" && !note.dataset.fresh) note.hidden = true; delete note.dataset.fresh; });
  }
  note.textContent = message; note.hidden = false; note.dataset.kind = kind;
  if (inserting) note.dataset.fresh = "1"; else delete note.dataset.fresh;
}
