package lessons

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// deepModel is the deep-rnn lesson's sim.Model: a trained stack of L layers reading
// one generated market series, day by day.
type deepModel struct {
	net    *zoo.MarketModel // the shared bundled one (read-only) until TrainStep starts one of its own
	meta   zoo.Meta         // of the checkpoint it started from
	series data.MarketSeries
	seed   uint64

	run    *zoo.MarketRun  // nil when the weights changed since the last run
	scores *zoo.DeepScores // of the current weights on the held-out series

	scratch // training from scratch: the first TrainStep starts a fresh model from seed
	// of training from scratch: steps whose gradient was clipped, and ‖g‖ (before
	// clipping) of the last step and the largest so far
	clippedSteps      int
	lastNorm, maxNorm float64
	clip              float64 // θ of training from scratch (the page's clip)
}

// The page's clipping threshold θ for training from scratch. From scratch every
// stack's ‖g‖ stays below 1 (TestDeepTrainingCare), so θ up to zoo.DeepClip, the
// bundled models' θ, shows a net that never catches anything, and θ below about 0.5
// cuts many steps; under deepClipMin nearly every step is cut to a tiny gradient.
const (
	deepClipMin  = 0.05
	deepClipStep = 0.05
)

func buildDeep(v sim.Values) (sim.Model, error) {
	kind, L := v.String("cell"), v.Int("layers")
	net, meta, err := zoo.SharedMarketModel(kind, L) // TrainStep replaces it by fresh weights
	if err != nil {
		return nil, err
	}
	seed := uint64(v.Int("seed"))
	rng := rand.New(rand.NewPCG(seed, 0x5e41e5))
	return &deepModel{net: net, meta: meta, series: data.NewMarketSeries(rng, v.Int("length")), seed: seed, clip: v.Float("clip")}, nil
}

func (m *deepModel) states() *zoo.MarketRun {
	if m.run == nil {
		r := m.net.Run(m.series)
		m.run = &r
	}
	return m.run
}

// layerScores are the per-layer correlations: from the checkpoint's metadata for
// bundled weights (the same numbers Scores gives, checked by a test), measured on
// the held-out series after training from scratch.
func (m *deepModel) layerScores() (slow, fast, auto []float64) {
	L := m.net.Layers()
	if m.trained == 0 {
		for l := 1; l <= L; l++ {
			slow = append(slow, m.meta.Float(fmt.Sprintf("slow_corr_l%d", l)))
			fast = append(fast, m.meta.Float(fmt.Sprintf("fast_corr_l%d", l)))
			auto = append(auto, m.meta.Float(fmt.Sprintf("autocorr_l%d", l)))
		}
		return slow, fast, auto
	}
	if m.scores == nil {
		sc := m.net.Scores(zoo.DeepEvalSet())
		m.scores = &sc
	}
	return m.scores.SlowCorr, m.scores.FastCorr, m.scores.Autocorr
}

func (m *deepModel) Steps() int { return len(m.series.X) - 1 }

