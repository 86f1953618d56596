// transport.js runs the time scrubber and the speed slider of the control bar (the
// buttons are commands.js's). Dragging the scrubber, with a mouse or a finger (the
// stylesheet gives it a thumb-sized box on touch screens and leaves it the sideways
// swipes), seeks, at most once per animation frame; a seek that skipped steps asks for
// a snapshot once the scrubber settles. A speed chosen while paused is kept for the
// next play, also across a reset.
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
