package zoo

import (
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// Sizes and training settings of the character-level language model.
const (
	CharHidden     = 32   // h: enough for words of three letters, small enough to read on a heatmap
	charWindow     = 32   // characters per training sequence (BPTT length)
	charBatch      = 16   // sequences per minibatch
	charLR         = 0.01 // Adam's η
	charClip       = 1    // θ for gradient clipping: a vanilla RNN on text needs it
	charTrainSteps = 2000 // minibatches cmd/train uses for the bundled checkpoint
)

// CharLM is the lecture's architecture A as a character-level language model: a
// vanilla RNN whose hidden state feeds the next step, and an output at every step,
//
//	H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h),  O_t = H_t W_hq + b_q,
//	P(x_{t+1} | x_1 … x_t) = softmax(O_t).
type CharLM struct {
	Cell *models.RNN
	Out  *models.Dense
	opt  *models.Adam
}

// NewCharLM returns an untrained model with weights drawn from seed.
func NewCharLM(seed uint64) *CharLM {
	rng := rand.New(rand.NewPCG(seed, 0xc4a2))
	V := len(data.CharVocab)
	return &CharLM{
		Cell: models.NewRNN(V, CharHidden, models.ActTanh, rng),
		Out:  models.NewDense("out.", CharHidden, V, rng),
		opt:  models.NewAdam(charLR),
	}
}

// Params lists "rnn.W_xh", "rnn.W_hh", "rnn.b_h", "out.W", "out.b".
func (m *CharLM) Params() models.Params {
	return append(m.Cell.Params().WithPrefix("rnn."), m.Out.Params()...)
}

// TrainStep runs one minibatch of Adam on windows of the corpus drawn from rng: the
// mean over steps of −log P(x_{t+1} | x_1 … x_t). It returns that loss.
func (m *CharLM) TrainStep(rng *rand.Rand) float64 {
	V := len(data.CharVocab)
	starts := make([]int, charBatch)
	for b := range starts {
		starts[b] = rng.IntN(len(data.CharCorpusIDs) - charWindow - 1)
	}
	ps := m.Params()
	ps.ZeroGrad()
	xs := make([]*mat.Dense, charWindow)
	for t := range xs {
		xs[t] = mat.NewDense(charBatch, V, nil)
		for b, s := range starts {
			xs[t].Set(b, data.CharCorpusIDs[s+t], 1)
		}
	}
	tr, err := models.Forward(m.Cell, xs, models.State{})
	if err != nil {
		panic(err) // one-hot inputs are always finite
	}
	dH := make([]*mat.Dense, charWindow)
	targets := make([]int, charBatch)
	loss := 0.0
	scale := 1 / float64(charWindow*charBatch)
	for t := range charWindow {
		for b, s := range starts {
			targets[b] = data.CharCorpusIDs[s+t+1]
		}
		H := tr.Steps[t].Next.H
		l, _, dLogits := models.SoftmaxCrossEntropy(m.Out.Forward(H), targets, nil)
		loss += l
		dLogits.Scale(scale, dLogits)
		dH[t] = m.Out.Backward(H, dLogits)
	}
	models.Backward(m.Cell, tr, dH, models.BPTTOptions{})
	models.ClipGradNorm(ps, charClip)
	m.opt.Step(ps)
	return loss * scale
}

// BitsPerChar is the model's mean −log₂ P(x_{t+1} | x_1 … x_t) over the whole corpus,
// read in one pass from H_0 = 0.
func (m *CharLM) BitsPerChar() float64 {
	steps := m.Run(data.CharCorpusIDs[:len(data.CharCorpusIDs)-1], 1)
	return corpusBits(len(steps), func(t int) []float64 { return steps[t].Probs })
}

// corpusBits is the mean −log₂ ŷ_t[x_{t+1}] over the n = len(corpus) − 1 predictions
// ŷ_t = probs(t) of a language model that read the corpus but its last character.
func corpusBits(n int, probs func(t int) []float64) float64 {
	total := 0.0
	for t := range n {
		total -= math.Log2(probs(t)[data.CharCorpusIDs[t+1]])
	}
	return total / float64(n)
}

// CharStep is one step of the language model reading one character.
type CharStep struct {
	X, H, Probs []float64 // X_t (one-hot), H_t, softmax(O_t / τ)
}

// Run reads ids from H_0 = 0 with temperature τ: P = softmax(O_t / τ).
func (m *CharLM) Run(ids []int, tau float64) []CharStep {
	out := make([]CharStep, len(ids))
	h := mat.NewDense(1, CharHidden, nil)
	for t, id := range ids {
		out[t] = m.step(id, h, tau)
		h = mat.NewDense(1, CharHidden, out[t].H)
	}
	return out
}

func (m *CharLM) step(id int, prev *mat.Dense, tau float64) CharStep {
	V := len(data.CharVocab)
	x := mat.NewDense(1, V, nil)
	x.Set(0, id, 1)
	st := m.Cell.Step(x, models.State{H: prev})
	logits := m.Out.Forward(st.Next.H).RawRowView(0)
	scaled := make([]float64, V)
	for i, o := range logits {
		scaled[i] = o / tau
	}
	probs := make([]float64, V)
	models.Softmax(probs, scaled)
	return CharStep{X: mat.Row(nil, 0, x), H: mat.Row(nil, 0, st.Next.H), Probs: probs}
}

// Generate reads the prompt, then samples n characters, each from the previous
// step's P = softmax(O_t / τ) with rng, feeding every sample back as the next input.
// It returns every step and the generated ids.
func (m *CharLM) Generate(prompt []int, n int, tau float64, rng *rand.Rand) ([]CharStep, []int) {
	steps := m.Run(prompt, tau)
	var gen []int
	for range n {
		next := sample(steps[len(steps)-1].Probs, rng)
		gen = append(gen, next)
		steps = append(steps, m.step(next, mat.NewDense(1, CharHidden, steps[len(steps)-1].H), tau))
	}
	return steps, gen
}

// sample draws an index from the distribution p.
func sample(p []float64, rng *rand.Rand) int {
	u := rng.Float64()
	for i, v := range p {
		u -= v
		if u < 0 {
			return i
		}
	}
	return len(p) - 1
}

// charCheckpointFile is the bundled language model under zoo/checkpoints.
const charCheckpointFile = "rnn-charlm.safetensors"

// SharedCharLM loads the bundled language model once: shared and read-only (see
// bundled), so the RNN page reads it without copying it.
var SharedCharLM = sync.OnceValues(func() (*CharLM, error) {
	m := NewCharLM(0)
	if _, err := readBundled(charCheckpointFile, m.Params()); err != nil {
		return nil, err
	}
	return m, nil
})

// loadCharLM returns a fresh copy of the bundled trained language model.
func loadCharLM() (*CharLM, error) {
	ck, err := SharedCharLM()
	if err != nil {
		return nil, err
	}
	m := NewCharLM(0)
	copyParams(m.Params(), ck.Params())
	return m, nil
}
