package zoo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// The RNN page shows lecture 002's three architectures side by side, each a small
// model reading the same characters: A is the character-level language model
// (CharLM); B and C are below.

// Sizes and training settings of the architecture B and C models.
const (
	ArchBHidden     = 32    // h of architecture B: as wide as the language model A
	ArchCHidden     = 16    // h of architecture C: a yes/no question needs less
	archTrainSteps  = 2000  // minibatches cmd/train uses for each bundled B and C model
	archCMinLen     = 8     // C's training windows: 8 to 64 characters,
	archCMaxLen     = 64    // one to four sentences: the page's default text (a prompt of 8 and 60 written) is 68
	archEvalSeqs    = 500   // held-out windows for C's recorded accuracy
	archEvalSeed    = 20141 // their seed (different from every training seed)
	archCQuestion   = "sea" // C answers: does the text mention the sea?
	archCheckpointB = "rnn-arch-b.safetensors"
	archCheckpointC = "rnn-arch-c.safetensors"
)

// ArchB is the lecture's architecture B as a character-level language model: the
// recurrence runs from the previous output, not the previous hidden state,
//
//	H_t = tanh(X_t W_xh + ŷ_{t-1} W_oh + b_h),  O_t = H_t W_hq + b_q,  ŷ_t = softmax(O_t),
//
// with ŷ_0 = 0. In is one layer over [X_t, ŷ_{t-1}]: its weight's first V rows are
// W_xh, the next V rows W_oh. All the model can carry forward is what its output shows.
type ArchB struct {
	In  *models.Dense
	Out *models.Dense
	opt *models.Adam
}

// newArchB returns an untrained architecture B model with weights drawn from seed.
func newArchB(seed uint64) *ArchB {
	rng := rand.New(rand.NewPCG(seed, 0xb0b))
	V := len(data.CharVocab)
	return &ArchB{
		In:  models.NewDense("in.", 2*V, ArchBHidden, rng),
		Out: models.NewDense("out.", ArchBHidden, V, rng),
		opt: models.NewAdam(charLR),
	}
}

// Params lists "in.W", "in.b", "out.W", "out.b".
func (m *ArchB) Params() models.Params { return append(m.In.Params(), m.Out.Params()...) }

// archBInput is [X_t, ŷ_{t-1}] for a batch: row b is the one-hot of ids[b], then prev's row b.
func archBInput(ids []int, prev *mat.Dense) *mat.Dense {
	V := len(data.CharVocab)
	in := mat.NewDense(len(ids), 2*V, nil)
	for b, id := range ids {
		in.Set(b, id, 1)
		if prev != nil {
			for k := range V {
				in.Set(b, V+k, prev.At(b, k))
			}
		}
	}
	return in
}

// TrainStep runs one minibatch of Adam on windows of the corpus drawn from rng: the
// mean over steps of −log ŷ_t[x_{t+1}]. The fed-back ŷ_{t-1} is the model's own
// output, taken as a given input (no gradient flows back through it), so every step
// is trained on its own, which is what makes B easy to train. It returns the loss.
func (m *ArchB) TrainStep(rng *rand.Rand) float64 {
	starts := make([]int, charBatch)
	for b := range starts {
		starts[b] = rng.IntN(len(data.CharCorpusIDs) - charWindow - 1)
	}
	loss, _ := m.lossGrad(starts, charWindow, nil)
	ps := m.Params()
	models.ClipGradNorm(ps, charClip)
	m.opt.Step(ps)
	return loss
}

// lossGrad sets the parameters' gradients to those of the loss on the corpus windows
// of length T starting at starts, with the fed-back ŷ_{t-1} held fixed, and returns
// that loss and every step's ŷ_t. The fed-back values are the model's own outputs, or
// feed[t-1] when feed is not nil (so a test can hold them fixed under perturbation).
func (m *ArchB) lossGrad(starts []int, T int, feed []*mat.Dense) (float64, []*mat.Dense) {
	ps := m.Params()
	ps.ZeroGrad()
	B := len(starts)
	ids, targets := make([]int, B), make([]int, B)
	var prev *mat.Dense
	outs := make([]*mat.Dense, T)
	loss, scale := 0.0, 1/float64(T*B)
	for t := range T {
		if feed != nil && t > 0 {
			prev = feed[t-1]
		}
		for b, s := range starts {
			ids[b], targets[b] = data.CharCorpusIDs[s+t], data.CharCorpusIDs[s+t+1]
		}
		in := archBInput(ids, prev)
		h := m.In.Forward(in)
		models.ActTanh.Apply(h)
		l, probs, dLogits := models.SoftmaxCrossEntropy(m.Out.Forward(h), targets, nil)
		loss += l
		dLogits.Scale(scale, dLogits)
		dH := m.Out.Backward(h, dLogits)
		models.ActTanh.Backward(dH, h) // ∂L/∂A = ∂L/∂H_t ⊙ (1 − H_t²)
		m.In.Backward(in, dH)
		prev, outs[t] = probs, probs
	}
	return loss * scale, outs
}

