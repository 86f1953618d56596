// upload.js runs the yours page's drop box (templates' upload): a model file dropped on
// the page or chosen in the box is sent as the body of POST /lessons/yours/model?session=NAME, naming
// the page's own session, whose run then holds the model (docs/api.md); the server
// answers with the architecture it found, and the page's socket gets the new run's
// snapshot. A refusal (not a model, a hostile pickle, too large) is said under the box.
import { tid } from "./dom.js";

export function bindUpload(store) {
  const box = tid("upload");
  if (!box) return;
  const drop = tid("drop"), input = tid("upload-file"), status = tid("upload-status");
  const max = Number(box.dataset.maxBytes) || 0;
  const say = (text, state) => { status.textContent = text; box.dataset.state = state; };

  async function send(file) {
    if (!file) return;
    if (max && file.size > max) { say(`${file.name} is ${(file.size / 1048576).toFixed(1)} MB; the page takes at most ${max / 1048576} MB.`, "refused"); return; }
    if (!store.session) { say("This page has no session of its own to hold the file (not connected yet, or it leads a room): try again once it is live, outside a room.", "refused"); return; }
    say(`Reading ${file.name}…`, "busy");
    let res, body = {};
    try {
      const q = new URLSearchParams({ session: store.session, name: file.name });
      res = await fetch(`${box.dataset.url}?${q}`, { method: "POST", body: file, headers: { "Content-Type": "application/octet-stream" } });
      body = await res.json().catch(() => ({}));
    } catch (err) { say(`The file could not be sent: ${err.message}`, "refused"); return; }
    if (!res.ok) { say(`${file.name} was refused: ${body.error || res.statusText}`, "refused"); return; }
    say(`${file.name}: ${describe(body.architecture || {})}. It lives in this page's memory on the server only, and goes when you leave.`, "loaded");
  }

  input.addEventListener("change", () => { send(input.files[0]); input.value = ""; });
  // a file dropped anywhere on the page is the model (the browser would otherwise open it)
  const files = (e) => [...(e.dataTransfer?.types || [])].includes("Files");
  document.addEventListener("dragover", (e) => { if (!files(e)) return; e.preventDefault(); drop.classList.add("over"); });
  document.addEventListener("dragleave", (e) => { if (!e.relatedTarget) drop.classList.remove("over"); });
  document.addEventListener("drop", (e) => { if (!files(e)) return; e.preventDefault(); drop.classList.remove("over"); send(e.dataTransfer.files[0]); });
}

// describe says what the server found, as the architecture table does.
function describe(a) {
  const kind = { rnn_tanh: "nn.RNN (tanh)", rnn_relu: "nn.RNN (relu)", gru: "nn.GRU", lstm: "nn.LSTM" }[a.kind] || a.kind;
  const parts = [`${kind}, ${a.layers} layer${a.layers === 1 ? "" : "s"}${a.bidirectional ? ", bidirectional" : ""}`, `d = ${a.input_size}, h = ${a.hidden_size}`];
  if (a.embedding) parts.push(`embedding ${a.embedding[0]} × ${a.embedding[1]}`);
  if (a.head) parts.push(`head ${a.head[0]} outputs`);
  parts.push(`P = ${a.parameters} parameters`);
  return parts.join(", ");
}