func signed(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func regimeName(r float64) string {
	if r > 0 {
		return "bull"
	}
	return "bear"
}

func (m *deepModel) Static() sim.Frame {
	L := m.net.Layers()
	T := m.Steps()
	tokens := make([]string, T)
	for t := range T {
		tokens[t] = signed(m.series.X[t])
	}
	labels := make([]string, L)
	for l := range L {
		labels[l] = fmt.Sprintf("layer %d", l+1)
	}
	slow, fast, auto := m.layerScores()
	round := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = math.Round(x*100) / 100
		}
		return out
	}
	meta := map[string]any{
		"tokens": tokens, "labels": labels, "cell": m.net.Kind, "layers": L, "hidden": zoo.DeepHidden,
		"params":           m.net.Net.Params().Count(),
		"slow_corr":        round(slow),
		"fast_corr":        round(fast),
		"autocorr":         round(auto),
		"regime_switches":  switches(m.series.Regime[:T]),
		"what_layers_show": layerSummary(slow, fast),
	}
	meta["shapes"] = m.weightShapes()
	meta["initialisation"] = fmt.Sprintf("every weight and bias of the layers from U(−1/√h, 1/√h) = U(−%.3f, %.3f)", zoo.DeepInitBound(), zoo.DeepInitBound())
	meta["optimiser"] = fmt.Sprintf("Adam, learning rate η = %g", zoo.DeepLR)
	meta["clipping"] = fmt.Sprintf("the gradient's norm is cut to θ before each step: θ = %g for the bundled stacks, θ = %g when you train from scratch", float64(zoo.DeepClip), m.clip)
	if m.trained > 0 {
		meta["gradient_norm"] = fmt.Sprintf("%.3g at the last step, %.3g at most (θ = %g)", m.lastNorm, m.maxNorm, m.net.Clip)
		meta["clipped_steps"] = fmt.Sprintf("%d of %d", m.clippedSteps, m.trained)
	}
	if m.trained == 0 {
		meta["weights"] = "bundled checkpoint"
		meta["held_out_regime_accuracy"] = round4(m.meta.Float("regime_accuracy"))
		meta["held_out_next_mse"] = round4(m.meta.Float("next_mse"))
		meta["best_possible_mse"] = round4(m.meta.Float("best_mse"))
	} else {
		meta["weights"] = fmt.Sprintf("trained from scratch for %d steps (seed %d)", m.trained, m.seed)
	}
	day := map[string]any{"col_title": "day"} // the line panels' x axis, named in their tooltips
	meta["axes"] = map[string]any{"x": day, "regime_line": day}
	slowPart := make([]float64, T)
	for t := range T {
		slowPart[t] = data.RegimeDrift * m.series.Regime[t]
	}
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("slow_corr", slow), sim.Vector("fast_corr", fast),
			sim.Vector("regime_line", bullLine(m.series.Regime[:T])),
			sim.Vector("slow_part", slowPart),
		},
		Meta: meta,
	}
}

// weightShapes is the table of every layer's parameters and their shapes, read from
// the live model: layer 1 reads X_t (d numbers), so its input weights W_x· are d×h;
// every higher layer reads H_t^{(l−1)} (h numbers), so its W_x· are h×h; the
// recurrent weights W_h· are h×h and the biases 1×h in every layer; the output layer's
// W_hq is h×q and b_q 1×q.
func (m *deepModel) weightShapes() table {
	d, h := m.net.Net.InputSize(), zoo.DeepHidden
	size := func(n int) string { // a dimension in the lecture's letters
		switch n {
		case d:
			return "d"
		case h:
			return "h"
		}
		return "q"
	}
	tab := table{Title: fmt.Sprintf("the weights of each layer and their shapes (d = %d, h = %d, q = %d)", d, h, m.net.Out.W.Value.RawMatrix().Cols),
		Head: []string{"input weights", "recurrent weights", "biases", "numbers"}}
	group := func(ps models.Params, prefix string) (cells [3][]string, shape [3]string, count int) {
		for _, p := range ps {
			name := strings.TrimPrefix(p.Name, prefix)
			r, c := p.Value.Dims()
			count += r * c
			k := 2 // a bias
			switch {
			case strings.HasPrefix(name, "W_x"), name == "W":
				k = 0
			case strings.HasPrefix(name, "W_h"):
				k = 1
			}
			sym := name
			switch name { // the output layer's, in the lecture's names
			case "W":
				sym = "W_hq"
			case "b":
				sym = "b_q"
			}
			cells[k] = append(cells[k], sym)
			shape[k] = fmt.Sprintf("%d × %d (%s × %s)", r, c, size(r), size(c))
			if k == 2 {
				shape[k] = fmt.Sprintf("%d × %d", r, c)
			}
		}
		return cells, shape, count
	}
	row := func(label string, ps models.Params, prefix string) {
		cells, shape, count := group(ps, prefix)
		r := tableRow{Label: label}
		for k := range cells {
			text := "—"
			if len(cells[k]) > 0 {
				text = strings.Join(cells[k], ", ")
			}
			r.Cells = append(r.Cells, tableCell{Text: text, Sub: shape[k]})
		}
		r.Cells = append(r.Cells, tableCell{Text: strconv.Itoa(count)})
		tab.Rows = append(tab.Rows, r)
	}
	for l, c := range m.net.Net.Layers {
		row(fmt.Sprintf("layer %d", l+1), c.Params(), "")
	}
	row("output", m.net.Out.Params(), "out.")
	return tab
}

