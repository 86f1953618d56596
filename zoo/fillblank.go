package zoo

import (
	"math/rand/v2"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// Sizes and training settings of the fill-in-the-blank models.
const (
	BlankHidden     = 12   // h per direction: plenty for 14 right contexts, few enough to read
	blankBatch      = 32   // sentences per minibatch
	blankLR         = 0.01 // Adam's η: these tiny models learn fast at this rate
	blankClip       = 5    // θ for gradient clipping: keeps an unlucky minibatch from undoing progress
	blankTrainSteps = 1500 // minibatches cmd/train uses for a bundled checkpoint
)

// blankKind is the cell of both directions: the lecture's vanilla RNN,
// H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h).
const blankKind = models.KindRNN

// FillBlank is a model that fills in the blank of a sentence. Its output at the
// blank's step t reads the hidden state there: ŷ = softmax(H_t W_q + b_q), where H_t
// is →H_t for the unidirectional model and [→H_t, ←H_t] for the bidirectional one.
type FillBlank struct{ blankStack }

// blankStack is what the models over the fill-in-the-blank sentences share: the
// cells and the output layer, trained by Adam.
type blankStack struct {
	Fwd models.Cell // →H_t = f(X_t, →H_{t−1}), reading left to right
	Bwd models.Cell // ←H_t = b(X_t, ←H_{t+1}), reading right to left; nil if unidirectional
	Out *models.Dense
	opt *models.Adam
}

// NewFillBlank returns an untrained model, bidirectional or not, with weights drawn from seed.
func NewFillBlank(bidirectional bool, seed uint64) *FillBlank {
	return &FillBlank{newBlankStack(bidirectional, len(data.BlankAnswers), rand.New(rand.NewPCG(seed, 0xb1)))}
}

// newBlankStack draws →H_t's cell, ←H_t's when bidirectional, each of BlankHidden
// units over the one-hot words, and an output layer of the given width on their
// states, in that order from rng.
func newBlankStack(bidirectional bool, outputs int, rng *rand.Rand) blankStack {
	d, h := len(data.BlankVocab), BlankHidden
	m := blankStack{opt: models.NewAdam(blankLR)}
	var err error
	if m.Fwd, err = models.NewCell(blankKind, d, h, rng); err != nil {
		panic(err)
	}
	q := h
	if bidirectional {
		if m.Bwd, err = models.NewCell(blankKind, d, h, rng); err != nil {
			panic(err)
		}
		q = 2 * h
	}
	m.Out = models.NewDense("out.", q, outputs, rng)
	return m
}

// Bidirectional reports whether the model has the backward direction.
func (m *blankStack) Bidirectional() bool { return m.Bwd != nil }

// Params lists "fwd.W_xh", …, then "bwd.…" if bidirectional, then "out.W", "out.b".
func (m *blankStack) Params() models.Params {
	ps := m.Fwd.Params().WithPrefix("fwd.")
	if m.Bwd != nil {
		ps = append(ps, m.Bwd.Params().WithPrefix("bwd.")...)
	}
	return append(ps, m.Out.Params()...)
}

// traces reads a batch in both directions (blankInputs pads each sentence after its
// end in reading order); bwd is nil if unidirectional.
func (m *blankStack) traces(batch []data.BlankSentence) (fwd, bwd *models.Trace) {
	fwd, err := models.Forward(m.Fwd, blankInputs(batch, false), models.State{})
	if err != nil {
		panic(err) // one-hot inputs are finite and never empty
	}
	if m.Bwd != nil {
		if bwd, err = models.Forward(m.Bwd, blankInputs(batch, true), models.State{}); err != nil {
			panic(err)
		}
	}
	return fwd, bwd
}

// blankInputs returns X_1..X_T for a batch as one direction reads it: one-hot rows,
// each sentence in reading order (reversed for the backward direction) and padded
// at its end with zero rows. Padding thus always comes after the blank in reading
// order and cannot change the state there; a sentence's length cannot leak into
// what the forward direction knows at the blank.
func blankInputs(batch []data.BlankSentence, reverse bool) []*mat.Dense {
	T := 0
	for _, s := range batch {
		T = max(T, len(s.IDs))
	}
	xs := make([]*mat.Dense, T)
	for t := range xs {
		xs[t] = mat.NewDense(len(batch), len(data.BlankVocab), nil)
	}
	for b, s := range batch {
		for k, id := range s.IDs {
			if reverse {
				k = len(s.IDs) - 1 - k
			}
			xs[k].Set(b, id, 1)
		}
	}
	return xs
}

// blankPass is both directions' forward passes over a batch and the state each
// sentence's output reads: H = →H_t, or [→H_t, ←H_t], at its blank's step t.
type blankPass struct {
	fwd, bwd *models.Trace // bwd in reading order: its step k is time T_b − k of sentence b
	H        *mat.Dense    // B×q, row b at sentence b's blank
}

// fwdSteps is each sentence's blank as a step of the forward direction: t.
func (blankPass) fwdSteps(batch []data.BlankSentence) []int {
	steps := make([]int, len(batch))
	for b, s := range batch {
		steps[b] = s.Blank
	}
	return steps
}

// bwdSteps is each sentence's blank as a step of the backward direction, which
// reads it from its own end: T_b − 1 − t.
func (blankPass) bwdSteps(batch []data.BlankSentence) []int {
	steps := make([]int, len(batch))
	for b, s := range batch {
		steps[b] = len(s.IDs) - 1 - s.Blank
	}
	return steps
}

func (m *FillBlank) pass(batch []data.BlankSentence) blankPass {
	var p blankPass
	p.fwd, p.bwd = m.traces(batch)
	h := BlankHidden
	q, _ := m.Out.W.Value.Dims()
	p.H = mat.NewDense(len(batch), q, nil)
	fwd := models.StatesAt(p.fwd, p.fwdSteps(batch))
	var bwd *mat.Dense
	if p.bwd != nil {
		bwd = models.StatesAt(p.bwd, p.bwdSteps(batch))
	}
	for b := range batch {
		copy(p.H.RawRowView(b)[:h], fwd.RawRowView(b))
		if bwd != nil {
			copy(p.H.RawRowView(b)[h:], bwd.RawRowView(b))
		}
	}
	return p
}

// TrainStep runs one minibatch of Adam on L = mean over the batch of −log ŷ[y] at
// each sentence's blank, drawing the batch from rng. It returns the loss and the
// share of blanks filled right.
func (m *FillBlank) TrainStep(rng *rand.Rand) (loss, accuracy float64) {
	return trainBlankBatch(rng, m.Params(), m.opt, func(batch []data.BlankSentence) (float64, int, int) {
		loss, hits := m.lossGrad(batch)
		return loss, len(batch), hits
	})
}

// trainBlankBatch is one minibatch of opt on blankBatch sentences drawn from rng, the
// gradient clipped at blankClip: lossGrad returns the batch's mean loss, how many
// predictions it averages and how many are right, and adds the gradient to ps. It
// returns the loss and the share right.
func trainBlankBatch(rng *rand.Rand, ps models.Params, opt models.Optimizer, lossGrad func([]data.BlankSentence) (loss float64, n, hits int)) (loss, accuracy float64) {
	batch := make([]data.BlankSentence, blankBatch)
	for b := range batch {
		batch[b] = data.DrawBlankSentence(rng)
	}
	ps.ZeroGrad()
	loss, n, hits := lossGrad(batch)
	models.ClipGradNorm(ps, blankClip)
	opt.Step(ps)
	return loss, float64(hits) / float64(n)
}

// lossGrad returns L = mean over batch of −log ŷ[y] at each blank and how many blanks
// are filled right, and adds ∂L/∂θ to every parameter's Grad.
func (m *FillBlank) lossGrad(batch []data.BlankSentence) (loss float64, hits int) {
	n := len(batch)
	targets := make([]int, n)
	for b, s := range batch {
		targets[b] = s.Answer
	}
	p := m.pass(batch)
	loss, probs, dLogits := models.SoftmaxCrossEntropy(m.Out.Forward(p.H), targets, nil)
	for b := range batch {
		if models.Argmax(probs.RawRowView(b)) == targets[b] {
			hits++
		}
	}
	dLogits.Scale(1/float64(n), dLogits)
	dH := m.Out.Backward(p.H, dLogits)
	h := BlankHidden
	// ∂L/∂→H_t and ∂L/∂←H_t: the first and last h columns of each sentence's row, at its blank's step.
	models.BackwardAt(m.Fwd, p.fwd, p.fwdSteps(batch), mat.DenseCopyOf(dH.Slice(0, n, 0, h)), models.BPTTOptions{})
	if m.Bwd != nil {
		models.BackwardAt(m.Bwd, p.bwd, p.bwdSteps(batch), mat.DenseCopyOf(dH.Slice(0, n, h, 2*h)), models.BPTTOptions{})
	}
	return loss / float64(n), hits
}

// BlankRun is one sentence read by a model: the states of both directions by time
// step (Bwd[t-1] = ←H_t, nil if unidirectional) and ŷ at the blank.
type BlankRun struct {
	Fwd, Bwd [][]float64
	Probs    []float64
}

// Run reads one sentence and returns its states and the blank's ŷ.
func (m *FillBlank) Run(ids []int, blank int) BlankRun {
	p := m.pass([]data.BlankSentence{{IDs: ids, Blank: blank}})
	var r BlankRun
	T := len(ids)
	for _, st := range p.fwd.Steps {
		r.Fwd = append(r.Fwd, mat.Row(nil, 0, st.Next.H))
	}
	if p.bwd != nil {
		r.Bwd = make([][]float64, T)
		for k, st := range p.bwd.Steps { // reading order: step k is time T−k
			r.Bwd[T-1-k] = mat.Row(nil, 0, st.Next.H)
		}
	}
	logits := m.Out.Forward(p.H).RawRowView(0)
	r.Probs = make([]float64, len(logits))
	models.Softmax(r.Probs, logits)
	return r
}

// Accuracy is the share of sentences whose blank the model fills right.
func (m *FillBlank) Accuracy(set []data.BlankSentence) float64 {
	hits := 0
	for _, s := range set {
		if models.Argmax(m.Run(s.IDs, s.Blank).Probs) == s.Answer {
			hits++
		}
	}
	return float64(hits) / float64(len(set))
}

// blankChance is the accuracy of always giving the commonest answer of set: the best
// a model can do when it cannot see the words that decide.
func blankChance(set []data.BlankSentence) float64 {
	count := make([]int, len(data.BlankAnswers))
	for _, s := range set {
		count[s.Answer]++
	}
	best := 0
	for _, c := range count {
		best = max(best, c)
	}
	return float64(best) / float64(len(set))
}

// blankCheckpointFile is the bundled checkpoint of the unidirectional or bidirectional model.
func blankCheckpointFile(bidirectional bool) string {
	if bidirectional {
		return "birnn-bidirectional.safetensors"
	}
	return "birnn-unidirectional.safetensors"
}

// blankCheckpointMeta is the metadata cmd/train records with a trained model: its
// settings and its accuracy on the held-out sentences (and what chance would get).
func blankCheckpointMeta(m *FillBlank, seed uint64, steps int) Meta {
	set := data.BlankEvalSet()
	return map[string]string{
		"model": "fill-blank", "bidirectional": strconv.FormatBool(m.Bidirectional()),
		"cell": string(blankKind), "hidden": strconv.Itoa(BlankHidden),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps),
		"batch": strconv.Itoa(blankBatch), "lr": fg(blankLR),
		"eval_sentences": strconv.Itoa(len(set)),
		"accuracy":       fg(m.Accuracy(set)), "chance": fg(blankChance(set)),
		"p_answer": fg(m.MeanAnswerProb(set)),
	}
}

