package zoo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"unroll/data"
	"unroll/models"
)

// Sizes and training settings of the deep-RNN lesson's market models.
const (
	DeepHidden     = 8     // h per layer: enough for a regime and a day-to-day memory, few enough to read
	DeepMaxLayers  = 3     // L ranges over 1..3, each with its own checkpoint
	deepBatch      = 16    // series per minibatch
	deepTrainLen   = 64    // days per training series: a couple of regimes each
	deepLR         = 0.01  // Adam's η
	deepClip       = 5     // θ for gradient clipping
	deepTrainSteps = 800   // minibatches cmd/train uses for a bundled checkpoint
	deepEvalSeed   = 45045 // the held-out series' seed (no training seed is this)
	deepEvalSeries = 20    // held-out series for the probes and the recorded scores
	deepEvalLen    = 200   // days per held-out series
	deepBurnIn     = 10    // days skipped by the scores: the state needs a few days to settle
)

// DeepKinds are the cells the lesson offers, each with a checkpoint per L.
var DeepKinds = []string{string(models.KindGRU), string(models.KindRNN), string(models.KindLSTM)}

// MarketModel is a deep RNN over a market series (lecture 4.5, eq. 6): it reads
// X_t = x_t and, from the top layer only, outputs O_t = H_t^{(L)} W_hq + b_q with
// two entries: x̂_{t+1}, the next day's move, and the logit of P(bull market at t).
type MarketModel struct {
	Kind string
	Net  *models.Deep
	Out  *models.Dense
	opt  *models.Adam
	// Clip is θ, the norm TrainStep clips the gradient to: DeepClip, with which every
	// bundled model trained, unless a page sets another for training from scratch.
	Clip float64
	// GradNorm is ‖g‖ of the last TrainStep's gradient before clipping, and Clipped
	// whether it exceeded Clip and was scaled down to it.
	GradNorm float64
	Clipped  bool
}

// The training recipe of every market model, which the deep-RNN page states: Adam's
// learning rate η, the gradient-clipping threshold θ, and the bound a of the initial
// weights of the recurrent layers, each drawn from U(−a, a) with a = 1/√h
// (models.NewCell).
const (
	DeepLR   = deepLR
	DeepClip = deepClip
)

// DeepInitBound is a = 1/√h, the bound of the recurrent layers' initial weights.
func DeepInitBound() float64 { return 1 / math.Sqrt(DeepHidden) }

// NewMarketModel returns an untrained model of L layers of the given cell kind.
func NewMarketModel(kind string, L int, seed uint64) *MarketModel {
	rng := rand.New(rand.NewPCG(seed, 0xdee9))
	net, err := models.NewDeep(models.Kind(kind), 1, DeepHidden, L, rng)
	if err != nil {
		panic(err)
	}
	return &MarketModel{Kind: kind, Net: net, Out: models.NewDense("out.", DeepHidden, 2, rng), opt: models.NewAdam(deepLR), Clip: deepClip}
}

// Layers is L.
func (m *MarketModel) Layers() int { return len(m.Net.Layers) }

// Params lists "l1.W_xh", …, "lL.…", then "out.W", "out.b".
func (m *MarketModel) Params() models.Params { return append(m.Net.Params(), m.Out.Params()...) }

// marketInputs returns X_1..X_T of a batch of series (B×1 each).
func marketInputs(batch []data.MarketSeries, T int) []*mat.Dense {
	xs := make([]*mat.Dense, T)
	for t := range xs {
		xs[t] = mat.NewDense(len(batch), 1, nil)
		for b, s := range batch {
			xs[t].Set(b, 0, s.X[t])
		}
	}
	return xs
}

// lossGrad runs the model over batch (T days each) and returns the mean per day of
// L_t = ½(x̂_{t+1} − x_{t+1})² − log P(r_t) (models.SquaredLogisticLoss), adding
// ∂L/∂θ to every Grad. It also returns the regime accuracy.
func (m *MarketModel) lossGrad(batch []data.MarketSeries, T int) (loss, accuracy float64) {
	tr, err := m.Net.Forward(marketInputs(batch, T), nil)
	if err != nil {
		panic(err) // generated series are finite and never empty
	}
	n := float64(len(batch) * T)
	Hs := tr.Outputs()
	outs := make([]*mat.Dense, T)
	next, bull := make([][]float64, T), make([][]float64, T)
	for t, H := range Hs {
		outs[t] = m.Out.Forward(H)
		next[t], bull[t] = make([]float64, len(batch)), make([]float64, len(batch))
		for b, s := range batch {
			next[t][b], bull[t][b] = s.X[t+1], models.Indicator(s.Bull(t))
		}
	}
	loss, hits, dO := models.SquaredLogisticLoss(outs, next, bull, n)
	dTop := make([]*mat.Dense, T)
	for t, H := range Hs {
		dTop[t] = m.Out.Backward(H, dO[t])
	}
	m.Net.Backward(tr, dTop, models.BPTTOptions{})
	return loss / n, float64(hits) / n
}

