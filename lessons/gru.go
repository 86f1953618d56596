package lessons

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
	"unroll/sim"
)

// Sizes and training settings of the GRU lesson's small classifiers.
const (
	GRUHidden      = 12    // h: enough units for the checksum and reset tasks, few enough to read on a heatmap
	gruSmallHidden = 6     // h for the skip and reset tasks: few spare units, so nearly every unit takes part and its gates show it
	gruBatch       = 32    // sequences per minibatch
	gruLR          = 0.01  // Adam's η: these tiny models learn fast at this rate
	gruClip        = 5     // θ for gradient clipping: keeps an unlucky minibatch from undoing progress
	updateBiasInit = 4     // b_z starts at +4 (Z_t ≈ 0.98): units begin by holding their state, like an LSTM's forget-gate bias
	GRUTrainSteps  = 3000  // minibatches cmd/train uses for a bundled checkpoint
	GRUEvalSeqs    = 500   // held-out sequences for the recorded accuracy
	GRUEvalSeed    = 20140 // the held-out set's seed (different from every training seed)
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

// hiddenOf lists the tasks whose GRU is not GRUHidden wide.
var hiddenOf = map[string]int{"skip": gruSmallHidden, "reset": gruSmallHidden}

// HiddenFor is h of the lesson's GRU for task.
func HiddenFor(task *data.Task) int {
	if h, ok := hiddenOf[task.Name]; ok {
		return h
	}
	return GRUHidden
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

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// Clamp fixes one gate to a value at every step (a what-if experiment): "R" or "Z"
// for the GRU, "I", "F" or "O" for the LSTM; the zero Clamp fixes nothing.
type Clamp = models.GateClamp

// GRUStep is one time step of the lesson's GRU for a single sequence.
type GRUStep struct {
	X, R, Z, HTilde, H []float64
	Probs              []float64 // ŷ_t over the task's classes
}

// Run reads ids from H_0 = 0 with the cell's Step (the clamped gate fixed by
// models.GRU.WithClamp) and returns every step with ŷ_t = softmax(H_t W_q + b_q).
func (m *GRUClassifier) Run(ids []int, clamp Clamp) []GRUStep {
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

func fill(v []float64, x float64) {
	for i := range v {
		v[i] = x
	}
}

// Evaluate returns the share of labelled steps predicted right and the share of
// sequences whose last step is predicted right (the lecture's end-of-sequence question).
func (m *GRUClassifier) Evaluate(seqs [][]int) (stepAcc, finalAcc float64) {
	hits, count, finalHits := 0, 0, 0
	for _, ids := range seqs {
		ys := m.Task.Targets(ids)
		steps := m.Run(ids, Clamp{})
		for t, y := range ys {
			if y < 0 {
				continue
			}
			ok := argmax(steps[t].Probs) == y
			hits += int(b2f(ok))
			count++
			if t == len(ys)-1 && ok {
				finalHits++
			}
		}
	}
	return float64(hits) / float64(count), float64(finalHits) / float64(len(seqs))
}

// EvalSet is the held-out set the recorded accuracies are measured on.
func EvalSet(task *data.Task) [][]int {
	rng := rand.New(rand.NewPCG(GRUEvalSeed, 0))
	seqs := make([][]int, GRUEvalSeqs)
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
		fill(w, 1/float64(h))
	}
	n := 0
	for _, ids := range seqs {
		steps := m.Run(ids, Clamp{})
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
		steps := m.Run(ids, Clamp{})
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

// CheckpointFile is the bundled checkpoint of a task and variant, under lessons/checkpoints.
func CheckpointFile(task, variant string) string {
	return "gru-" + task + "-" + variant + ".safetensors"
}

// checkpoints loads every bundled GRU checkpoint once, the first time a lesson needs
// one: the shared, read-only models (see bundled).
var checkpoints = sync.OnceValues(func() (map[string]bundled[*GRUClassifier], error) {
	out := map[string]bundled[*GRUClassifier]{}
	for _, task := range data.Tasks {
		for _, variant := range []string{VariantLecture, VariantResetAfter} {
			name := CheckpointFile(task.Name, variant)
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
	all, err := checkpoints()
	if err != nil {
		return bundled[*GRUClassifier]{}, err
	}
	b, ok := all[CheckpointFile(task.Name, variant)]
	if !ok {
		return b, fmt.Errorf("lessons: no bundled checkpoint for task %q, variant %q", task.Name, variant)
	}
	return b, nil
}

// LoadGRUClassifier returns a fresh copy of the bundled trained classifier for task
// and variant, and the checkpoint's metadata (accuracy, training settings).
func LoadGRUClassifier(task *data.Task, variant string) (*GRUClassifier, map[string]string, error) {
	b, err := bundledGRU(task, variant)
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(NewGRUClassifier(task, variant, 0)), b.meta, nil
}

// sharedGRUClassifier is LoadGRUClassifier without the copy: the one loaded model,
// shared by every page that only reads it (Run and Params never write).
func sharedGRUClassifier(task *data.Task, variant string) (*GRUClassifier, map[string]string, error) {
	b, err := bundledGRU(task, variant)
	return b.model, b.meta, err
}

// metaFloat reads a number from checkpoint metadata (NaN if absent).
func metaFloat(meta map[string]string, key string) float64 {
	f, err := strconv.ParseFloat(meta[key], 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// gruModel is the GRU lesson's sim.Model: the classifier reading one input.
type gruModel struct {
	clf   *GRUClassifier    // the shared bundled one (read-only) until TrainStep starts one of its own
	meta  map[string]string // of the checkpoint it started from
	ids   []int
	text  string
	clamp Clamp
	seed  uint64

	steps []GRUStep // nil when the weights changed since the last run

	// Training from scratch: the first TrainStep starts a fresh model from seed.
	trainRng  *rand.Rand
	trained   int
	lossCurve lossCurve
}

func buildGRU(v sim.Values) (sim.Model, error) {
	task, text, ids, err := taskInput(v)
	if err != nil {
		return nil, err
	}
	clf, meta, err := sharedGRUClassifier(task, v.String("variant")) // TrainStep replaces it by fresh weights
	if err != nil {
		return nil, err
	}
	clamp := Clamp{}
	if g := v.String("clamp"); g != "none" {
		clamp = Clamp{Gate: g, Value: v.Float("clamp_value")}
	}
	return &gruModel{clf: clf, meta: meta, ids: ids, text: text, clamp: clamp, seed: uint64(v.Int("seed"))}, nil
}

func (m *gruModel) run() []GRUStep {
	if m.steps == nil {
		m.steps = m.clf.Run(m.ids, m.clamp)
	}
	return m.steps
}

func (m *gruModel) Steps() int { return len(m.ids) }

func (m *gruModel) staticFrame() sim.Frame {
	task := m.clf.Task
	tokens := make([]string, len(m.ids))
	for i, id := range m.ids {
		tokens[i] = data.Alphabet[id]
	}
	answers := make([]any, len(m.ids)) // the correct y_t by name, nil where none
	for t, y := range task.Targets(m.ids) {
		if y >= 0 {
			answers[t] = task.Classes[y]
		}
	}
	steps := m.run()
	last := steps[len(steps)-1].Probs
	meta := map[string]any{
		"tokens":      tokens,
		"input":       m.text,
		"task":        task.Name,
		"task_title":  task.Title,
		"description": task.Description,
		"classes":     task.Classes,
		"answers":     answers,
		"variant":     m.clf.Variant,
		"hidden":      m.clf.Cell.HiddenSize(),
		"params":      m.clf.Cell.Params().Count(),
		"output":      task.Classes[argmax(last)],
		"probability": round4(last[argmax(last)]),
		"clamp":       clampName(m.clamp),
	}
	if m.trained == 0 {
		meta["weights"] = "bundled checkpoint"
		meta["checkpoint_accuracy"] = metaFloat(m.meta, "accuracy")
	} else {
		meta["weights"] = fmt.Sprintf("trained from scratch for %d steps (seed %d)", m.trained, m.seed)
	}
	return sim.Frame{Meta: meta}
}

func clampName(c Clamp) string {
	if c.Gate == "" {
		return "none"
	}
	return fmt.Sprintf("%s_t = %g", c.Gate, c.Value)
}

// round4 rounds to 4 decimal places: for values near 1 (losses, accuracies, scores).
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// sig4 rounds to 4 significant digits: for probabilities that may be tiny, which
// round4 would turn into 0.
func sig4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

func (m *gruModel) frameAt(t int) sim.Frame {
	st := m.run()[t-1]
	task := m.clf.Task
	k := argmax(st.Probs)
	meta := map[string]any{
		"token":       data.Alphabet[m.ids[t-1]],
		"prediction":  task.Classes[k],
		"probability": round4(st.Probs[k]),
	}
	if y := task.Targets(m.ids)[t-1]; y >= 0 {
		meta["answer"] = task.Classes[y]
		meta["correct"] = y == k
	}
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("X", st.X), sim.Vector("R", st.R), sim.Vector("Z", st.Z),
			sim.Vector("H_tilde", st.HTilde), sim.Vector("H", st.H), sim.Vector("P", st.Probs),
		},
		Meta: meta,
	}
}

// TrainStep trains from scratch: the first call replaces the bundled weights by fresh
// ones drawn from the seed, then every call is one minibatch of Adam.
func (m *gruModel) TrainStep() (sim.Frame, error) {
	if m.trainRng == nil {
		m.clf = NewGRUClassifier(m.clf.Task, m.clf.Variant, m.seed)
		m.trainRng = rand.New(rand.NewPCG(m.seed, 0x7a1))
	}
	loss, acc := m.clf.TrainStep(m.trainRng)
	if math.IsNaN(loss) {
		return sim.Frame{}, fmt.Errorf("lessons: training diverged at step %d", m.trained+1)
	}
	m.trained++
	m.steps = nil
	return sim.Frame{
		Arrays: []sim.Array{m.lossCurve.add(loss)},
		Meta:   map[string]any{"loss": round4(loss), "accuracy": round4(acc), "trained_steps": m.trained},
	}, nil
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

// GRUCheckpointMeta is the metadata cmd/train records with a trained classifier:
// its settings, its accuracies on EvalSet and its GateStats.
func GRUCheckpointMeta(m *GRUClassifier, seed uint64, steps int) map[string]string {
	stepAcc, finalAcc := m.Evaluate(EvalSet(m.Task))
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	meta := map[string]string{
		"task": m.Task.Name, "variant": m.Variant, "hidden": strconv.Itoa(m.Cell.HiddenSize()),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps),
		"batch": strconv.Itoa(gruBatch), "lr": f(gruLR), "input_noise": f(m.Task.Noise),
		"eval_seed": strconv.Itoa(GRUEvalSeed), "eval_seqs": strconv.Itoa(GRUEvalSeqs),
		"accuracy": f(stepAcc), "final_accuracy": f(finalAcc),
	}
	if lambda := gateCostOf[m.Task.Name]; lambda > 0 {
		meta["reset_gate_cost"] = f(lambda)
	}
	stats := m.GateStats()
	gates := ""
	for _, k := range slices.Sorted(maps.Keys(stats)) {
		meta[k] = f(stats[k])
		gates += fmt.Sprintf("%s=%.3f ", k, stats[k])
	}
	meta["gates"] = strings.TrimSpace(gates)
	return meta
}

// SaveGRUClassifier writes m's parameters and meta to path (atomically).
func SaveGRUClassifier(path string, m *GRUClassifier, meta map[string]string) error {
	return models.SaveCheckpoint(path, m.Params(), meta)
}

var gruLesson = &Lesson{
	Slug:    "gru",
	Short:   "GRU",
	Section: "4.3",
	Title:   "Gated recurrent units (GRU)",
	Summary: "Watch the reset and update gates of small trained GRUs keep a checksum, skip filler tokens and reset at a break.",
	Prose: []string{
		`A vanilla RNN rewrites its whole hidden state at every step, so it has no easy way to keep one early token for a long time, to ignore a token that means nothing, or to forget everything at a break. A GRU adds two gates, vectors of numbers between 0 and 1, one per hidden unit, that the network computes from the current input and the previous state.`,
		`The <b>reset gate</b> \(R_t\) decides how much of the previous state goes into the candidate \(\tilde H_t\). Where \(R_t \approx 1\) the candidate is an ordinary RNN step; where \(R_t \approx 0\) it ignores the past and depends on the current input alone: the state is reset. The <b>update gate</b> \(Z_t\) then mixes old and new: where \(Z_t \approx 1\) the unit keeps its old value and the input is skipped; where \(Z_t \approx 0\) it takes the candidate.`,
		`Each task below has its own small GRU, trained on generated sequences and bundled with the page: \(h = 12\) units for <b>checksum</b>, \(h = 6\) for <b>skip</b> and <b>reset</b>, so that nearly every unit takes part. <b>checksum</b>: the first digit must survive to the end; look for the units whose \(Z_t\) stays close to 1 from the second step on: they hold the check digit. <b>skip</b>: the filler tokens _ carry nothing. In training every filler token also came with random noise, like markup that never looks the same twice, so anything written on a filler token would damage the stored digit. The network learned not to write: on filler \(Z_t\) is close to 1 (0.94 to 0.99 on average, about 0.5 on digits), and the columns of \(H_t\) repeat across a run of filler. <b>reset</b>: the model keeps a count since the last break, +1 for a high digit (2, 3) and −1 for a low one (0, 1), and answers with its sign. On a digit the new count is the old one plus or minus one, so the candidate needs the past, and the reset gate of the units the answer is read from is open (about 0.3 on average); at a break | the old count is wrong for the new segment, and there \(R_t\) closes to about 0.02: the candidate is computed from the break alone, and \(Z_t\), down to about 0.15, lets it replace the state. In training, reading the past cost a little (0.01 times the mean of \(R_t\) was added to the loss), so the gate opens only where the past is worth it; without that cost the networks learn the task as well but leave \(R_t\) at 0.1 to 0.4 at the breaks and reset another way, most likely by pushing the candidate into the flat ends of tanh. Type your own sequence to test a model; the right answer at each step is shown next to the model's prediction.`,
		`Clamp a gate to see what it is for: with \(Z_t = 1\) nothing is ever written and the state stays at zero; with \(R_t = 0\) every candidate forgets the past and the checksum is lost; with \(Z_t = 0\) the state cannot skip anything. <b>Train from scratch</b> starts again from random weights (drawn from the seed) and learns live.`,
		`The <b>reset-after</b> variant is the form PyTorch's <code>nn.GRU</code> and cuDNN compute: the reset gate multiplies \(H_{t-1} W_{hh} + b_{hn}\) after the matrix product instead of \(H_{t-1}\) before it, with one extra bias \(b_{hn}\). Both forms can reset the state and learn the same tasks, but their weights are not interchangeable, so each variant has its own trained checkpoint.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-R}{R_t} = \sigma(\htmlClass{sym-X}{X_t} W_{xr} + H_{t-1} W_{hr} + b_r)`, Symbols: []Symbol{{ID: "R", Array: "R"}, {ID: "X", Array: "X"}}},
		{TeX: `\htmlClass{sym-Z}{Z_t} = \sigma(X_t W_{xz} + H_{t-1} W_{hz} + b_z)`, Symbols: []Symbol{{ID: "Z", Array: "Z"}}},
		{TeX: `\htmlClass{sym-H_tilde}{\tilde H_t} = \tanh(X_t W_{xh} + (R_t \odot H_{t-1}) W_{hh} + b_h)`, Symbols: []Symbol{{ID: "H_tilde", Array: "H_tilde"}}},
		{TeX: `\htmlClass{sym-H}{H_t} = Z_t \odot H_{t-1} + (1 - Z_t) \odot \tilde H_t`, Symbols: []Symbol{{ID: "H", Array: "H"}}},
		{TeX: `\text{reset-after: } \tilde H_t = \tanh(X_t W_{xh} + b_h + R_t \odot (H_{t-1} W_{hh} + b_{hn}))`},
		{TeX: `\htmlClass{sym-P}{\hat y_t} = \mathrm{softmax}(H_t W_q + b_q)`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
	},
	Arrays: []Array{
		{Name: "X", Label: `\(X_t\)`, Axes: []Axis{Vocabulary}, PerStep: true},
		{Name: "R", Label: `\(R_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "Z", Label: `\(Z_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H_tilde", Label: `\(\tilde{H}_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H", Label: `\(H_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "P", Label: `\(\hat{y}_t\)`, Axes: []Axis{Classes}, PerStep: true, Labels: "classes"},
	},
	Loss: "loss_curve",
	Panels: []Panel{
		{ID: "tokens", Static: []string{"tokens", "answers"}, Meta: []string{"prediction", "correct"}, Kind: Tokens, Title: "input tokens", Arrays: []string{"X"}, Symbol: "X",
			Note: "The current token is marked; the model's answer and the right answer are under it."},
		{ID: "R", Static: []string{"tokens"}, Kind: Heatmap, Title: `reset gate \(R_t\)`, Arrays: []string{"R"}, Scale: []float64{0, 1}, Symbol: "R",
			Note: "Near 0: the candidate ignores the past (reset task: at the breaks |, where the old count must go)."},
		{ID: "Z", Static: []string{"tokens"}, Kind: Heatmap, Title: `update gate \(Z_t\)`, Arrays: []string{"Z"}, Scale: []float64{0, 1}, Symbol: "Z",
			Note: "Near 1: the unit keeps its value and skips the input (skip task: the filler tokens _)."},
		{ID: "H_tilde", Static: []string{"tokens"}, Kind: Heatmap, Title: `candidate state \(\tilde H_t\)`, Arrays: []string{"H_tilde"}, Scale: []float64{-1, 1}, Symbol: "H_tilde"},
		{ID: "H", Static: []string{"tokens"}, Kind: Heatmap, Title: `hidden state \(H_t\)`, Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H"},
		{ID: "P", Kind: Bars, Title: `prediction \(\hat y_t\)`, Arrays: []string{"P"}, Scale: []float64{0, 1}, Symbol: "P"},
	},
	Params: sim.Specs{
		{Name: "task", Label: "task", Kind: sim.Choice, Default: "checksum", Choices: data.TaskNames(),
			Help: "checksum: remember the first digit; skip: ignore filler _; reset: forget at a break |."},
		{Name: "input", Label: "input sequence", Kind: sim.Text, MaxLen: 2 * data.MaxInputLen,
			Help: "One character per token, spaces ignored; empty means the task's example."},
		{Name: "clamp", Label: "clamp a gate", Kind: sim.Choice, Default: "none", Choices: []string{"none", "R", "Z"}},
		{Name: "clamp_value", Label: "clamped value", Kind: sim.Float, Default: "0", Min: 0, Max: 1, Step: 0.05},
		{Name: "variant", Label: "GRU form", Kind: sim.Choice, Default: VariantLecture, Choices: []string{VariantLecture, VariantResetAfter},
			Help: "lecture: R_t acts before W_hh; reset-after: after it (PyTorch, cuDNN)."},
		{Name: "seed", Label: "seed", Kind: sim.Int, Default: "1", Min: 1, Max: 1_000_000, Step: 1, Advanced: true,
			Help: "The random start of training from scratch."},
	},
	Plots: []Plot{
		{Name: "gates", Title: "mean R_t and Z_t over the units", XLabel: "time step t", YLabel: "gate value",
			Series: func(sm sim.Model) []Series {
				m := sm.(*gruModel)
				var r, z Series
				r.Label, z.Label = "mean R_t", "mean Z_t"
				for t, st := range m.run() {
					r.X, z.X = append(r.X, float64(t+1)), append(z.X, float64(t+1))
					r.Y, z.Y = append(r.Y, mean(st.R)), append(z.Y, mean(st.Z))
				}
				return []Series{r, z}
			}},
	},
	Build:  buildGRU,
	Trains: true,
	// 10000 (sim.MaxTrainSteps): at most 0.8 ms a step on one core, 8 s; the bundled models took GRUTrainSteps = 3000.
	MaxTrained: 10000,
	// 89 KB measured on a 40-token input, 25 KB at the defaults: the classifier is the shared bundled one.
	SessionBytes: 144 << 10,
	// 25 KB measured (its own GRU from the seed, Adam's moments) and a loss curve of 10000 steps.
	TrainedBytes: 400 << 10,
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// At is step t's frame with its facts labelled (gruFacts).
func (m *gruModel) At(t int) sim.Frame { return gruFacts.stepFacts(m.frameAt(t)) }

// Static is the static frame with its facts labelled (gruFacts).
func (m *gruModel) Static() sim.Frame { return gruFacts.staticFacts(m.staticFrame()) }

// gruFacts labels the page's facts in the lecture's words.
var gruFacts = factTable{
	static: []fact{
		{key: "task_title", label: "task"},
		{key: "task", label: "task (URL name)"},
		{key: "variant", label: "variant"},
		{key: "description", label: "what the task asks"},
		{key: "input", label: "input x_1 … x_T"},
		{key: "output", label: "answer ŷ_T"},
		{key: "probability", label: "its probability", measured: true},
		{key: "hidden", label: "hidden units h"},
		{key: "params", label: "parameters"},
		{key: "checkpoint_accuracy", label: "accuracy of the bundled weights", measured: true},
		{key: "clamp", label: "clamped gate"},
		{key: "weights", label: "weights"},
	},
	step: []fact{
		{key: "token", label: "input x_t"},
		{key: "prediction", label: "prediction ŷ_t", keep: true},
		{key: "probability", label: "p(ŷ_t)", measured: true},
		{key: "answer", label: "right answer y_t"},
		{key: "correct", label: "right", keep: true},
	},
}
