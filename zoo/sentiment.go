package zoo

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// Sizes and training settings of the sentiment models (lecture 003, many-to-one).
const (
	SentimentEmbed  = 8    // e, the word vectors' size: 21 words, two polarities and the function words
	SentimentHidden = 16   // h of the GRU: room for "a not is pending" and the current polarity
	sentimentBatch  = 32   // reviews per minibatch
	sentimentLR     = 0.01 // Adam's η: these tiny models learn fast at this rate
	sentimentClip   = 5    // θ for gradient clipping: keeps an unlucky minibatch from undoing progress
	// minibatches of each phase: the average model (with E) converges in a few hundred,
	// the GRU needs more to learn "not … at all" and the comma; together about 10 s on one core
	sentimentAvgSteps = 1500
	sentimentRNNSteps = 3000
	sentimentSeed     = 3 // the fixed training seed (lecture 003)
	sentimentFile     = "sentiment.safetensors"
)

// Sentiment holds the two sentiment classifiers on one embedding matrix E:
//
//	average: ā = (1/T_x) Σ_t e⟨t⟩,  ŷ = softmax(ā W_avg + b_avg)
//	GRU:     a⟨t⟩ = GRU(e⟨t⟩, a⟨t−1⟩),  ŷ = softmax(a⟨T_x⟩ W_ya + b_y)
//
// where e⟨t⟩ = E[x⟨t⟩] is the t-th word's vector. E is trained jointly with the
// average model, then frozen: the GRU learns only its own weights on the very same
// word vectors, so what it does better it owes to reading the words in order.
type Sentiment struct {
	E   *models.Embedding
	Avg *models.Dense // W_avg (e×2), b_avg
	RNN *models.GRU
	Out *models.Dense // W_ya (h×2), b_y
}

// NewSentiment returns untrained models with weights drawn from seed.
func NewSentiment(seed uint64) *Sentiment {
	rng := rand.New(rand.NewPCG(seed, 0x5e7))
	v, e, h, k := len(data.ReviewVocab), SentimentEmbed, SentimentHidden, len(data.ReviewClasses)
	return &Sentiment{
		E:   models.NewEmbedding("E", v, e, rng),
		Avg: models.NewDense("avg.", e, k, rng),
		RNN: models.NewGRU(e, h, rng),
		Out: models.NewDense("out.", h, k, rng),
	}
}

// avgParams are what the first phase trains: E and the average model's layer.
func (m *Sentiment) avgParams() models.Params { return append(m.E.Params(), m.Avg.Params()...) }

// rnnParams are what the second phase trains: the GRU and its output layer (E frozen).
func (m *Sentiment) rnnParams() models.Params {
	return append(m.RNN.Params().WithPrefix("gru."), m.Out.Params()...)
}

// Params lists E, avg.W, avg.b, gru.…, out.W, out.b: the checkpoint's order.
func (m *Sentiment) Params() models.Params { return append(m.avgParams(), m.rnnParams()...) }

func reviewBatch(rng *rand.Rand) ([][]int, []int) {
	seqs, labels := make([][]int, sentimentBatch), make([]int, sentimentBatch)
	for b := range seqs {
		r := data.DrawReview(rng)
		seqs[b], labels[b] = r.IDs, r.Label
	}
	return seqs, labels
}

// avgLossGrad returns the average model's L = mean over the batch of −log ŷ[y] and
// adds ∂L/∂θ to E's and the layer's Grad.
func (m *Sentiment) avgLossGrad(seqs [][]int, labels []int) float64 {
	n := float64(len(seqs))
	a := m.E.Mean(seqs)
	loss, _, dLogits := models.SoftmaxCrossEntropy(m.Avg.Forward(a), labels, nil)
	dLogits.Scale(1/n, dLogits)
	m.E.MeanBackward(seqs, m.Avg.Backward(a, dLogits))
	return loss / n
}