// TrainStep runs one minibatch of Adam on fresh series drawn from rng and returns
// the loss and the regime accuracy.
func (m *MarketModel) TrainStep(rng *rand.Rand) (loss, accuracy float64) {
	batch := make([]data.MarketSeries, deepBatch)
	for b := range batch {
		batch[b] = data.NewMarketSeries(rng, deepTrainLen)
	}
	ps := m.Params()
	ps.ZeroGrad()
	loss, accuracy = m.lossGrad(batch, deepTrainLen)
	m.GradNorm, m.Clipped = models.ClipGradNorm(ps, m.Clip)
	m.opt.Step(ps)
	return loss, accuracy
}

// MarketRun is one series read by the model: H_t^{(l)} by day and layer
// (States[t][l]), the next-move predictions x̂_{t+1} and P(bull at t).
type MarketRun struct {
	States [][][]float64
	Next   []float64
	PBull  []float64
}

// Run reads the first T days of s (T = len(s.X) − 1).
func (m *MarketModel) Run(s data.MarketSeries) MarketRun {
	T := len(s.X) - 1
	tr, err := m.Net.Forward(marketInputs([]data.MarketSeries{s}, T), nil)
	if err != nil {
		panic(err)
	}
	r := MarketRun{States: make([][][]float64, T)}
	for t := range T {
		for _, lt := range tr.Layers {
			r.States[t] = append(r.States[t], mat.Row(nil, 0, lt.Steps[t].Next.H))
		}
		o := m.Out.Forward(tr.Layers[len(tr.Layers)-1].Steps[t].Next.H)
		r.Next = append(r.Next, o.At(0, 0))
		r.PBull = append(r.PBull, models.Sigmoid(o.At(0, 1)))
	}
	return r
}

// DeepEvalSet is the held-out series the probes and scores are measured on.
func DeepEvalSet() []data.MarketSeries {
	rng := rand.New(rand.NewPCG(deepEvalSeed, 0))
	out := make([]data.MarketSeries, deepEvalSeries)
	for i := range out {
		out[i] = data.NewMarketSeries(rng, deepEvalLen)
	}
	return out
}

// DeepScores are what a trained model does on the held-out series. Per layer l,
// over its units j: SlowCorr[l] is the mean of |corr(H_t^{(l)}[j], r_t)|, how
// closely the units follow the regime; FastCorr[l] the mean of |corr(H_t^{(l)}[j], f_t)|,
// how closely they follow the day-to-day component; Autocorr[l] the mean lag-one
// autocorrelation corr(H_t^{(l)}[j], H_{t−1}^{(l)}[j]), near 1 for a unit that changes
// slowly. Also the regime accuracy of P(bull), the mean squared error of x̂_{t+1},
// and what the best predictor knowing r_t and f_t exactly would get on the same days,
// the mean of (x_{t+1} − μ r_t − φ f_t)².
type DeepScores struct {
	SlowCorr, FastCorr, Autocorr []float64
	RegimeAccuracy               float64
	NextMSE, BestMSE             float64
}

