package zoo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// Settings of the next-word models the birnn page trains to show why a
// bidirectional RNN cannot be a language model (seed 004: bidirectional RNNs suit
// encoding a whole sequence, not predicting its next token).
const (
	// NextWordSteps is how many minibatches the bundled pair of next-word models
	// trained: about 0.7 s for both on one core, and enough for the bidirectional one
	// to be near its floor of zero loss.
	NextWordSteps = 250
	nextWordSeed  = 4 // the fixed seed of both models' weights and minibatch stream
)

// NextWord is a language model over the fill-in-the-blank sentences (the blank ___
// is one of their words): at every step t < T it predicts the next word from the
// state there, ŷ_t = softmax(H_t W_q + b_q), where H_t is →H_t for the
// unidirectional model and [→H_t, ←H_t] for the bidirectional one. ←H_t has read
// x_T, …, x_{t+1}, x_t: during training the word to predict is already in its input.
type NextWord struct{ blankStack }

// NewNextWord returns an untrained next-word model with weights drawn from seed; it
// has the fill-in-the-blank models' cell, size and optimiser.
func NewNextWord(bidirectional bool, seed uint64) *NextWord {
	return &NextWord{newBlankStack(bidirectional, len(data.BlankVocab), rand.New(rand.NewPCG(seed, 0x4e57)))}
}

// nextWordPass is both directions' traces over a batch and, per time step k
// (0-based), the B×q states H_k the output reads.
type nextWordPass struct {
	fwd, bwd *models.Trace // bwd in reading order: its step j is time T_b − 1 − j of sentence b
	H        []*mat.Dense
}

// pass reads a batch (blankInputs pads each sentence after its end in reading
// order, so padding never reaches a state the loss reads).
func (m *NextWord) pass(batch []data.BlankSentence) nextWordPass {
	var p nextWordPass
	p.fwd, p.bwd = m.traces(batch)
	h := BlankHidden
	q, _ := m.Out.W.Value.Dims()
	p.H = make([]*mat.Dense, p.fwd.Len())
	for k := range p.H {
		H := mat.NewDense(len(batch), q, nil)
		for b, s := range batch {
			copy(H.RawRowView(b)[:h], p.fwd.Steps[k].Next.H.RawRowView(b))
			if p.bwd != nil && k < len(s.IDs) {
				copy(H.RawRowView(b)[h:], p.bwd.Steps[len(s.IDs)-1-k].Next.H.RawRowView(b))
			}
		}
		p.H[k] = H
	}
	return p
}

// lossGrad returns the summed −log ŷ_t[x_{t+1}] over every step t < T_b of every
// sentence, the number of those predictions and how many were right (argmax), and
// adds ∂loss/∂θ of the mean, loss/n, to every parameter's Grad.
func (m *NextWord) lossGrad(batch []data.BlankSentence) (loss float64, n, hits int) {
	p := m.pass(batch)
	T := len(p.H)
	for _, s := range batch {
		n += len(s.IDs) - 1
	}
	h := BlankHidden
	dFwd := make([]*mat.Dense, T)
	var dBwd []*mat.Dense
	if p.bwd != nil {
		dBwd = make([]*mat.Dense, T)
		for j := range dBwd {
			dBwd[j] = mat.NewDense(len(batch), h, nil)
		}
	}
	targets := make([]int, len(batch))
	mask := make([]float64, len(batch))
	for k := range T {
		for b, s := range batch {
			targets[b], mask[b] = 0, 0
			if k+1 < len(s.IDs) {
				targets[b], mask[b] = s.IDs[k+1], 1
			}
		}
		l, probs, dLogits := models.SoftmaxCrossEntropy(m.Out.Forward(p.H[k]), targets, mask)
		loss += l
		for b := range batch {
			if mask[b] == 1 && models.Argmax(probs.RawRowView(b)) == targets[b] {
				hits++
			}
		}
		dLogits.Scale(1/float64(n), dLogits)
		dH := m.Out.Backward(p.H[k], dLogits)
		dFwd[k] = mat.DenseCopyOf(dH.Slice(0, len(batch), 0, h))
		if dBwd != nil {
			for b, s := range batch {
				if k < len(s.IDs) {
					copy(dBwd[len(s.IDs)-1-k].RawRowView(b), dH.RawRowView(b)[h:])
				}
			}
		}
	}
	models.Backward(m.Fwd, p.fwd, dFwd, models.BPTTOptions{})
	if dBwd != nil {
		models.Backward(m.Bwd, p.bwd, dBwd, models.BPTTOptions{})
	}
	return loss, n, hits
}

