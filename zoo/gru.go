package zoo

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// Sizes and training settings of the GRU lesson's small classifiers.
const (
	gruHidden      = 12    // h: enough units for the checksum and reset tasks, few enough to read on a heatmap
	gruSmallHidden = 6     // h for the skip and reset tasks: few spare units, so nearly every unit takes part and its gates show it
	gruBatch       = 32    // sequences per minibatch
	gruLR          = 0.01  // Adam's η: these tiny models learn fast at this rate
	gruClip        = 5     // θ for gradient clipping: keeps an unlucky minibatch from undoing progress
	updateBiasInit = 4     // b_z starts at +4 (Z_t ≈ 0.98): units begin by holding their state, like an LSTM's forget-gate bias
	gruTrainSteps  = 3000  // minibatches cmd/train uses for a bundled checkpoint
	gruEvalSeqs    = 500   // held-out sequences for the recorded accuracy
	gruEvalSeed    = 20140 // the held-out set's seed (different from every training seed)
)

// The GRU variants the page can switch between.
const (
	VariantLecture    = "lecture"     // H̃_t = tanh(X_t W_xh + (R_t ⊙ H_{t-1}) W_hh + b_h)
	VariantResetAfter = "reset-after" // H̃_t = tanh(X_t W_xh + b_h + R_t ⊙ (H_{t-1} W_hh + b_hn))
)

// GRUClassifier is a GRU that reads one token per step (X_t is its one-hot vector)
// and predicts the task's target from every hidden state: ŷ_t = softmax(H_t W_q + b_q).
type GRUClassifier struct {
	Task    *data.Task
	Variant string
	Cell    *models.GRU
	Out     *models.Dense
	opt     *models.Adam
}

// ResetGateCost is λ of the reset task's gate cost λ·mean R_t, added to its GRUs'
// training loss: reading the past costs a little, so R_t opens only where the candidate
// needs the old state (0.003 left R_t at breaks up to 0.13, 0.05 closed it on digits
// too; docs/lessons.md).
const ResetGateCost = 0.01

// gateCostOf lists the tasks whose GRU training adds the reset-gate cost, with its λ.
var gateCostOf = map[string]float64{"reset": ResetGateCost}

// hiddenOf lists the tasks whose GRU is not gruHidden wide.
var hiddenOf = map[string]int{"skip": gruSmallHidden, "reset": gruSmallHidden}

// HiddenFor is h of the lesson's GRU for task.
func HiddenFor(task *data.Task) int {
	if h, ok := hiddenOf[task.Name]; ok {
		return h
	}
	return gruHidden
}

// NewGRUClassifier returns an untrained classifier for task with weights drawn from seed.
func NewGRUClassifier(task *data.Task, variant string, seed uint64) *GRUClassifier {
	rng := rand.New(rand.NewPCG(seed, 0x6a7))
	d := len(data.Alphabet)
	m := &GRUClassifier{Task: task, Variant: variant, opt: models.NewAdam(gruLR)}
	if variant == VariantResetAfter {
		m.Cell = models.NewGRUResetAfter(d, HiddenFor(task), rng)
	} else {
		m.Cell = models.NewGRU(d, HiddenFor(task), rng)
	}
	m.Out = models.NewDense("out.", HiddenFor(task), len(task.Classes), rng)
	addConst(m.Cell.Bz, updateBiasInit)
	return m
}

// Params lists the GRU's parameters as "gru.W_xr", … then "out.W", "out.b".
func (m *GRUClassifier) Params() models.Params {
	return append(m.Cell.Params().WithPrefix("gru."), m.Out.Params()...)
}

// oneHot returns X_t for step t of a batch of equally long sequences.
func oneHot(ids [][]int, t int) *mat.Dense {
	x := mat.NewDense(len(ids), len(data.Alphabet), nil)
	for b, seq := range ids {
		x.Set(b, seq[t], 1)
	}
	return x
}

