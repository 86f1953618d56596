package lessons

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// ParamFormula is the cell's parameter count by the lecture's shapes, with d inputs
// and h units: a block of W_x* (d×h), W_h* (h×h) and b_* (h) per gate or candidate,
// 4 blocks for an LSTM, 3 for a GRU, 1 for a vanilla RNN.
func ParamFormula(kind models.Kind, d, h int) int {
	blocks := map[models.Kind]int{models.KindLSTM: 4, models.KindGRU: 3, models.KindRNN: 1}[kind]
	return blocks * (d*h + h*h + h)
}

// The LSTM page's settings.
const (
	LSTMCellScale = 15 // no shipped model's |C_t| on its held-out set reaches 15 (TestLSTMCheckpoints): C_t is unbounded, but these stay small
	// cellScaleShare is the share of the held-out |C_t| values the C_t heatmap's colour
	// scale covers: a scale at the largest value (14 on checksum) leaves the typical
	// ±2 nearly white, so "rows that keep their colour are memory" cannot be seen; at
	// the 95th percentile they show, and the rarer larger values saturate.
	cellScaleShare  = 0.95
	cellPlotUnits   = 4 // the "cell" export draws the units whose C_t moves most
	lstmLossTarget  = "the right answer at the last step"
	lstmLossOwnPred = "the LSTM's own answer at the last step (the task asks nothing there)"
)

// lstmModel is the LSTM lesson's sim.Model: the task's LSTM reading one input, next to
// the GRU and the vanilla RNN trained on the same task.
type lstmModel struct {
	lstm     *zoo.SeqClassifier // the variant shown: plain or with peepholes
	meta     zoo.Meta           // of the LSTM checkpoint it started from
	variant  string             // lstmPlain or lstmPeephole
	other    *zoo.SeqClassifier // the other variant's bundled LSTM, for the comparison
	otherAcc float64            // its held-out step accuracy, recorded with it
	otherC   [][]float64        // its C_t at every step of the input
	gru      *zoo.GRUClassifier
	rnn      *zoo.SeqClassifier
	ids      []int
	text     string
	clamp    Clamp
	seed     uint64
	cScale   float64 // the C_t heatmap's colour range ±cScale: the bundled model's cellScale

	steps   []zoo.LSTMStep // nil when the LSTM's weights changed since the last run
	gruRun  []zoo.GRUStep
	rnnH    [][]float64
	rnnP    [][]float64
	grads   map[string][]float64 // per-model ‖∂L/∂H_t‖ (and the LSTM's ‖∂L/∂C_t‖)
	gradFor string               // what y the last-step loss uses

	scratch // training from scratch: the first TrainStep starts a fresh model from seed
}

// cellScales caches cellScale by bundled model (one a task: shared and read-only).
var cellScales sync.Map // *zoo.SeqClassifier → float64

// cellScale is the C_t heatmap's colour range ±cellScale for LSTM m: the
// cellScaleShare quantile of |C_t| over its task's held-out sequences, rounded up to
// a half. m must be a bundled model: a model trained on the page keeps its bundled
// model's scale (lstmModel.cScale), so the page's scale does not jump while it trains.
func cellScale(m *zoo.SeqClassifier) float64 {
	if s, ok := cellScales.Load(m); ok {
		return s.(float64)
	}
	var all []float64
	for _, ids := range zoo.EvalSet(m.Task) {
		for _, st := range m.RunLSTM(ids, models.GateClamp{}) {
			for _, c := range st.C {
				all = append(all, math.Abs(c))
			}
		}
	}
	slices.Sort(all)
	s := math.Ceil(2*all[int(cellScaleShare*float64(len(all)-1))]) / 2
	cellScales.Store(m, s)
	return s
}