// rnnInputs returns e⟨1⟩..e⟨T⟩ for a batch, T the longest review: row b of step t is
// E[x⟨t⟩] of review b, zero after its end (read at its own last step, so padding
// never reaches the state that is classified).
func (m *Sentiment) rnnInputs(seqs [][]int) []*mat.Dense {
	T := 0
	for _, s := range seqs {
		T = max(T, len(s))
	}
	xs := make([]*mat.Dense, T)
	for t := range xs {
		xs[t] = mat.NewDense(len(seqs), SentimentEmbed, nil)
		for b, s := range seqs {
			if t < len(s) {
				xs[t].SetRow(b, m.E.E.Value.RawRowView(s[t]))
			}
		}
	}
	return xs
}

// lastSteps is each review's last step, 0-based: T_x − 1.
func lastSteps(seqs [][]int) []int {
	steps := make([]int, len(seqs))
	for b, s := range seqs {
		steps[b] = len(s) - 1
	}
	return steps
}

// rnnLossGrad returns the GRU model's L = mean over the batch of −log ŷ[y] with ŷ
// read at each review's last step (many-to-one), and adds ∂L/∂θ to the GRU's and
// the output layer's Grad (E is frozen: its Grad is not touched).
func (m *Sentiment) rnnLossGrad(seqs [][]int, labels []int) float64 {
	n := float64(len(seqs))
	tr, err := models.Forward(m.RNN, m.rnnInputs(seqs), models.State{})
	if err != nil {
		panic(err) // finite word vectors, never an empty batch
	}
	steps := lastSteps(seqs)
	aT := models.StatesAt(tr, steps)
	loss, _, dLogits := models.SoftmaxCrossEntropy(m.Out.Forward(aT), labels, nil)
	dLogits.Scale(1/n, dLogits)
	models.BackwardAt(m.RNN, tr, steps, m.Out.Backward(aT, dLogits), models.BPTTOptions{})
	return loss / n
}

// trainSentiment trains both models from seed: avgSteps minibatches of Adam on the
// average model and E together, then rnnSteps on the GRU and its output layer with
// E frozen. Each phase draws its minibatches from seed's training stream.
func trainSentiment(seed uint64, avgSteps, rnnSteps int) (m *Sentiment, avgLoss, rnnLoss float64) {
	m = NewSentiment(seed)
	phase := func(ps models.Params, steps int, lossGrad func([][]int, []int) float64) float64 {
		opt := models.NewAdam(sentimentLR)
		return trainSteps(seed, steps, func(rng *rand.Rand) float64 {
			ps.ZeroGrad()
			loss := lossGrad(reviewBatch(rng))
			models.ClipGradNorm(ps, sentimentClip)
			opt.Step(ps)
			return loss
		})
	}
	avgLoss = phase(m.avgParams(), avgSteps, m.avgLossGrad)
	rnnLoss = phase(m.rnnParams(), rnnSteps, m.rnnLossGrad)
	return m, avgLoss, rnnLoss
}

// SentimentRun is one review read by both models, by time step t = 1..T_x:
// the GRU's state a⟨t⟩, P(positive) from a⟨t⟩ (at t = T_x the GRU's answer), the
// average model's P(positive) from the running average of the first t word
// vectors (at T_x its answer), and each word's vote in the average model,
// v⟨t⟩ = e⟨t⟩ (W_avg[:,pos] − W_avg[:,neg]): the average model's logit difference is
// the mean of the votes plus b_pos − b_neg.
type SentimentRun struct {
	A      [][]float64
	PRNN   []float64
	PAvg   []float64
	Vote   []float64
	AvgNow []float64 // ŷ of the average model at the end: [P(negative), P(positive)]
	RNNNow []float64 // ŷ of the GRU at the end
}

