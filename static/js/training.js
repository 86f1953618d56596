// training.js draws the training control: progress, status, the Train/Stop button and
// the note on a model trained by another kind of machine.
import { fmt } from "./panels/common.js";
import { tid } from "./dom.js";

// drawTraining draws the training control: progress, status, the Train/Stop button and
// the note on a model trained by another kind of machine.
export function drawTraining(store, state) {
  const prog = tid("train-progress");
  if (!prog) return;
  const t = store.train;
  prog.max = t.of || 1; prog.value = t.done || 0;
  const status = tid("train-status");
  if (t.running) status.textContent = (state.replayTo ? "training again, as the URL says: " : "") + `${t.done} / ${t.of}` + (t.loss !== undefined ? ` · loss ${fmt(t.loss)}` : "");
  else if (t.done) status.textContent = `trained ${store.trained || t.done} steps` + (t.loss !== undefined ? ` · loss ${fmt(t.loss)}` : "");
  const elsewhere = tid("trained-elsewhere");
  const foreign = state.trainedOn !== "" && state.trainedOn !== state.machine;
  elsewhere.hidden = !foreign;
  if (foreign) elsewhere.textContent = `The shared view's model was trained on a server that rounds differently (${describeMachine(state.trainedOn)}) and is trained again here (${describeMachine(state.machine)}). ` +
    "Processors and builds differ in fused multiply-adds and in exp and log, so the two models differ slightly: " +
    "after a few hundred steps beyond the digits shown here, after a thousand steps from random weights in about the fourth digit.";
  const button = tid("train");
  button.textContent = t.running ? "Stop" : "Train";
  button.dataset.cmd = t.running ? "stop" : "train";
}

// describeMachine writes a trained_on value ("arm64-c8506759") for people.
function describeMachine(m) {
  const [arch, fp] = m.split("-");
  return fp ? `${arch}, arithmetic ${fp}` : arch;
}
