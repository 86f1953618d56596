package torchload

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// Limits on the models Map accepts, each with its reason.
const (
	// MaxLayers is PyTorch's num_layers at most: the page draws every layer.
	MaxLayers = 4
	// MaxHidden bounds hidden_size: the page draws every unit of every gate, and a run's
	// trace grows with it.
	MaxHidden = 1024
	// MaxInput bounds input_size (and an embedding's width).
	MaxInput = 4096
	// MaxVocab bounds an embedding's rows and a head's outputs.
	MaxVocab = 1 << 16
)

// The kinds of Architecture.Kind, as API.md names them.
const (
	KindRNNTanh = "rnn_tanh"
	KindRNNReLU = "rnn_relu"
	KindGRU     = "gru"
	KindLSTM    = "lstm"
)

// Architecture is what Map found, as API.md's "architecture" object.
type Architecture struct {
	Kind          string `json:"kind"`
	Layers        int    `json:"layers"`
	Bidirectional bool   `json:"bidirectional"`
	InputSize     int    `json:"input_size"`
	HiddenSize    int    `json:"hidden_size"`
	Bias          bool   `json:"bias"`
	Embedding     []int  `json:"embedding"` // [V, d], or nil
	Head          []int  `json:"head"`      // [V, directions·h] as PyTorch stores it, or nil
	Parameters    int    `json:"parameters"`
	// Prefix is the name prefix of the recurrent module's tensors ("rnn.", "" …);
	// EmbeddingName and HeadName the embedding's and head's weight names.
	Prefix        string `json:"prefix"`
	EmbeddingName string `json:"embedding_name,omitempty"`
	HeadName      string `json:"head_name,omitempty"`
}

// Directions is 2 for a bidirectional model, else 1.
func (a Architecture) Directions() int {
	if a.Bidirectional {
		return 2
	}
	return 1
}

// CellKind is the models cell kind of a's module: models.KindRNN for either nn.RNN.
func (a Architecture) CellKind() models.Kind {
	switch a.Kind {
	case KindGRU:
		return models.KindGRU
	case KindLSTM:
		return models.KindLSTM
	}
	return models.KindRNN
}

// Model is a PyTorch recurrent model mapped onto package models: Cells[l][d] is layer l's
// cell of direction d (0 forward, 1 reverse), a *models.RNN, a reset-after *models.GRU or
// a *models.LSTM, with PyTorch's weights transposed and split per gate
// (docs/checkpoints.md, "Your own PyTorch model"). Stack runs them.
type Model struct {
	Arch  Architecture
	Cells [][]models.Cell
	Embed *models.Embedding // nil without an nn.Embedding
	Head  *models.Dense     // nil without an nn.Linear head
}

// Options are what a state_dict does not say.
type Options struct {
	// Nonlinearity is nn.RNN's, "tanh" (the default, also for "") or "relu"; a state_dict
	// does not record it. It is ignored for a GRU or LSTM.
	Nonlinearity string
}

// rnnName is one of nn.RNN/GRU/LSTM's own tensor names, after the prefix.
var rnnName = regexp.MustCompile(`^(weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)_l([0-9]+)(_reverse)?$`)

// Map finds one nn.RNN, nn.GRU or nn.LSTM among ts (any name prefix before weight_ih_l0),
// with at most one nn.Embedding feeding it and one nn.Linear head reading its output,
// found by shape and name, and builds the Model. Every tensor must have its place: an
// unknown name, a missing tensor or a shape that disagrees is an error that lists what
// was found.
func Map(ts []*Tensor, opt Options) (*Model, error) {
	m, err := mapModel(ts, opt)
	if err != nil {
		return nil, fmt.Errorf("torchload: %w\nthe file holds: %s", err, listTensors(ts))
	}
	return m, nil
}

// listTensors is "name [shape] dtype, …" in file order, at most 40 of them.
func listTensors(ts []*Tensor) string {
	parts := make([]string, 0, min(len(ts), 41))
	for i, t := range ts {
		if i == 40 {
			parts = append(parts, fmt.Sprintf("… and %d more", len(ts)-40))
			break
		}
		parts = append(parts, t.String())
	}
	return strings.Join(parts, ", ")
}

