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
	charTrainSteps = 6000 // minibatches cmd/train uses for the bundled checkpoint: the bits per character still fall at 5000
)

// CharLM is the lecture's architecture A as a character-level language model: a
// vanilla RNN whose hidden state feeds the next step, and an output at every step,
//
//	H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h),  O_t = H_t W_hq + b_q,
//	P(x_{t+1} | x_1 … x_t) = softmax(O_t),
//
// which it samples from at a temperature τ, through softmax(O_t / τ).
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
	windows := make([][]int, charBatch)
	for b := range windows {
		s := rng.IntN(len(data.CharCorpusIDs) - charWindow - 1)
		windows[b] = data.CharCorpusIDs[s : s+charWindow+1]
	}
	ps := m.Params()
	ps.ZeroGrad()
	loss := m.windowLoss(windows, true)
	models.ClipGradNorm(ps, charClip)
	m.opt.Step(ps)
	return loss
}

// MeanNLL is the training loss on one text: the mean over its len(ids) − 1
// predictions of −log P(x_{t+1} | x_1 … x_t) (natural log), read from H_0 = 0,
// computed as TrainStep computes it (but without gradients, so it leaves m as it is).
func (m *CharLM) MeanNLL(ids []int) float64 { return m.windowLoss([][]int{ids}, false) }

// windowLoss is the mean −log P(x_{t+1} | x_1 … x_t) over every prediction of the
// windows (all of one length T + 1: T inputs, each followed by its target), and with
// grad the parameters' gradients of it added to theirs.
func (m *CharLM) windowLoss(windows [][]int, grad bool) float64 {
	V, B, T := len(data.CharVocab), len(windows), len(windows[0])-1
	xs := make([]*mat.Dense, T)
	for t := range xs {
		xs[t] = mat.NewDense(B, V, nil)
		for b, w := range windows {
			xs[t].Set(b, w[t], 1)
		}
	}
	tr, err := models.Forward(m.Cell, xs, models.State{})
	if err != nil {
		panic(err) // one-hot inputs are always finite
	}
	dH := make([]*mat.Dense, T)
	targets := make([]int, B)
	loss := 0.0
	scale := 1 / float64(T*B)
	for t := range T {
		for b, w := range windows {
			targets[b] = w[t+1]
		}
		H := tr.Steps[t].Next.H
		l, _, dLogits := models.SoftmaxCrossEntropy(m.Out.Forward(H), targets, nil)
		loss += l
		if grad {
			dLogits.Scale(scale, dLogits)
			dH[t] = m.Out.Backward(H, dLogits)
		}
	}
	if grad {
		models.Backward(m.Cell, tr, dH, models.BPTTOptions{})
	}
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
	X, H  []float64 // X_t (one-hot), H_t
	Probs []float64 // the model's P(x_{t+1} | x_1 … x_t) = softmax(O_t)
	Tau   []float64 // the sampling distribution at temperature τ, softmax(O_t / τ)
}

// Run reads ids from H_0 = 0; each step holds the model's P = softmax(O_t) and the
// sampling distribution softmax(O_t / τ).
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
	probs, tempered := make([]float64, V), make([]float64, V)
	models.Softmax(probs, logits)
	models.Softmax(tempered, scaled)
	return CharStep{X: mat.Row(nil, 0, x), H: mat.Row(nil, 0, st.Next.H), Probs: probs, Tau: tempered}
}

// Generate reads the prompt, then samples n characters, each from the previous
// step's sampling distribution softmax(O_t / τ) with rng (τ = 1 samples from the
// model's own P), feeding every sample back as the next input.
// It returns every step and the generated ids.
func (m *CharLM) Generate(prompt []int, n int, tau float64, rng *rand.Rand) ([]CharStep, []int) {
	steps := m.Run(prompt, tau)
	var gen []int
	for range n {
		next := sample(steps[len(steps)-1].Tau, rng)
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
