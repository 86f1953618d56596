package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// CaptionApproach is one of seed 002's three ways ("Vector to sequence RNN models")
// to hand a fixed input vector x to an RNN that writes a sequence.
type CaptionApproach int

// The three approaches, numbered as seed 002 numbers them.
const (
	// CaptionInitial: x initialises the hidden state, h⁽⁰⁾ = x; the inputs are the
	// previous words only.
	CaptionInitial CaptionApproach = 1
	// CaptionEveryStep: x is fed as input at every time step, beside the previous
	// word, [e(y⁽ᵗ⁻¹⁾); x]; h⁽⁰⁾ = 0.
	CaptionEveryStep CaptionApproach = 2
	// CaptionBoth: both, h⁽⁰⁾ = x and [e(y⁽ᵗ⁻¹⁾); x] at every step.
	CaptionBoth CaptionApproach = 3
)

// CaptionApproaches lists the three approaches in seed 002's order.
var CaptionApproaches = []CaptionApproach{CaptionInitial, CaptionEveryStep, CaptionBoth}

// initial reports whether x initialises h⁽⁰⁾.
func (a CaptionApproach) initial() bool { return a == CaptionInitial || a == CaptionBoth }

// everyStep reports whether x is an input at every step.
func (a CaptionApproach) everyStep() bool { return a == CaptionEveryStep || a == CaptionBoth }

// String names the approach as the lesson does.
func (a CaptionApproach) String() string {
	switch a {
	case CaptionInitial:
		return "h⁽⁰⁾ = x"
	case CaptionEveryStep:
		return "x at every step"
	case CaptionBoth:
		return "both"
	}
	return fmt.Sprintf("approach %d", int(a))
}

// CaptionConfig sizes a Captioner.
type CaptionConfig struct {
	Approach CaptionApproach
	Pixels   int // the image vector v's length
	Vocab    int // V, the caption vocabulary with its special tokens
	Embed    int // e, the word embedding's size
	Hidden   int // h, the GRU's units, which is also x's size (h⁽⁰⁾ = x needs it)
	Seed     uint64
}

func (c CaptionConfig) check() {
	if c.Approach < CaptionInitial || c.Approach > CaptionBoth {
		panic(fmt.Sprintf("models: caption approach %d, want 1, 2 or 3", int(c.Approach)))
	}
	if c.Pixels <= 0 || c.Vocab <= EosID || c.Embed <= 0 || c.Hidden <= 0 {
		panic(fmt.Sprintf("models: caption sizes %+v: every size > 0 and a vocabulary with the special tokens", c))
	}
}

// Captioner is a vector-to-sequence model (seed 002; seed 003's image captioning): an
// encoder turns the image v (1×P) into the vector
//
//	x = tanh(v W_v + b_v)                      (1×h)
//
// and a GRU decoder writes the caption one word at a time from y⁽⁰⁾ = <bos>,
//
//	h⁽ᵗ⁾ = GRU(i⁽ᵗ⁾, h⁽ᵗ⁻¹⁾),  o⁽ᵗ⁾ = h⁽ᵗ⁾ V + c,  ŷ⁽ᵗ⁾ = softmax(o⁽ᵗ⁾),
//
// where, by Config.Approach, h⁽⁰⁾ = x or 0 and the input i⁽ᵗ⁾ is e(y⁽ᵗ⁻¹⁾), the
// previous word's embedding, or [e(y⁽ᵗ⁻¹⁾); x]. Training is teacher forcing: y⁽ᵗ⁻¹⁾
// is the label's previous word, and L = Σ_t −log ŷ⁽ᵗ⁾[y⁽ᵗ⁾] per caption.
type Captioner struct {
	Config  CaptionConfig
	Encoder *Dense     // W_v (P×h), b_v
	Embed   *Embedding // E (V×e)
	Decoder *GRU       // input e, or e + h when x is fed at every step; hidden h
	Out     *Dense     // V (h×V), c: the output layer

	params Params
}