// TrainStep runs one minibatch of Adam on L = mean over labelled steps of
// −log ŷ_t[y_t], drawing the batch from rng. It returns the loss and the share of
// labelled steps predicted right. For the reset task L also has the gate cost
// λ·mean R_t (ResetGateCost, models.GRU.ResetGateCost).
func (m *GRUClassifier) TrainStep(rng *rand.Rand) (loss, accuracy float64) {
	var cost stateCost
	if lambda := gateCostOf[m.Task.Name]; lambda > 0 {
		cost = func(tr *models.Trace, dH []*mat.Dense) float64 { return m.Cell.ResetGateCost(lambda, tr, dH) }
	}
	return trainClassifierWith(m.Task, m.Cell, m.Out, m.Params(), m.opt, rng, cost)
}

// GRUStep is one time step of the lesson's GRU for a single sequence.
type GRUStep struct {
	X, R, Z, HTilde, H []float64
	Probs              []float64 // ŷ_t over the task's classes
}

// Run reads ids from H_0 = 0 with the cell's Step (the clamped gate fixed by
// models.GRU.WithClamp) and returns every step with ŷ_t = softmax(H_t W_q + b_q).
func (m *GRUClassifier) Run(ids []int, clamp models.GateClamp) []GRUStep {
	cell := m.Cell.WithClamp(clamp)
	steps := make([]GRUStep, len(ids))
	var state models.State
	for t := range ids {
		st := cell.Step(oneHot([][]int{ids}, t), state)
		state = st.Next
		steps[t] = GRUStep{
			X: row0(st.X), R: row0(st.Gate("R")), Z: row0(st.Gate("Z")),
			HTilde: row0(st.Gate("H_tilde")), H: row0(st.Next.H), Probs: m.probs(st.Next.H),
		}
	}
	return steps
}

// probs is ŷ = softmax(H W_q + b_q) for the 1×h state H.
func (m *GRUClassifier) probs(H *mat.Dense) []float64 { return softmaxOut(m.Out, H) }

// softmaxOut is ŷ = softmax(H W_q + b_q) of the output layer out for the 1×h state H.
func softmaxOut(out *models.Dense, H *mat.Dense) []float64 {
	logits := out.Forward(H).RawRowView(0)
	probs := make([]float64, len(logits))
	models.Softmax(probs, logits)
	return probs
}

// row0 is the first row of m, not copied: for the matrices of one step's trace,
// which nothing else holds.
func row0(m *mat.Dense) []float64 { return m.RawRowView(0) }

func addConst(p *models.Param, c float64) {
	raw := p.Value.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] += c
	}
}

// Evaluate returns the share of labelled steps predicted right and the share of
// sequences whose last step is predicted right (the lecture's end-of-sequence question).
func (m *GRUClassifier) Evaluate(seqs [][]int) (stepAcc, finalAcc float64) {
	return evaluate(m.Task, seqs, func(ids []int) [][]float64 {
		steps := m.Run(ids, models.GateClamp{})
		probs := make([][]float64, len(steps))
		for t, st := range steps {
			probs[t] = st.Probs
		}
		return probs
	})
}

// EvalSet is the held-out set the recorded accuracies are measured on.
func EvalSet(task *data.Task) [][]int {
	rng := rand.New(rand.NewPCG(gruEvalSeed, 0))
	seqs := make([][]int, gruEvalSeqs)
	for i := range seqs {
		seqs[i] = task.Generate(rng, data.TrainMinLen+rng.IntN(data.TrainMaxLen-data.TrainMinLen+1))
	}
	return seqs
}

// GateMeans is the mean of R_t and of Z_t over every unit and every step at which the
// token tok is read, over seqs (NaN when tok never occurs). from skips the first
// steps of each sequence.
func (m *GRUClassifier) GateMeans(seqs [][]int, tok, from int) (meanR, meanZ float64) {
	return m.gateMeans(seqs, tok, from, nil)
}