// TrainStep runs one minibatch of Adam on the mean next-word loss over a batch of
// training sentences drawn from rng, and returns that loss and the share of next
// words predicted right — with the whole sentence in the input, as in training.
func (m *NextWord) TrainStep(rng *rand.Rand) (loss, accuracy float64) {
	return trainBlankBatch(rng, m.Params(), m.opt, func(batch []data.BlankSentence) (float64, int, int) {
		sum, n, hits := m.lossGrad(batch)
		return sum / float64(n), n, hits
	})
}

// Outputs returns the output ŷ_t at every step t = 1 … T (index t−1) of the sentence
// ids read whole; the last one would predict a word after the sentence.
func (m *NextWord) Outputs(ids []int) [][]float64 {
	p := m.pass([]data.BlankSentence{{IDs: ids}})
	out := make([][]float64, len(ids))
	for k := range out {
		out[k] = m.probs(p.H[k])
	}
	return out
}

// States returns the state H_t that ŷ_t reads at every step t = 1 … T (index t−1) of
// the sentence ids read whole: →H_t, or [→H_t, ←H_t] for the bidirectional model.
func (m *NextWord) States(ids []int) [][]float64 {
	p := m.pass([]data.BlankSentence{{IDs: ids}})
	out := make([][]float64, len(ids))
	for k := range out {
		out[k] = mat.Row(nil, 0, p.H[k])
	}
	return out
}

// Predict returns ŷ_t for t = 1 … T−1 (index t−1), each the distribution of x_{t+1},
// computed from the whole sentence ids: what the loss sees in training.
func (m *NextWord) Predict(ids []int) [][]float64 { return m.Outputs(ids)[:len(ids)-1] }

// PredictPrefix returns ŷ_t for t = 1 … T−1 as generation must compute it: from
// x_1 … x_t only, since x_{t+1} is the word not yet written. The backward pass then
// starts at x_t. For the unidirectional model this equals Predict.
func (m *NextWord) PredictPrefix(ids []int) [][]float64 {
	out := make([][]float64, len(ids)-1)
	for k := range out {
		prefix := ids[:k+1]
		p := m.pass([]data.BlankSentence{{IDs: prefix}})
		out[k] = m.probs(p.H[k])
	}
	return out
}

func (m *NextWord) probs(H *mat.Dense) []float64 {
	logits := m.Out.Forward(H).RawRowView(0)
	p := make([]float64, len(logits))
	models.Softmax(p, logits)
	return p
}

// NextWordScore is a next-word model's mean loss −log ŷ_t[x_{t+1}] (nats) and its
// accuracy (argmax) over every prediction of a set of sentences.
type NextWordScore struct{ Loss, Accuracy float64 }

// Score measures the model on set, from the whole sentence (prefixOnly false: as in
// training) or from the words before each prediction only (true: as in generation).
func (m *NextWord) Score(set []data.BlankSentence, prefixOnly bool) NextWordScore {
	var loss float64
	n, hits := 0, 0
	for _, s := range set {
		ps := m.Predict(s.IDs)
		if prefixOnly {
			ps = m.PredictPrefix(s.IDs)
		}
		for k, p := range ps {
			y := s.IDs[k+1]
			loss -= math.Log(p[y])
			if models.Argmax(p) == y {
				hits++
			}
			n++
		}
	}
	return NextWordScore{Loss: loss / float64(n), Accuracy: float64(hits) / float64(n)}
}

// NextWordPair is the birnn page's two next-word models after NextWordSteps of
// training from nextWordSeed, with the training loss of each step.
type NextWordPair struct {
	Uni, Bi         *NextWord
	UniLoss, BiLoss []float64 // minibatch loss per training step
	// The scores on data.BlankEvalSet(), measured when the bundled pair is loaded:
	// from the whole sentence (as in training) and from the words so far (as in
	// generation).
	UniFull, UniPrefix, BiFull, BiPrefix NextWordScore
}

