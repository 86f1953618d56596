package lessons

import (
	"embed"
	"encoding/json"
	"strconv"

	"unroll/models"
	"unroll/torchload"
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

// pytorchModule is the torch.nn class of each kind torchload.Export writes, and the
// keyword arguments it needs beyond the sizes.
var pytorchModule = map[string]struct{ Class, Options string }{
	torchload.KindGRU:     {"GRU", "{}"},
	torchload.KindLSTM:    {"LSTM", "{}"},
	torchload.KindRNNTanh: {"RNN", `{"nonlinearity": "tanh"}`},
	torchload.KindRNNReLU: {"RNN", `{"nonlinearity": "relu"}`},
}

// PyTorchExporter is a lesson model whose cell PyTorch has (nn.RNN, nn.GRU, nn.LSTM).
type PyTorchExporter interface {
	PyTorch() PyTorchModel
}

// PyTorchProgram is a lesson model that no one torch.nn module computes (the lectures'
// reset-before GRU, an encoder-decoder, a Transformer, word embeddings). It exports its
// parameters as a state_dict under PyTorch-style names, and its lesson's script,
// lessons/pytorch/{script}, defines the model in a few lines of torch, loads the file
// and computes the page's numbers.
type PyTorchProgram interface {
	// PyTorchFile is the model now, with the page's inputs, at the page's step (0: the
	// model's own choice, usually the last).
	PyTorchFile(step int) (PyTorchFile, error)
}

// PyTorchFile is a model's export: the tensors (float64, 1-D or 2-D, row-major as
// PyTorch stores them), the metadata the script reads (beside the "format", "lesson",
// "script" and "step" every export carries), the script in lessons/pytorch that runs
// it (one of its lesson's), the step it is at, and H, the page's own numbers at that
// step, which the script computes (bench/pytorch/roundtrip.py compares them).
type PyTorchFile struct {
	Tensors []*torchload.Tensor
	Meta    map[string]string
	Script  string
	Step    int
	H       []float64
}

// pyTorch is what lesson slug's model.safetensors holds (trusted HTML, shown beside the
// download) and the scripts, in lessons/pytorch, that load it (which one, the file's
// metadata says: a lesson's model may take several forms).
type pyTorch struct {
	note    string
	scripts []string
}

// nnScript is the script of the lessons whose model is a PyTorchExporter: five lines that
// load the file into torch.nn.RNN, GRU or LSTM.
const nnScript = "nn.py"

// pyTorchModels are the lessons whose models are PyTorchExporters or PyTorchPrograms (a
// test holds the list to the models Build makes), so that the page can offer the
// download before it builds one.
var pyTorchModels = map[string]pyTorch{
	"gru": {`The GRU classifier, as <code>torch.nn.GRU</code> (<code>rnn.*</code>) and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>). ` +
		`Only the <b>reset-after</b> form can be downloaded: it is the one <code>nn.GRU</code> computes. The lectures' form applies the reset gate to \(H_{t-1}\) before \(W_{hh}\), which no <code>nn.GRU</code> weights reproduce, so with that form chosen the download is refused; so is a clamped gate.`, []string{nnScript}},
	"lstm": {`The LSTM classifier, as <code>torch.nn.LSTM</code> (<code>rnn.*</code>, gate blocks in PyTorch's order \(I, F, \tilde C, O\)) and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>); not the GRU and RNN beside it. A clamped gate is refused.`, []string{nnScript}},
	"deep-rnn": {`The stack of \(L\) layers, as <code>torch.nn.RNN</code> or <code>torch.nn.LSTM</code> with <code>num_layers = L</code> (<code>rnn.*</code>), and its output layer as <code>torch.nn.Linear</code> (<code>out.*</code>, \(\hat x_{t+1}\) and \(o_t\)); the inputs are the days' moves \(x_t\), and PyTorch's output is the top layer's \(H_t^{(L)}\). ` +
		`The GRU stack cannot be downloaded: its cells are the lectures' form (the reset gate before \(W_{hh}\)), which <code>nn.GRU</code> does not compute.`, []string{nnScript}},
	"birnn":           {`The bidirectional model, as <code>torch.nn.RNN</code> with <code>bidirectional=True</code> (<code>rnn.*</code>, the backward direction's tensors ending in <code>_reverse</code>), and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>, which reads \([\overrightarrow{H}_t, \overleftarrow{H}_t]\) at the blank's \(t\)); PyTorch's output at \(t\) is \([\overrightarrow{H}_t, \overleftarrow{H}_t]\). Not the unidirectional model beside it.`, []string{nnScript}},
	"sentiment":       {`Both classifiers on their one \(E\): \(E\) as <code>torch.nn.Embedding</code> (<code>embedding.weight</code>, row \(v\) word \(v\)'s vector), the average model's \(W, b\) and the GRU's read-out \(W_{ya}, b_y\) as <code>torch.nn.Linear</code> (<code>avg.*</code>, <code>out.*</code>), and the GRU, the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>gru.weight_ih_l0</code> \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>gru.weight_hh_l0</code> and <code>gru.bias_l0</code>, for a cell written in four lines.`, []string{sentimentScript}},
	"captioning":      {`The captioner of the approach the page shows: the encoder's \(W_v, b_v\) and the output layer as <code>torch.nn.Linear</code> (<code>encoder.*</code>, <code>out.*</code>), the word vectors \(e(y)\) as <code>torch.nn.Embedding</code> (<code>embedding.weight</code>), and the GRU decoder, the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\) (<code>decoder.weight_ih_l0</code>, <code>decoder.weight_hh_l0</code>, <code>decoder.bias_l0</code>; its input is \(e(y^{(t-1)})\), or \([e(y^{(t-1)}); x]\) when \(x\) is fed at every step). The image \(v\), the approach and the vocabulary are in the metadata.`, []string{captioningScript}},
	"embeddings":      {`Both embeddings, each table as a <code>torch.nn.Embedding</code> weight (row \(w\) word \(w\)'s vector): skip-gram's \(E\) (<code>embedding.weight</code>, the \(e_w\)) and its output vectors \(\theta_w\) (<code>context.weight</code>), and GloVe's \(\theta_i\), \(e_j\), \(b_i\) and \(b'_j\) (<code>glove.theta.weight</code>, <code>glove.e.weight</code>, <code>glove.b</code>, <code>glove.b_prime</code>); the words, the step's pair \((c, t)\) and its negatives are in the metadata.`, []string{embeddingsScript}},
	"encoder-decoder": {`The encoder-decoder on the page (its \(L\) layers a side, bundled or untrained): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The metadata holds the source ids, the greedy outputs the decoder reads back, and both vocabularies.`, []string{seq2seqScript}},
	"seq2seq":         {`The seq2seq model as the page has it now (the checkpoint, the seed's untrained weights, or either trained on this page): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The metadata holds the source ids, the padded labels (teacher forcing), the free-running outputs, and both vocabularies.`, []string{seq2seqScript}},
	"attention":       {`The attention model of the chosen task (not the model without attention beside it): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The alignment network \(f_\theta\) is three <code>torch.nn.Linear</code> without bias (<code>decoder.attention.W_q</code>, <code>W_k</code>, <code>v</code>). The metadata holds the source ids, the outputs the decoder reads back, and both vocabularies.`, []string{seq2seqScript}},
	"beam-search":     {`In the trained mode, the translator the beam searches (the bundled GRU encoder-decoder): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The metadata holds the source ids, the hypotheses the page lists at its step, and both vocabularies. The toy's tables are no network: with the toy chosen the download is refused.`, []string{seq2seqScript}},
	"rnn":             {`The character language model, as <code>torch.nn.RNN</code> with tanh (<code>rnn.*</code>) and its output layer as <code>torch.nn.Linear</code> (<code>out.*</code>); the inputs are the prompt and the characters it wrote.`, []string{nnScript}},
	"transformer": {`The Transformer the page runs (the one trained with or without the mask, as the switch says), as <code>torch.nn.Embedding</code>, <code>nn.Linear</code> and <code>nn.LayerNorm</code> modules named <code>src_embedding</code>, <code>encoder.{l}.self_attn.W_Q</code> …, <code>decoder.{l}.cross_attn.W_O</code>, <code>linear1</code>, <code>norm3</code>, <code>out</code>. ` +
		`An attention's <code>W_Q</code> is \([W_1^Q \dots W_h^Q]\) as one <code>nn.Linear</code> without bias, head \(i\)'s \(d_k\) rows after head \(i-1\)'s, as in <code>nn.MultiheadAttention</code>. The attention itself is written out: <code>nn.MultiheadAttention</code> always divides by \(\sqrt{d_k}\), and the page can switch that off.`, []string{transformerScript}},
}

//go:embed pytorch/*.py
var pyTorchScripts embed.FS

// HasPyTorch reports whether lesson slug's model downloads as a PyTorch state_dict.
func HasPyTorch(slug string) bool { return len(pyTorchModels[slug].scripts) > 0 }

// PyTorchNote is what lesson slug's model.safetensors holds, as trusted HTML ("" for
// a lesson without one).
func PyTorchNote(slug string) string { return pyTorchModels[slug].note }

// PyTorchScripts are the names of lesson slug's scripts in lessons/pytorch (none for a
// lesson without a model to download).
func PyTorchScripts(slug string) []string { return pyTorchModels[slug].scripts }

// pyTorchIntros say what each script does, as trusted HTML above it on the page.
var pyTorchIntros = map[string]string{
	sentimentScript:   `This script writes the lectures' GRU cell in torch, loads the rest into <code>torch.nn</code> modules, reads the review and prints the page's numbers at its step: \(a^{\langle t \rangle}\), then \(P(\text{positive})\) of the GRU and of the average of the first \(t\) words, and the vote \(v^{\langle t \rangle}\):`,
	captioningScript:  `This script encodes the image, \(x = \tanh(v W_v + b_v)\), and writes the caption greedily with the lectures' GRU cell up to the page's step \(t\), printing the words and then \(x\), \(h^{(t)}\) and the next-word distribution \(\hat y^{(t)}\), the page's numbers:`,
	embeddingsScript:  `This script scores the page's pair \((c, t)\) and its negatives, \(\sigma(\theta^\top e_c)\), and the example's loss \(L\), and lists the typed word's nearest neighbours by cosine in skip-gram's \(e_w\) and GloVe's \((e_w + \theta_w)/2\), the numbers of the bars and of the neighbours table:`,
	seq2seqScript:     `These lines (with <code>pip install torch safetensors</code>) build the encoder-decoder from <code>torch.nn</code> modules and the GRU written out, run it on the page's source, feed the decoder <code>&lt;bos&gt;</code> and then the tokens the page feeds it, and print \(H\), the page's numbers at its step: on the encoder's steps its state \(\mathbf{h}_t\) (\(\mathbf{h}_T\) at the context); at decoder step \(t'\), the weights \(\alpha_{t'j}\) (with attention) and \(P(y_{t'} \mid y_{\lt t'}, \mathbf{x})\), for each run the page shows (on the seq2seq page teacher forcing, then free running); on the beam-search page, \(\log P(y \mid \mathbf{x})\) of each hypothesis it lists at its step:`,
	nnScript:          `These five lines (with <code>pip install torch safetensors</code>) load it and print \(H_t\) at the page's step, the numbers the page shows:`,
	transformerScript: `These lines (with <code>pip install torch safetensors</code>) rebuild the model, load it, and run the encoder over the source \(x\) and the decoder over \(\langle bos\rangle, \hat y_1, \dots, \hat y_{t'-1}\), with \(M\) and \(s = 1/\sqrt{d_k}\) as the page's switches say; <code>H</code> is \(P(y_{t'} \mid \hat y_{&lt;t'}, x)\) at the page's step \(t'\), the softmax the page shows, over the \(V'\) target tokens:`,
}

// PyTorchIntro is what script does, as trusted HTML.
func PyTorchIntro(script string) string { return pyTorchIntros[script] }

// PyTorchSnippet is script's Python, which the page shows beside the download: it loads
// model.safetensors into torch (for nn.py, torch.nn.GRU, LSTM or RNN: the file's
// metadata says which, with the sizes, the inputs and the page's step) and computes the
// page's numbers at its step as H. bench/pytorch/roundtrip.py runs these very files.
func PyTorchSnippet(script string) string {
	b, err := pyTorchScripts.ReadFile("pytorch/" + script)
	if err != nil {
		panic(err) // TestPyTorchScripts
	}
	return string(b)
}

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

// File is the model's export for lessons/pytorch/nn.py: the cells as
// torch.nn.RNN, GRU or LSTM (torchload.ExportStack), and in the metadata the module,
// its sizes and options, the inputs and the step (0 or past the end: the last).
func (p PyTorchModel) File(step int) (PyTorchFile, error) {
	ts, arch, err := torchload.ExportStack(p.Stack(), p.Head)
	if err != nil {
		return PyTorchFile{}, err
	}
	T := p.Steps()
	step = exportStep(step, T)
	mod := pytorchModule[arch.Kind]
	options := map[string]any{}
	_ = json.Unmarshal([]byte(mod.Options), &options)
	if arch.Layers > 1 {
		options["num_layers"] = arch.Layers
	}
	if arch.Bidirectional {
		options["bidirectional"] = true
	}
	opts, _ := json.Marshal(options)
	meta := map[string]string{
		"module":      mod.Class,
		"options":     string(opts),
		"input_size":  strconv.Itoa(arch.InputSize),
		"hidden_size": strconv.Itoa(arch.HiddenSize),
		"prefix":      torchload.ExportPrefix,
		"head":        torchload.ExportHead,
	}
	if p.X != nil { // numbers, one row a step
		x, _ := json.Marshal(p.X)
		meta["x"] = string(x)
	} else {
		inputs, _ := json.Marshal(p.Inputs)
		meta["inputs"] = string(inputs)
	}
	return PyTorchFile{Tensors: ts, Meta: meta, Script: nnScript, Step: step, H: p.H[step-1]}, nil
}