func buildLSTM(v sim.Values) (sim.Model, error) {
	task, text, ids, err := taskInput(v)
	if err != nil {
		return nil, err
	}
	// The bundled models are shared and read-only; TrainStep gives the LSTM weights of
	// its own.
	variant := v.String("variant")
	files := map[string]string{lstmPlain: zoo.LSTMCheckpointFile(task.Name), lstmPeephole: zoo.PeepholeCheckpointFile(task.Name)}
	otherVariant := map[string]string{lstmPlain: lstmPeephole, lstmPeephole: lstmPlain}[variant]
	lstm, meta, err := zoo.SharedSeq(files[variant])
	if err != nil {
		return nil, err
	}
	other, otherMeta, err := zoo.SharedSeq(files[otherVariant])
	if err != nil {
		return nil, err
	}
	gru, _, err := zoo.SharedGRUClassifier(task, zoo.VariantLecture)
	if err != nil {
		return nil, err
	}
	rnn, _, err := zoo.SharedSeq(zoo.RNNCheckpointFile(task.Name))
	if err != nil {
		return nil, err
	}
	m := &lstmModel{lstm: lstm, meta: meta, variant: variant, other: other, otherAcc: otherMeta.Float("accuracy"),
		gru: gru, rnn: rnn, ids: ids, text: text, clamp: clampOf(v), seed: uint64(v.Int("seed")), cScale: cellScale(lstm)}
	for _, st := range other.RunLSTM(ids, Clamp{}) {
		m.otherC = append(m.otherC, st.C)
	}
	m.gruRun = gru.Run(ids, Clamp{})
	rtr := zoo.TraceOf(rnn.Cell, [][]int{ids}, nil)
	for _, st := range rtr.Steps {
		m.rnnH = append(m.rnnH, mat.Row(nil, 0, st.Next.H))
	}
	m.rnnP = rnn.Probs(ids)
	return m, nil
}

// run computes the LSTM's steps and the three models' last-step gradients.
func (m *lstmModel) run() []zoo.LSTMStep {
	if m.steps != nil {
		return m.steps
	}
	m.steps = m.lstm.RunLSTM(m.ids, m.clamp)
	T := len(m.ids)
	y, gradFor := m.lstm.Task.Targets(m.ids)[T-1], lstmLossTarget
	if y < 0 {
		y, gradFor = models.Argmax(m.lstm.RunLSTM(m.ids, Clamp{})[T-1].Probs), lstmLossOwnPred
	}
	m.gradFor = fmt.Sprintf("L = −log ŷ_T[%s], %s", m.lstm.Task.Classes[y], gradFor)
	m.grads = map[string][]float64{}
	m.grads["LSTM"], m.grads["LSTM C_t"] = zoo.LastStepGradients(m.lstm.Cell, m.lstm.Out, m.ids, y)
	m.grads["GRU"], _ = zoo.LastStepGradients(m.gru.Cell, m.gru.Out, m.ids, y)
	m.grads["RNN"], _ = zoo.LastStepGradients(m.rnn.Cell, m.rnn.Out, m.ids, y)
	return m.steps
}

// gradArrays are the names of the gradient-norm curves, in legend order.
var gradArrays = []string{"LSTM", "GRU", "RNN", "LSTM C_t"}

func (m *lstmModel) Steps() int { return len(m.ids) }

// counts returns each cell's parameter count, its formula value and the output
// layer's count, in the order LSTM, GRU, RNN.
func (m *lstmModel) counts() (cells, formulas, outs [3]int) {
	d := len(data.Alphabet)
	for i, c := range []struct {
		cell models.Cell
		all  models.Params
		out  *models.Dense
	}{{m.lstm.Cell, m.lstm.Params(), m.lstm.Out}, {m.gru.Cell, m.gru.Params(), m.gru.Out}, {m.rnn.Cell, m.rnn.Params(), m.rnn.Out}} {
		outs[i] = c.out.Params().Count()
		cells[i] = c.all.Count() - outs[i]
		formulas[i] = ParamFormula(c.cell.Kind(), d, c.cell.HiddenSize())
		if l, ok := c.cell.(*models.LSTM); ok && l.Peephole() {
			formulas[i] += 3 * c.cell.HiddenSize() // p_i, p_f, p_o
		}
	}
	return cells, formulas, outs
}

