package lessons

import (
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"

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

// PyTorch is a lesson's model as a PyTorch download, GET /lessons/{slug}/model.safetensors
// (docs/api.md): what the file holds, the scripts that load it, and the models the page
// shows beside its own. Lesson.PyTorch is nil when the page offers no download.
type PyTorch struct {
	// Note is what the file holds, as trusted HTML shown beside the download: a file
	// of lessons/pytorch/notes (pyTorchHTML).
	Note string
	// Scripts name the scripts in lessons/pytorch that load the file (which one, the
	// file's metadata says: a model may take several forms). Each has its
	// introduction beside it, lessons/pytorch/<name>.html (PyTorchIntro).
	Scripts []string
	// Companions are the models the page shows beside its own, each downloadable as
	// model=NAME; Build's model is then a PyTorchCompanions, and their files name
	// scripts of Scripts.
	Companions []Companion
}

// nnScript is the script of the lessons whose model is a PyTorchExporter: five lines that
// load the file into torch.nn.RNN, GRU or LSTM.
const nnScript = "nn.py"

// bpttScript is the bptt lesson's script: the leaky RNN written in torch, its ∂L/∂H_t
// from autograd, clipped and truncated as on the page.
const bpttScript = "bptt.py"

// lectureGRUScript is the script of the lectures' GRU (reset-before), which no nn.GRU
// computes: the cell written in torch, over a stack of layers.
const lectureGRUScript = "lecture_gru.py"

//go:embed pytorch/*.py
var pyTorchScripts embed.FS

// pyTorchPages are the download's HTML: each script's introduction beside it, and in
// notes/ what each lesson's file holds and its companions' labels.
//
//go:embed pytorch/*.html pytorch/notes/*.html
var pyTorchPages embed.FS

// pyTorchHTML is the trusted HTML in lessons/pytorch/<name>, one paragraph: its lines
// joined by a space, so that a file wraps where it likes. The lessons' literals read
// theirs at init, so a name that is not there stops every test at once.
func pyTorchHTML(name string) string {
	b, err := pyTorchPages.ReadFile("pytorch/" + name)
	if err != nil {
		panic("lessons: " + err.Error())
	}
	return strings.ReplaceAll(strings.TrimSuffix(string(b), "\n"), "\n", " ")
}

// pyTorchOf is lesson slug's download, nil when it has none (or there is no lesson slug).
func pyTorchOf(slug string) *PyTorch {
	if l, ok := Find(slug); ok {
		return l.PyTorch
	}
	return nil
}

// HasPyTorch reports whether lesson slug's page offers its model as a PyTorch
// state_dict: whether its Lesson.PyTorch is set.
func HasPyTorch(slug string) bool { return pyTorchOf(slug) != nil }

// PyTorchNote is what lesson slug's model.safetensors holds, as trusted HTML ("" for
// a lesson without one).
func PyTorchNote(slug string) string {
	if p := pyTorchOf(slug); p != nil {
		return p.Note
	}
	return ""
}

// PyTorchCompanions is a model whose page shows other trained models beside its own
// (the LSTM page's GRU and vanilla RNN): each downloads by its name, model=NAME, one of
// its lesson's Companions.
type PyTorchCompanions interface {
	PyTorchCompanion(name string, step int) (PyTorchFile, error)
}

// Companion is a model a page shows beside its own: its name in model=NAME and what it
// is, as trusted HTML for the download's link.
type Companion struct{ Name, Label string }

// Companions are the models lesson slug's page shows beside its own, each downloadable.
func Companions(slug string) []Companion {
	if p := pyTorchOf(slug); p != nil {
		return p.Companions
	}
	return nil
}

// PyTorchScripts are the names of lesson slug's scripts in lessons/pytorch (none for a
// lesson without a model to download).
func PyTorchScripts(slug string) []string {
	if p := pyTorchOf(slug); p != nil {
		return p.Scripts
	}
	return nil
}

// PyTorchIntro is what script does, as trusted HTML shown above it: the file beside
// it, lessons/pytorch/<name>.html for <name>.py ("" for no script of ours).
func PyTorchIntro(script string) string {
	name, ok := strings.CutSuffix(script, ".py")
	if !ok || strings.Contains(name, "/") {
		return ""
	}
	if _, err := fs.Stat(pyTorchPages, "pytorch/"+name+".html"); err != nil {
		return ""
	}
	return pyTorchHTML(name + ".html")
}

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
// if any (File refuses a clamp, and the lectures' variant, which nn.GRU cannot
// compute: PyTorchFile writes that one for lecture_gru.py).
func (m *gruModel) PyTorch() PyTorchModel {
	return PyTorchModel{Cell: m.clf.Cell.WithClamp(m.clamp), Head: m.clf.Out, Inputs: m.ids,
		H: stepH(m.clf.Run(m.ids, m.clamp), func(s zoo.GRUStep) []float64 { return s.H })}
}

// PyTorch is the LSTM with the page's clamped gate if any (not the GRU and RNN the page
// compares it with: PyTorchCompanion). File refuses a clamp and peepholes (PyTorchFile
// writes those for peephole_lstm.py).
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

// PyTorch is the stack of L layers reading the page's series (its GRU is the lectures'
// form, which File refuses and PyTorchFile writes for lecture_gru.py).
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

// PyTorchFile is the classifier for nn.py in the reset-after form, for lecture_gru.py in
// the lectures' form.
func (m *gruModel) PyTorchFile(step int) (PyTorchFile, error) { return m.PyTorch().program(step) }

// PyTorchFile is the stack for nn.py, or for lecture_gru.py when its cells are the
// lectures' GRU.
func (m *deepModel) PyTorchFile(step int) (PyTorchFile, error) { return m.PyTorch().program(step) }

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
	return p.file(ts, meta, nnScript, step), nil
}