// NewCaptioner draws every weight from cfg.Seed.
func NewCaptioner(cfg CaptionConfig) *Captioner {
	cfg.check()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xca9))
	in := cfg.Embed
	if cfg.Approach.everyStep() {
		in += cfg.Hidden
	}
	m := &Captioner{
		Config:  cfg,
		Encoder: NewDense("enc.", cfg.Pixels, cfg.Hidden, rng),
		Embed:   NewEmbedding("E", cfg.Vocab, cfg.Embed, rng),
		Decoder: NewGRU(in, cfg.Hidden, rng),
		Out:     NewDense("out.", cfg.Hidden, cfg.Vocab, rng),
	}
	m.params = slices.Concat(m.Encoder.Params(), m.Embed.Params().WithPrefix("embed."),
		m.Decoder.Params().WithPrefix("dec."), m.Out.Params())
	return m
}

// Params lists enc.W enc.b embed.E dec.(GRU names) out.W out.b, the same slice on
// every call.
func (m *Captioner) Params() Params { return m.params }

// Encode returns x = tanh(v W_v + b_v) for a batch of images (B×P → B×h).
func (m *Captioner) Encode(v *mat.Dense) *mat.Dense {
	x := m.Encoder.Forward(v)
	applyEach(x, math.Tanh)
	return x
}

// inputs is the decoder's input at one step: e(ids), and x beside it when x is fed
// at every step.
func (m *Captioner) inputs(ids []int, x *mat.Dense) *mat.Dense {
	e := m.Embed.Forward(ids)
	if !m.Config.Approach.everyStep() {
		return e
	}
	return joinDecoderInput(e, x)
}

// start is h⁽⁰⁾: x, or nil (zero).
func (m *Captioner) start(x *mat.Dense) State {
	if m.Config.Approach.initial() {
		return State{H: x}
	}
	return State{}
}

// images stacks B image vectors into B×P, checking each one.
func (m *Captioner) images(imgs [][]float64) (*mat.Dense, error) {
	if len(imgs) == 0 {
		return nil, fmt.Errorf("models: a caption batch needs at least one image")
	}
	v := mat.NewDense(len(imgs), m.Config.Pixels, nil)
	for b, img := range imgs {
		if len(img) != m.Config.Pixels {
			return nil, fmt.Errorf("models: image %d has %d values, want %d", b, len(img), m.Config.Pixels)
		}
		for j, p := range img {
			if math.IsNaN(p) || math.IsInf(p, 0) {
				return nil, fmt.Errorf("models: image %d value %d is %v", b, j, p)
			}
		}
		v.SetRow(b, img)
	}
	return v, nil
}

// LossAndGrad is teacher forcing on a batch: images[b] is v, captions[b] the label ids
// y⁽¹⁾ … y⁽ᵀ⁾ ending in <eos>. It returns L = (1/B) Σ_b Σ_t −log ŷ⁽ᵗ⁾[y⁽ᵗ⁾] and adds
// ∂L/∂θ to every parameter's Grad, the encoder's included: x receives the gradient of
// h⁽⁰⁾ (∂L/∂h⁽⁰⁾) and of its copy in every step's input (the x part of ∂L/∂i⁽ᵗ⁾), and
// ∂L/∂(v W_v + b_v) = ∂L/∂x ⊙ (1 − x²).
func (m *Captioner) LossAndGrad(imgs [][]float64, captions [][]int) (float64, error) {
	if len(captions) != len(imgs) {
		return 0, fmt.Errorf("models: %d captions for %d images", len(captions), len(imgs))
	}
	v, err := m.images(imgs)
	if err != nil {
		return 0, err
	}
	T := 0
	for b, c := range captions {
		if len(c) == 0 {
			return 0, fmt.Errorf("models: caption %d is empty", b)
		}
		if err := checkSentence("caption", c, m.Config.Vocab); err != nil {
			return 0, err
		}
		T = max(T, len(c))
	}
	B, e := len(imgs), m.Config.Embed
	x := m.Encode(v)
	// column t of the batch: the input y⁽ᵗ⁻¹⁾ (<bos> first), the label y⁽ᵗ⁾ and its mask
	ins, labels, masks := make([][]int, T), make([][]int, T), make([][]float64, T)
	xs := make([]*mat.Dense, T)
	for t := range T {
		ins[t], labels[t], masks[t] = make([]int, B), make([]int, B), make([]float64, B)
		for b, c := range captions {
			ins[t][b], labels[t][b] = PadID, PadID
			switch {
			case t == 0:
				ins[t][b] = BosID
			case t < len(c):
				ins[t][b] = c[t-1]
			}
			if t < len(c) {
				labels[t][b], masks[t][b] = c[t], 1
			}
		}
		xs[t] = m.inputs(ins[t], x)
	}
	tr, err := Forward(m.Decoder, xs, m.start(x))
	if err != nil {
		return 0, err
	}
	loss, scale := 0.0, 1/float64(B)
	dH := make([]*mat.Dense, T)
	for t, st := range tr.Steps {
		l, _, dLogits := SoftmaxCrossEntropy(m.Out.Forward(st.Next.H), labels[t], masks[t])
		loss += l
		dLogits.Scale(scale, dLogits)
		dH[t] = m.Out.Backward(st.Next.H, dLogits)
	}
	g := Backward(m.Decoder, tr, dH, BPTTOptions{})
	dx := mat.NewDense(B, m.Config.Hidden, nil)
	if m.Config.Approach.initial() {
		dx.Add(dx, g.DS0.H)
	}
	for t, d := range g.DX {
		dE, dCtx := d, (*mat.Dense)(nil)
		if m.Config.Approach.everyStep() {
			dE, dCtx = splitDecoderInput(d, e)
			dx.Add(dx, dCtx)
		}
		m.Embed.Backward(ins[t], dE)
	}
	dx.Apply(func(i, j int, g float64) float64 { xv := x.At(i, j); return g * (1 - xv*xv) }, dx)
	m.Encoder.Backward(v, dx)
	return loss * scale, nil
}