func (m *lstmModel) Static() sim.Frame {
	task := m.lstm.Task
	steps := m.run()
	T := len(m.ids)
	cells, formulas, outs := m.counts()
	d, h, hg := len(data.Alphabet), zoo.LSTMHidden, m.gru.Cell.HiddenSize()
	meta := classifierStaticMeta(task, m.ids, m.text, steps[T-1].Probs, m.clamp)
	maps.Copy(meta, map[string]any{
		"labels":      []string{"LSTM", "GRU", "RNN"},
		"hidden":      fmt.Sprintf("h = %d (LSTM), %d (GRU), %d (RNN)", h, hg, m.rnn.Cell.HiddenSize()),
		"gru_output":  task.Classes[models.Argmax(m.gruRun[T-1].Probs)],
		"rnn_output":  task.Classes[models.Argmax(m.rnnP[T-1])],
		"params_lstm": fmt.Sprintf("4(dh+h²+h)%s = 4(%d·%d+%d²+%d)%s = %d; counted %d − %d (output layer) = %d", peepTerm(m.variant, "+3h"), d, h, h, h, peepTerm(m.variant, fmt.Sprintf("+3·%d", h)), formulas[0], cells[0]+outs[0], outs[0], cells[0]),
		"params_gru":  fmt.Sprintf("3(dh+h²+h) = 3(%d·%d+%d²+%d) = %d; counted %d − %d (output layer) = %d", d, hg, hg, hg, formulas[1], cells[1]+outs[1], outs[1], cells[1]),
		"params_rnn":  fmt.Sprintf("dh+h²+h = %d·%d+%d²+%d = %d; counted %d − %d (output layer) = %d", d, h, h, h, formulas[2], cells[2]+outs[2], outs[2], cells[2]),
		"gradient_of": m.gradFor,
		"c_scale":     fmt.Sprintf("±%g, which holds %.0f %% of the held-out values of |Cₜ| on this task; larger ones take the end colours", m.cScale, 100*cellScaleShare),
		"scales":      map[string][]float64{"C": {-m.cScale, m.cScale}, "peephole": {-m.cScale, m.cScale}},
		"variant":     map[string]string{lstmPlain: "LSTM (no peepholes)", lstmPeephole: "peephole LSTM: the gates also see the cell"}[m.variant],
		"forget_bias": fmt.Sprintf("%g for every unit when training starts (from scratch too), so Fₜ ≈ %.2f: the cell begins by keeping most of its content", float64(zoo.ForgetBiasInit), 1/(1+math.Exp(-zoo.ForgetBiasInit))),
	})
	shown, otherName := "LSTM", "peephole LSTM"
	if m.variant == lstmPeephole {
		shown, otherName = "peephole LSTM", "LSTM (no peepholes)"
	}
	T1 := len(m.ids)
	meta["variants"] = fmt.Sprintf("%s (shown): answer %s, held-out accuracy %s; %s: answer %s, held-out accuracy %s",
		shown, task.Classes[models.Argmax(steps[T1-1].Probs)], pct(m.meta.Float("accuracy")),
		otherName, task.Classes[models.Argmax(m.other.Probs(m.ids)[T1-1])], pct(m.otherAcc))
	if m.clamp.Gate != "" {
		meta["gradients"] = "of the unclamped models"
	}
	if m.trained == 0 {
		meta["weights"] = "bundled checkpoints"
		meta["checkpoint_accuracy"] = m.meta.Float("accuracy")
	} else {
		meta["weights"] = fmt.Sprintf("LSTM trained from scratch for %d steps (seed %d); GRU and RNN bundled", m.trained, m.seed)
	}
	arrays := []sim.Array{sim.Vector("params", []float64{float64(cells[0]), float64(cells[1]), float64(cells[2])})}
	for _, name := range gradArrays {
		arrays = append(arrays, sim.Vector(name, slices.Clone(m.grads[name])))
	}
	return sim.Frame{Arrays: arrays, Meta: meta}
}

func (m *lstmModel) At(t int) sim.Frame {
	st := m.run()[t-1]
	task := m.lstm.Task
	meta := classifierMeta(task, m.ids, t, st.Probs)
	meta["gru_prediction"] = task.Classes[models.Argmax(m.gruRun[t-1].Probs)]
	meta["rnn_prediction"] = task.Classes[models.Argmax(m.rnnP[t-1])]
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("X", st.X), sim.Vector("I", st.I), sim.Vector("F", st.F), sim.Vector("O", st.O),
			sim.Vector("C_tilde", st.CTilde), sim.Vector("C", st.C), sim.Vector("H", st.H), sim.Vector("P", st.Probs),
			sim.Vector("kept F⊙C_{t-1}", st.Kept), sim.Vector("written I⊙C̃_t", st.Written),
			sim.Vector("LSTM H_t", st.H), sim.Vector("GRU H_t", m.gruRun[t-1].H), sim.Vector("RNN H_t", m.rnnH[t-1]),
			sim.Vector("C_plain", m.variantC(lstmPlain, t, st.C)), sim.Vector("C_peephole", m.variantC(lstmPeephole, t, st.C)),
		},
		Meta: meta,
	}
}