// file is the export of ts with meta and, added to it, the inputs: "x", the numbers
// (one row a step), or "inputs", the token ids. Its step is step, or the last when
// step is 0 or past the end.
func (p PyTorchModel) file(ts []*torchload.Tensor, meta map[string]string, script string, step int) PyTorchFile {
	step = exportStep(step, p.Steps())
	if p.X != nil { // numbers, one row a step
		x, _ := json.Marshal(p.X)
		meta["x"] = string(x)
	} else {
		inputs, _ := json.Marshal(p.Inputs)
		meta["inputs"] = string(inputs)
	}
	return PyTorchFile{Tensors: ts, Meta: meta, Script: script, Step: step, H: p.H[step-1]}
}

// lectureGRU reports whether the stack is the lectures' GRU (reset-before), one
// direction, which no nn.GRU computes.
func lectureGRU(stack [][]models.Cell) bool {
	for _, row := range stack {
		if g, ok := row[0].(*models.GRU); !ok || g.ResetAfter() || len(row) != 1 {
			return false
		}
	}
	return true
}

// program is the model's export: for the lectures' GRU, lectureGRUFile's, else File's.
func (p PyTorchModel) program(step int) (PyTorchFile, error) {
	if lectureGRU(p.Stack()) {
		return p.lectureGRUFile(step)
	}
	return p.File(step)
}

// lectureGRUFile is the export of a stack of the lectures' GRU for
// lessons/pytorch/lecture_gru.py, which writes the cell in torch: the cells in
// nn.GRU's layout with one bias a gate (torchload.ExportLecture: weight_ih_l<l>,
// weight_hh_l<l> and bias_l<l>, blocks r, z, n), the head as File's, and in the metadata the sizes, num_layers, the inputs, the step, and the
// gate the page clamps, as {"R": v} or {"Z": v} ({} for none).
func (p PyTorchModel) lectureGRUFile(step int) (PyTorchFile, error) {
	stack := p.Stack()
	ts, err := torchload.ExportLecture(stack, p.Head)
	if err != nil {
		return PyTorchFile{}, err
	}
	c := stack[0][0].(*models.GRU).Clamp()
	for _, row := range stack {
		if row[0].(*models.GRU).Clamp() != c {
			return PyTorchFile{}, errors.New("the layers clamp different gates, and lecture_gru.py clamps one in every layer")
		}
	}
	fixed := map[string]float64{}
	if c.Gate != "" {
		fixed[c.Gate] = c.Value
	}
	clamp, _ := json.Marshal(fixed)
	meta := map[string]string{
		"input_size":  strconv.Itoa(stack[0][0].InputSize()),
		"hidden_size": strconv.Itoa(stack[0][0].HiddenSize()),
		"num_layers":  strconv.Itoa(len(stack)),
		"clamp":       string(clamp),
	}
	return p.file(ts, meta, lectureGRUScript, step), nil
}

// PyTorchFile is the page's RNN for lessons/pytorch/bptt.py at scrubber step step (0
// or past the end: the last, the backward pass's t = 1): the cell in nn.RNN's layout
// with its one bias (torchload.ExportLecture: rnn.weight_ih_l0, rnn.weight_hh_l0,
// rnn.bias_l0; nn.RNN has no leak and no identity, so the script writes the unit), and in the metadata φ, α, the window k, θ and what it clips, the inputs X_t,
// u of L = H_T uᵀ and t, the time step the page's step works on. H is what the page
// shows at t: H_t, ∂L/∂H_t (after clipping; 0 where truncated) and ‖∂L/∂W_hh‖_F.
func (m *bpttModel) PyTorchFile(step int) (PyTorchFile, error) {
	step = exportStep(step, m.Steps())
	_, t := m.timeOf(step)
	ts, err := torchload.ExportLecture([][]models.Cell{{m.cell}}, nil)
	if err != nil {
		return PyTorchFile{}, err
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	meta := map[string]string{
		"activation": m.act.String(), "alpha": js(m.alpha), "truncate": js(m.k), "clip": js(m.theta), "clip_on": m.clipOn,
		"x": js(m.xs), "u": js(m.u), "t": js(t),
	}
	H := slices.Concat(m.hs[t-1], m.dHs[t-1], []float64{m.paramGradNorm})
	return PyTorchFile{Tensors: ts, Meta: meta, Script: bpttScript, Step: step, H: H}, nil
}