// MeanAnswerProb is the mean probability the model gives the right answer over set
// (1/4 for a model that cannot tell the four answers apart).
func (m *FillBlank) MeanAnswerProb(set []data.BlankSentence) float64 {
	sum := 0.0
	for _, s := range set {
		sum += m.Run(s.IDs, s.Blank).Probs[s.Answer]
	}
	return sum / float64(len(set))
}

// blankCheckpoints loads both bundled models once, [unidirectional, bidirectional]:
// the shared, read-only models (see bundled).
var blankCheckpoints = sync.OnceValues(func() ([2]bundled[*FillBlank], error) {
	var out [2]bundled[*FillBlank]
	for i, bi := range []bool{false, true} {
		b, err := loadBundled(blankCheckpointFile(bi), NewFillBlank(bi, 0))
		if err != nil {
			return out, err
		}
		out[i] = b
	}
	return out, nil
})

// bundledBlank is the bundled unidirectional or bidirectional model.
func bundledBlank(bidirectional bool) (bundled[*FillBlank], error) {
	all, err := blankCheckpoints()
	if bidirectional {
		return all[1], err
	}
	return all[0], err
}

// loadFillBlank returns a fresh copy of the bundled trained model and its metadata.
func loadFillBlank(bidirectional bool) (*FillBlank, Meta, error) {
	b, err := bundledBlank(bidirectional)
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(NewFillBlank(bidirectional, 0)), b.meta, nil
}

// SharedFillBlank is loadFillBlank without the copy: the one loaded model, shared by
// every page that only reads it (Run never writes).
func SharedFillBlank(bidirectional bool) (*FillBlank, Meta, error) {
	b, err := bundledBlank(bidirectional)
	return b.model, b.meta, err
}