// The LSTM variants the page can switch between (the variant parameter).
const (
	lstmPlain    = "lstm"     // the lecture's LSTM
	lstmPeephole = "peephole" // lecture 003's peephole connections: I_t, F_t see C_{t-1}, O_t sees C_t
)

// peepholeShown is the condition of the peephole equations.
var peepholeShown = &sim.Applies{Param: "variant", Values: []string{lstmPeephole}, Why: "shown for the peephole LSTM"}

// variantC is C_t at step t of the LSTM variant v: the shown model's (shown) or the
// other variant's bundled one.
func (m *lstmModel) variantC(v string, t int, shown []float64) []float64 {
	if v == m.variant {
		return shown
	}
	return m.otherC[t-1]
}

// peepTerm is term for the peephole variant and "" for the plain LSTM.
func peepTerm(variant, term string) string {
	if variant == lstmPeephole {
		return term
	}
	return ""
}

// pct writes a share as a percentage with one decimal: 99.8 %.
func pct(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }

// TrainStep trains the LSTM from scratch: the first call replaces its bundled weights
// by fresh ones drawn from the seed, then every call is one minibatch of Adam. The
// GRU and the RNN it is compared with keep their bundled weights.
func (m *lstmModel) TrainStep() (sim.Frame, error) {
	rng := m.stream(m.seed, func() {
		if m.variant == lstmPeephole {
			m.lstm = zoo.NewPeepholeLSTMClassifier(m.lstm.Task, m.seed)
		} else {
			m.lstm = zoo.NewLSTMClassifier(m.lstm.Task, m.seed)
		}
	})
	loss, acc := m.lstm.TrainStep(rng)
	m.steps = nil
	return m.progress(loss, map[string]any{"accuracy": round4(acc)})
}

// cellSeries is the "cell" export: C_t of the cellPlotUnits units whose C_t spans the
// widest range over the input.
func cellSeries(sm sim.Model) []Series {
	m := sm.(*lstmModel)
	steps := m.run()
	span := make([]float64, zoo.LSTMHidden)
	for j := range span {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, st := range steps {
			lo, hi = min(lo, st.C[j]), max(hi, st.C[j])
		}
		span[j] = hi - lo
	}
	units := make([]int, zoo.LSTMHidden)
	for j := range units {
		units[j] = j
	}
	sort.SliceStable(units, func(a, b int) bool { return span[units[a]] > span[units[b]] })
	units = units[:cellPlotUnits]
	slices.Sort(units)
	var out []Series
	for _, j := range units {
		s := Series{Label: fmt.Sprintf(`\(C_t\), unit %d`, j+1)}
		for t, st := range steps {
			s.X, s.Y = append(s.X, float64(t+1)), append(s.Y, st.C[j])
		}
		out = append(out, s)
	}
	return out
}

// gradSeries is the "grad-norms" export: the three models' ‖∂L/∂H_t‖ (positive
// values only: a log axis cannot show 0).
func gradSeries(sm sim.Model) []Series {
	m := sm.(*lstmModel)
	m.run()
	var out []Series
	for _, name := range gradArrays[:3] {
		s := Series{Label: name + ` \(\|\partial L/\partial H_t\|\)`}
		for t, v := range m.grads[name] {
			if v > 0 {
				s.X, s.Y = append(s.X, float64(t+1)), append(s.Y, v)
			}
		}
		out = append(out, s)
	}
	return out
}

