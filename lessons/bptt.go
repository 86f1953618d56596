package lessons

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
)

// Sizes of the BPTT lesson's vanilla RNN.
const (
	bpttHidden = 16 // h: a heatmap column a student can still read
	bpttInput  = 4  // d: the inputs only drive the state; their meaning does not matter
)

// bpttRhoMax is the largest spectral radius ρ on the slider: 1.5 already explodes by
// 1.5^30 ≈ 2·10⁵ over the default T = 30.
const bpttRhoMax = 1.5

// bpttJacobianScale is the Jacobian-norm panel's fixed y axis. Every activation has
// γ ≤ 1, so ‖∂H_t/∂H_{t−1}‖₂ ≤ ργ ≤ bpttRhoMax for every setting, and 1.6 leaves the
// curve at the largest ρ off the frame; the axis always shows 0 and 1, so a dip from 1
// to 0.985 looks as small as it is.
var bpttJacobianScale = []float64{0, 1.6}

// The per-step arrays of the backward pass. Their names contain "back": the page
// places a backward array's step s at time t = 2T + 1 − s (static/js/panels/common.js),
// so the backward pass fills its columns from t = T down to 1.
const (
	bpttGradArray     = "dH_back"        // ∂L/∂H_t
	bpttGradNormArray = "grad_norm_back" // ‖∂L/∂H_t‖
	bpttClippedArray  = "clipped_back"   // 1 where clipping fired at t
	bpttCutArray      = "cut_back"       // 1 where truncation cut t off
	bpttProdNormArray = "prod_norm_back" // ‖∂H_T/∂H_t‖₂ = ‖∏J‖
	bpttNormProdArray = "norm_prod_back" // ∏‖J‖
	bpttTermArray     = "term_back"      // ‖step t's term of ∂L/∂W_hh‖_F
)

// bpttShortTerm is how many of the last steps count as short-term (t > T − 5) when
// the facts split ∂L/∂W_hh: the shortest sequence (T = 5) is all short-term.
const bpttShortTerm = 5

// bpttAlphaMin is the smallest leak α on the slider: at α = 0 the state never
// changes and no input reaches it; 0.05 keeps 95 % of the state each step.
const bpttAlphaMin = 0.05

// The two places clipping can act (the "clip_on" parameter).
const (
	bpttClipState  = "state"  // ∂L/∂H_t at every step of the walk back
	bpttClipParams = "params" // the parameter gradient g, once, after the walk (lecture 000)
)

