package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
	"unroll/torchload"
)

// The yours page runs a student's own PyTorch nn.RNN, nn.GRU or nn.LSTM (issue 16): the
// file reaches the server with POST /lessons/yours/model (docs/api.md), is read by
// torchload (its pickle never executed), and lives in memory in the uploader's session
// only, as an Upload that the session's builder closes over (WithUpload). Until a file
// comes, the page runs an untrained example model drawn from the seed.

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

// Upload is a student's own model file, read and mapped: held in memory by the session
// that received it and by nothing else (never written to disk, never sent to another
// page: a room's followers get frames, and a follower's own copy starts without it).
type Upload struct {
	Name   string // the file's name as the page gave it, shown in the facts
	Format torchload.Format
	Arch   torchload.Architecture // as mapped with tanh (an nn.RNN's nonlinearity is a parameter)
	// Bytes is what the upload holds in memory: its float64 tensors and the cells they
	// are mapped onto (twice for an nn.RNN, once per nonlinearity), counted against the
	// server's memory budget by the session that holds it.
	Bytes int

	tensors []*torchload.Tensor
	mu      sync.Mutex
	mapped  map[string]*torchload.Model // by nonlinearity
}

// ReadUpload reads a torch.save or safetensors file and maps it (torchload.Load and
// Map): every refusal is the file's, with torchload's message.
func ReadUpload(name string, data []byte) (*Upload, error) {
	ts, format, err := torchload.Load(data)
	if err != nil {
		return nil, err
	}
	m, err := torchload.Map(ts, torchload.Options{})
	if err != nil {
		return nil, err
	}
	n := 0
	for _, t := range ts {
		n += len(t.Data)
	}
	copies := 2 // the tensors and one mapping
	if m.Arch.Kind == torchload.KindRNNTanh {
		copies = 3 // and the relu mapping, made when asked for
	}
	name = strings.Map(func(r rune) rune { // a name for the facts, not a path
		if r < ' ' || r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	if utf8.RuneCountInString(name) > 80 {
		name = string([]rune(name)[:80]) + "…"
	}
	up := &Upload{Name: name, Format: format, Arch: m.Arch, Bytes: copies*8*n + 4<<10, tensors: ts,
		mapped: map[string]*torchload.Model{"tanh": m}}
	return up, nil
}

// model is the upload mapped with nn.RNN's nonlinearity nl (tanh or relu; ignored for a
// GRU or an LSTM). The mapped cells are only read afterwards (forward passes and BPTT
// without parameter gradients), so the runs that share an upload may read it at once.
func (u *Upload) model(nl string) (*torchload.Model, error) {
	if u.Arch.Kind != torchload.KindRNNTanh {
		nl = "tanh"
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if m := u.mapped[nl]; m != nil {
		return m, nil
	}
	m, err := torchload.Map(u.tensors, torchload.Options{Nonlinearity: nl})
	if err != nil {
		return nil, err
	}
	u.mapped[nl] = m
	return m, nil
}

// exampleModel is the page's model until a file comes: an untrained character LSTM
// (nn.Embedding, nn.LSTM, nn.Linear) with PyTorch's names and initialisation
// U(−1/√h, 1/√h) drawn from seed, mapped by the same torchload.Map as a student's file.
func exampleModel(seed uint64) *torchload.Model {
	rng := rand.New(rand.NewPCG(seed, 0x7005))
	V, d, h := utf8.RuneCountInString(yoursExampleVocab), yoursExampleEmbed, yoursExampleHidden
	k := 1 / math.Sqrt(float64(h))
	tensor := func(name string, shape ...int) *torchload.Tensor {
		n := 1
		for _, s := range shape {
			n *= s
		}
		data := make([]float64, n)
		for i := range data {
			if strings.HasPrefix(name, "emb.") {
				data[i] = rng.NormFloat64() // nn.Embedding's N(0, 1)
			} else {
				data[i] = (2*rng.Float64() - 1) * k
			}
		}
		return &torchload.Tensor{Name: name, Shape: shape, Dtype: torchload.F32, Data: data}
	}
	ts := []*torchload.Tensor{
		tensor("emb.weight", V, d),
		tensor("rnn.weight_ih_l0", 4*h, d), tensor("rnn.weight_hh_l0", 4*h, h),
		tensor("rnn.bias_ih_l0", 4*h), tensor("rnn.bias_hh_l0", 4*h),
		tensor("out.weight", V, h), tensor("out.bias", V),
	}
	m, err := torchload.Map(ts, torchload.Options{})
	if err != nil {
		panic(err) // a bug: the example is built to map
	}
	return m
}

// WithUpload is the yours page's builder with the student's model up (labelled with the
// page's facts, as Lesson.Model): what a session that received a file runs.
func WithUpload(up *Upload) sim.Builder {
	return func(v sim.Values) (sim.Model, error) {
		m, err := buildYours(v, up)
		if err != nil {
			return nil, err
		}
		return labelled(m, yoursLesson.Facts), nil
	}
}

// UploadOf is the student's upload model m holds (a yours page's model, as a run
// holds it), or nil: what must not leave its session.
func UploadOf(m sim.Model) *Upload {
	if y, ok := Unwrap(m).(*yoursModel); ok {
		return y.up
	}
	return nil
}

// yoursModel is the yours page's sim.Model: one forward pass of the model (every layer,
// every direction) over the page's input, the head's distributions and the BPTT of the
// chosen output, all computed when built.
type yoursModel struct {
	up   *Upload // nil: the example model
	m    *torchload.Model
	arch torchload.Architecture
	seed uint64

	source      string   // "text", "csv", "generated"
	tokens      []string // what each step reads, as the page shows it
	vocab       []string // the vocabulary's entries (labels of the head's outputs), or nil
	xs          []*mat.Dense
	inputSteps  int // the steps read from the input; the rest were sampled
	sampleNote  string
	exampleNote string // why the example reads a generated sequence, not the page's input
	temperature float64

	trace  *models.StackTrace // every layer and direction, for BPTT and the frames
	out    []*mat.Dense       // the top layer's output at t = 1..T, 1×(D·h)
	logits [][]float64        // with a head: o_t, 1..T
	probs  [][]float64        // softmax(o_t / τ)
	drawn  []int              // with a head: the token drawn from probs at each step

	k         int    // the output whose gradient is traced, 0-based
	kNote     string // when the page's k was past the outputs
	lossName  string
	hNorm     [][][]float64 // [layer][direction][t-1] = ‖∂L/∂H_t‖ in natural time
	cNorm     [][][]float64 // the same for C_t (LSTM)
	gradInput []float64     // ‖∂L/∂X_t‖
}

func buildYours(v sim.Values, up *Upload) (*yoursModel, error) {
	seed := uint64(v.Int("seed"))
	y := &yoursModel{up: up, seed: seed, source: v.String("input"), temperature: v.Float("temperature")}
	if up == nil {
		y.m = exampleModel(seed)
	} else {
		m, err := up.model(v.String("nonlinearity"))
		if err != nil {
			return nil, err
		}
		y.m = m
	}
	y.arch = y.m.Arch
	if err := y.readInput(v); err != nil {
		if up != nil {
			return nil, err
		}
		// A link made for the student's own model (its vocabulary, its numbers) opens
		// on the example until the file is dropped: the example reads a generated
		// sequence meanwhile, and the page's values stay the link's.
		y.exampleNote = "the example cannot read this input (" + err.Error() + "): it reads a generated sequence until you drop your model"
		y.source = "generated"
		y.xs, y.tokens, y.vocab = nil, nil, nil
		if err := y.readInput(v); err != nil {
			return nil, err
		}
	}
	if err := y.forward(); err != nil {
		return nil, err
	}
	if err := y.sample(v.Int("sample")); err != nil {
		return nil, err
	}
	y.backward(v.Int("output"))
	return y, nil
}

// vocabOf reads the vocabulary field: a JSON list of strings, or a string whose
// characters are the entries.
func vocabOf(raw string) ([]string, error) {
	var entries []string
	if t := strings.TrimSpace(raw); strings.HasPrefix(t, "[") {
		if err := json.Unmarshal([]byte(t), &entries); err != nil {
			return nil, fmt.Errorf("the vocabulary is not a JSON list of strings: %v", err)
		}
	} else {
		for _, r := range raw {
			entries = append(entries, string(r))
		}
	}
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		if e == "" {
			return nil, fmt.Errorf("vocabulary entry %d is empty", i+1)
		}
		if seen[e] {
			return nil, fmt.Errorf("the vocabulary has %q twice", e)
		}
		seen[e] = true
	}
	return entries, nil
}

// readInput turns the page's input into X_1 … X_T: text through the vocabulary and the
// embedding, pasted numbers, or a generated sequence.
func (y *yoursModel) readInput(v sim.Values) error {
	a := y.arch
	var V int
	if y.m.Embed != nil {
		V, _ = y.m.Embed.E.Value.Dims()
	}
	if y.source == "text" && y.m.Embed == nil {
		return errors.New("text needs an nn.Embedding in the file, and this model has none: paste numbers (CSV) or generate a sequence")
	}
	if v.String("vocab") != "" {
		voc, err := vocabOf(v.String("vocab"))
		switch {
		case err != nil && y.source == "text":
			return err
		case err != nil: // only text reads it; the head's outputs are then numbered
		case (V > 0 && len(voc) == V) || (V == 0 && a.Head != nil && len(voc) == a.Head[0]):
			y.vocab = voc
		case y.source == "text":
			return fmt.Errorf("the vocabulary has %d entries; the model's embedding has %d rows", len(voc), V)
		}
	}
	var ids []int
	var rows [][]float64
	switch y.source {
	case "text":
		if y.m.Embed == nil {
			return errors.New("text needs an nn.Embedding in the file, and this model has none: paste numbers (CSV) or generate a sequence")
		}
		if y.vocab == nil {
			return errors.New("give the vocabulary: the characters in the embedding's row order, or a JSON list")
		}
		index := make(map[string]int, len(y.vocab))
		chars := true
		for i, e := range y.vocab {
			index[e] = i
			chars = chars && utf8.RuneCountInString(e) == 1
		}
		text := v.String("text")
		var pieces []string
		if chars {
			for _, r := range text {
				pieces = append(pieces, string(r))
			}
		} else {
			pieces = strings.Fields(text)
		}
		for i, p := range pieces {
			id, ok := index[p]
			if !ok {
				return fmt.Errorf("%q (token %d of the text) is not in the vocabulary", p, i+1)
			}
			ids = append(ids, id)
		}
	case "csv":
		for i, line := range strings.FieldsFunc(v.String("csv"), func(r rune) bool { return r == ';' || r == '\n' }) {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var row []float64
			for _, f := range strings.Split(line, ",") {
				x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("row %d: %q is not a number", i+1, strings.TrimSpace(f))
				}
				row = append(row, x)
			}
			if y.m.Embed != nil {
				if len(row) != 1 || row[0] != math.Trunc(row[0]) || row[0] < 0 || int(row[0]) >= V {
					return fmt.Errorf("row %d: this model reads token ids through its embedding: give one whole number from 0 to %d a row", i+1, V-1)
				}
				ids = append(ids, int(row[0]))
				continue
			}
			if len(row) != a.InputSize {
				return fmt.Errorf("row %d has %d numbers; the model reads d = %d a step", i+1, len(row), a.InputSize)
			}
			rows = append(rows, row)
		}
	default: // generated
		T := v.Int("length")
		rng := rand.New(rand.NewPCG(y.seed, 0x5e9))
		signal := v.String("signal")
		value := func(t, j int) float64 {
			switch signal {
			case "steps":
				if (t/8+j)%2 == 0 {
					return 1
				}
				return -1
			case "noise":
				return rng.NormFloat64()
			}
			return math.Sin(2*math.Pi*float64(t)/16 + float64(j)*math.Pi/4)
		}
		for t := range T {
			if y.m.Embed != nil {
				u := (value(t, 0) + 1) / 2 // sine and steps in [0, 1]; noise is uniform ids
				if signal == "noise" {
					u = rng.Float64()
				}
				ids = append(ids, min(V-1, max(0, int(math.Round(u*float64(V-1))))))
				continue
			}
			row := make([]float64, a.InputSize)
			for j := range row {
				row[j] = value(t, j)
			}
			rows = append(rows, row)
		}
	}
	if len(ids)+len(rows) == 0 {
		return errors.New("the input is empty: give at least one step")
	}
	if n := len(ids) + len(rows); n > torchload.MaxSteps {
		return fmt.Errorf("the input has %d steps; the page runs at most %d", n, torchload.MaxSteps)
	}
	for _, id := range ids {
		y.pushToken(id)
	}
	for _, row := range rows {
		y.xs = append(y.xs, mat.NewDense(1, len(row), row))
		y.tokens = append(y.tokens, strconv.FormatFloat(round4(row[0]), 'g', 4, 64))
	}
	y.inputSteps = len(y.xs)
	return nil
}

// pushToken appends token id's step: its embedding row and its name.
func (y *yoursModel) pushToken(id int) {
	y.xs = append(y.xs, y.m.Embed.Forward([]int{id}))
	if id < len(y.vocab) {
		y.tokens = append(y.tokens, y.vocab[id])
	} else {
		y.tokens = append(y.tokens, "#"+strconv.Itoa(id))
	}
}

// forward runs every layer over xs, as torchload.Model.Run does (the directions of a
// layer read the layer below's [→H_t, ←H_t]: torchload.Model.Forward, within its trace
// budget), keeping the traces for BPTT, and the head's logits and distributions.
func (y *yoursModel) forward() error {
	tr, err := y.m.Forward(y.xs, nil)
	if err != nil {
		return err
	}
	y.trace, y.out = tr, tr.Outputs()
	y.logits, y.probs = nil, nil
	if y.m.Head != nil {
		for _, o := range y.out {
			logit := y.m.Head.Forward(o).RawRowView(0)
			y.logits = append(y.logits, append([]float64(nil), logit...))
			scaled := make([]float64, len(logit))
			for i, z := range logit {
				scaled[i] = z / y.temperature
			}
			p := make([]float64, len(logit))
			models.Softmax(p, scaled)
			y.probs = append(y.probs, p)
		}
	}
	return nil
}

// sample draws a token from softmax(o_t / τ) at every step (what the model would write
// next), and then writes n more tokens, each fed back as the next input: a one-way
// model with an embedding and a head over the same vocabulary only.
func (y *yoursModel) sample(n int) error {
	if y.probs == nil {
		if n > 0 {
			y.sampleNote = "no nn.Linear head: nothing to sample"
		}
		return nil
	}
	rng := rand.New(rand.NewPCG(y.seed, 0x5a3))
	draw := func(p []float64) int {
		u, acc := rng.Float64(), 0.0
		for i, q := range p {
			if acc += q; u < acc {
				return i
			}
		}
		return len(p) - 1
	}
	y.drawn = y.drawn[:0]
	for _, p := range y.probs {
		y.drawn = append(y.drawn, draw(p))
	}
	if n == 0 {
		return nil
	}
	switch {
	case y.m.Embed == nil:
		y.sampleNote = "no nn.Embedding: a drawn token cannot be fed back"
		return nil
	case y.arch.Bidirectional:
		y.sampleNote = "a bidirectional model reads the future: it does not write text one token at a time"
		return nil
	case y.arch.Head[0] != y.arch.Embedding[0]:
		y.sampleNote = fmt.Sprintf("the head has %d outputs and the embedding %d rows: not one vocabulary", y.arch.Head[0], y.arch.Embedding[0])
		return nil
	}
	n = min(n, torchload.MaxSteps-len(y.xs))
	for range n {
		y.pushToken(y.drawn[len(y.drawn)-1])
		if err := y.forward(); err != nil {
			return err
		}
		y.drawn = append(y.drawn, draw(y.probs[len(y.probs)-1]))
	}
	y.sampleNote = fmt.Sprintf("%d tokens written after the input, each drawn from softmax(o/τ) with τ = %g", n, y.temperature)
	return nil
}

// backward is BPTT for L = o_{T,k}, the chosen output at the last step: the head's
// logit k with a head (∂L/∂H_T^{(top)} = column k of W), else unit k of the top layer's
// [→H_T, ←H_T]. models.Stack.Backward (without parameter gradients: the model is only
// read) carries it down the layers and gives ‖∂L/∂H_t‖ of every layer and direction and
// ∂L/∂X_t.
func (y *yoursModel) backward(k int) {
	T := len(y.xs)
	D, h := y.arch.Directions(), y.arch.HiddenSize
	outputs := D * h
	if y.m.Head != nil {
		outputs = y.arch.Head[0]
	}
	y.k, y.kNote = k-1, ""
	if k > outputs {
		y.k = outputs - 1
		y.kNote = fmt.Sprintf("k = %d is past the model's %d outputs: k = %d", k, outputs, outputs)
	}
	g := mat.NewDense(1, D*h, nil) // ∂L/∂(top output at T)
	if y.m.Head != nil {
		for j := range D * h {
			g.Set(0, j, y.m.Head.W.Value.At(j, y.k))
		}
		y.lossName = fmt.Sprintf("the head's output k = %d at the last step", y.k+1)
		if y.k < len(y.vocab) {
			y.lossName = fmt.Sprintf("the head's output k = %d (%q) at the last step", y.k+1, y.vocab[y.k])
		}
	} else {
		g.Set(0, y.k, 1)
		y.lossName = fmt.Sprintf("unit k = %d of the top layer's output at the last step", y.k+1)
	}
	dTop := make([]*mat.Dense, T)
	dTop[T-1] = g
	gr := y.m.Stack().Backward(y.trace, dTop, models.BPTTOptions{NoParamGrads: true})
	L := y.arch.Layers
	y.hNorm = make([][][]float64, L)
	y.cNorm = make([][][]float64, L)
	for l := range L {
		for d := range D {
			cn := gr.CNorms(l, d)
			if cn == nil {
				cn = make([]float64, T)
			}
			y.hNorm[l] = append(y.hNorm[l], gr.HNorms(l, d))
			y.cNorm[l] = append(y.cNorm[l], cn)
		}
	}
	y.gradInput = make([]float64, T)
	for t, d := range gr.DX {
		y.gradInput[t] = mat.Norm(d, 2)
	}
}

func (y *yoursModel) Steps() int { return len(y.xs) }

// Passes: the input, then the tokens the model wrote (one pass, t = 1..T, when it
// wrote none).
func (y *yoursModel) Passes() []sim.Pass {
	n := len(y.xs) - y.inputSteps
	if n == 0 {
		return []sim.Pass{{Steps: y.inputSteps, Index: "t"}}
	}
	return []sim.Pass{{Name: "input", Steps: y.inputSteps, Index: "t"},
		{Name: "written by the model", Steps: n, Index: "t", First: y.inputSteps + 1, Last: len(y.xs)}}
}

// paramCount is P and the formula that gives it, with the model's numbers.
func (y *yoursModel) paramCount() (int, string) {
	a := y.arch
	G := len(map[string][]string{torchload.KindGRU: {"", "", ""}, torchload.KindLSTM: {"", "", "", ""}}[a.Kind])
	if G == 0 {
		G = 1
	}
	D, h := a.Directions(), a.HiddenSize
	b := 0
	if a.Bias {
		b = 2
	}
	total := 0
	var terms []string
	for l := range a.Layers {
		d := a.InputSize
		if l > 0 {
			d = D * h
		}
		total += D * G * h * (d + h + b)
		terms = append(terms, fmt.Sprintf("%d·%d·%d·(%d + %d + %d)", D, G, h, d, h, b))
	}
	if e := a.Embedding; e != nil {
		total += e[0] * e[1]
		terms = append(terms, fmt.Sprintf("%d·%d", e[0], e[1]))
	}
	if hd := a.Head; hd != nil {
		total += hd[0] * (hd[1] + 1)
		terms = append(terms, fmt.Sprintf("%d·(%d + 1)", hd[0], hd[1]))
	}
	return total, strings.Join(terms, " + ") + " = " + strconv.Itoa(total)
}

// kindName is the module in PyTorch's words.
func kindName(k string) string {
	return map[string]string{torchload.KindRNNTanh: "nn.RNN (tanh)", torchload.KindRNNReLU: "nn.RNN (relu)",
		torchload.KindGRU: "nn.GRU (reset-after, PyTorch's form)", torchload.KindLSTM: "nn.LSTM"}[k]
}

// archTable is the architecture found, one row per layer and direction.
func (y *yoursModel) archTable() mtTable {
	a := y.arch
	D, h := a.Directions(), a.HiddenSize
	tab := mtTable{Title: fmt.Sprintf("%s, %d layer(s), %d direction(s), d = %d, h = %d", kindName(a.Kind), a.Layers, D, a.InputSize, h),
		Head: []string{"reads", "gates", "tensors", "numbers"}}
	gates := map[string]string{torchload.KindGRU: "R, Z, H̃", torchload.KindLSTM: "I, F, C̃, O"}[a.Kind]
	if gates == "" {
		gates = "—"
	}
	G := map[string]int{torchload.KindGRU: 3, torchload.KindLSTM: 4}[a.Kind]
	G = max(G, 1)
	b := 0
	if a.Bias {
		b = 2
	}
	if e := a.Embedding; e != nil {
		tab.Rows = append(tab.Rows, mtRow{Label: "embedding", Cells: []mtCell{{Text: "token id"}, {Text: "—"}, {Text: a.EmbeddingName, Sub: fmt.Sprintf("%d × %d", e[0], e[1])}, {Text: strconv.Itoa(e[0] * e[1])}}})
	}
	for l := range a.Layers {
		d := a.InputSize
		if l > 0 {
			d = D * h
		}
		for dir := range D {
			sfx := fmt.Sprintf("_l%d", l)
			label := fmt.Sprintf("layer %d", l+1)
			if D == 2 {
				label += " →"
				if dir == 1 {
					sfx += "_reverse"
					label = fmt.Sprintf("layer %d ←", l+1)
				}
			}
			tab.Rows = append(tab.Rows, mtRow{Label: label, Cells: []mtCell{
				{Text: strconv.Itoa(d) + " numbers"}, {Text: gates},
				{Text: a.Prefix + "weight_ih" + sfx, Sub: fmt.Sprintf("%d × %d", G*h, d)},
				{Text: strconv.Itoa(G * h * (d + h + b))}}})
		}
	}
	if hd := a.Head; hd != nil {
		tab.Rows = append(tab.Rows, mtRow{Label: "head", Cells: []mtCell{{Text: strconv.Itoa(hd[1]) + " numbers"}, {Text: "—"}, {Text: a.HeadName, Sub: fmt.Sprintf("%d × %d", hd[0], hd[1])}, {Text: strconv.Itoa(hd[0] * (hd[1] + 1))}}})
	}
	return tab
}

func (y *yoursModel) Static() sim.Frame {
	a := y.arch
	P, formula := y.paramCount()
	src := "none yet: an untrained example (nn.Embedding, nn.LSTM, nn.Linear) drawn from the seed; drop your own file"
	if y.up != nil {
		src = fmt.Sprintf("%s (%s), in this page's memory only", y.up.Name, y.up.Format)
	}
	labels := y.vocab
	if y.probs != nil && len(labels) != len(y.probs[0]) {
		labels = make([]string, len(y.probs[0]))
		for i := range labels {
			labels[i] = "#" + strconv.Itoa(i)
		}
	}
	meta := map[string]any{
		"tokens":       y.tokens,
		"architecture": y.archTable(),
		"file":         src,
		"kind":         kindName(a.Kind),
		"layers":       a.Layers,
		"directions":   a.Directions(),
		"input_size":   a.InputSize,
		"hidden":       a.HiddenSize,
		"bias":         a.Bias,
		"params":       P,
		"formula":      formula,
		"loss":         y.lossName,
		"arrays":       y.arrayNames(),
	}
	if labels == nil {
		labels = []string{} // no head: the top-k panel is hidden
	}
	meta["vocab"] = labels
	if y.kNote != "" {
		meta["k_note"] = y.kNote
	}
	if y.sampleNote != "" {
		meta["sampling"] = y.sampleNote
	}
	if y.exampleNote != "" {
		meta["input_note"] = y.exampleNote
	}
	return sim.Frame{Meta: meta}
}

func (y *yoursModel) At(t int) sim.Frame {
	D, h, L := y.arch.Directions(), y.arch.HiddenSize, y.arch.Layers
	var arrays []sim.Array
	for _, name := range models.StepValues(y.arch.CellKind()) {
		for d := range D {
			flat := make([]float64, 0, L*h)
			for l := range L {
				flat = append(flat, y.trace.At(l, d, t-1).Gate(name).RawRowView(0)...)
			}
			n := name
			if d == 1 {
				n += "_rev"
			}
			arrays = append(arrays, sim.Matrix(n, L, h, flat))
		}
	}
	x := y.xs[t-1].RawRowView(0)
	arrays = append(arrays, sim.Vector("x", append([]float64(nil), x...)))
	for l := range L {
		for d := range D {
			name := fmt.Sprintf("dH%d", l+1)
			if d == 1 {
				name += "_rev"
			}
			arrays = append(arrays, sim.Vector(name, []float64{y.hNorm[l][d][t-1]}))
		}
	}
	meta := map[string]any{
		"t":          t,
		"token":      y.tokens[t-1],
		"grad_h_top": sig6(y.hNorm[L-1][0][t-1]),
		"grad_x":     sig6(y.gradInput[t-1]),
	}
	if y.arch.Kind == torchload.KindLSTM {
		meta["grad_c_top"] = sig6(y.cNorm[L-1][0][t-1])
	}
	if t > y.inputSteps {
		meta["written"] = true
	}
	if y.probs != nil {
		p := y.probs[t-1]
		arrays = append(arrays, sim.Vector("probs", append([]float64(nil), p...)))
		best := 0
		for i, q := range p {
			if q > p[best] {
				best = i
			}
		}
		meta["top"] = fmt.Sprintf("%s (p = %.3f)", y.label(best), p[best])
		meta["drawn"] = y.label(y.drawn[t-1])
	}
	return sim.Frame{Arrays: arrays, Meta: meta}
}

// arrayNames lists the per-step arrays the model's frames carry: the page shows the
// Optional panels that draw one of them (lessons.Panel.Optional).
func (y *yoursModel) arrayNames() []string {
	var out []string
	for _, a := range y.At(1).Arrays {
		out = append(out, a.Name)
	}
	return out
}

// label names output i of the head: its vocabulary entry, or #i.
func (y *yoursModel) label(i int) string {
	if i < len(y.vocab) {
		return y.vocab[i]
	}
	return "#" + strconv.Itoa(i)
}

// Fork shares the model (read-only: nothing trains it) and copies nothing else that
// changes: a yours run never trains. web refuses to hand a copy holding an Upload to
// anyone but its own page (UploadOf).
func (y *yoursModel) Fork() (sim.Model, error) {
	c := *y
	return &c, nil
}

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