// Read runs both models over one review. It only reads the weights.
func (m *Sentiment) Read(ids []int) SentimentRun {
	T := len(ids)
	var r SentimentRun
	tr, err := models.Forward(m.RNN, m.rnnInputs([][]int{ids}), models.State{})
	if err != nil {
		panic(err)
	}
	p := make([]float64, len(data.ReviewClasses))
	for t := range T {
		a := tr.Steps[t].Next.H
		r.A = append(r.A, mat.Row(nil, 0, a))
		models.Softmax(p, m.Out.Forward(a).RawRowView(0))
		r.PRNN = append(r.PRNN, p[data.ReviewPositive])
		r.RNNNow = append(r.RNNNow[:0], p...)
		models.Softmax(p, m.Avg.Forward(m.E.Mean([][]int{ids[:t+1]})).RawRowView(0))
		r.PAvg = append(r.PAvg, p[data.ReviewPositive])
		r.AvgNow = append(r.AvgNow[:0], p...)
		e := m.E.E.Value.RawRowView(ids[t])
		vote := 0.0
		for j, x := range e {
			vote += x * (m.Avg.W.Value.At(j, data.ReviewPositive) - m.Avg.W.Value.At(j, data.ReviewNegative))
		}
		r.Vote = append(r.Vote, vote)
	}
	return r
}

// SentimentScores are held-out accuracies of both models, over all reviews and split
// by whether a review contains "not".
type SentimentScores struct {
	Avg, AvgNegated, AvgPlain float64
	RNN, RNNNegated, RNNPlain float64
	Negated, Plain            int // how many held-out reviews have "not", and how many not
}

// Score measures both models on set.
func (m *Sentiment) Score(set []data.Review) SentimentScores {
	var s SentimentScores
	var avgHits, rnnHits [2]int // [plain, negated]
	for _, r := range set {
		run := m.Read(r.IDs)
		k := 0
		if r.Negated {
			k = 1
			s.Negated++
		} else {
			s.Plain++
		}
		if models.Argmax(run.AvgNow) == r.Label {
			avgHits[k]++
		}
		if models.Argmax(run.RNNNow) == r.Label {
			rnnHits[k]++
		}
	}
	n := float64(len(set))
	s.Avg, s.RNN = float64(avgHits[0]+avgHits[1])/n, float64(rnnHits[0]+rnnHits[1])/n
	s.AvgPlain, s.AvgNegated = float64(avgHits[0])/float64(s.Plain), float64(avgHits[1])/float64(s.Negated)
	s.RNNPlain, s.RNNNegated = float64(rnnHits[0])/float64(s.Plain), float64(rnnHits[1])/float64(s.Negated)
	return s
}

// sentimentMeta is what cmd/train records with the models: settings and held-out scores.
func sentimentMeta(m *Sentiment, avgSteps, rnnSteps int) Meta {
	s := m.Score(data.ReviewEvalSet())
	return Meta{
		"model": "sentiment", "embedding": "trained with the average model, then frozen for the GRU",
		"embed": strconv.Itoa(SentimentEmbed), "hidden": strconv.Itoa(SentimentHidden),
		"seed": strconv.Itoa(sentimentSeed), "avg_steps": strconv.Itoa(avgSteps), "rnn_steps": strconv.Itoa(rnnSteps),
		"batch": strconv.Itoa(sentimentBatch), "lr": fg(sentimentLR),
		"eval_reviews": strconv.Itoa(s.Negated + s.Plain), "eval_negated": strconv.Itoa(s.Negated), "eval_plain": strconv.Itoa(s.Plain),
		"avg_accuracy": fg(s.Avg), "avg_accuracy_negated": fg(s.AvgNegated), "avg_accuracy_plain": fg(s.AvgPlain),
		"rnn_accuracy": fg(s.RNN), "rnn_accuracy_negated": fg(s.RNNNegated), "rnn_accuracy_plain": fg(s.RNNPlain),
	}
}

