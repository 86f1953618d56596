package lessons

import (
	"unroll/models"
	"unroll/zoo"
)

// PyTorchModel is a lesson's model as GET /lessons/{slug}/model.safetensors exports it
// (docs/api.md): the recurrent cell and its head as the page runs them now (bundled,
// trained on the page, or the page's own session's), the inputs the page reads, each a
// one-hot vector of the cell's input size, and the page's own H_t, t = 1 … len(Inputs),
// from the lesson's run (what PyTorch must reproduce).
//
// A stack (deep-rnn, birnn) sets Layers instead of Cell: Layers[l][d] is layer l's cell
// of direction d (0 forward, 1 reverse), and H_t is what PyTorch's output holds, the
// top layer's [→H_t, ←H_t]. Inputs that are numbers rather than tokens (the market
// series) are X, T rows of the cell's input size, instead of Inputs.
type PyTorchModel struct {
	Cell   models.Cell
	Layers [][]models.Cell
	Head   *models.Dense
	Inputs []int
	X      [][]float64
	H      [][]float64
}

// Stack is the model's layers and directions: Layers, or the one Cell.
func (p PyTorchModel) Stack() [][]models.Cell {
	if p.Layers != nil {
		return p.Layers
	}
	return [][]models.Cell{{p.Cell}}
}

// Steps is T, the inputs' length.
func (p PyTorchModel) Steps() int { return max(len(p.Inputs), len(p.X)) }

// PyTorchExporter is a lesson model whose cell PyTorch has (nn.RNN, nn.GRU, nn.LSTM).
type PyTorchExporter interface {
	PyTorch() PyTorchModel
}

// pyTorchNotes are the lessons whose models are PyTorchExporters (a test holds the list
// to the models Build makes), so that the page can offer the download before it builds
// one, each with what its file holds (trusted HTML, shown beside the download).
var pyTorchNotes = map[string]string{
	"gru": `The GRU classifier, as <code>torch.nn.GRU</code> (<code>rnn.*</code>) and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>). ` +
		`Only the <b>reset-after</b> form can be downloaded: it is the one <code>nn.GRU</code> computes. The lectures' form applies the reset gate to \(H_{t-1}\) before \(W_{hh}\), which no <code>nn.GRU</code> weights reproduce, so with that form chosen the download is refused; so is a clamped gate.`,
	"lstm": `The LSTM classifier, as <code>torch.nn.LSTM</code> (<code>rnn.*</code>, gate blocks in PyTorch's order \(I, F, \tilde C, O\)) and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>); not the GRU and RNN beside it. A clamped gate is refused.`,
	"deep-rnn": `The stack of \(L\) layers, as <code>torch.nn.RNN</code> or <code>torch.nn.LSTM</code> with <code>num_layers = L</code> (<code>rnn.*</code>), and its output layer as <code>torch.nn.Linear</code> (<code>out.*</code>, \(\hat x_{t+1}\) and \(o_t\)); the inputs are the days' moves \(x_t\), and PyTorch's output is the top layer's \(H_t^{(L)}\). ` +
		`The GRU stack cannot be downloaded: its cells are the lectures' form (the reset gate before \(W_{hh}\)), which <code>nn.GRU</code> does not compute.`,
	"birnn": `The bidirectional model, as <code>torch.nn.RNN</code> with <code>bidirectional=True</code> (<code>rnn.*</code>, the backward direction's tensors ending in <code>_reverse</code>), and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>, which reads \([\overrightarrow{H}_t, \overleftarrow{H}_t]\) at the blank's \(t\)); PyTorch's output at \(t\) is \([\overrightarrow{H}_t, \overleftarrow{H}_t]\). Not the unidirectional model beside it.`,
	"rnn":   `The character language model, as <code>torch.nn.RNN</code> with tanh (<code>rnn.*</code>) and its output layer as <code>torch.nn.Linear</code> (<code>out.*</code>); the inputs are the prompt and the characters it wrote.`,
}

