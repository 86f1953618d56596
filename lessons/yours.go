package lessons

import (
	"fmt"

	"unroll/sim"
	"unroll/torchload"
)

// The yours page runs a student's own PyTorch nn.RNN, nn.GRU or nn.LSTM (issue 16): the
// file reaches the server with POST /lessons/yours/model (docs/api.md), is read by
// torchload (its pickle never executed), and lives in memory in the uploader's session
// only, as an Upload that the session's builder closes over (WithUpload). Until a file
// comes, the page runs an untrained example model drawn from the seed.
//
// This file is the lesson: its prose, equations, arrays, panels and parameters. The
// model it builds is yoursModel (lessons/yours_model.go: the forward pass, sampling,
// BPTT and the frames), which reads its input in lessons/yours_input.go and describes
// the architecture in lessons/yours_architecture.go; the upload and the example model
// are lessons/yours_upload.go's.

// Limits of the yours page's parameters, each with its reason.
const (
	// MaxUploadBytes is the largest model file the page takes: torchload's limit.
	MaxUploadBytes = torchload.MaxFileBytes
	// yoursMaxVocabChars bounds the vocabulary field: it travels in the page's URL, and
	// 2000 characters hold a character model's alphabet or a JSON list of a few hundred
	// words.
	yoursMaxVocabChars = 2000
	// yoursMaxCSVChars bounds the pasted numbers (also in the URL): 256 steps of a few
	// short numbers each.
	yoursMaxCSVChars = 4000
	// yoursMaxSample bounds the tokens the model writes after its input: each is one more
	// forward pass over the whole sequence, and the run stays within torchload.MaxSteps.
	yoursMaxSample = 100
	// yoursMaxLength bounds a generated sequence: the run's limit (torchload.MaxSteps).
	yoursMaxLength = torchload.MaxSteps
	// yoursExampleVocab is the example model's alphabet (and the vocabulary field's
	// default).
	yoursExampleVocab = "abcdefghijklmnopqrstuvwxyz ."
	// yoursExampleHidden is the example LSTM's h; its embedding has d = 8.
	yoursExampleHidden = 12
	yoursExampleEmbed  = 8
)

// yoursLayerArrays are the per-step arrays of one kind of value: forward and reverse.
func yoursLayerArrays(name, tex string) []Array {
	return []Array{
		{Name: name, Label: `\(` + tex + `\)`, Axes: []Axis{Layers, Units}, PerStep: true},
		{Name: name + "_rev", Label: `\(\overleftarrow{` + tex + `}\) (reverse)`, Axes: []Axis{Layers, Units}, PerStep: true},
	}
}