// firstForecast is x̂_1, the forecast of day 1 "made on day 0": the output from the
// initial state H_0^{(L)} = 0, which is b_q's first entry.
func (m *deepModel) firstForecast() float64 {
	return m.net.Out.Forward(mat.NewDense(1, zoo.DeepHidden, nil)).At(0, 0)
}

func bullLine(r []float64) []float64 {
	out := make([]float64, len(r))
	for i, x := range r {
		out[i] = models.Indicator(x > 0)
	}
	return out
}

func switches(r []float64) int {
	n := 0
	for t := 1; t < len(r); t++ {
		if r[t] != r[t-1] {
			n++
		}
	}
	return n
}

// layerSummary says in words which layer follows which time scale most closely.
func layerSummary(slow, fast []float64) string {
	if len(slow) == 1 {
		return fmt.Sprintf("one layer carries both: mean |corr| %.2f with the regime, %.2f with the day-to-day move", slow[0], fast[0])
	}
	top := len(slow) - 1
	return fmt.Sprintf("layer 1: |corr| %.2f with the regime, %.2f with the day-to-day move; layer %d (top): %.2f and %.2f",
		slow[0], fast[0], top+1, slow[top], fast[top])
}

func (m *deepModel) At(t int) sim.Frame {
	r := m.states()
	L := m.net.Layers()
	flat := make([]float64, 0, L*zoo.DeepHidden)
	for _, h := range r.States[t-1] {
		flat = append(flat, h...)
	}
	s := m.series
	meta := map[string]any{
		"day":        t,
		"x_t":        round4(s.X[t-1]),
		"regime":     regimeName(s.Regime[t-1]),
		"P(bull)":    round4(r.PBull[t-1]),
		"prediction": regimeName(r.PBull[t-1] - 0.5),
		"correct":    (r.PBull[t-1] > 0.5) == s.Bull(t-1),
		"x_hat_next": round4(r.Next[t-1]),
	}
	forecast := m.firstForecast() // x̂_t, made on day t − 1
	if t > 1 {
		forecast = r.Next[t-2]
	}
	arrays := []sim.Array{
		sim.Matrix("H", L, zoo.DeepHidden, flat),
		sim.Vector("x", []float64{s.X[t-1]}),
		sim.Vector("p_bull", []float64{r.PBull[t-1]}),
		sim.Vector("x_hat", []float64{forecast}),         // drawn at day t against x_t
		sim.Vector("x_hat_next", []float64{r.Next[t-1]}), // x̂_{t+1}, made today: the equation's symbol
	}
	return sim.Frame{Arrays: arrays, Meta: meta}
}

// TrainStep trains from scratch: the first call replaces the bundled weights by fresh
// ones drawn from the seed (same cell and L), then every call is one minibatch of Adam.
func (m *deepModel) TrainStep() (sim.Frame, error) {
	rng := m.stream(m.seed, func() {
		m.net = zoo.NewMarketModel(m.net.Kind, m.net.Layers(), m.seed)
		m.net.Clip = m.clip
	})
	loss, acc := m.net.TrainStep(rng)
	m.lastNorm, m.maxNorm = m.net.GradNorm, max(m.maxNorm, m.net.GradNorm)
	if m.net.Clipped {
		m.clippedSteps++
	}
	m.run, m.scores = nil, nil
	return m.progress(loss, map[string]any{"regime_accuracy": round4(acc)})
}