// ReadWeights is how much the output reads each hidden unit: w_j = ‖row j of W_q‖,
// scaled so that the w_j sum to 1. A unit the prediction ignores gets w_j ≈ 0.
func (m *GRUClassifier) ReadWeights() []float64 {
	W := m.Out.Params()[0].Value
	w := make([]float64, m.Cell.HiddenSize())
	sum := 0.0
	for j := range w {
		w[j] = math.Sqrt(mat.Dot(W.RowView(j), W.RowView(j)))
		sum += w[j]
	}
	for j := range w {
		w[j] /= sum
	}
	return w
}

// ReadGateMeans is GateMeans with each unit weighted by ReadWeights: the gates of
// the units the answer is read from.
func (m *GRUClassifier) ReadGateMeans(seqs [][]int, tok, from int) (meanR, meanZ float64) {
	return m.gateMeans(seqs, tok, from, m.ReadWeights())
}

// gateMeans averages R_t and Z_t at the steps reading tok, unit j weighted by w[j]
// (all equal when w is nil).
func (m *GRUClassifier) gateMeans(seqs [][]int, tok, from int, w []float64) (meanR, meanZ float64) {
	h := m.Cell.HiddenSize()
	if w == nil {
		w = make([]float64, h)
		for j := range w {
			w[j] = 1 / float64(h)
		}
	}
	n := 0
	for _, ids := range seqs {
		steps := m.Run(ids, models.GateClamp{})
		for t := from; t < len(ids); t++ {
			if ids[t] != tok {
				continue
			}
			for j := range h {
				meanR += w[j] * steps[t].R[j]
				meanZ += w[j] * steps[t].Z[j]
			}
			n++
		}
	}
	return meanR / float64(n), meanZ / float64(n)
}

// MemoryZ is how firmly the most memory-like unit holds on: for each unit, the mean
// of Z_t over the steps t ≥ 2 of seqs; the largest of these means.
func (m *GRUClassifier) MemoryZ(seqs [][]int) (unit int, meanZ float64) {
	sum := make([]float64, m.Cell.HiddenSize())
	n := 0
	for _, ids := range seqs {
		steps := m.Run(ids, models.GateClamp{})
		for t := 1; t < len(ids); t++ {
			for j := range sum {
				sum[j] += steps[t].Z[j]
			}
			n++
		}
	}
	for j := range sum {
		if sum[j] > sum[unit] {
			unit = j
		}
	}
	return unit, sum[unit] / float64(n)
}

// checkpointFile is the bundled checkpoint of a task and variant, under zoo/checkpoints.
func checkpointFile(task, variant string) string {
	return "gru-" + task + "-" + variant + ".safetensors"
}

// gruCheckpoints loads every bundled GRU checkpoint once, the first time a lesson needs
// one: the shared, read-only models (see bundled).
var gruCheckpoints = sync.OnceValues(func() (map[string]bundled[*GRUClassifier], error) {
	out := map[string]bundled[*GRUClassifier]{}
	for _, task := range data.Tasks {
		for _, variant := range []string{VariantLecture, VariantResetAfter} {
			name := checkpointFile(task.Name, variant)
			b, err := loadBundled(name, NewGRUClassifier(task, variant, 0))
			if err != nil {
				return nil, err
			}
			out[name] = b
		}
	}
	return out, nil
})

// bundledGRU is the bundled classifier for task and variant.
func bundledGRU(task *data.Task, variant string) (bundled[*GRUClassifier], error) {
	all, err := gruCheckpoints()
	if err != nil {
		return bundled[*GRUClassifier]{}, err
	}
	b, ok := all[checkpointFile(task.Name, variant)]
	if !ok {
		return b, fmt.Errorf("zoo: no bundled checkpoint for task %q, variant %q", task.Name, variant)
	}
	return b, nil
}