var yoursArrays = func() []Array {
	var out []Array
	for _, g := range []struct{ name, tex string }{
		{"H", "H_t"}, {"R", "R_t"}, {"Z", "Z_t"}, {"H_tilde", `\tilde H_t`},
		{"I", "I_t"}, {"F", "F_t"}, {"O", "O_t"}, {"C_tilde", `\tilde C_t`}, {"C", "C_t"},
	} {
		out = append(out, yoursLayerArrays(g.name, g.tex)...)
	}
	out = append(out, Array{Name: "x", Label: `\(X_t\)`, Axes: []Axis{Units}, PerStep: true},
		Array{Name: "probs", Label: `\(\mathrm{softmax}(O_t/\tau)\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"})
	for l := 1; l <= torchload.MaxLayers; l++ {
		out = append(out,
			Array{Name: fmt.Sprintf("dH%d", l), Label: fmt.Sprintf(`\(\|\partial L/\partial H_t^{(%d)}\|\)`, l), Axes: []Axis{Scalar}, PerStep: true},
			Array{Name: fmt.Sprintf("dH%d_rev", l), Label: fmt.Sprintf(`\(\|\partial L/\partial \overleftarrow{H}_t^{(%d)}\|\)`, l), Axes: []Axis{Scalar}, PerStep: true})
	}
	return out
}()

var yoursGradArrays, yoursGradLegend = func() ([]string, []string) {
	var names, legend []string
	for l := 1; l <= torchload.MaxLayers; l++ {
		names = append(names, fmt.Sprintf("dH%d", l), fmt.Sprintf("dH%d_rev", l))
		legend = append(legend, fmt.Sprintf("layer %d →", l), fmt.Sprintf("layer %d ←", l))
	}
	return names, legend
}()

func yoursGatePanel(name, title, symbol, note string) Panel {
	return Panel{ID: name, Kind: Heatmap, Title: title, Arrays: []string{name, name + "_rev"}, Static: []string{"tokens"}, Symbol: symbol, Note: note, Optional: true}
}

var yoursLesson = &Lesson{
	Slug:    "yours",
	Short:   "Your model",
	Section: "lab", // not a section of the lectures: a practical page for any recurrent model they cover
	Title:   "Your own model",
	Summary: "Drop your own trained PyTorch nn.RNN, nn.GRU or nn.LSTM on the page and step through its gates, states and gradients.",
	Prose: []string{
		`Every page so far ran a model Unroll trained. This one runs yours. Save a trained <code>nn.RNN</code>, <code>nn.GRU</code> or <code>nn.LSTM</code> with <code>torch.save(model.state_dict(), "model.pt")</code> (or as safetensors) and drop the file on the box below, or choose it. Unroll reads the weights without running any code from the file, finds the recurrent module, an <code>nn.Embedding</code> before it and an <code>nn.Linear</code> head after it, and shows what it found: layers, directions, sizes and the parameter count.`,
		`Until you drop a file the page runs an untrained example, a character LSTM drawn from the seed, so that every panel has something to show. Its predictions are noise; yours will not be.`,
		`<b>Your file stays with you.</b> It lives in the memory of this page's session on the server, is never written to disk, and no other page can read it. A link to this page carries the input and the settings, never the weights: whoever opens it sees the example until they drop their own file. In a room, the class sees your gates and states as frames; a student who explores on their own starts from the link, without your weights.`,
		`<b>What PyTorch computes.</b> Its GRU is the reset-after form: the reset gate multiplies \(H_{t-1} W_{hh} + b_{hn}\), not \(H_{t-1}\) before \(W_{hh}\) as in lecture 4.3. Its weights multiply from the left (\(W x\)); ours from the right (\(X_t W\)), so every weight is transposed and split into its gates (\(R, Z, \tilde H\) for a GRU; \(I, F, \tilde C, O\) for an LSTM), and both of PyTorch's biases count. A bidirectional layer's two directions both read the layer below's \([\overrightarrow{H}_t, \overleftarrow{H}_t]\).`,
		`Give it an input: text through your vocabulary (the characters in the embedding's row order, or a JSON list of words), numbers pasted one step a row, or a generated sine, steps or seeded noise. Each heatmap shows one value for every layer, a block per layer, the reverse direction's beside it. The gradient panel follows one output \(L = o_{T,k}\) back through time and down the layers by BPTT: how strongly each \(H_t\) still matters to it. With a head, the top-\(k\) panel shows \(\mathrm{softmax}(O_t/\tau)\), and the page can write tokens after your text, each drawn at temperature \(\tau\).`,
	},
	Equations: []Equation{
		{TeX: `\begin{aligned} P &= D \sum_{l=1}^{L} G\,h\,(d_l + h + 2) + V e + V (D h + 1) \\ G &= 1,\ 3,\ 4 \text{ (RNN, GRU, LSTM)}, \quad d_1 = d,\ d_{l>1} = D h \end{aligned}`},
		{TeX: `\text{RNN:}\quad \htmlClass{sym-H}{H_t} = \phi(X_t W_{xh} + H_{t-1} W_{hh} + b_h), \quad \phi = \tanh \text{ or ReLU}`,
			Symbols: []Symbol{{ID: "H", Array: "H"}}},
		{TeX: `\text{GRU:}\quad \begin{aligned} \htmlClass{sym-R}{R_t} &= \sigma(X_t W_{xr} + H_{t-1} W_{hr} + b_r) \\ \htmlClass{sym-Z}{Z_t} &= \sigma(X_t W_{xz} + H_{t-1} W_{hz} + b_z) \\ \htmlClass{sym-Ht}{\tilde H_t} &= \tanh(X_t W_{xh} + \htmlClass{sym-R}{R_t} \odot (H_{t-1} W_{hh} + b_{hn}) + b_h) \\ H_t &= (1 - Z_t) \odot \tilde H_t + Z_t \odot H_{t-1} \end{aligned}`,
			Symbols: []Symbol{{ID: "R", Array: "R"}, {ID: "Z", Array: "Z"}, {ID: "Ht", Array: "H_tilde"}}},
		{TeX: `\text{LSTM:}\quad \begin{aligned} \htmlClass{sym-I}{I_t}, \htmlClass{sym-F}{F_t}, \htmlClass{sym-O}{O_t} &= \sigma(X_t W_{x\cdot} + H_{t-1} W_{h\cdot} + b_\cdot) \\ \htmlClass{sym-Ct}{\tilde C_t} &= \tanh(X_t W_{xc} + H_{t-1} W_{hc} + b_c) \\ \htmlClass{sym-C}{C_t} &= F_t \odot C_{t-1} + I_t \odot \tilde C_t, \quad H_t = O_t \odot \tanh(C_t) \end{aligned}`,
			Symbols: []Symbol{{ID: "C", Array: "C"}, {ID: "F", Array: "F"}, {ID: "I", Array: "I"}, {ID: "Ct", Array: "C_tilde"}, {ID: "O", Array: "O"}}},
	},
	Arrays: yoursArrays,
	Stage:  []string{"H", "grad"},
	Panels: []Panel{
		{ID: "architecture", Kind: Table, Static: []string{"architecture"}, Title: `what Unroll found in the file: \(P\) parameters`,
			Note: "Read from the tensors' names and shapes; the facts give P and its formula with your sizes."},
		yoursGatePanel("H", `hidden state \(H_t^{(l)}\), a block per layer`, "H", "A bidirectional model's reverse blocks (←) follow the forward ones; each block is one layer."),
		yoursGatePanel("R", `reset gate \(R_t\) (GRU)`, "R", "An RNN or an LSTM has none."),
		yoursGatePanel("Z", `update gate \(Z_t\) (GRU)`, "Z", "Near 1: the unit keeps its old state."),
		yoursGatePanel("H_tilde", `candidate \(\tilde H_t\) (GRU)`, "Ht", ""),
		yoursGatePanel("I", `input gate \(I_t\) (LSTM)`, "I", "A GRU or an RNN has none."),
		yoursGatePanel("F", `forget gate \(F_t\) (LSTM)`, "F", "Near 1: the memory cell keeps what it holds."),
		yoursGatePanel("O", `output gate \(O_t\) (LSTM)`, "O", ""),
		yoursGatePanel("C_tilde", `candidate \(\tilde C_t\) (LSTM)`, "Ct", ""),
		yoursGatePanel("C", `memory cell \(C_t\) (LSTM)`, "C", "Not squashed: it can grow past ±1."),
		{ID: "x", Kind: Heatmap, Title: `input \(X_t\)`, Arrays: []string{"x"}, Static: []string{"tokens"}},
		{ID: "grad", Kind: Line, Title: `\(\|\partial L/\partial H_t^{(l)}\|\) for \(L = o_{T,k}\), by BPTT`, Arrays: yoursGradArrays, Legend: yoursGradLegend, LogY: true, Optional: true,
			Note: "Computed backward from t = T through every layer; the facts name the output k."},
		{ID: "topk", Kind: TopK, Title: `next token: \(\mathrm{softmax}(O_t/\tau)\), top 5`, Arrays: []string{"probs"}, Static: []string{"vocab"}, Optional: true,
			Note: "Only with an nn.Linear head."},
	},
	Params: sim.Specs{
		{Name: "input", Label: "input", Kind: sim.Choice, Default: "text", Choices: []string{"text", "csv", "generated"},
			Help: "text: through the vocabulary and the embedding; csv: numbers, one step a row; generated: a sequence from the seed."},
		{Name: "text", Label: "text", Kind: sim.Text, Default: "hello world", MaxLen: torchload.MaxSteps, MaxLenWhy: "the page runs at most 256 steps",
			When: &sim.Applies{Param: "input", Values: []string{"text"}, Why: "applies to text input"}},
		{Name: "vocab", Label: "vocabulary", Kind: sim.Text, Default: yoursExampleVocab, MaxLen: yoursMaxVocabChars, MaxLenWhy: "it travels in the page's link",
			Help: `The embedding's rows in order: a string of characters, or a JSON list such as ["the", "cat"].`},
		{Name: "csv", Label: "numbers (CSV)", Kind: sim.Text, Default: "0;1;2;3", MaxLen: yoursMaxCSVChars, MaxLenWhy: "it travels in the page's link",
			Help: "One step a row (rows split by ; or a new line), d numbers a row split by commas; with an embedding, one token id a row.",
			When: &sim.Applies{Param: "input", Values: []string{"csv"}, Why: "applies to CSV input"}},
		{Name: "signal", Label: "signal", Kind: sim.Choice, Default: "sine", Choices: []string{"sine", "steps", "noise"},
			When: &sim.Applies{Param: "input", Values: []string{"generated"}, Why: "applies to a generated sequence"}},
		{Name: "length", Label: "length", Symbol: "T", Kind: sim.Int, Default: "32", Min: 1, Max: yoursMaxLength, Step: 1,
			When: &sim.Applies{Param: "input", Values: []string{"generated"}, Why: "applies to a generated sequence"}},
		{Name: "seed", Label: "seed", Kind: sim.Int, Default: "1", Min: 1, Max: maxSeed, Step: 1,
			Help: "The example model, the generated noise and the sampled tokens."},
		{Name: "output", Label: "output traced", Symbol: "k", Kind: sim.Int, Default: "1", Min: 1, Max: torchload.MaxVocab, Step: 1,
			Help: `\(L = o_{T,k}\): the head's output \(k\) at the last step, or unit \(k\) of the top layer's output.`},
		{Name: "temperature", Label: "temperature", Symbol: `\tau`, Kind: sim.Float, Default: "1", Min: 0.1, Max: 5, Step: 0.1},
		{Name: "sample", Label: "tokens to write", Kind: sim.Int, Default: "0", Min: 0, Max: yoursMaxSample, Step: 1,
			Help: "With an embedding and a head, the model continues the input, one drawn token at a time."},
		{Name: "nonlinearity", Label: "nn.RNN nonlinearity", Kind: sim.Choice, Default: "tanh", Choices: []string{"tanh", "relu"}, Advanced: true,
			Help: "A saved model does not record it: choose what your nn.RNN used."},
	},
	Build: func(v sim.Values) (sim.Model, error) { return buildYours(v, nil) },
	Facts: factTable{
		static: []fact{
			{key: "file", label: "model file"},
			{key: "kind", label: "module"},
			{key: "layers", label: "layers L"},
			{key: "directions", label: "directions D"},
			{key: "input_size", label: "input size d"},
			{key: "hidden", label: "hidden units h"},
			{key: "bias", label: "biases"},
			{key: "params", label: "parameters P"},
			{key: "formula", label: "P by the formula"},
			{key: "loss", label: `traced output \(L\)`},
			{key: "k_note", label: `output \(k\)`},
			{key: "sampling", label: "sampling"},
			{key: "input_note", label: "input"},
		},
		step: []fact{
			{key: "t", label: "step t"},
			{key: "token", label: `input \(X_t\)`},
			{key: "written", label: "written by the model"},
			{key: "top", label: "most likely next"},
			{key: "drawn", label: `drawn at \(\tau\)`},
			{key: "grad_h_top", label: `\(\|\partial L/\partial H_t\|\), top layer`, measured: true},
			{key: "grad_c_top", label: `\(\|\partial L/\partial C_t\|\), top layer`, measured: true},
			{key: "grad_x", label: `\(\|\partial L/\partial X_t\|\)`, measured: true},
		},
	},
	Upload:  true,
	Largest: sim.Values{"input": "generated", "length": "256", "sample": "100"},
	// 1531 KB measured at the largest values (256 generated steps and 100 written, the
	// example's traces and frames), 102 KB at the defaults; an upload's own memory is
	// charged by web when it arrives (uploadCost).
	SessionBytes: 2 << 20,
}