// TrainNextWordPair trains a unidirectional and a bidirectional next-word model for
// steps minibatches each, the same minibatches for both.
func TrainNextWordPair(seed uint64, steps int) *NextWordPair {
	p := &NextWordPair{Uni: NewNextWord(false, seed), Bi: NewNextWord(true, seed)}
	rngU, rngB := TrainRNG(seed), TrainRNG(seed)
	for range steps {
		l, _ := p.Uni.TrainStep(rngU)
		p.UniLoss = append(p.UniLoss, l)
		l, _ = p.Bi.TrainStep(rngB)
		p.BiLoss = append(p.BiLoss, l)
	}
	return p
}

// nextWordCheckpointFile is the bundled next-word model of either direction.
func nextWordCheckpointFile(bidirectional bool) string {
	if bidirectional {
		return "birnn-next-word-bidirectional.safetensors"
	}
	return "birnn-next-word-unidirectional.safetensors"
}

// nextWordCheckpointMeta is what cmd/train records with a trained next-word model:
// its settings, its training loss at every step and its held-out scores.
func nextWordCheckpointMeta(m *NextWord, seed uint64, steps int, curve []float64) Meta {
	set := data.BlankEvalSet()
	points := make([]string, len(curve))
	for i, l := range curve {
		points[i] = fg(l)
	}
	full, gen := m.Score(set, false), m.Score(set, true)
	return map[string]string{
		"model": "next-word", "bidirectional": strconv.FormatBool(m.Bidirectional()),
		"cell": string(blankKind), "hidden": strconv.Itoa(BlankHidden),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps),
		"batch": strconv.Itoa(blankBatch), "lr": fg(blankLR),
		"loss_curve":    strings.Join(points, ","),
		"held_out_loss": fg(full.Loss), "held_out_accuracy": fg(full.Accuracy),
		"held_out_loss_prefix": fg(gen.Loss), "held_out_accuracy_prefix": fg(gen.Accuracy),
	}
}

// trainNextWords trains the next-word entry: the pair of TrainNextWordPair.
func trainNextWords(dir string, o Options) error {
	start := time.Now()
	steps := o.steps(NextWordSteps)
	p := TrainNextWordPair(nextWordSeed, steps)
	for _, m := range []struct {
		model *NextWord
		curve []float64
	}{{p.Uni, p.UniLoss}, {p.Bi, p.BiLoss}} {
		meta := nextWordCheckpointMeta(m.model, nextWordSeed, steps, m.curve)
		if err := save(dir, nextWordCheckpointFile(m.model.Bidirectional()), m.model, meta); err != nil {
			return err
		}
		o.logf("next-word bidirectional=%-5v held-out loss %s whole sentence, %s words so far  (%.1fs)",
			m.model.Bidirectional(), meta["held_out_loss"], meta["held_out_loss_prefix"], since(start))
	}
	return nil
}

// nextWordCheckpoints loads both bundled next-word models once with their recorded
// training curves: the shared, read-only pair.
var nextWordCheckpoints = sync.OnceValues(func() (*NextWordPair, error) {
	p := &NextWordPair{}
	for _, bi := range []bool{false, true} {
		b, err := loadBundled(nextWordCheckpointFile(bi), NewNextWord(bi, 0))
		if err != nil {
			return nil, err
		}
		var curve []float64
		for _, f := range strings.Split(b.meta["loss_curve"], ",") {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, fmt.Errorf("zoo: checkpoint %s: loss curve: %w", nextWordCheckpointFile(bi), err)
			}
			curve = append(curve, x)
		}
		if bi {
			p.Bi, p.BiLoss = b.model, curve
		} else {
			p.Uni, p.UniLoss = b.model, curve
		}
	}
	set := data.BlankEvalSet()
	p.UniFull, p.UniPrefix = p.Uni.Score(set, false), p.Uni.Score(set, true)
	p.BiFull, p.BiPrefix = p.Bi.Score(set, false), p.Bi.Score(set, true)
	return p, nil
})

// SharedNextWordPair is the bundled pair (NextWordSteps from nextWordSeed, go run
// ./cmd/train -only next-word), shared and read-only: Outputs, Predict, PredictPrefix
// and Score only read the weights.
func SharedNextWordPair() (*NextWordPair, error) { return nextWordCheckpoints() }