// ArchStep is one step of architecture B or C: the hidden state and, where the
// architecture has one at this step, the output's probabilities (nil otherwise).
type ArchStep struct {
	H, Probs []float64
}

// Run reads ids from ŷ_0 = 0 and returns H_t and ŷ_t for every step.
func (m *ArchB) Run(ids []int) []ArchStep {
	out := make([]ArchStep, len(ids))
	var prev *mat.Dense
	for t, id := range ids {
		h := m.In.Forward(archBInput([]int{id}, prev))
		models.ActTanh.Apply(h)
		logits := m.Out.Forward(h).RawRowView(0)
		probs := make([]float64, len(logits))
		models.Softmax(probs, logits)
		out[t] = ArchStep{H: mat.Row(nil, 0, h), Probs: probs}
		prev = mat.NewDense(1, len(probs), probs)
	}
	return out
}

// BitsPerChar is B's mean −log₂ ŷ_t[x_{t+1}] over the whole corpus, read in one pass.
func (m *ArchB) BitsPerChar() float64 {
	steps := m.Run(data.CharCorpusIDs[:len(data.CharCorpusIDs)-1])
	return corpusBits(len(steps), func(t int) []float64 { return steps[t].Probs })
}

// ArchC is the lecture's architecture C: a vanilla RNN reads the whole sequence and
// answers once, after the last step,
//
//	H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h),  ŷ = softmax(H_T W_hq + b_q),
//
// here the question "does the text mention the sea?" (classes ArchCClasses).
type ArchC struct {
	Cell *models.RNN
	Out  *models.Dense
	opt  *models.Adam
}

// ArchCClasses are C's two answers.
var ArchCClasses = []string{"no sea", "sea"}

// newArchC returns an untrained architecture C model with weights drawn from seed.
func newArchC(seed uint64) *ArchC {
	rng := rand.New(rand.NewPCG(seed, 0xc0c))
	return &ArchC{
		Cell: models.NewRNN(len(data.CharVocab), ArchCHidden, models.ActTanh, rng),
		Out:  models.NewDense("out.", ArchCHidden, len(ArchCClasses), rng),
		opt:  models.NewAdam(charLR),
	}
}

// Params lists "rnn.W_xh", "rnn.W_hh", "rnn.b_h", "out.W", "out.b".
func (m *ArchC) Params() models.Params {
	return append(m.Cell.Params().WithPrefix("rnn."), m.Out.Params()...)
}

// ArchCLabel is C's target for a text: 1 when it contains the question's word.
func ArchCLabel(ids []int) int {
	var s strings.Builder
	for _, id := range ids {
		s.WriteString(data.CharVocab[id])
	}
	if strings.Contains(s.String(), archCQuestion) {
		return 1
	}
	return 0
}

// archCWindows draws n windows of the corpus of one length in [archCMinLen, archCMaxLen].
func archCWindows(rng *rand.Rand, n int) [][]int {
	T := archCMinLen + rng.IntN(archCMaxLen-archCMinLen+1)
	out := make([][]int, n)
	for b := range out {
		s := rng.IntN(len(data.CharCorpusIDs) - T)
		out[b] = data.CharCorpusIDs[s : s+T]
	}
	return out
}

// TrainStep runs one minibatch of Adam on windows of the corpus: the loss is
// −log ŷ[y] at the last step only, so the gradient enters at H_T and flows back
// through every step. It returns the loss.
func (m *ArchC) TrainStep(rng *rand.Rand) float64 {
	loss := m.lossGrad(archCWindows(rng, charBatch))
	ps := m.Params()
	models.ClipGradNorm(ps, charClip)
	m.opt.Step(ps)
	return loss
}