func mapModel(ts []*Tensor, opt Options) (*Model, error) {
	byName := make(map[string]*Tensor, len(ts))
	var prefixes []string
	for _, t := range ts {
		byName[t.Name] = t
		if p, ok := strings.CutSuffix(t.Name, "weight_ih_l0"); ok {
			prefixes = append(prefixes, p)
		}
	}
	if len(prefixes) != 1 {
		if len(prefixes) == 0 {
			return nil, errors.New("no nn.RNN, nn.GRU or nn.LSTM: no tensor is called <prefix>weight_ih_l0")
		}
		return nil, fmt.Errorf("%d recurrent modules (prefixes %q); Unroll runs one", len(prefixes), prefixes)
	}
	prefix := prefixes[0]

	// The recurrent module's own tensors.
	own := map[string]*Tensor{}
	layers, reverse, bias := 0, false, false
	for _, t := range ts {
		rest, ok := strings.CutPrefix(t.Name, prefix)
		if !ok {
			continue
		}
		g := rnnName.FindStringSubmatch(rest)
		if g == nil {
			continue
		}
		if g[1] == "weight_hr" {
			return nil, fmt.Errorf("%s: an LSTM with proj_size > 0, which Unroll does not map", t.Name)
		}
		l, err := strconv.Atoi(g[2])
		if err != nil || l >= MaxLayers {
			return nil, fmt.Errorf("%s: layer %s; Unroll maps 1 to %d layers (MaxLayers)", t.Name, g[2], MaxLayers)
		}
		own[rest] = t
		layers = max(layers, l+1)
		reverse = reverse || g[3] != ""
		bias = bias || strings.HasPrefix(g[1], "bias")
	}

	hh := own["weight_hh_l0"]
	if hh == nil || len(hh.Shape) != 2 {
		return nil, fmt.Errorf("%sweight_hh_l0 is missing or not 2-D", prefix)
	}
	h := hh.Shape[1]
	if h < 1 || h > MaxHidden || hh.Shape[0]%h != 0 {
		return nil, fmt.Errorf("%sweight_hh_l0 has shape %v: want [G·h, h] with 1 ≤ h ≤ %d (MaxHidden)", prefix, hh.Shape, MaxHidden)
	}
	gates := hh.Shape[0] / h
	arch := Architecture{Layers: layers, Bidirectional: reverse, HiddenSize: h, Bias: bias, Prefix: prefix}
	switch gates {
	case 1:
		switch opt.Nonlinearity {
		case "", "tanh":
			arch.Kind = KindRNNTanh
		case "relu":
			arch.Kind = KindRNNReLU
		default:
			return nil, fmt.Errorf("nonlinearity %q: nn.RNN has tanh or relu", opt.Nonlinearity)
		}
	case 3:
		arch.Kind = KindGRU
	case 4:
		arch.Kind = KindLSTM
	default:
		return nil, fmt.Errorf("%sweight_hh_l0 has shape %v: %d blocks of h = %d rows, but nn.RNN has 1, nn.GRU 3 and nn.LSTM 4", prefix, hh.Shape, gates, h)
	}
	ih := own["weight_ih_l0"]
	if len(ih.Shape) != 2 || ih.Shape[0] != gates*h || ih.Shape[1] < 1 || ih.Shape[1] > MaxInput {
		return nil, fmt.Errorf("%sweight_ih_l0 has shape %v, want [%d, d] with 1 ≤ d ≤ %d (MaxInput)", prefix, ih.Shape, gates*h, MaxInput)
	}
	arch.InputSize = ih.Shape[1]

	// Every expected tensor with its shape, and nothing else under these names.
	dirs := arch.Directions()
	want := map[string][]int{}
	for l := range layers {
		in := arch.InputSize
		if l > 0 {
			in = dirs * h
		}
		for d := range dirs {
			sfx := fmt.Sprintf("_l%d", l)
			if d == 1 {
				sfx += "_reverse"
			}
			want["weight_ih"+sfx] = []int{gates * h, in}
			want["weight_hh"+sfx] = []int{gates * h, h}
			if bias {
				want["bias_ih"+sfx] = []int{gates * h}
				want["bias_hh"+sfx] = []int{gates * h}
			}
		}
	}
	for _, name := range sortedKeys(want) {
		t := own[name]
		if t == nil {
			return nil, fmt.Errorf("a %d-layer %s%s needs %s%s, which is missing", layers, bidiName(reverse), arch.Kind, prefix, name)
		}
		if !slices.Equal(t.Shape, want[name]) {
			return nil, fmt.Errorf("%s%s has shape %v, want %v for a %s with input size %d and hidden size %d", prefix, name, t.Shape, want[name], arch.Kind, arch.InputSize, h)
		}
	}
	for _, name := range sortedKeys(own) {
		if want[name] == nil {
			return nil, fmt.Errorf("%s%s does not fit a %d-layer %s%s", prefix, name, layers, bidiName(reverse), arch.Kind)
		}
	}

	// The rest: an embedding [V, d] and a head [V, dirs·h] (+ bias [V]), by shape and name.
	var rest []*Tensor
	for _, t := range ts {
		if r, ok := strings.CutPrefix(t.Name, prefix); !ok || own[r] == nil {
			rest = append(rest, t)
		}
	}
	emb, head, headBias, err := findEmbeddingAndHead(rest, arch.InputSize, dirs*h)
	if err != nil {
		return nil, err
	}

	m := &Model{Arch: arch}
	rng := rand.New(rand.NewPCG(0, 0)) // every value is then overwritten
	for l := range layers {
		in := arch.InputSize
		if l > 0 {
			in = dirs * h
		}
		var row []models.Cell
		for d := range dirs {
			sfx := fmt.Sprintf("_l%d", l)
			if d == 1 {
				sfx += "_reverse"
			}
			p := pytorchCell{wih: own["weight_ih"+sfx], whh: own["weight_hh"+sfx], bih: own["bias_ih"+sfx], bhh: own["bias_hh"+sfx], h: h}
			row = append(row, p.cell(arch.Kind, in, rng))
		}
		m.Cells = append(m.Cells, row)
	}
	if emb != nil {
		V, e := emb.Shape[0], emb.Shape[1]
		m.Embed = &models.Embedding{E: models.NewParam("E", V, e)}
		copy(m.Embed.E.Value.RawMatrix().Data, emb.Data)
		m.Arch.Embedding, m.Arch.EmbeddingName = []int{V, e}, emb.Name
	}
	if head != nil {
		V, in := head.Shape[0], head.Shape[1]
		m.Head = &models.Dense{W: models.NewParam("W", in, V), B: models.NewBias("b", V)}
		m.Head.W.Value.Copy(transposed(head, 0, V))
		if headBias != nil {
			copy(m.Head.B.Value.RawRowView(0), headBias.Data)
		}
		m.Arch.Head, m.Arch.HeadName = []int{V, in}, head.Name
	}
	for _, t := range ts {
		m.Arch.Parameters += len(t.Data)
	}
	return m, nil
}