// Scores measures DeepScores on set, skipping the first deepBurnIn days of each series.
func (m *MarketModel) Scores(set []data.MarketSeries) DeepScores {
	L, h := m.Layers(), DeepHidden
	var sc DeepScores
	// unit[l][j] is unit j of layer l on every scored day; prev the day before
	unit := make([][][]float64, L)
	prev := make([][][]float64, L)
	for l := range L {
		unit[l], prev[l] = make([][]float64, h), make([][]float64, h)
	}
	var slow, fast []float64
	n, hits := 0, 0
	for _, s := range set {
		r := m.Run(s)
		for t := deepBurnIn; t < len(r.States); t++ {
			for l := range L {
				for j := range h {
					unit[l][j] = append(unit[l][j], r.States[t][l][j])
					prev[l][j] = append(prev[l][j], r.States[t-1][l][j])
				}
			}
			slow, fast = append(slow, s.Regime[t]), append(fast, s.Fast[t])
			if (r.PBull[t] > 0.5) == s.Bull(t) {
				hits++
			}
			d := r.Next[t] - s.X[t+1]
			b := s.X[t+1] - data.RegimeDrift*s.Regime[t] - data.FastAR*s.Fast[t]
			sc.NextMSE += d * d
			sc.BestMSE += b * b
			n++
		}
	}
	for l := range L {
		var cs, cf, ac float64
		for j := range h {
			cs += math.Abs(corr(unit[l][j], slow)) / float64(h)
			cf += math.Abs(corr(unit[l][j], fast)) / float64(h)
			ac += corr(unit[l][j], prev[l][j]) / float64(h)
		}
		sc.SlowCorr = append(sc.SlowCorr, cs)
		sc.FastCorr = append(sc.FastCorr, cf)
		sc.Autocorr = append(sc.Autocorr, ac)
	}
	sc.RegimeAccuracy = float64(hits) / float64(n)
	sc.NextMSE /= float64(n)
	sc.BestMSE /= float64(n)
	return sc
}

// corr is Pearson's correlation, 0 when either series is constant (a dead unit).
func corr(x, y []float64) float64 {
	c := stat.Correlation(x, y, nil)
	if math.IsNaN(c) {
		return 0
	}
	return c
}

// deepCheckpointFile is the bundled checkpoint of a cell kind and depth.
func deepCheckpointFile(kind string, L int) string {
	return fmt.Sprintf("deep-%s-L%d.safetensors", kind, L)
}

// deepCheckpointMeta is the metadata cmd/train records with a trained model: its
// settings and its Scores on DeepEvalSet.
func deepCheckpointMeta(m *MarketModel, seed uint64, steps int) Meta {
	sc := m.Scores(DeepEvalSet())
	meta := map[string]string{
		"model": "market", "cell": m.Kind, "layers": strconv.Itoa(m.Layers()), "hidden": strconv.Itoa(DeepHidden),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps), "batch": strconv.Itoa(deepBatch),
		"lr": fg(deepLR), "eval_seed": strconv.Itoa(deepEvalSeed), "eval_series": strconv.Itoa(deepEvalSeries),
		"regime_accuracy": fg(sc.RegimeAccuracy), "next_mse": fg(sc.NextMSE), "best_mse": fg(sc.BestMSE),
	}
	for l := range m.Layers() {
		meta[fmt.Sprintf("slow_corr_l%d", l+1)] = fg(sc.SlowCorr[l])
		meta[fmt.Sprintf("fast_corr_l%d", l+1)] = fg(sc.FastCorr[l])
		meta[fmt.Sprintf("autocorr_l%d", l+1)] = fg(sc.Autocorr[l])
	}
	return meta
}

// deepCheckpoints loads every bundled market model once: the shared, read-only
// models (see bundled).
var deepCheckpoints = sync.OnceValues(func() (map[string]bundled[*MarketModel], error) {
	out := map[string]bundled[*MarketModel]{}
	for _, kind := range DeepKinds {
		for L := 1; L <= DeepMaxLayers; L++ {
			name := deepCheckpointFile(kind, L)
			b, err := loadBundled(name, NewMarketModel(kind, L, 0))
			if err != nil {
				return nil, err
			}
			out[name] = b
		}
	}
	return out, nil
})

// bundledMarket is the bundled model of a kind and depth.
func bundledMarket(kind string, L int) (bundled[*MarketModel], error) {
	all, err := deepCheckpoints()
	if err != nil {
		return bundled[*MarketModel]{}, err
	}
	b, ok := all[deepCheckpointFile(kind, L)]
	if !ok {
		return b, fmt.Errorf("zoo: no bundled checkpoint for cell %q with L = %d", kind, L)
	}
	return b, nil
}

// loadMarketModel returns a fresh copy of the bundled trained model of a kind and
// depth, and its checkpoint's metadata.
func loadMarketModel(kind string, L int) (*MarketModel, Meta, error) {
	b, err := bundledMarket(kind, L)
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(NewMarketModel(kind, L, 0)), b.meta, nil
}

// SharedMarketModel is loadMarketModel without the copy: the one loaded model,
// shared by every page that only reads it (Run never writes).
func SharedMarketModel(kind string, L int) (*MarketModel, Meta, error) {
	b, err := bundledMarket(kind, L)
	return b.model, b.meta, err
}