var lstmLesson = &Lesson{
	Slug:    "lstm",
	Short:   "LSTM",
	Section: "4.4",
	Title:   "Long short-term memory (LSTM)",
	Summary: "Watch the input, forget and output gates of small trained LSTMs write, keep and read a memory cell, and compare them with a GRU and a vanilla RNN on the same input.",
	Prose: []string{
		`The LSTM (Hochreiter and Schmidhuber, 1997) is the older of the two gated cells: the GRU (Cho et al., 2014) came almost twenty years later and can be read as a simplification of it. (Some course notes call the LSTM an advancement of the GRU; the dates say otherwise.) Its idea is to keep a second state next to \(H_t\): the <b>memory cell</b> \(C_t\), a vector of the same size that is changed only by element-wise gating, never squashed by a matrix product at every step.`,
		`Three gates, each a vector of numbers between 0 and 1 computed from \(X_t\) and \(H_{t-1}\), control the cell. The <b>input gate</b> \(I_t\) decides how much of the candidate \(\tilde C_t\) is written; the <b>forget gate</b> \(F_t\) decides how much of the old content \(C_{t-1}\) is kept; the <b>output gate</b> \(O_t\) decides how much of the cell is shown as the hidden state \(H_t = O_t \odot \tanh(C_t)\). With \(F_t \approx 1\) and \(I_t \approx 0\) a unit holds its value unchanged, and the gradient along \(C\) passes back through it almost undamped: this is how the LSTM fights the vanishing gradient.`,
		`The memory cell is entirely internal: only \(H_t\) leaves the cell, to the output layer \(\hat y_t = \mathrm{softmax}(H_t W_q + b_q)\) and to the next step's gates, and \(C_t\) reaches the output only through \(O_t \odot \tanh(C_t)\) (lecture 004 makes the same point). Clamp \(O_t = 0\) to see it: the cell keeps working, but nothing of it gets out.`,
		`Training starts every LSTM here, the bundled ones and the one trained from scratch, with the forget-gate bias \(b_f = 1\) for every unit, while the other weights are small random numbers: at first \(F_t \approx \sigma(1) \approx 0.73\), so a new cell keeps most of its content instead of halving it at every step, and gradients can reach early steps from the start (Gers et al., 2000, recommended by Jozefowicz et al., 2015).`,
		`The memory cell has no fixed range: each step can add up to 1 to it. The bundled models stay within \(\pm 15\) on their held-out sequences (one unit of the checksum LSTM reaches about 14), but most values are far smaller: half of them are under 2 on checksum and under 1 on the other tasks. A scale wide enough for the extremes would leave those nearly white, so the heatmap's colour scale holds 95 % of each task's held-out values (the facts give it: \(\pm 7\) on checksum); larger values, which clamping \(F_t = 1\) can produce, are drawn in the end colours, and hovering shows the exact number. The bars under it split the update \(C_t = F_t \odot C_{t-1} + I_t \odot \tilde C_t\) into what is kept and what is written at the current step.`,
		`The tasks are the GRU page's: keep an early check digit, skip filler tokens _, forget at a break |. Each task has its own small LSTM (\(h = 12\)), trained on generated sequences like the GRU. Clamp a gate to see what it is for: \(F_t = 0\) wipes the cell at every step, so nothing survives from one step to the next except through \(H_{t-1}\); \(F_t = 1\) never forgets, so the cell can only accumulate (try it on the reset task, which needs a clean start after every break); \(O_t = 0\) hides the cell completely, \(H_t = 0\), and the prediction no longer depends on the input; \(I_t = 0\) never writes anything, so the cell stays at 0. <b>Train from scratch</b> retrains the LSTM live from the seed.`,
		`The comparison reads the same input with three models trained on the same task: this LSTM, the GRU of the GRU page and a vanilla tanh RNN (their widths \(h\) are in the facts). Their gradient norms come from one loss at the last step only, so \(\lVert \partial L / \partial H_t \rVert\) shows how much of that loss reaches each earlier step (log scale, absolute). On the checksum task the vanilla RNN's gradient fades by a factor of about \(10^{-13}\) from the last step back to the check digit, while the gated cells keep it within a few powers of ten. Fading is not always a failure: on the reset task nothing before the last break matters, and a good model of any kind sends almost no gradient there. The price of the gates is parameters: per gate or candidate a \(d \times h\) input matrix, an \(h \times h\) recurrent matrix and a bias, so \(4(dh + h^2 + h)\) for the LSTM, \(3(dh + h^2 + h)\) for the GRU and \(dh + h^2 + h\) for the RNN. With \(d = 6\) one-hot tokens and \(h = 12\) that is 912, 684 and 228; the page also counts them from the loaded models, leaving out the output layer \(W_q, b_q\) that every model has besides its cell.`,
		`<b>Peephole connections</b> (lecture 003 mentions them; Gers and Schmidhuber, 2000) let the gates look at the cell itself: the input and forget gates see \(C_{t-1}\), and the output gate sees the new \(C_t\), each through a diagonal weight, a vector \(p_i, p_f, p_o\) multiplied element by element, so a unit's gate sees only its own cell (\(3h\) more parameters). Switch <b>LSTM form</b> to peephole to load an LSTM with peepholes trained the same way on the same task; the panel under the equations compares its memory cell with the plain LSTM's on the same input, and the facts give both answers and both held-out accuracies. On these small tasks both learn to answer right; the peepholes change how the cell is used, not whether the task is learnt.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-I}{I_t} = \sigma(\htmlClass{sym-X}{X_t} W_{xi} + H_{t-1} W_{hi} + b_i)`, Symbols: []Symbol{{ID: "I", Array: "I"}, {ID: "X", Array: "X"}}},
		{TeX: `\htmlClass{sym-F}{F_t} = \sigma(X_t W_{xf} + H_{t-1} W_{hf} + b_f)`, Symbols: []Symbol{{ID: "F", Array: "F"}}},
		{TeX: `\htmlClass{sym-O}{O_t} = \sigma(X_t W_{xo} + H_{t-1} W_{ho} + b_o)`, Symbols: []Symbol{{ID: "O", Array: "O"}}},
		{TeX: `\htmlClass{sym-C_tilde}{\tilde C_t} = \tanh(X_t W_{xc} + H_{t-1} W_{hc} + b_c)`, Symbols: []Symbol{{ID: "C_tilde", Array: "C_tilde"}}},
		{TeX: `\htmlClass{sym-C}{C_t} = F_t \odot C_{t-1} + I_t \odot \tilde C_t`, Symbols: []Symbol{{ID: "C", Array: "C"}}},
		{TeX: `\htmlClass{sym-H}{H_t} = O_t \odot \tanh(C_t)`, Symbols: []Symbol{{ID: "H", Array: "H"}}},
		{TeX: `\text{peephole: } I_t = \sigma(\ldots + C_{t-1} \odot p_i + b_i)`, When: peepholeShown},
		{TeX: `\text{peephole: } F_t = \sigma(\ldots + C_{t-1} \odot p_f + b_f)`, When: peepholeShown},
		{TeX: `\text{peephole: } O_t = \sigma(\ldots + C_t \odot p_o + b_o)`, When: peepholeShown},
		{TeX: `\htmlClass{sym-P}{\hat y_t} = \mathrm{softmax}(H_t W_q + b_q)`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
		{TeX: `\htmlClass{sym-params}{\#\theta_{\mathrm{LSTM}}} = 4(dh + h^2 + h)`, Symbols: []Symbol{{ID: "params", Array: "params"}}},
		{TeX: `\#\theta_{\mathrm{GRU}} = 3(dh + h^2 + h), \quad \#\theta_{\mathrm{RNN}} = dh + h^2 + h`},
	},
	Arrays: []Array{
		{Name: "X", Label: `\(X_t\)`, Axes: []Axis{Vocabulary}, PerStep: true},
		{Name: "I", Label: `\(I_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "F", Label: `\(F_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "O", Label: `\(O_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "C_tilde", Label: `\(\tilde{C}_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "C", Label: `\(C_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "kept F⊙C_{t-1}", Label: `\(F_t \odot C_{t-1}\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "written I⊙C̃_t", Label: `\(I_t \odot \tilde{C}_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H", Label: `\(H_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "P", Label: `\(\hat{y}_t\)`, Axes: []Axis{Classes}, PerStep: true, Labels: "classes"},
		{Name: "LSTM H_t", Label: `\(H_t\) (LSTM)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "GRU H_t", Label: `\(H_t\) (GRU)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "RNN H_t", Label: `\(H_t\) (RNN)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "LSTM", Label: `\(\|\partial L/\partial H_t\|\) (LSTM)`, Axes: []Axis{Time}},
		{Name: "GRU", Label: `\(\|\partial L/\partial H_t\|\) (GRU)`, Axes: []Axis{Time}},
		{Name: "RNN", Label: `\(\|\partial L/\partial H_t\|\) (RNN)`, Axes: []Axis{Time}},
		{Name: "LSTM C_t", Label: `\(\|\partial L/\partial C_t\|\) (LSTM)`, Axes: []Axis{Time}},
		{Name: "params", Label: "parameters", Axes: []Axis{Items}, Labels: "labels"},
		{Name: "C_plain", Label: `\(C_t\) (LSTM)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "C_peephole", Label: `\(C_t\) (peephole LSTM)`, Axes: []Axis{Units}, PerStep: true},
	},
	Loss:  "loss_curve",
	Stage: []string{"F", "C"},
	Panels: []Panel{
		classifierTokens("The current token is marked; the LSTM's answer and the right answer are under it."),
		{ID: "I", Static: []string{"tokens"}, Kind: Heatmap, Title: `input gate \(I_t\)`, Arrays: []string{"I"}, Scale: []float64{0, 1}, Symbol: "I",
			Note: "Near 1: the candidate is written into the cell."},
		{ID: "F", Static: []string{"tokens"}, Kind: Heatmap, Title: `forget gate \(F_t\)`, Arrays: []string{"F"}, Scale: []float64{0, 1}, Symbol: "F",
			Note: "Near 1: the cell keeps its old content; near 0: it is wiped (look at the breaks of the reset task)."},
		{ID: "O", Static: []string{"tokens"}, Kind: Heatmap, Title: `output gate \(O_t\)`, Arrays: []string{"O"}, Scale: []float64{0, 1}, Symbol: "O",
			Note: "Near 0: the cell is kept private and does not show in \\(H_t\\)."},
		{ID: "C_tilde", Static: []string{"tokens"}, Kind: Heatmap, Title: `candidate memory cell \(\tilde C_t\)`, Arrays: []string{"C_tilde"}, Scale: []float64{-1, 1}, Symbol: "C_tilde"},
		{ID: "C", Static: []string{"tokens", "scales"}, Kind: Heatmap, Title: `memory cell \(C_t\) (unbounded; the colour scale holds 95 % of its held-out values)`, Arrays: []string{"C"}, Scale: []float64{-LSTMCellScale, LSTMCellScale}, Symbol: "C",
			Note: "The colour scale holds 95 % of this task's held-out values of \\(C_t\\) (its range is in the facts); larger ones take the end colours; hover for the exact value. Rows that keep their colour across steps are memory."},
		{ID: "peephole", Static: []string{"tokens", "scales"}, Kind: Heatmap, Title: `memory cell \(C_t\) without and with peepholes, on the same input`, Arrays: []string{"C_plain", "C_peephole"}, Scale: []float64{-LSTMCellScale, LSTMCellScale},
			Note: "Two LSTMs trained the same way on this task, one without and one with peephole connections (LSTM form switches which one the other panels show). Their units are not matched: compare how many rows keep their colour, not row by row."},
		{ID: "cell-update", Kind: Bars, Title: `the update of \(C_t\) at this step: kept \(F_t \odot C_{t-1}\) and written \(I_t \odot \tilde C_t\)`, Arrays: []string{"kept F⊙C_{t-1}", "written I⊙C̃_t"}, Legend: []string{"kept F⊙Cₜ₋₁", "written I⊙C̃ₜ"}, Symbol: "C",
			Note: "The written part lies in (−1, 1); the kept part can be as large as the cell."},
		{ID: "H", Static: []string{"tokens"}, Kind: Heatmap, Title: `hidden state \(H_t\)`, Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H"},
		{ID: "P", Kind: Bars, Title: `prediction \(\hat y_t\)`, Arrays: []string{"P"}, Scale: []float64{0, 1}, Symbol: "P"},
		{ID: "compare-H", Static: []string{"tokens"}, Kind: Heatmap, Title: `the same input, three trained models: hidden states \(H_t\)`, Arrays: []string{"LSTM H_t", "GRU H_t", "RNN H_t"}, Scale: []float64{-1, 1},
			Note: "Each model's answers are in the facts of the step (GRU prediction, RNN prediction)."},
		{ID: "grad-norms", Kind: Line, Title: `\(\lVert \partial L / \partial H_t \rVert\) for the loss at the last step`, Arrays: gradArrays, LogY: true,
			Note: `Log scale, absolute values, unclamped models. LSTM \(C_t\) is the gradient reaching the memory cell (0 at the last step, where L reads only H).`},
		{ID: "params", Kind: Bars, Title: `parameters per cell (without the output layer)`, Arrays: []string{"params"}, Symbol: "params",
			Note: "Counted from the loaded models; the formula and the count are in the facts."},
	},
	Params: sim.Specs{
		taskSpec, inputSpec,
		{Name: "variant", Label: "LSTM form", Kind: sim.Choice, Default: lstmPlain, Choices: []string{lstmPlain, lstmPeephole},
			Help: `peephole: the gates also see the cell, \(C_{t-1}\) for \(I_t, F_t\) and \(C_t\) for \(O_t\) (lecture 003).`},
		{Name: "clamp", Label: "clamp a gate", Kind: sim.Choice, Default: "none", Choices: []string{"none", "I", "F", "O"}},
		{Name: "clamp_value", Label: "clamped value", Kind: sim.Float, Default: "1", Min: 0, Max: 1, Step: 0.05,
			When: &sim.Applies{Param: "clamp", Values: []string{"I", "F", "O"}, Why: clampValueWhy}},
		seedSpec(1, "The random start of training from scratch."),
	},
	Plots: []Plot{
		{Name: "cell", Title: `memory cell \(C_t\) of the units that change most`, XLabel: `time step \(t\)`, YLabel: `\(C_t\)`, Series: cellSeries},
		{Name: "grad-norms", Title: `\(\|\partial L/\partial H_t\|\) for the loss at the last step: LSTM, GRU, RNN`, XLabel: `time step \(t\)`, YLabel: `\(\|\partial L/\partial H_t\|\)`, LogY: true, Series: gradSeries},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/lstm.html"), Scripts: []string{nnScript, lectureGRUScript, peepholeScript},
		Companions: []Companion{
			{"gru", pyTorchHTML("notes/lstm-gru.html")},
			{"rnn", pyTorchHTML("notes/lstm-rnn.html")},
			{"other-form", pyTorchHTML("notes/lstm-other-form.html")},
		}},
	Build:  buildLSTM,
	Facts:  lstmFacts,
	Trains: true,
	// 10000 (sim.MaxTrainSteps): at most 0.8 ms a step on one core, 8 s; the bundled models took LSTMTrainSteps = 3000.
	MaxTrained: 10000,
	Largest:    sim.Values{"input": strings.Repeat("1203", 10)},
	// 195 KB measured on a 40-token input, 57 KB at the defaults: the LSTM, GRU and RNN are the shared bundled ones.
	SessionBytes: 320 << 10,
	// 33 KB measured (its own LSTM from the seed, Adam's moments) and a loss curve of 10000 steps.
	TrainedBytes: 416 << 10,
}

// lstmFacts labels the page's facts in the lecture's words: a task classifier's, and
// the comparison with the GRU and the RNN.
var lstmFacts = factTable{
	static: slices.Concat(classifierStatic, []fact{
		{key: "rnn_output", label: "RNN answer"},
		{key: "gru_output", label: "GRU answer"},
		{key: "params_lstm", label: "LSTM parameters 4(dh + h² + h)"},
		{key: "params_gru", label: "GRU parameters 3(dh + h² + h)"},
		{key: "params_rnn", label: "RNN parameters dh + h² + h"},
		{key: "c_scale", label: `colour scale of \(C_t\)`},
		{key: "variants", label: "without and with peepholes"},
		{key: "forget_bias", label: `forget-gate bias \(b_f\) at the start of training`},
		{key: "gradient_of", label: "gradient of"},
	}),
	step: slices.Concat(classifierStep[:3], []fact{
		{key: "gru_prediction", label: "GRU prediction"},
		{key: "rnn_prediction", label: "RNN prediction"},
	}, classifierStep[3:]),
}