var deepLesson = &Lesson{
	Slug:    "deep-rnn",
	Short:   "Deep RNNs",
	Section: "4.5",
	Title:   "Deep recurrent neural networks",
	Summary: "Stack recurrent layers on a bull/bear market series and see which layer follows the slow regime and which the day-to-day moves.",
	Prose: []string{
		`A deep RNN stacks recurrent layers. Layer 1 reads the input \(X_t\); every higher layer reads the hidden state of the layer below at the same step, \(H_t^{(l-1)}\), and its own previous state \(H_{t-1}^{(l)}\). So each state \(H_t^{(l)}\) is sent two ways: to the right, to the same layer's next step, and up, to the next layer's same step. Only the top layer feeds the output. In the graph below each layer is a row; follow the arrows of the highlighted column.`,
		`Why stack? Different layers can keep different kinds of information. The lecture's example is a market: whether we are in a bull or a bear market changes rarely, while prices move every day. The series here is generated that way: a slow regime \(r_t = \pm 1\) that flips on about one day in 25 and shifts the mean daily move to \(\pm 0.5\), plus a fast day-to-day component \(f_t\) that partly undoes the previous day's move, \(x_t = 0.5\,r_t + f_t\). The model reads one \(x_t\) per day and, from its top layer, forecasts tomorrow's move \(\hat x_{t+1}\) and the probability that today is a bull market.`,
		`Which layer tracks which? The bars show, per layer, how closely its units follow the regime \(r_t\) and the fast component \(f_t\) (the mean of \(|\mathrm{corr}|\) over the units, measured on 20 held-out series). What the trained models actually do: every layer carries some of both, but in every stack of two or three layers the top layer's units follow the day-to-day component less than layer 1's do, and the regime as closely or more (higher in five of the six stacks): layer 1 mixes the fast moves into most of its units. It is a tendency, not a clean split: with \(h = 8\) units per layer nothing forces one layer per time scale, and a single layer already solves this task about as well (see the held-out scores in the facts).`,
		`<b>The weights of each layer.</b> Layer 1 reads \(X_t\), \(d\) numbers a day (here \(d = 1\), the move \(x_t\)), so its input weights \(W_{xh}^{(1)}\) are \(d \times h\); every higher layer reads the \(h\) numbers of \(H_t^{(l-1)}\), so its \(W_{xh}^{(l)}\) is \(h \times h\) (lecture 000 writes \(h \times h\) for every layer, which holds only when \(d = h\)). The recurrent weights \(W_{hh}^{(l)}\) are \(h \times h\) and the biases \(b_h^{(l)}\) are \(1 \times h\) in every layer, and the output reads the top layer only: \(W_{hq}\) is \(h \times q\). A GRU has such a pair of weights and a bias for each gate and its candidate, an LSTM for each of its four. The table lists them, read from the model on the page.`,
		`<b>Why a deep RNN needs care</b> (lecture 004). The gradient that trains layer 1 comes down through every layer above it at each step and back through time within each layer: a product of Jacobians along both axes, which can shrink to nothing or blow up faster than in one layer. So initialisation, learning rate and clipping matter more. The stacks here start from small weights, every weight and bias of a layer drawn from \(U(-1/\sqrt{h}, 1/\sqrt{h})\); they train with Adam at \(\eta = 0.01\); and before each step the gradient \(g\) is scaled down to norm \(\theta = 5\) if it is longer. On this small task with these settings the safety net is not needed: trained from scratch at seed 1, every cell and depth keeps \(\|g\|\) below 1 over its first 200 steps, far under \(\theta\). While you train, the facts give \(\|g\|\) and how many steps were clipped; lower the clipping threshold \(\theta\) below those norms (0.2, say) and train again to watch the net catch steps.`,
		`Change \(L\), the cell or the seed for a new series. The lecture writes layer \(l\)'s step for the tanh RNN, \(\phi_l = \tanh\); a deep GRU or LSTM replaces it by the gated step of lectures 4.3 and 4.4, with \(H_t^{(l-1)}\) in place of \(X_t\), and the equation shows the chosen cell's. <b>Train from scratch</b> retrains the chosen stack live.`,
	},
	Equations: []Equation{
		{TeX: `H_t^{(0)} = \htmlClass{sym-x}{X_t} = x_t`, Symbols: []Symbol{{ID: "x", Array: "x"}}},
		{TeX: deepStepTeX[string(models.KindRNN)], Symbols: []Symbol{{ID: "H", Array: "H"}}, Param: "cell", Variants: deepStepTeX},
		{TeX: `O_t = H_t^{(L)} W_{hq} + b_q = (\htmlClass{sym-x_hat}{\hat x_{t+1}},\ o_t), \qquad \htmlClass{sym-p_bull}{P(\mathrm{bull})} = \sigma(o_t)`, Symbols: []Symbol{{ID: "x_hat", Array: "x_hat_next"}, {ID: "p_bull", Array: "p_bull"}}},
	},
	Arrays: []Array{
		{Name: "H", Label: `\(H_t^{(l)}\)`, Axes: []Axis{Layers, Units}, PerStep: true},
		{Name: "slow_corr", Label: `\(|\mathrm{corr}|\) with the slow part`, Axes: []Axis{Layers}},
		{Name: "fast_corr", Label: `\(|\mathrm{corr}|\) with the fast part`, Axes: []Axis{Layers}},
		{Name: "x", Label: `\(x_t\)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "slow_part", Label: "slow part of x", Axes: []Axis{Time}},
		{Name: "x_hat", Label: `\(\hat{x}_t\)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "x_hat_next", Label: `\(\hat{x}_{t+1}\)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "regime_line", Label: "regime (bull = 1)", Axes: []Axis{Time}},
		{Name: "p_bull", Label: `\(P(\text{bull})\)`, Axes: []Axis{Scalar}, PerStep: true},
	},
	Loss:  "loss_curve",
	Stage: []string{"H", "graph"},
	Panels: []Panel{
		{ID: "graph", Static: []string{"tokens"}, Kind: Graph, Title: `the layers × time grid \(H_t^{(l)}\)`, Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H",
			Note: "Each state feeds the next step of its layer (→) and the same step of the layer above (↑); the output reads the top layer."},
		{ID: "H", Static: []string{"tokens"}, Kind: Heatmap, Title: `hidden states \(H_t^{(l)}\), one block per layer`, Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H",
			Note: "Slow units keep one colour through a whole regime; fast ones flicker from day to day."},
		{ID: "layers", Static: []string{"axes"}, Kind: Bars, Title: `per layer: mean \(|\mathrm{corr}|\) with the regime \(r_t\) and with the fast part \(f_t\)`, Arrays: []string{"slow_corr", "fast_corr"}, Legend: []string{"with the regime rₜ", "with the fast part fₜ"}, Scale: []float64{0, 1},
			Note: "Measured on 20 held-out series of 200 days; the facts list the numbers."},
		{ID: "x", Static: []string{"axes"}, Kind: Line, Title: `the move \(x_t = 0.5\,r_t + f_t\) and its slow part \(0.5\,r_t\)`, Arrays: []string{"x", "slow_part"}, Legend: []string{"move xₜ", "slow part 0.5·rₜ"}, Symbol: "x",
			Note: `The regime sets the mean; the fast part \(f_t\) swings around it and partly undoes the previous day's move.`},
		{ID: "forecast", Static: []string{"axes"}, Kind: Line, Title: `the forecast \(\hat x_t\) made the day before, against the move \(x_t\) that came`, Arrays: []string{"x", "x_hat"}, Legend: []string{"move xₜ", "forecast x̂ₜ (made on day t−1)"}, Symbol: "x_hat",
			Note: `\(\hat{x}_1\) is the forecast from the initial state \(H_0 = 0\), the bias \(b_q\).`},
		{ID: "shapes", Static: []string{"shapes"}, Kind: Table, Title: `the parameters of each layer: \(W_{xh}^{(1)}\) is \(d \times h\), \(W_{xh}^{(l)}\) for \(l > 1\) is \(h \times h\)`,
			Note: "Read from the live model. A GRU has three input and three recurrent weights per layer, an LSTM four of each."},
		{ID: "regime", Static: []string{"axes"}, Kind: Line, Title: `bull market (1) or bear (0), and the model's \(P(\mathrm{bull})\)`, Arrays: []string{"regime_line", "p_bull"}, Legend: []string{"bull (1) or bear (0)", "P(bull)"}, Scale: []float64{0, 1}, Symbol: "p_bull"},
	},
	Params: sim.Specs{
		{Name: "layers", Label: "layers", Symbol: "L", Kind: sim.Int, Default: "3", Min: 1, Max: zoo.DeepMaxLayers, Step: 1,
			Help: "Each L has its own trained stack."},
		{Name: "cell", Label: "cell", Kind: sim.Choice, Default: string(zoo.DeepKinds[0]), Choices: zoo.DeepKinds,
			Help: "rnn: the lecture's tanh step; gru and lstm: gated cells in every layer."},
		{Name: "seed", Label: "seed", Kind: sim.Int, Default: "1", Min: 1, Max: maxSeed, Step: 1,
			Help: "A new market series (and the random start of training from scratch)."},
		{Name: "length", Label: "days", Symbol: "T", Kind: sim.Int, Default: "80", Min: 30, Max: 160, Step: 10},
		{Name: "clip", Label: "clipping threshold", Symbol: `\theta`, Kind: sim.Float, Default: strconv.FormatFloat(zoo.DeepClip, 'g', -1, 64), Min: deepClipMin, Max: zoo.DeepClip, Step: deepClipStep, Advanced: true,
			Help: "When you train from scratch, each step's gradient is scaled down to this norm if it is longer (the bundled stacks trained with the largest value)."},
	},
	Plots: []Plot{
		{Name: "layers", Title: `mean |corr| of the units of \(H_t^{(l)}\) with \(r_t\) and \(f_t\), per layer \(l\)`, XLabel: `layer \(l\)`, YLabel: "mean |corr| over units",
			Series: func(sm sim.Model) []Series {
				m := sm.(*deepModel)
				slow, fast, _ := m.layerScores()
				s := Series{Label: `slow regime \(r_t\)`}
				f := Series{Label: `fast part \(f_t\)`}
				for l := range slow {
					s.X, f.X = append(s.X, float64(l+1)), append(f.X, float64(l+1))
					s.Y, f.Y = append(s.Y, slow[l]), append(f.Y, fast[l])
				}
				return []Series{s, f}
			}},
		{Name: "regime", Title: "bull market and P(bull) from the top layer", XLabel: `day \(t\)`, YLabel: "probability",
			Series: func(sm sim.Model) []Series {
				m := sm.(*deepModel)
				r := m.states()
				truth := Series{Label: "bull market (1) or bear (0)"}
				p := Series{Label: "P(bull)"}
				for t := range m.Steps() {
					truth.X, p.X = append(truth.X, float64(t+1)), append(p.X, float64(t+1))
					truth.Y, p.Y = append(truth.Y, models.Indicator(m.series.Bull(t))), append(p.Y, r.PBull[t])
				}
				return []Series{truth, p}
			}},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/deep-rnn.html"), Scripts: []string{nnScript, lectureGRUScript}},
	Build:   buildDeep,
	Facts:   deepFacts,
	Trains:  true,
	// 5000: 4.3 ms a step on one core for three LSTM layers, 21 s (2 ms at the defaults); the bundled models took DeepTrainSteps = 800.
	MaxTrained: 5000,
	Largest:    sim.Values{"length": "160", "cell": "lstm", "layers": "3"},
	// 300 KB measured at 160 days of three LSTM layers, 155 KB at the defaults: the cached frames.
	SessionBytes: 480 << 10,
	// 55 KB measured (its own stack from the seed, Adam's moments, the held-out scores) and a loss curve of 5000 steps.
	TrainedBytes: 272 << 10,
}

// deepStepTeX is layer l's step H_t^{(l)} = f_l(H_t^{(l−1)}, H_{t−1}^{(l)}) for each
// cell the page offers, in the lecture's symbols (4.3–4.5) and as models computes it:
// eq. 6 with φ_l = tanh, or the GRU's or the LSTM's gated step reading H_t^{(l−1)} in
// place of X_t (models.GRU is the lecture's form, the reset gate before W_hh).
var deepStepTeX = map[string]string{
	string(models.KindRNN): `\htmlClass{sym-H}{H_t^{(l)}} = \tanh(H_t^{(l-1)} W_{xh}^{(l)} + H_{t-1}^{(l)} W_{hh}^{(l)} + b_h^{(l)}), \quad l = 1, \dots, L`,
	string(models.KindGRU): `\begin{aligned} R_t^{(l)} &= \sigma(H_t^{(l-1)} W_{xr}^{(l)} + H_{t-1}^{(l)} W_{hr}^{(l)} + b_r^{(l)}) \\ Z_t^{(l)} &= \sigma(H_t^{(l-1)} W_{xz}^{(l)} + H_{t-1}^{(l)} W_{hz}^{(l)} + b_z^{(l)}) \\ ` +
		`\tilde H_t^{(l)} &= \tanh(H_t^{(l-1)} W_{xh}^{(l)} + (R_t^{(l)} \odot H_{t-1}^{(l)}) W_{hh}^{(l)} + b_h^{(l)}) \\ ` +
		`\htmlClass{sym-H}{H_t^{(l)}} &= Z_t^{(l)} \odot H_{t-1}^{(l)} + (1 - Z_t^{(l)}) \odot \tilde H_t^{(l)}, \quad l = 1, \dots, L \end{aligned}`,
	string(models.KindLSTM): `\begin{aligned} I_t^{(l)} &= \sigma(H_t^{(l-1)} W_{xi}^{(l)} + H_{t-1}^{(l)} W_{hi}^{(l)} + b_i^{(l)}) \\ F_t^{(l)} &= \sigma(H_t^{(l-1)} W_{xf}^{(l)} + H_{t-1}^{(l)} W_{hf}^{(l)} + b_f^{(l)}) \\ ` +
		`O_t^{(l)} &= \sigma(H_t^{(l-1)} W_{xo}^{(l)} + H_{t-1}^{(l)} W_{ho}^{(l)} + b_o^{(l)}) \\ \tilde C_t^{(l)} &= \tanh(H_t^{(l-1)} W_{xc}^{(l)} + H_{t-1}^{(l)} W_{hc}^{(l)} + b_c^{(l)}) \\ ` +
		`C_t^{(l)} &= F_t^{(l)} \odot C_{t-1}^{(l)} + I_t^{(l)} \odot \tilde C_t^{(l)} \\ \htmlClass{sym-H}{H_t^{(l)}} &= O_t^{(l)} \odot \tanh(C_t^{(l)}), \quad l = 1, \dots, L \end{aligned}`,
}

// deepFacts labels the page's facts in the lecture's words.
var deepFacts = factTable{
	static: []fact{
		{key: "cell", label: "cell"},
		{key: "layers", label: "layers L"},
		{key: "hidden", label: "hidden units h per layer"},
		{key: "params", label: "parameters"},
		{key: "regime_switches", label: "regime switches"},
		{key: "held_out_regime_accuracy", label: "held-out regime accuracy", measured: true},
		{key: "held_out_next_mse", label: "held-out next-value MSE", measured: true},
		{key: "best_possible_mse", label: "best possible MSE", measured: true},
		{key: "what_layers_show", label: "what the layers show"},
		{key: "weights", label: "weights"},
		{key: "initialisation", label: "initialisation"},
		{key: "optimiser", label: "optimiser"},
		{key: "clipping", label: "gradient clipping"},
		{key: "gradient_norm", label: `gradient norm \(\|g\|\) before clipping`},
		{key: "clipped_steps", label: "steps clipped"},
	},
	step: []fact{
		{key: "day", label: "day t"},
		{key: "x_t", label: `today's value \(x_t\)`, measured: true},
		{key: "x_hat_next", label: `forecast \(\hat{x}_{t+1}\)`, measured: true},
		{key: "regime", label: "regime"},
		{key: "prediction", label: "predicted regime"},
		{key: "P(bull)", label: "P(bull)", measured: true},
		{key: "correct", label: "right"},
	},
}