// TrainStep is one step of an optimiser on a batch: zero the gradients, LossAndGrad,
// clip the global norm at clip (ClipGradNorm), opt.Step. A non-finite gradient norm
// skips the update.
func (m *Captioner) TrainStep(imgs [][]float64, captions [][]int, opt Optimizer, clip float64) (float64, error) {
	m.params.ZeroGrad()
	loss, err := m.LossAndGrad(imgs, captions)
	if err != nil {
		return 0, err
	}
	ClipAndStep(m.params, opt, clip)
	return loss, nil
}

// CaptionStep is one step t of a generated caption.
type CaptionStep struct {
	Input   int        // y⁽ᵗ⁻¹⁾: <bos> first, then the previous Output
	Decoder *StepTrace // X = i⁽ᵗ⁾, gates R Z H_tilde, Next.H = h⁽ᵗ⁾
	Probs   []float64  // ŷ⁽ᵗ⁾ over the vocabulary
	Output  int        // argmax ŷ⁽ᵗ⁾, the greedy choice y⁽ᵗ⁾
}

// TopK is the k most probable words of the step, most probable first (DecodeStep.TopK).
func (s CaptionStep) TopK(k int) []TokenProb { return DecodeStep{Probs: s.Probs}.TopK(k) }

// CaptionTrace is one image captioned greedily, every step kept for the pages.
type CaptionTrace struct {
	X     []float64 // x, the encoder's vector
	H0    []float64 // h⁽⁰⁾: x or 0
	Steps []CaptionStep
}

// Words is the caption's ids, each step's Output up to (without) <eos>.
func (tr *CaptionTrace) Words() []int {
	return beforeEos(tr.Steps, func(s CaptionStep) int { return s.Output })
}

// Greedy captions one image: from y⁽⁰⁾ = <bos>, each step feeds back its most probable
// word, until <eos> or maxLen steps. It only reads the weights.
func (m *Captioner) Greedy(img []float64, maxLen int) (*CaptionTrace, error) {
	if maxLen < 1 {
		return nil, fmt.Errorf("models: maxLen %d, want ≥ 1", maxLen)
	}
	v, err := m.images([][]float64{img})
	if err != nil {
		return nil, err
	}
	x := m.Encode(v)
	s := m.start(x)
	tr := &CaptionTrace{X: mat.Row(nil, 0, x), H0: make([]float64, m.Config.Hidden)}
	if s.H != nil {
		copy(tr.H0, tr.X)
	}
	in := BosID
	for range maxLen {
		st := m.Decoder.Step(m.inputs([]int{in}, x), s)
		p := make([]float64, m.Config.Vocab)
		Softmax(p, m.Out.Forward(st.Next.H).RawRowView(0))
		out := Argmax(p)
		tr.Steps = append(tr.Steps, CaptionStep{Input: in, Decoder: st, Probs: p, Output: out})
		if out == EosID {
			break
		}
		s, in = st.Next, out
	}
	return tr, nil
}
