// transport.js runs the time scrubber and the speed slider of the control bar (the
// buttons are commands.js's). Dragging the scrubber, with a mouse or a finger (the
// stylesheet gives it a thumb-sized box on touch screens and leaves it the sideways
// swipes), seeks, at most once per animation frame; a seek that skipped steps asks for
// a snapshot once the scrubber settles. A speed chosen while paused is kept for the
// next play, also across a reset. The train control's step count is read here
// (trainSteps): a count that is not a whole number from 1 up is refused, and one past
// what the page trains is capped, each saying so under the field.
import { tid } from "./dom.js";
import { gaps } from "./store.js";
import { scrubbed, speedChosen } from "./state.js";

const GAP_FILL_MS = 150; // after a seek, wait this long for the scrubber to settle before asking for a snapshot

// bindTransport wires the scrubber and the speed; it returns fillGapsSoon (for each
// frame) and sync (the speed back into its slider after a snapshot or a refusal).
export function bindTransport({ store, state, commands }) {
  const scrubber = tid("scrubber"), speed = tid("speed"), readout = tid("speed-readout");

  let seekWanted = null; // the step of the seek waiting for the next animation frame
  scrubber.addEventListener("input", () => {
    scrubbed(state, true);
    if (seekWanted === null) requestAnimationFrame(() => { commands.seek(seekWanted); seekWanted = null; });
    seekWanted = Number(scrubber.value);
  });
  scrubber.addEventListener("change", () => scrubbed(state, false));
  // a finger's drag that the browser takes back (the page scrolled instead) ends without a change
  scrubber.addEventListener("pointercancel", () => scrubbed(state, false));

  speed.addEventListener("input", () => {
    speedChosen(state, Number(speed.value));
    readout.textContent = `${speed.value}/s`;
    if (store.playing) commands.playAt(Number(speed.value));
  });

  let gapTimer = 0;
  return {
    fillGapsSoon() { // a seek skipped steps: ask for a snapshot of everything up to here
      clearTimeout(gapTimer);
      gapTimer = setTimeout(() => { if (!state.scrubbing && gaps(store)) commands.resume(store.seq); }, GAP_FILL_MS);
    },
    sync() {
      speed.value = String(state.chosenSpeed ?? store.speed);
      readout.textContent = `${speed.value}/s`;
    },
  };
}

// trainSteps reads the Train box: the steps to train, or 0 when the box holds no count
// to train (empty, not a whole number, below 1, or the model has trained all the page
// allows); the note under the box says why, or says that a count past the page's cap
// (state.maxTrained, lessons.Lesson.MaxTrained, less what the model has trained) was
// cut to it, and the box shows the count sent.
export function trainSteps(store, state) {
  const box = tid("train-steps");
  const typed = box.value.trim(), cap = state.maxTrained, done = store.trained || 0, left = cap - done;
  const n = /^[+]?[0-9]+$/.test(typed) ? Number(typed) : NaN;
  const why = `a link to this page trains its model again from the seed when it opens, and ${cap} steps is what the server trains again in about half a minute`;
  let note = "", steps = n;
  if (typed === "" && box.validity?.badInput) note = `That is not a number of steps: type a whole number from 1 to ${left > 0 ? left : cap}. Nothing was trained.`; // a number box holds text it cannot read as ""
  else if (typed === "") note = `Type how many steps to train: a whole number from 1 to ${left > 0 ? left : cap}. Nothing was trained.`;
  else if (!(n >= 1)) note = `"${typed.slice(0, 20)}" is not a number of steps: type a whole number from 1 to ${left > 0 ? left : cap}. Nothing was trained.`;
  else if (left < 1) note = `This model has trained the ${cap} steps this page allows (${why}). Change a setting (the seed, say) to start again from a new model. Nothing was trained.`;
  else if (n > left) {
    steps = left; box.value = String(left);
    note = done > 0
      ? `Capped at ${left} steps: this page trains its model at most ${cap} steps in all and it has trained ${done}; ${why}.`
      : `Capped at ${left} steps, the most this page trains its model: ${why}.`;
  }
  trainNote(box, note, !(steps >= 1 && steps <= left));
  return steps >= 1 && steps <= left ? steps : 0;
}

// trainNote shows (or, for "", hides) the note under the Train box; refused marks the
// box invalid until it is edited.
function trainNote(box, message, refused) {
  const controls = box.closest(".train-controls") || box.parentElement;
  let note = controls.parentElement.querySelector('[data-testid="note-train-steps"]');
  if (!note) {
    note = document.createElement("p");
    note.className = "field-note"; note.setAttribute("role", "status"); note.dataset.testid = "note-train-steps";
    note.hidden = true;
    controls.after(note);
    box.addEventListener("input", () => { if (!note.hidden) note.hidden = true; box.removeAttribute("aria-invalid"); });
  }
  if (refused && message) box.setAttribute("aria-invalid", "true"); else box.removeAttribute("aria-invalid");
  // a status region: every write, even of the same value, is a change a screen reader may say
  if (note.textContent !== message) note.textContent = message;
  if (note.hidden !== !message) note.hidden = !message;
  const kind = refused ? "refused" : "capped";
  if (note.dataset.kind !== kind) note.dataset.kind = kind;
}