func bidiName(b bool) string {
	if b {
		return "bidirectional "
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// headNames and embeddingNames are module names that settle a tensor whose shape fits
// both an embedding and a head.
var (
	headNames      = []string{"head", "fc", "out", "linear", "decoder", "proj", "classifier", "output", "lm_head"}
	embeddingNames = []string{"emb", "embed", "embedding", "embeddings", "encoder", "tok", "token"}
)

// findEmbeddingAndHead places the tensors outside the recurrent module: an embedding is a
// 2-D "<module>.weight" [V, d] with no "<module>.bias"; a head is a 2-D "<module>.weight"
// [V, dirs·h] with an optional "<module>.bias" [V]. A tensor that fits both (d = dirs·h,
// no bias) is settled by its module's name. Anything else is refused.
func findEmbeddingAndHead(rest []*Tensor, d, out int) (emb, head, headBias *Tensor, err error) {
	byName := map[string]*Tensor{}
	for _, t := range rest {
		byName[t.Name] = t
	}
	used := map[string]bool{}
	for _, t := range rest {
		module, ok := strings.CutSuffix(t.Name, "weight")
		if !ok || len(t.Shape) != 2 || (module != "" && !strings.HasSuffix(module, ".")) {
			continue
		}
		b := byName[module+"bias"]
		V, cols := t.Shape[0], t.Shape[1]
		if V < 1 || V > MaxVocab {
			if cols == d || cols == out {
				return nil, nil, nil, fmt.Errorf("%s %v: an embedding or head of %d rows; Unroll maps 1 to %d (MaxVocab)", t.Name, t.Shape, V, MaxVocab)
			}
			continue
		}
		fitsEmb := cols == d && b == nil
		fitsHead := cols == out && (b == nil || slices.Equal(b.Shape, []int{V}))
		if fitsEmb && fitsHead {
			base := strings.ToLower(strings.TrimSuffix(module, "."))
			if i := strings.LastIndexByte(base, '.'); i >= 0 {
				base = base[i+1:]
			}
			switch {
			case slices.Contains(embeddingNames, base):
				fitsHead = false
			case slices.Contains(headNames, base):
				fitsEmb = false
			default:
				return nil, nil, nil, fmt.Errorf("%s %v could be the embedding or the head; name its module embed… or head/fc/out… to say which", t.Name, t.Shape)
			}
		}
		switch {
		case fitsEmb:
			if emb != nil {
				return nil, nil, nil, fmt.Errorf("two embeddings: %s and %s", emb.Name, t.Name)
			}
			emb = t
			used[t.Name] = true
		case fitsHead:
			if head != nil {
				return nil, nil, nil, fmt.Errorf("two heads: %s and %s", head.Name, t.Name)
			}
			head, headBias = t, b
			used[t.Name] = true
			if b != nil {
				used[b.Name] = true
			}
		}
	}
	for _, t := range rest {
		if !used[t.Name] {
			return nil, nil, nil, fmt.Errorf("%s %v has no place: besides the recurrent module Unroll maps an nn.Embedding [V, %d] and an nn.Linear head [V, %d] (+ bias [V])", t.Name, t.Shape, d, out)
		}
	}
	return emb, head, headBias, nil
}

// pytorchCell is one layer and direction of a PyTorch module: weight_ih [G·h, in],
// weight_hh [G·h, h] and the biases [G·h] (nil without bias).
type pytorchCell struct {
	wih, whh, bih, bhh *Tensor
	h                  int
}

// cell builds the models cell of kind with PyTorch's weights (docs/checkpoints.md):
// gate block k of weight_ih is rows k·h to (k+1)·h, transposed to in×h.
func (p pytorchCell) cell(kind string, in int, rng *rand.Rand) models.Cell {
	h := p.h
	wx := func(k int) *mat.Dense { return transposed(p.wih, k*h, (k+1)*h) }
	wh := func(k int) *mat.Dense { return transposed(p.whh, k*h, (k+1)*h) }
	bias := func(t *Tensor, k int) []float64 {
		if t == nil {
			return make([]float64, h)
		}
		return t.Data[k*h : (k+1)*h]
	}
	sum := func(k int) []float64 { // b_ih + b_hh of block k
		out := make([]float64, h)
		for j, v := range bias(p.bih, k) {
			out[j] = v + bias(p.bhh, k)[j]
		}
		return out
	}
	// gate sets one gate's W_x, W_h and b from block k (b: the block's bias sum, or a
	// part of it)
	gate := func(k int, wxp, whp, bp *models.Param, b []float64) {
		wxp.Value.Copy(wx(k))
		whp.Value.Copy(wh(k))
		copy(bp.Value.RawRowView(0), b)
	}
	switch kind {
	case KindGRU: // blocks r, z, n; reset-after, so b_hn = bias_hh's n block stays inside R ⊙ (·)
		c := models.NewGRUResetAfter(in, h, rng)
		gate(0, c.Wxr, c.Whr, c.Br, sum(0))
		gate(1, c.Wxz, c.Whz, c.Bz, sum(1))
		gate(2, c.Wxh, c.Whh, c.Bh, bias(p.bih, 2))
		copy(c.Bhn.Value.RawRowView(0), bias(p.bhh, 2))
		return c
	case KindLSTM: // blocks i, f, g (= C̃), o
		c := models.NewLSTM(in, h, rng)
		gate(0, c.Wxi, c.Whi, c.Bi, sum(0))
		gate(1, c.Wxf, c.Whf, c.Bf, sum(1))
		gate(2, c.Wxc, c.Whc, c.Bc, sum(2))
		gate(3, c.Wxo, c.Who, c.Bo, sum(3))
		return c
	}
	act := models.ActTanh
	if kind == KindRNNReLU {
		act = models.ActReLU
	}
	c := models.NewRNN(in, h, act, rng)
	gate(0, c.Wxh, c.Whh, c.Bh, sum(0))
	return c
}

// transposed is rows r0..r1 of the 2-D tensor t, transposed: (r1−r0) columns.
func transposed(t *Tensor, r0, r1 int) *mat.Dense {
	cols := t.Shape[1]
	out := mat.NewDense(cols, r1-r0, nil)
	for r := r0; r < r1; r++ {
		for c, v := range t.Data[r*cols : (r+1)*cols] {
			out.Set(c, r-r0, v)
		}
	}
	return out
}

// ExportPrefix and ExportHead are the module names Export gives the recurrent module and
// the head: "rnn.weight_ih_l0" …, "out.weight", "out.bias".
const (
	ExportPrefix = "rnn."
	ExportHead   = "out."
)

// Export is Map's inverse for one layer, one direction: the state_dict of nn.RNN, nn.GRU
// or nn.LSTM (under ExportPrefix) with an nn.Linear head (under ExportHead, if head is
// not nil) that computes what cell and head compute, so that Map(Export(…)) gives back
// the same numbers. The table is pytorchCell.cell's, read backwards: gate block k of
// weight_ih is our W_x·ᵀ of that gate (r, z, n for a GRU; i, f, g, o for an LSTM), and
// since PyTorch adds bias_ih and bias_hh, our bias goes to bias_ih and bias_hh is zero,
// except for a GRU's n block, whose bias_hh is b_hn (inside R ⊙ (·)).
//
// Refused, with a message: the lectures' GRU (reset-before: R_t multiplies H_{t-1}
// before W_hh, which nn.GRU cannot express), a clamped gate, and a leaky RNN
// (ExportLecture writes those for a script).
func Export(cell models.Cell, head *models.Dense) ([]*Tensor, Architecture, error) {
	return ExportStack([][]models.Cell{{cell}}, head)
}

// ExportStack is Export for a stack: layers[l][d] is layer l's cell of direction d (0
// forward, 1 reverse; every layer one direction, or every layer two), written as
// PyTorch's weight_ih_l<l>[_reverse] …; layer 1 reads d numbers, every higher layer
// the D·h of the layer below's [→H_t, ←H_t], and the head reads the top layer's D·h.
// Every cell must be of one kind and hidden size.
func ExportStack(layers [][]models.Cell, head *models.Dense) ([]*Tensor, Architecture, error) {
	return exportStack(layers, head, exportCell)
}

// ExportLecture is ExportStack for the cells no torch.nn module computes, which a
// script writes by hand (LectureCell): the lectures' GRU (reset-before), a leaky RNN,
// an RNN whose φ is the identity. Layer l's tensors are LectureCell(ExportPrefix,
// "_l<l>", …); the head is an nn.Linear under ExportHead, as ExportStack's. Every cell
// must be of one kind and hidden size, one direction or two.
func ExportLecture(layers [][]models.Cell, head *models.Dense) ([]*Tensor, error) {
	ts, _, err := exportStack(layers, head, func(c models.Cell, sfx string) ([]*Tensor, string, error) {
		ts, err := LectureCell(ExportPrefix, sfx, c)
		return ts, string(c.Kind()), err
	})
	return ts, err
}

// exportStack is ExportStack, each cell's tensors and kind written by cellTensors.
func exportStack(layers [][]models.Cell, head *models.Dense, cellTensors func(models.Cell, string) ([]*Tensor, string, error)) ([]*Tensor, Architecture, error) {
	if len(layers) == 0 || len(layers) > MaxLayers || len(layers[0]) == 0 || len(layers[0]) > 2 {
		return nil, Architecture{}, fmt.Errorf("torchload: %d layers of %d directions; PyTorch's modules here have 1 to %d layers of 1 or 2", len(layers), len(layers[0]), MaxLayers)
	}
	D, h := len(layers[0]), layers[0][0].HiddenSize()
	arch := Architecture{Layers: len(layers), Bidirectional: D == 2, InputSize: layers[0][0].InputSize(), HiddenSize: h, Bias: true, Prefix: ExportPrefix}
	var ts []*Tensor
	for l, row := range layers {
		if len(row) != D {
			return nil, arch, fmt.Errorf("torchload: layer %d has %d directions, layer 1 %d", l+1, len(row), D)
		}
		for d, cell := range row {
			in := arch.InputSize
			if l > 0 {
				in = D * h
			}
			if cell.HiddenSize() != h || cell.InputSize() != in {
				return nil, arch, fmt.Errorf("torchload: layer %d's cell reads %d numbers into %d units; want %d into %d", l+1, cell.InputSize(), cell.HiddenSize(), in, h)
			}
			sfx := fmt.Sprintf("_l%d", l)
			if d == 1 {
				sfx += "_reverse"
			}
			cts, kind, err := cellTensors(cell, sfx)
			if err != nil {
				return nil, arch, err
			}
			if arch.Kind != "" && kind != arch.Kind {
				return nil, arch, fmt.Errorf("torchload: layer %d is %s, layer 1 %s: one PyTorch module has one kind", l+1, kind, arch.Kind)
			}
			arch.Kind = kind
			ts = append(ts, cts...)
		}
	}
	if head != nil {
		in, V := head.W.Value.Dims()
		if in != D*h {
			return nil, arch, fmt.Errorf("torchload: the head reads %d numbers; the top layer gives D·h = %d", in, D*h)
		}
		ts = append(ts, Linear(ExportHead, head)...)
		arch.Head, arch.HeadName = []int{V, in}, ExportHead+"weight"
	}
	for _, t := range ts {
		if err := checkFinite(t); err != nil {
			return nil, arch, err
		}
		arch.Parameters += len(t.Data)
	}
	return ts, arch, nil
}

// exportCell is one cell's four tensors, named with the suffix sfx ("_l0",
// "_l1_reverse"), and its kind, for a cell that its torch.nn module computes: what
// none computes is refused with a message.
func exportCell(cell models.Cell, sfx string) ([]*Tensor, string, error) {
	h := cell.HiddenSize()
	var kind string
	var wx, wh []*mat.Dense // per gate block, in PyTorch's order
	var bih, bhh [][]float64
	row := func(p *models.Param) []float64 { return p.Value.RawRowView(0) }
	zero := make([]float64, h)
	switch c := cell.(type) {
	case *models.GRU:
		if !c.ResetAfter() {
			return nil, "", errors.New("this GRU is the lectures' reset-before form (R_t multiplies H_{t-1} before W_hh), which torch.nn.GRU cannot compute; choose the reset-after form, PyTorch's")
		}
		if c.Clamp() != (models.GateClamp{}) {
			return nil, "", errors.New("this GRU has a gate clamped, which torch.nn.GRU cannot do")
		}
		kind = KindGRU
		wx, wh, bih = gruBlocks(c)
		bhh = [][]float64{zero, zero, row(c.Bhn)}
	case *models.LSTM:
		if c.Clamp() != (models.GateClamp{}) {
			return nil, "", errors.New("this LSTM has a gate clamped, which torch.nn.LSTM cannot do")
		}
		if c.Peephole() {
			return nil, "", errors.New("this LSTM has peephole connections (its gates see C_t), which torch.nn.LSTM cannot compute")
		}
		kind = KindLSTM
		wx = []*mat.Dense{c.Wxi.Value, c.Wxf.Value, c.Wxc.Value, c.Wxo.Value}
		wh = []*mat.Dense{c.Whi.Value, c.Whf.Value, c.Whc.Value, c.Who.Value}
		bih = [][]float64{row(c.Bi), row(c.Bf), row(c.Bc), row(c.Bo)}
		bhh = [][]float64{zero, zero, zero, zero}
	case *models.RNN:
		if c.Leak() != 1 {
			return nil, "", fmt.Errorf("this RNN is a leaky unit (α = %g), which torch.nn.RNN cannot compute", c.Leak())
		}
		switch c.Act {
		case models.ActTanh:
			kind = KindRNNTanh
		case models.ActReLU:
			kind = KindRNNReLU
		default:
			return nil, "", fmt.Errorf("this RNN's φ is %s; torch.nn.RNN has tanh or relu", c.Act)
		}
		wx, wh = []*mat.Dense{c.Wxh.Value}, []*mat.Dense{c.Whh.Value}
		bih, bhh = [][]float64{row(c.Bh)}, [][]float64{zero}
	default:
		return nil, "", fmt.Errorf("a %T has no PyTorch module", cell)
	}
	ts := []*Tensor{LinearWeight(ExportPrefix+"weight_ih"+sfx, wx...), LinearWeight(ExportPrefix+"weight_hh"+sfx, wh...),
		Concat(ExportPrefix+"bias_ih"+sfx, bih...), Concat(ExportPrefix+"bias_hh"+sfx, bhh...)}
	return ts, kind, nil
}

// gruBlocks are a GRU's W_x·, W_h· and b· of its gates in PyTorch's order r, z, n.
func gruBlocks(c *models.GRU) (wx, wh []*mat.Dense, b [][]float64) {
	return []*mat.Dense{c.Wxr.Value, c.Wxz.Value, c.Wxh.Value}, []*mat.Dense{c.Whr.Value, c.Whz.Value, c.Whh.Value},
		[][]float64{c.Br.Value.RawRowView(0), c.Bz.Value.RawRowView(0), c.Bh.Value.RawRowView(0)}
}

// LectureCell is a cell that no torch.nn module computes, for a script that writes it
// by hand: the lectures' GRU (reset-before, R_t ⊙ H_{t-1} before W_hh) or an RNN with
// any φ and leak α, in the layout of its torch.nn module but with the lectures' one
// bias a gate, under prefix with the suffix sfx ("_l0"):
//
//	weight_ih<sfx> = [W_xrᵀ; W_xzᵀ; W_xhᵀ]  (3h × d; an RNN's W_xhᵀ, h × d)
//	weight_hh<sfx> = [W_hrᵀ; W_hzᵀ; W_hhᵀ]  (3h × h; an RNN's W_hhᵀ)
//	bias<sfx>      = [b_r, b_z, b_h]        (3h; an RNN's b_h)
//
// blocks in PyTorch's order r, z, n. A clamped gate and α are not parameters and are
// not written (the caller says them). What torch.nn computes (a reset-after GRU, an
// LSTM) is refused: Export writes it.
func LectureCell(prefix, sfx string, cell models.Cell) ([]*Tensor, error) {
	var wx, wh []*mat.Dense
	var b [][]float64
	switch c := cell.(type) {
	case *models.GRU:
		if c.ResetAfter() {
			return nil, errors.New("torchload: a reset-after GRU is torch.nn.GRU's: Export it")
		}
		wx, wh, b = gruBlocks(c)
	case *models.RNN:
		wx, wh, b = []*mat.Dense{c.Wxh.Value}, []*mat.Dense{c.Whh.Value}, [][]float64{c.Bh.Value.RawRowView(0)}
	default:
		return nil, fmt.Errorf("torchload: a %T is no lecture cell a script writes by hand", cell)
	}
	return []*Tensor{LinearWeight(prefix+"weight_ih"+sfx, wx...), LinearWeight(prefix+"weight_hh"+sfx, wh...), Concat(prefix+"bias"+sfx, b...)}, nil
}

// WriteSafetensors encodes ts (1-D or 2-D) as a float64 safetensors file with meta as
// its __metadata__, which Load reads back.
func WriteSafetensors(w io.Writer, ts []*Tensor, meta map[string]string) error {
	ps := make(models.Params, len(ts))
	for i, t := range ts {
		switch len(t.Shape) {
		case 1:
			ps[i] = models.NewBias(t.Name, t.Shape[0])
		case 2:
			ps[i] = models.NewParam(t.Name, t.Shape[0], t.Shape[1])
		default:
			return fmt.Errorf("torchload: %s: %d-D, want 1-D or 2-D", t.Name, len(t.Shape))
		}
		copy(ps[i].Value.RawMatrix().Data, t.Data)
	}
	return models.WriteSafetensors(w, ps, meta)
}