// loadGRUClassifier returns a fresh copy of the bundled trained classifier for task
// and variant, and the checkpoint's metadata (accuracy, training settings).
func loadGRUClassifier(task *data.Task, variant string) (*GRUClassifier, Meta, error) {
	b, err := bundledGRU(task, variant)
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(NewGRUClassifier(task, variant, 0)), b.meta, nil
}

// SharedGRUClassifier is loadGRUClassifier without the copy: the one loaded model,
// shared by every page that only reads it (Run and Params never write).
func SharedGRUClassifier(task *data.Task, variant string) (*GRUClassifier, Meta, error) {
	b, err := bundledGRU(task, variant)
	return b.model, b.meta, err
}

// GateStats measures what lecture 4.3 claims the gates do, on the held-out set of
// the classifier's task. checksum: how firmly the most memory-like unit holds the
// check digit (Z_t ≈ 1 from step 2 on). skip: the mean of Z_t on filler tokens
// (≈ 1) and on digits. reset: the mean of R_t and Z_t at breaks (≈ 0) and R_t on
// digits. Each skip and reset mean comes twice: over all units alike, and with the
// "_read" suffix weighted by ReadWeights (the units the answer is read from). Keys
// are the checkpoint metadata's.
func (m *GRUClassifier) GateStats() map[string]float64 {
	seqs := EvalSet(m.Task)
	out := map[string]float64{}
	digitMeans := func(mean func([][]int, int, int) (float64, float64)) (r, z float64) {
		for d := range data.Digits {
			rd, zd := mean(seqs, d, 1)
			r, z = r+rd/data.Digits, z+zd/data.Digits
		}
		return r, z
	}
	switch m.Task.Name {
	case "checksum":
		unit, z := m.MemoryZ(seqs)
		out["memory_unit"], out["z_memory"] = float64(unit), z
	case "skip":
		_, out["z_filler"] = m.GateMeans(seqs, data.TokFiller, 1)
		_, out["z_digit"] = digitMeans(m.GateMeans)
		_, out["z_filler_read"] = m.ReadGateMeans(seqs, data.TokFiller, 1)
		_, out["z_digit_read"] = digitMeans(m.ReadGateMeans)
	case "reset":
		out["r_break"], out["z_break"] = m.GateMeans(seqs, data.TokBreak, 1)
		out["r_digit"], _ = digitMeans(m.GateMeans)
		out["r_break_read"], out["z_break_read"] = m.ReadGateMeans(seqs, data.TokBreak, 1)
		out["r_digit_read"], _ = digitMeans(m.ReadGateMeans)
	}
	return out
}

// gruCheckpointMeta is the metadata cmd/train records with a trained classifier:
// its settings, its accuracies on EvalSet and its GateStats.
func gruCheckpointMeta(m *GRUClassifier, seed uint64, steps int) Meta {
	stepAcc, finalAcc := m.Evaluate(EvalSet(m.Task))
	meta := map[string]string{
		"task": m.Task.Name, "variant": m.Variant, "hidden": strconv.Itoa(m.Cell.HiddenSize()),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps),
		"batch": strconv.Itoa(gruBatch), "lr": fg(gruLR), "input_noise": fg(m.Task.Noise),
		"eval_seed": strconv.Itoa(gruEvalSeed), "eval_seqs": strconv.Itoa(gruEvalSeqs),
		"accuracy": fg(stepAcc), "final_accuracy": fg(finalAcc),
	}
	if lambda := gateCostOf[m.Task.Name]; lambda > 0 {
		meta["reset_gate_cost"] = fg(lambda)
	}
	stats := m.GateStats()
	gates := ""
	for _, k := range slices.Sorted(maps.Keys(stats)) {
		meta[k] = fg(stats[k])
		gates += fmt.Sprintf("%s=%.3f ", k, stats[k])
	}
	meta["gates"] = strings.TrimSpace(gates)
	return meta
}