var bpttLesson = &Lesson{
	Slug:    "bptt",
	Short:   "BPTT",
	Section: "4.2", // between RNN basics (4.1) and the GRU (4.3); the material is lecture 002 (LSE ST449 lecture 5)
	Title:   "Backpropagation through time: vanishing and exploding gradients",
	Summary: `Run a vanilla RNN forward, then watch the gradient travel back from step T to step 1 and shrink or blow up with the spectral radius of \(W_{hh}\).`,
	Prose: []string{
		`Training an RNN means differentiating through the unrolled graph. The forward pass computes \(H_1, \dots, H_T\); the backward pass starts from the loss at the last step and walks back, one step at a time, multiplying the gradient by the Jacobian \(\partial H_t / \partial H_{t-1}\) of each step it crosses. Step through both passes: the first \(T\) steps of the scrubber are the forward pass, the next \(T\) the backward pass from \(t = T\) down to \(t = 1\).`,
		`The loss here reads only the last state, \(L = H_T u^\top\) with a fixed unit vector \(u\), so \(\partial L / \partial H_T = u\) has norm exactly 1 and every other norm you see is the product of Jacobians itself. The norms are absolute and drawn on a log scale: nothing is rescaled.`,
		`The recurrent matrix is a random orthogonal matrix times \(\rho\), so its spectral radius is exactly \(\rho(W_{hh}) = \rho\) and so is its norm. Each Jacobian is \(\mathrm{diag}(\phi'(A_t))\,W_{hh}^\top\), whose norm is at most \(\rho\gamma\), where \(\gamma\) is the activation's largest slope (1 for identity, tanh and ReLU). Over \(T - t\) steps the gradient of the plain RNN (\(\alpha = 1\) below, so \(\beta = \rho\gamma\)) can therefore grow or shrink by at most \((\rho\gamma)^{T-t}\): below 1 it vanishes geometrically, above 1 it can explode. With the identity activation the bound is met exactly; tanh and ReLU stay below it, because their slope is often less than 1 (tanh saturates, ReLU cuts off negative units).`,
		`Why does the gradient fall with tanh at \(\rho = 1\) when every factor has \(\lVert \partial H_t/\partial H_{t-1} \rVert_2 \approx 1\)? A matrix norm is the largest stretch in any direction, and the norm of a product is at most the product of the norms, \(\lVert \prod J \rVert \le \prod \lVert J \rVert\), not equal to it. Each factor \(\mathrm{diag}(\phi'(A_t))\,W_{hh}^\top\) keeps length along the few directions where the units are not saturated (\(\tanh' \approx 1\)) and shrinks the others (\(\tanh' < 1\)); \(W_{hh}\) then turns the vector, so the next factor shrinks a different part of it. The log plot draws both: \(\prod \lVert J \rVert\) stays near 1 while \(\lVert \partial H_T/\partial H_t \rVert_2 = \lVert \prod J \rVert\) falls, and \(\lVert \partial L/\partial H_t \rVert\) lies under it.`,
		`The gradient of a weight collects one term from every step: \(\partial L/\partial W_{hh} = \sum_t H_{t-1}^\top\,(\partial L/\partial A_t)\), where the factor at step \(t\) has come back through the product of the Jacobians from \(T\) down to \(t\). (The notes sum over every loss term and every earlier step; this loss has only the one at \(T\).) Terms with \(t\) near \(T\) are the short-term contributions, those far back the long-term ones; when the gradient vanishes, the long-term terms are tiny and the weight update learns only from the last few steps. The terms panel draws each term's size as the backward pass reaches it, the facts give the norm of the last five steps' sum against the rest, and, at each step of the backward pass, the norm of what the sum has collected so far.`,
		`Two remedies are on the sliders. Truncated BPTT with window \(k\) stops the gradient after \(k\) steps: the earlier steps get nothing at all (they are missing from the log plot, and the gradient heatmap hatches their columns, unlike steps not computed yet). Clipping with threshold \(\theta\), \(g \leftarrow \min(1, \theta/\lVert g \rVert)\,g\), acts on one of two vectors, as the <i>clip what</i> setting chooses: <i>params</i> is the usual form, the d2l course's that lecture 000 builds on, where \(g\) is the gradient of all the weights together, clipped once after the backward pass, leaving \(\partial L/\partial H_t\) untouched; <i>state</i> clips \(g = \partial L/\partial H_t\) at every step of the walk back, so a marker shows each step where it fired. The facts say which is on. Clipping tames explosion but cannot bring back a gradient that has vanished.`,
		`The notes list three ways to let a recurrent network work on several time scales: skip connections through time (a connection from \(H_{t-d}\) straight to \(H_t\), so the gradient crosses \(d\) steps in one factor), leaky units, and removing the short connections so that some units only see far steps. Leaky units are live here, on the slider \(\alpha\) (the other two are not): \(H_t = (1-\alpha) H_{t-1} + \alpha\,\phi(X_t W_{xh} + H_{t-1} W_{hh} + b_h)\). Their Jacobian is \((1-\alpha) I + \alpha\,\mathrm{diag}(\phi'(A_t))\,W_{hh}^\top\): the identity part carries every direction back unshrunk, so with tanh at \(\rho = 1\) a small \(\alpha\) keeps \(\lVert \partial L/\partial H_1 \rVert\) far from zero, and the bound becomes \(\beta^{T-t}\) with \(\beta = 1 - \alpha + \alpha\rho\gamma\). At \(\alpha = 1\) this is the plain RNN.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-H}{H_t} = \phi(X_t W_{xh} + H_{t-1} W_{hh} + b_h)`, Symbols: []Symbol{{ID: "H", Array: "H"}}},
		{TeX: `\htmlClass{sym-dH}{\frac{\partial L}{\partial H_{t-1}}} = \frac{\partial L}{\partial H_t}\,\htmlClass{sym-J}{\frac{\partial H_t}{\partial H_{t-1}}}, \qquad \frac{\partial H_t}{\partial H_{t-1}} = \mathrm{diag}(\phi'(A_t))\,W_{hh}^\top`,
			Symbols: []Symbol{{ID: "dH", Array: bpttGradArray}, {ID: "J", Array: "jacobian_norm"}}},
		{TeX: `\left\lVert \frac{\partial L}{\partial H_t} \right\rVert \le \htmlClass{sym-P}{\lVert J_T \cdots J_{t+1} \rVert_2} \le \htmlClass{sym-PN}{\lVert J_T \rVert_2 \cdots \lVert J_{t+1} \rVert_2} \le \htmlClass{sym-bound}{\beta^{T-t}}`,
			Symbols: []Symbol{{ID: "P", Array: bpttProdNormArray}, {ID: "PN", Array: bpttNormProdArray}, {ID: "bound", Array: "bound"}}},
		{TeX: `J_r = \frac{\partial H_r}{\partial H_{r-1}}, \qquad \beta = 1 - \alpha + \alpha\,\rho(W_{hh})\,\gamma`},
		{TeX: `\frac{\partial L}{\partial W_{hh}} = \sum_{t=1}^{T} \htmlClass{sym-term}{H_{t-1}^\top \frac{\partial L}{\partial A_t}}`,
			Symbols: []Symbol{{ID: "term", Array: bpttTermArray}}},
		{TeX: `\frac{\partial L}{\partial A_t} = \frac{\partial L}{\partial H_T} \prod_{r=T}^{t+1} \frac{\partial H_r}{\partial H_{r-1}} \, \mathrm{diag}(\phi'(A_t))`},
	},
	Arrays: []Array{
		{Name: "H", Label: `\(H_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "dH_back", Label: `\(\partial L/\partial H_t\)`, Axes: []Axis{Units}, PerStep: true, Dir: Backward},
		{Name: "grad_norm_back", Label: `\(\|\partial L/\partial H_t\|\)`, Axes: []Axis{Scalar}, PerStep: true, Dir: Backward},
		{Name: "clipped_back", Label: "clipping fired", Axes: []Axis{Scalar}, PerStep: true, Dir: Backward, Marker: true},
		{Name: bpttCutArray, Label: "cut by truncation", Axes: []Axis{Scalar}, PerStep: true, Dir: Backward, Marker: true},
		{Name: bpttProdNormArray, Label: `\(\|\partial H_T/\partial H_t\|_2\)`, Axes: []Axis{Scalar}, PerStep: true, Dir: Backward},
		{Name: bpttNormProdArray, Label: `\(\prod_{r>t} \|\partial H_r/\partial H_{r-1}\|_2\)`, Axes: []Axis{Scalar}, PerStep: true, Dir: Backward},
		{Name: bpttTermArray, Label: `\(\|H_{t-1}^\top \partial L/\partial A_t\|\)`, Axes: []Axis{Scalar}, PerStep: true, Dir: Backward},
		{Name: "bound", Label: `\(\beta^{T-t}\), \(\beta = 1-\alpha+\alpha\rho(W_{hh})\gamma\)`, Axes: []Axis{Time}},
		{Name: "jacobian_norm", Label: `\(\|\partial H_t/\partial H_{t-1}\|_2\)`, Axes: []Axis{Time}},
		{Name: "jacobian_bound", Label: `\(\beta = 1-\alpha+\alpha\rho(W_{hh})\gamma\)`, Axes: []Axis{Time}},
	},
	Stage: []string{"H", "grad-norms", "dH"}, // the forward pass fills H; in the backward pass H has nothing new and yields its place (static/js/stage.js): the norms lead, then ∂L/∂H_t
	Panels: []Panel{
		{ID: "H", Static: []string{"scales"}, Kind: Heatmap, Title: `hidden state \(H_t\), \(t = 1, \dots, T\)`, Arrays: []string{"H"}, Symbol: "H",
			Note: `Filled by the forward pass, left to right. With tanh the values stay in (−1, 1); identity and ReLU are unbounded, and their colour scale is fixed for the run at the largest \(|H_t|\).`},
		{ID: "dH", Static: []string{"scales"}, Kind: Heatmap, Title: `gradient \(\partial L / \partial H_t\), \(t = 1, \dots, T\)`, Arrays: []string{bpttGradArray, bpttCutArray}, Symbol: "dH",
			Note: `Filled by the backward pass from t = T down to 1. One colour scale for the whole run: ± the largest \(|\partial L/\partial H_t|\) entry over all \(t\), so an explosion shows as colour. Hatched columns were cut off by truncation (no gradient reaches them); plain grey columns are not computed yet.`},
		{ID: "grad-norms", Static: []string{"scales"}, Kind: Line, Title: `\(\lVert \partial L / \partial H_t \rVert\), \(\lVert \prod J \rVert\) and \(\prod \lVert J \rVert\) so far, and the bound for every t`, Arrays: []string{bpttGradNormArray, bpttProdNormArray, bpttNormProdArray, "bound", bpttClippedArray}, Legend: []string{`\(\|\partial L/\partial H_t\|\) (reached)`, `\(\|\prod J\|\), norm of the product`, `\(\prod \|J\|\), product of the norms`, `bound \(\beta^{T-t}\)`, "clipping fired"}, LogY: true, Symbol: "bound", Also: []string{"P", "PN"},
			Note: "Log scale, absolute values, against t. The three measured curves appear as the backward pass reaches each t; the bound is known in advance and drawn whole. ∏‖J‖ stays near the bound while ‖∏J‖ falls: the gap is the directions the factors shrink. Markers: where clipping of ∂L/∂Hₜ fired."},
		{ID: "terms", Static: []string{"scales"}, Kind: Line, Title: `the terms of \(\partial L/\partial W_{hh}\), one per time step`, Arrays: []string{bpttTermArray}, Legend: []string{`\(\|H_{t-1}^\top\,\partial L/\partial A_t\|\) (reached)`}, LogY: true, Symbol: "term",
			Note: "Log scale, against t. Short-term terms (t near T) on the right, long-term ones on the left; a vanishing gradient leaves the left ones orders of magnitude smaller. Truncated steps have no term and no point, and neither has t = 1: its term is H₀ᵀ(…) with H₀ = 0."},
		{ID: "jacobian", Kind: Line, Title: `\(\lVert \partial H_t / \partial H_{t-1} \rVert_2\) per time step and its bound \(\beta\)`, Arrays: []string{"jacobian_norm", "jacobian_bound"}, Legend: []string{`\(\|\partial H_t/\partial H_{t-1}\|_2\)`, `bound \(\beta\) = \(1-\alpha+\alpha\rho(W_{hh})\gamma\)`}, Scale: bpttJacobianScale, Symbol: "J",
			Note: "Each factor of the product; the gradient shrinks where it is below 1. The axis is fixed from 0 to 1.6, above the largest ργ (1.5) the sliders allow."},
	},
	Params: sim.Specs{
		{Name: "rho", Label: "spectral radius", Kind: sim.Float, Default: "1", Min: 0.5, Max: bpttRhoMax, Step: 0.05, Symbol: `\rho(W_{hh})`,
			Help: `\(W_{hh}\) is a random orthogonal matrix times \(\rho\).`},
		{Name: "activation", Label: "activation", Kind: sim.Choice, Default: "tanh", Choices: []string{"tanh", "relu", "identity"}, Symbol: `\phi`},
		{Name: "T", Label: "sequence length", Kind: sim.Int, Default: "30", Min: 5, Max: 100, Step: 1, Symbol: "T"},
		{Name: "truncate", Label: "truncation window (0 = full BPTT)", Kind: sim.Int, Default: "0", Min: 0, Max: 100, Step: 1, Symbol: "k"},
		{Name: "clip", Label: "clipping threshold (0 = off)", Kind: sim.Float, Default: "0", Min: 0, Max: 100, Step: 0.5, Symbol: `\theta`},
		{Name: "clip_on", Label: "clip what", Kind: sim.Choice, Default: bpttClipState, Choices: []string{bpttClipState, bpttClipParams},
			Help: `state: \(\partial L/\partial H_t\) at every step; params: the gradient of all the weights, once, after the backward pass.`},
		{Name: "alpha", Label: "leak (1 = plain RNN)", Kind: sim.Float, Default: "1", Min: bpttAlphaMin, Max: 1, Step: 0.05, Symbol: `\alpha`,
			Help: `\(H_t = (1-\alpha)H_{t-1} + \alpha\,\phi(\cdot)\); at least 0.05, since at 0 no input reaches the state.`},
		seedSpec(1, `Draws \(W_{hh}\), the inputs and \(u\).`),
	},
	Plots: []Plot{
		{Name: "grad-norms", Title: `\(\|\partial L/\partial H_t\|\), \(\|\prod J\|_2\), \(\prod\|J\|_2\) and the bound \(\beta^{T-t}\)`, XLabel: `time step \(t\)`, YLabel: `\(\|\partial L/\partial H_t\|\)`, LogY: true,
			Series: func(m sim.Model) []Series {
				b := m.(*bpttModel)
				return []Series{positive(`\(\|\partial L/\partial H_t\|\)`, b.gradNorm), positive(`\(\|\prod J\|_2\)`, b.prodNorm), positive(`\(\prod \|J\|_2\)`, b.normProd), positive(`\(\beta^{T-t}\)`, b.bound)}
			}},
		// On the page's fixed axis (bpttJacobianScale): fitted to the data, a 1 % dip
		// filled the whole height.
		{Name: "jacobian", Title: `\(\|\partial H_t/\partial H_{t-1}\|_2\) per step`, XLabel: `time step \(t\)`, YLabel: "spectral norm", Scale: bpttJacobianScale,
			Series: func(m sim.Model) []Series {
				b := m.(*bpttModel)
				return []Series{positive(`\(\|\partial H_t/\partial H_{t-1}\|_2\)`, b.jacNorm), positive(`\(\beta = 1-\alpha+\alpha\rho\gamma\)`, constant(len(b.jacNorm), b.beta()))}
			}},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/bptt.html"), Scripts: []string{bpttScript}},
	Build:   buildBPTT,
	Facts:   bpttFacts,
	Largest: sim.Values{"T": "100"},
	// 526 KB measured at T = 100 (200 steps), 162 KB at the defaults: each build draws its own small RNN,
	// and every frame carries ∂L/∂H_t with six curves' values.
	SessionBytes: 640 << 10,
}

// positive is the curve y(t), t = 1..len(y), without its non-positive points (a log
// axis cannot show them: a truncated step's gradient is exactly 0).
func positive(label string, y []float64) Series {
	s := Series{Label: label}
	for i, v := range y {
		if v > 0 {
			s.X = append(s.X, float64(i+1))
			s.Y = append(s.Y, v)
		}
	}
	return s
}

func constant(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// newBPTTRand is the source of W_hh, the inputs and u for a seed.
func newBPTTRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xb977)) }

// bpttModel is the BPTT lesson's sim.Model: a forward pass of T steps, then the
// backward pass from T down to 1, as 2T scrubber steps over the T time steps.
type bpttModel struct {
	T, k          int
	rho, gamma    float64
	alpha         float64 // leak α of the units (1: the plain RNN)
	theta         float64
	clipOn        string // bpttClipState or bpttClipParams
	act           models.Activation
	cell          *models.RNN // W_xh, W_hh, b_h, φ and α (read-only once built)
	xs            [][]float64 // X_t, t = 1..T
	u             []float64   // L = H_T uᵀ
	measuredRho   float64
	hs, dHs       [][]float64 // H_t and ∂L/∂H_t (after clipping), t = 1..T
	gradNorm      []float64   // ‖∂L/∂H_t‖ flowing back from step t (0 where truncated)
	rawNorm       []float64   // the same before clipping
	jacNorm       []float64   // ‖∂H_t/∂H_{t−1}‖₂
	prodNorm      []float64   // ‖∂H_T/∂H_t‖₂, the norm of the product of the Jacobians
	normProd      []float64   // ∏_{r>t} ‖∂H_r/∂H_{r−1}‖₂, the product of their norms
	bound         []float64   // β^{T−t}
	term          []float64   // ‖step t's term of ∂L/∂W_hh‖_F (0 where truncated)
	collected     []float64   // ‖Σ_{s ≥ t} term_s‖_F: what ∂L/∂W_hh has collected when the walk reaches t
	clipped, cut  []bool
	paramGradNorm float64 // ‖∂L/∂W_hh‖_F as the update would use it (after clipping the parameters)
	paramRawNorm  float64 // ‖g‖ over W_xh, W_hh, b_h before clipping the parameters
	paramClipped  bool    // parameter clipping fired
	shortTerm     float64 // ‖Σ_{t > T−5} term_t‖_F
	longTerm      float64 // ‖Σ_{t ≤ T−5} term_t‖_F
}

// beta is β = 1 − α + αργ, the bound on every ‖∂H_t/∂H_{t−1}‖₂ of a leaky unit
// (ργ for the plain RNN, α = 1).
func (m *bpttModel) beta() float64 { return 1 - m.alpha + m.alpha*m.rho*m.gamma }

func buildBPTT(v sim.Values) (sim.Model, error) {
	act, err := models.ParseActivation(v.String("activation"))
	if err != nil {
		return nil, fmt.Errorf("the activation must be tanh, relu or identity")
	}
	m := &bpttModel{T: v.Int("T"), k: v.Int("truncate"), rho: v.Float("rho"), theta: v.Float("clip"), act: act, gamma: act.MaxSlope(),
		alpha: v.Float("alpha"), clipOn: v.String("clip_on")}
	if m.clipOn != bpttClipState && m.clipOn != bpttClipParams {
		return nil, fmt.Errorf("clip what must be %s or %s", bpttClipState, bpttClipParams)
	}
	seed := uint64(v.Int("seed"))
	rng := newBPTTRand(seed)
	cell := models.NewRNN(bpttInput, bpttHidden, act, rng)
	cell.SetLeak(m.alpha)
	models.Orthogonal(cell.Whh, m.rho, rng)
	m.measuredRho = models.SpectralRadius(cell.Whh.Value)
	xs := make([]*mat.Dense, m.T)
	for t := range xs {
		x := mat.NewDense(1, bpttInput, nil)
		for j := range bpttInput {
			x.Set(0, j, rng.NormFloat64())
		}
		xs[t] = x
	}
	u := mat.NewDense(1, bpttHidden, nil)
	for j := range bpttHidden {
		u.Set(0, j, rng.NormFloat64())
	}
	u.Scale(1/mat.Norm(u, 2), u)
	m.cell, m.u = cell, mat.Row(nil, 0, u)
	for _, x := range xs {
		m.xs = append(m.xs, mat.Row(nil, 0, x))
	}

	tr, err := models.Forward(cell, xs, models.State{})
	if err != nil {
		return nil, fmt.Errorf("lessons: bptt forward pass: %w", err)
	}
	m.backward(cell, tr, u)
	m.jacNorm = models.JacobianNorms(cell, tr, 0)
	m.prodNorm, m.normProd = models.ProductNorms(cell, tr, 0)
	m.bound = make([]float64, m.T)
	for t := range m.T {
		m.bound[t] = math.Pow(m.beta(), float64(m.T-1-t))
	}
	for _, st := range tr.Steps {
		m.hs = append(m.hs, mat.Row(nil, 0, st.Next.H))
	}
	return m, nil
}

// backward walks from T down to 1 with g = ∂L/∂H_t, starting from ∂L/∂H_T = u,
// stopping after k steps (models.BackwardClipped), and records every step and each
// step's term of ∂L/∂W_hh. Clipping at θ acts on ∂L/∂H_t during the walk
// (clip_on = state) or on the parameter gradient g over W_xh, W_hh, b_h after it
// (clip_on = params, models.ClipGradNorm: g ← min(1, θ/‖g‖) g).
func (m *bpttModel) backward(cell *models.RNN, tr *models.Trace, u *mat.Dense) {
	ps := cell.Params()
	ps.ZeroGrad()
	stateTheta := 0.0
	if m.clipOn == bpttClipState {
		stateTheta = m.theta
	}
	g := models.BackwardClipped(cell, tr, u, m.k, stateTheta)
	m.dHs = make([][]float64, m.T)
	for t, d := range g.DH {
		m.dHs[t] = mat.Row(nil, 0, d)
	}
	m.gradNorm, m.rawNorm, m.clipped, m.cut = g.Norm, g.RawNorm, g.Clipped, g.Cut
	whh := slices.Index(ps, cell.Whh)
	m.term = make([]float64, m.T)
	short, long := mat.NewDense(bpttHidden, bpttHidden, nil), mat.NewDense(bpttHidden, bpttHidden, nil)
	m.collected = make([]float64, m.T)
	sum := mat.NewDense(bpttHidden, bpttHidden, nil)
	for t := m.T - 1; t >= 0; t-- {
		sum.Add(sum, g.Terms[t][whh])
		m.collected[t] = mat.Norm(sum, 2)
	}
	for t, terms := range g.Terms {
		m.term[t] = mat.Norm(terms[whh], 2)
		if t+1 > m.T-bpttShortTerm {
			short.Add(short, terms[whh])
		} else {
			long.Add(long, terms[whh])
		}
	}
	m.shortTerm, m.longTerm = mat.Norm(short, 2), mat.Norm(long, 2)
	m.paramRawNorm = ps.GradNorm()
	if m.clipOn == bpttClipParams && m.theta > 0 {
		_, m.paramClipped = models.ClipGradNorm(ps, m.theta)
	}
	m.paramGradNorm = mat.Norm(cell.Whh.Grad, 2)
}

func (m *bpttModel) Steps() int { return 2 * m.T }

// Passes are the forward pass over t = 1..T and the backward pass from t = T down to 1:
// the page's time axis has T columns, and its transport says which pass a step is in.
func (m *bpttModel) Passes() []sim.Pass {
	return []sim.Pass{
		{Name: "forward pass", Steps: m.T, Index: "t", First: 1, Last: m.T},
		{Name: "backward pass", Steps: m.T, Index: "t", First: m.T, Last: 1},
	}
}

// timeOf maps a scrubber step s to its phase and time step t: s ≤ T is the forward
// step t = s, s > T the backward step t = 2T + 1 − s.
func (m *bpttModel) timeOf(s int) (phase string, t int) {
	if s <= m.T {
		return "forward", s
	}
	return "backward", 2*m.T + 1 - s
}

// Static holds what the whole run shares: the bound (ρ(W_hh)γ)^{T−t} and the Jacobian
// norms ‖∂H_t/∂H_{t−1}‖₂ for t = 1..T (known once the forward pass is: the Jacobian
// reads A_t) and each heatmap's fixed colour scale. The time axis (T time steps on
// 2T scrubber steps) is the model's passes.
func (m *bpttModel) Static() sim.Frame {
	nClipped, nCut := 0, 0
	for t := range m.T {
		if m.clipped[t] {
			nClipped++
		}
		if m.cut[t] {
			nCut++
		}
	}
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("bound", m.bound), sim.Vector("jacobian_norm", m.jacNorm),
			sim.Vector("jacobian_bound", constant(m.T, m.beta())),
		},
		Meta: map[string]any{
			"steps_layout":    fmt.Sprintf("steps 1..%d are the forward pass t = 1..%d; steps %d..%d are the backward pass t = %d..1", m.T, m.T, m.T+1, 2*m.T, m.T),
			"T":               m.T,
			"rho":             m.rho,
			"spectral_radius": round4(m.measuredRho),
			"gamma":           m.gamma,
			"activation":      m.act.String(),
			"truncate":        m.k,
			"clip":            m.theta,
			"clip_on":         m.clipDescription(),
			"alpha":           m.alpha,
			"beta":            m.beta(),
			"clipped_steps":   nClipped,
			"param_raw_norm":  m.paramRawNorm,
			"param_clipped":   m.paramClipped,
			"short_term":      m.shortTerm,
			"long_term":       m.longTerm,
			"cut_steps":       nCut,
			"first_grad_norm": m.gradNorm[0],
			"param_grad_norm": m.paramGradNorm,
			"hidden":          bpttHidden,
			"scales":          map[string][]float64{"H": m.hiddenScale(), "dH": m.gradScale(), "grad-norms": m.normRange(), "terms": logRange(m.term)},
		},
	}
}

// hiddenScale is the colour range of the H_t heatmap: tanh's (−1, 1); identity and
// ReLU are unbounded, so ± max_t ‖H_t‖_∞ of this run (0 to it for ReLU, which is ≥ 0).
func (m *bpttModel) hiddenScale() []float64 {
	if m.act == models.ActTanh {
		return []float64{-1, 1}
	}
	hi := symmetricMax(m.hs)
	if m.act == models.ActReLU {
		return []float64{0, hi}
	}
	return []float64{-hi, hi}
}

// gradScale is the colour range of the ∂L/∂H_t heatmap for the whole run: ± max_t
// ‖∂L/∂H_t‖_∞ over t = 1..T (after clipping, as drawn). Fixed, so a gradient that
// explodes towards t = 1 shows as deeper colour instead of being rescaled away.
func (m *bpttModel) gradScale() []float64 {
	hi := symmetricMax(m.dHs)
	return []float64{-hi, hi}
}

// normRange is the y range of the log-scale norm panel for the whole run: the smallest
// and largest value of ‖∂L/∂H_t‖ and of the bound over t = 1..T that the page can draw
// (positive as a float32, the frames' type), so the axis stays put while the backward
// pass adds points.
func (m *bpttModel) normRange() []float64 {
	return logRange(slices.Concat(m.gradNorm, m.prodNorm, m.normProd, m.bound))
}

// logRange is the smallest and largest of vs that a log axis can draw (positive as a
// float32, the frames' type); [1, 1] when there is none.
func logRange(vs []float64) []float64 {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if float32(v) > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi == 0 {
		return []float64{1, 1}
	}
	return []float64{lo, hi}
}

// clipDescription says, in words, what clipping acts on in this run.
func (m *bpttModel) clipDescription() string {
	switch {
	case m.theta == 0:
		return "off (θ = 0)"
	case m.clipOn == bpttClipParams:
		return "the parameter gradient g, once, after the backward pass"
	}
	return "∂L/∂Hₜ at every step of the backward pass"
}

// symmetricMax is the largest |v| over the vectors, or 1 when all are 0 (a colour
// scale needs lo < hi).
func symmetricMax(vs [][]float64) float64 {
	hi := 0.0
	for _, v := range vs {
		for _, x := range v {
			hi = max(hi, math.Abs(x))
		}
	}
	if hi == 0 {
		return 1
	}
	return hi
}

// At is scrubber step s. Every step carries every per-step array (the page fills
// gaps by asking for a snapshot, so none may be missing): H is H_t of the time step
// t the step works on, read by the heatmap during the forward pass (s = t ≤ T). The
// backward arrays hold ∂L/∂H_t, ‖∂L/∂H_t‖ and whether clipping fired, for
// t = 2T + 1 − s during the backward pass; during the forward pass nothing is known
// yet, they are 0 and off the page's time axis (2T + 1 − s > T).
func (m *bpttModel) At(s int) sim.Frame {
	phase, t := m.timeOf(s)
	i := t - 1
	meta := map[string]any{"phase": phase, "t": t, "jacobian_norm": m.jacNorm[i]}
	dH := make([]float64, bpttHidden)
	norm, clipped, cut, prod, normProd, term := 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
	if phase == "backward" {
		dH, norm, clipped, cut = m.dHs[i], m.gradNorm[i], models.Indicator(m.clipped[i]), models.Indicator(m.cut[i])
		prod, normProd, term = m.prodNorm[i], m.normProd[i], m.term[i]
		meta["grad_norm"] = m.gradNorm[i]
		meta["prod_norm"] = m.prodNorm[i]
		meta["norm_prod"] = m.normProd[i]
		meta["term"] = m.term[i]
		meta["collected"] = m.collected[i]
		meta["bound"] = m.bound[i]
		meta["clipped"] = m.clipped[i]
		meta["cut"] = m.cut[i]
		if m.clipped[i] {
			meta["norm_before_clip"] = m.rawNorm[i]
		}
	}
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("H", m.hs[i]), sim.Vector(bpttGradArray, dH),
			sim.Vector(bpttGradNormArray, []float64{norm}), sim.Vector(bpttClippedArray, []float64{clipped}),
			sim.Vector(bpttCutArray, []float64{cut}), sim.Vector(bpttProdNormArray, []float64{prod}),
			sim.Vector(bpttNormProdArray, []float64{normProd}), sim.Vector(bpttTermArray, []float64{term}),
		},
		Meta: meta,
	}
}

// bpttFacts labels the page's facts in the lecture's words.
var bpttFacts = factTable{
	static: []fact{
		{key: "T", label: "sequence length T"},
		{key: "hidden", label: "hidden units h"},
		{key: "activation", label: "activation φ"},
		{key: "rho", label: `\(\rho(W_{hh})\)`, measured: true},
		{key: "spectral_radius", label: `spectral radius of \(W_{hh}\)`, measured: true},
		{key: "gamma", label: "largest slope γ of φ", measured: true},
		{key: "truncate", label: "truncation window k"},
		{key: "alpha", label: "leak α", measured: true},
		{key: "beta", label: "bound on each factor β = 1 − α + αργ", measured: true},
		{key: "clip", label: "clipping threshold θ", measured: true},
		{key: "clip_on", label: "clipping acts on"},
		{key: "clipped_steps", label: "steps where ∂L/∂Hₜ was clipped"},
		{key: "param_raw_norm", label: `\(\|g\|\), the gradient of all the weights, before clipping`, measured: true},
		{key: "param_clipped", label: "g clipped"},
		{key: "short_term", label: fmt.Sprintf(`short-term part \(\|\sum_{t > T-%d} H_{t-1}^\top \partial L/\partial A_t\|\)`, bpttShortTerm), measured: true},
		{key: "long_term", label: fmt.Sprintf(`long-term part \(\|\sum_{t \le T-%d} H_{t-1}^\top \partial L/\partial A_t\|\)`, bpttShortTerm), measured: true},
		{key: "cut_steps", label: "steps cut by truncation"},
		{key: "first_grad_norm", label: `\(\|\partial L/\partial H_1\|\)`, measured: true},
		{key: "param_grad_norm", label: `\(\|\partial L/\partial W_{hh}\|\)`, measured: true},
		{key: "steps_layout", label: "the steps"},
	},
	step: []fact{
		{key: "phase", label: "pass"},
		{key: "t", label: "t"},
		{key: "grad_norm", label: `\(\|\partial L/\partial H_t\|\)`, measured: true},
		{key: "prod_norm", label: `norm of the product \(\|\partial H_T/\partial H_t\|_2\)`, measured: true},
		{key: "norm_prod", label: `product of the norms \(\prod_{r>t}\|\partial H_r/\partial H_{r-1}\|_2\)`, measured: true},
		{key: "term", label: `term \(\|H_{t-1}^\top \partial L/\partial A_t\|\) of \(\partial L/\partial W_{hh}\)`, measured: true},
		{key: "collected", label: `\(\partial L/\partial W_{hh}\) collected so far, \(\|\sum_{s \ge t} H_{s-1}^\top \partial L/\partial A_s\|\)`, measured: true},
		{key: "jacobian_norm", label: `\(\|\partial H_t/\partial H_{t-1}\|_2\)`, measured: true},
		{key: "bound", label: `bound \(\beta^{T-t}\)`, measured: true},
		{key: "clipped", label: `\(\partial L/\partial H_t\) clipped`},
		{key: "cut", label: "cut by truncation"},
	},
}