// lossGrad sets the parameters' gradients to those of the mean loss on seqs (all of
// one length) and returns that loss.
func (m *ArchC) lossGrad(seqs [][]int) float64 {
	B, T := len(seqs), len(seqs[0])
	ps := m.Params()
	ps.ZeroGrad()
	xs := make([]*mat.Dense, T)
	for t := range T {
		xs[t] = mat.NewDense(B, len(data.CharVocab), nil)
		for b, seq := range seqs {
			xs[t].Set(b, seq[t], 1)
		}
	}
	tr, err := models.Forward(m.Cell, xs, models.State{})
	if err != nil {
		panic(err) // one-hot inputs are finite and never empty
	}
	targets := make([]int, B)
	for b, seq := range seqs {
		targets[b] = ArchCLabel(seq)
	}
	H := tr.Last().H
	loss, _, dLogits := models.SoftmaxCrossEntropy(m.Out.Forward(H), targets, nil)
	dLogits.Scale(1/float64(B), dLogits)
	dH := make([]*mat.Dense, T)
	dH[T-1] = m.Out.Backward(H, dLogits)
	models.Backward(m.Cell, tr, dH, models.BPTTOptions{})
	return loss / float64(B)
}

// Run reads ids from H_0 = 0 and returns H_t for every step; only the last step has
// an output, ŷ = softmax(H_T W_hq + b_q).
func (m *ArchC) Run(ids []int) []ArchStep {
	out := make([]ArchStep, len(ids))
	var state models.State
	for t, id := range ids {
		x := mat.NewDense(1, len(data.CharVocab), nil)
		x.Set(0, id, 1)
		state = m.Cell.Step(x, state).Next
		out[t] = ArchStep{H: mat.Row(nil, 0, state.H)}
	}
	out[len(out)-1].Probs = m.Readout(out[len(out)-1].H)
	return out
}

// Readout is softmax(H W_hq + b_q) for a hidden state h: C's answer, had the text
// ended at the step whose H_t is h. C itself answers only at the last step.
func (m *ArchC) Readout(h []float64) []float64 {
	logits := m.Out.Forward(mat.NewDense(1, len(h), slices.Clone(h))).RawRowView(0)
	probs := make([]float64, len(logits))
	models.Softmax(probs, logits)
	return probs
}

// ArchCMaxLen is the longest text C was trained on (its training windows are
// archCMinLen to archCMaxLen characters of the corpus).
const ArchCMaxLen = archCMaxLen

// Accuracy is the share of archEvalSeqs held-out corpus windows C answers right.
func (m *ArchC) Accuracy() float64 {
	rng := rand.New(rand.NewPCG(archEvalSeed, 0))
	hits := 0
	for range archEvalSeqs {
		seq := archCWindows(rng, 1)[0]
		steps := m.Run(seq)
		if models.Argmax(steps[len(steps)-1].Probs) == ArchCLabel(seq) {
			hits++
		}
	}
	return float64(hits) / archEvalSeqs
}

// archModels parses the bundled B and C models once.
var archModels = sync.OnceValues(func() (*archPair, error) {
	b, c := newArchB(0), newArchC(0)
	for _, f := range []struct {
		name string
		ps   models.Params
	}{{archCheckpointB, b.Params()}, {archCheckpointC, c.Params()}} {
		if _, err := readBundled(f.name, f.ps); err != nil {
			return nil, err
		}
	}
	return &archPair{b, c}, nil
})

type archPair struct {
	b *ArchB
	c *ArchC
}

// LoadArchModels returns the bundled architecture B and C models (shared, read-only:
// their Run does not change them).
func LoadArchModels() (*ArchB, *ArchC, error) {
	p, err := archModels()
	if err != nil {
		return nil, nil, err
	}
	return p.b, p.c, nil
}

// NewArchC returns an untrained architecture C model with weights drawn from seed
// (its answers are as good as chance: a test uses it for a C that errs).
func NewArchC(seed uint64) *ArchC { return newArchC(seed) }

// RecordedBitsPerChar is the bits per character on the training text that cmd/train
// recorded in the bundled checkpoints of the language model A and of architecture B
// (TestCharCheckpoint and TestArchCheckpoints hold them to the models' own).
var RecordedBitsPerChar = sync.OnceValues(func() ([2]float64, error) {
	var out [2]float64
	for i, f := range []struct {
		name string
		ps   models.Params
	}{{charCheckpointFile, NewCharLM(0).Params()}, {archCheckpointB, newArchB(0).Params()}} {
		meta, err := readBundled(f.name, f.ps)
		if err != nil {
			return out, err
		}
		v, err := strconv.ParseFloat(meta["bits_per_char"], 64)
		if err != nil {
			return out, fmt.Errorf("zoo: checkpoint %s: bits_per_char: %w", f.name, err)
		}
		out[i] = v
	}
	return out, nil
})