// HasPyTorch reports whether lesson slug's model downloads as a PyTorch state_dict.
func HasPyTorch(slug string) bool { return pyTorchNotes[slug] != "" }

// PyTorchNote is what lesson slug's model.safetensors holds, as trusted HTML ("" for
// a lesson without one).
func PyTorchNote(slug string) string { return pyTorchNotes[slug] }

// PyTorchSnippet is the Python the page shows beside the download: it loads the file
// into torch.nn.GRU, LSTM or RNN (the file's metadata says which, with the sizes, the
// inputs and the page's step) and computes H_t at the page's step.
// bench/pytorch/roundtrip.py runs these very lines (a test compares them).
const PyTorchSnippet = `import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); d, h = int(meta["input_size"]), int(meta["hidden_size"])
net = getattr(torch.nn, meta["module"])(d, h, batch_first=True, **json.loads(meta["options"])).double(); net.load_state_dict({k[4:]: f.get_tensor(k) for k in f.keys() if k.startswith("rnn.")})
x = torch.tensor(json.loads(meta["x"]), dtype=torch.float64)[None] if "x" in meta else torch.nn.functional.one_hot(torch.tensor(json.loads(meta["inputs"])), d).double()[None]
H = net(x)[0][0, int(meta["step"]) - 1].detach(); print(H)  # H_t at the page's step t
`

func stepH[S any](steps []S, h func(S) []float64) [][]float64 {
	out := make([][]float64, len(steps))
	for t, s := range steps {
		out[t] = h(s)
	}
	return out
}

// PyTorch is the GRU classifier reading the page's input, with the page's clamped gate
// if any (the export refuses a clamp, and the lectures' variant, which nn.GRU cannot
// compute).
func (m *gruModel) PyTorch() PyTorchModel {
	return PyTorchModel{Cell: m.clf.Cell.WithClamp(m.clamp), Head: m.clf.Out, Inputs: m.ids,
		H: stepH(m.clf.Run(m.ids, m.clamp), func(s zoo.GRUStep) []float64 { return s.H })}
}

// PyTorch is the LSTM with the page's clamped gate if any (not the GRU and RNN the page
// compares it with).
func (m *lstmModel) PyTorch() PyTorchModel {
	var cell models.Cell = m.lstm.Cell
	if c, ok := cell.(*models.LSTM); ok {
		cell = c.WithClamp(m.clamp)
	}
	return PyTorchModel{Cell: cell, Head: m.lstm.Out, Inputs: m.ids,
		H: stepH(m.lstm.RunLSTM(m.ids, m.clamp), func(s zoo.LSTMStep) []float64 { return s.H })}
}

// PyTorch is the character language model reading the prompt and what it wrote.
func (m *rnnModel) PyTorch() PyTorchModel {
	steps := m.run()
	return PyTorchModel{Cell: m.lm.Cell, Head: m.lm.Out, Inputs: m.inputs()[:len(steps)],
		H: stepH(steps, func(s zoo.CharStep) []float64 { return s.H })}
}

// PyTorch is the stack of L layers (its GRU is the lectures' form, which the export
// refuses) reading the page's series.
func (m *deepModel) PyTorch() PyTorchModel {
	r := m.states()
	p := PyTorchModel{Head: m.net.Out}
	for _, c := range m.net.Net.Layers {
		p.Layers = append(p.Layers, []models.Cell{c})
	}
	for t := range m.Steps() {
		p.X = append(p.X, []float64{m.series.X[t]})
		p.H = append(p.H, r.States[t][len(r.States[t])-1])
	}
	return p
}

// PyTorch is the bidirectional model reading the page's sentence.
func (m *birnnModel) PyTorch() PyTorchModel {
	r := m.bi.Run(m.ids, m.blank)
	p := PyTorchModel{Layers: [][]models.Cell{{m.bi.Fwd, m.bi.Bwd}}, Head: m.bi.Out, Inputs: m.ids}
	for t := range r.Fwd {
		p.H = append(p.H, append(append([]float64(nil), r.Fwd[t]...), r.Bwd[t]...))
	}
	return p
}