// trainSentimentEntry trains the sentiment entry and writes its checkpoint.
func trainSentimentEntry(dir string, o Options) error {
	start := time.Now()
	avgSteps, rnnSteps := o.steps(sentimentAvgSteps), o.steps(sentimentRNNSteps)
	m, avgLoss, rnnLoss := trainSentiment(sentimentSeed, avgSteps, rnnSteps)
	meta := sentimentMeta(m, avgSteps, rnnSteps)
	meta["final_loss_avg"], meta["final_loss_rnn"] = f4(avgLoss), f4(rnnLoss)
	if err := save(dir, sentimentFile, m, meta); err != nil {
		return err
	}
	o.logf("sentiment average: held-out accuracy %s (with \"not\" %s, without %s); GRU: %s (with %s, without %s)  loss %.4f / %.4f  (%.1fs)",
		meta["avg_accuracy"], meta["avg_accuracy_negated"], meta["avg_accuracy_plain"],
		meta["rnn_accuracy"], meta["rnn_accuracy_negated"], meta["rnn_accuracy_plain"], avgLoss, rnnLoss, since(start))
	return nil
}

// sentimentCheckpoint loads the bundled models once: shared and read-only (see bundled).
var sentimentCheckpoint = sync.OnceValues(func() (bundled[*Sentiment], error) {
	return loadBundled(sentimentFile, NewSentiment(0))
})

// SharedSentiment is the bundled sentiment models and their metadata, one copy for
// every page (Read never writes).
func SharedSentiment() (*Sentiment, Meta, error) {
	b, err := sentimentCheckpoint()
	return b.model, b.meta, err
}

// SentimentTrainer trains the sentiment models from scratch one minibatch a call, in
// the recipe's two phases: the first AvgSteps train E and the average model, the
// ones after them the GRU and its output layer on the frozen E. The pages' "train
// from scratch" uses it with one stream for both phases (cmd/train starts each phase
// from the seed's stream again, so a page's run is not the bundled one).
type SentimentTrainer struct {
	Model          *Sentiment
	AvgSteps       int // minibatches of the first phase
	steps          int // minibatches taken
	avgOpt, rnnOpt *models.Adam
}

// NewSentimentTrainer starts from fresh weights drawn from seed, with the recipe's
// first phase of sentimentAvgSteps minibatches.
func NewSentimentTrainer(seed uint64) *SentimentTrainer {
	return &SentimentTrainer{Model: NewSentiment(seed), AvgSteps: sentimentAvgSteps,
		avgOpt: models.NewAdam(sentimentLR), rnnOpt: models.NewAdam(sentimentLR)}
}

// Phase names what the next Step trains: "average" (E with the average model) or
// "GRU" (E frozen).
func (s *SentimentTrainer) Phase() string {
	if s.steps < s.AvgSteps {
		return "average"
	}
	return "GRU"
}

// Step trains one minibatch drawn from rng and returns its loss and the phase it trained.
func (s *SentimentTrainer) Step(rng *rand.Rand) (loss float64, phase string) {
	phase = s.Phase()
	ps, opt, lossGrad := s.Model.avgParams(), s.avgOpt, s.Model.avgLossGrad
	if phase == "GRU" {
		ps, opt, lossGrad = s.Model.rnnParams(), s.rnnOpt, s.Model.rnnLossGrad
	}
	ps.ZeroGrad()
	loss = lossGrad(reviewBatch(rng))
	models.ClipGradNorm(ps, sentimentClip)
	opt.Step(ps)
	s.steps++
	return loss, phase
}

// Clone is a copy of the models and both optimisers.
func (s *SentimentTrainer) Clone() *SentimentTrainer {
	c := models.NewCopier()
	m := &Sentiment{E: c.Embedding(s.Model.E), Avg: c.Dense(s.Model.Avg), RNN: c.GRU(s.Model.RNN), Out: c.Dense(s.Model.Out)}
	return &SentimentTrainer{Model: m, AvgSteps: s.AvgSteps, steps: s.steps, avgOpt: c.Adam(s.avgOpt), rnnOpt: c.Adam(s.rnnOpt)}
}
