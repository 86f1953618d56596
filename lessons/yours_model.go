package lessons

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
	"unroll/torchload"
)

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

// forward runs every layer over xs with torchload.Model.Forward, the models.Stack that
// torchload.Model.Run runs too, within the one trace budget (the directions of a layer
// read the layer below's [→H_t, ←H_t]), keeping the trace for BPTT and the frames, and
// the head's logits and distributions.
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
