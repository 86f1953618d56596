package lessons

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
)

func buildBPTTWith(t *testing.T, changes map[string]string) *bpttModel {
	t.Helper()
	v, err := bpttLesson.Params.Apply(bpttLesson.Params.Defaults(), changes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := bpttLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*bpttModel)
}

// TestBPTTIdentityMeetsBound: with φ = identity and W_hh = ρQ (Q orthogonal),
// ∂L/∂H_t = u (W_hhᵀ)^{T−t} has norm exactly ρ^{T−t} = (ργ)^{T−t}: lecture 002's
// special case, where the bound is attained.
func TestBPTTIdentityMeetsBound(t *testing.T) {
	for _, rho := range []string{"0.5", "0.9", "1", "1.2", "1.5"} {
		m := buildBPTTWith(t, map[string]string{"activation": "identity", "rho": rho, "T": "40"})
		for i := range m.T {
			if got, want := m.gradNorm[i], m.bound[i]; math.Abs(got-want) > 1e-9*want {
				t.Errorf("ρ = %s, t = %d: got ‖∂L/∂H_t‖ = %v want (ργ)^(T−t) = %v", rho, i+1, got, want)
			}
			if got := m.jacNorm[i]; math.Abs(got-m.rho) > 1e-9 {
				t.Errorf("ρ = %s, t = %d: got ‖∂H_t/∂H_(t−1)‖ = %v want ρ", rho, i+1, got)
			}
		}
		if got := m.measuredRho; math.Abs(got-m.rho) > 1e-9 {
			t.Errorf("ρ = %s: got spectral radius %v", rho, got)
		}
	}
}

// TestBPTTBelowBound: tanh and ReLU never exceed the bound, and tanh with ρ = 1.5
// still vanishes at the start of a long sequence (saturation), below the bound.
func TestBPTTBelowBound(t *testing.T) {
	for _, act := range []string{"tanh", "relu", "identity"} {
		for _, rho := range []string{"0.5", "1", "1.5"} {
			m := buildBPTTWith(t, map[string]string{"activation": act, "rho": rho, "T": "60"})
			for i := range m.T {
				if m.gradNorm[i] > m.bound[i]*(1+1e-9) {
					t.Errorf("%s ρ = %s t = %d: got %v above the bound %v", act, rho, i+1, m.gradNorm[i], m.bound[i])
				}
				if m.jacNorm[i] > m.rho*m.gamma*(1+1e-9) {
					t.Errorf("%s ρ = %s t = %d: got Jacobian norm %v above ργ = %v", act, rho, i+1, m.jacNorm[i], m.rho*m.gamma)
				}
			}
		}
	}
	m := buildBPTTWith(t, map[string]string{"activation": "tanh", "rho": "0.5", "T": "60"})
	if got := m.gradNorm[0]; got > 1e-15 {
		t.Errorf("tanh ρ = 0.5: got ‖∂L/∂H_1‖ = %v want vanished (< 1e-15)", got)
	}
}

// TestBPTTMatchesBackward: the lesson's walk back equals models.Backward for the
// loss L = H_T uᵀ, full and truncated.
func TestBPTTMatchesBackward(t *testing.T) {
	for _, k := range []string{"0", "1", "7"} {
		m := buildBPTTWith(t, map[string]string{"truncate": k, "rho": "1.1", "activation": "tanh"})
		// Rebuild the same cell, inputs and u as buildBPTT does, and run models.Backward.
		rng := newBPTTRand(1)
		cell := models.NewRNN(bpttInput, bpttHidden, models.ActTanh, rng)
		models.Orthogonal(cell.Whh, 1.1, rng)
		xs := make([]*mat.Dense, m.T)
		for i := range xs {
			xs[i] = mat.NewDense(1, bpttInput, nil)
			for j := range bpttInput {
				xs[i].Set(0, j, rng.NormFloat64())
			}
		}
		u := mat.NewDense(1, bpttHidden, nil)
		for j := range bpttHidden {
			u.Set(0, j, rng.NormFloat64())
		}
		u.Scale(1/mat.Norm(u, 2), u)
		tr, err := models.Forward(cell, xs, models.State{})
		if err != nil {
			t.Fatal(err)
		}
		dH := make([]*mat.Dense, m.T)
		dH[m.T-1] = u
		kk := m.k
		g := models.Backward(cell, tr, dH, models.BPTTOptions{Truncate: kk})
		for i := range m.T {
			if got, want := m.gradNorm[i], g.HNorm[i]; math.Abs(got-want) > 1e-12*(1+want) {
				t.Errorf("k = %s, t = %d: got %v want models.Backward's %v", k, i+1, got, want)
			}
			if cut := kk > 0 && m.T-1-i >= kk; m.cut[i] != cut || (cut && m.gradNorm[i] != 0) {
				t.Errorf("k = %s, t = %d: got cut %v norm %v want cut %v", k, i+1, m.cut[i], m.gradNorm[i], cut)
			}
		}
	}
}

func TestBPTTClip(t *testing.T) {
	m := buildBPTTWith(t, map[string]string{"activation": "identity", "rho": "1.5", "T": "30", "clip": "10"})
	nClipped := 0
	for i := range m.T {
		if m.gradNorm[i] > 10*(1+1e-12) {
			t.Errorf("t = %d: got norm %v above θ = 10", i+1, m.gradNorm[i])
		}
		if m.clipped[i] {
			nClipped++
			if m.rawNorm[i] <= 10 {
				t.Errorf("t = %d: clipped a norm of %v ≤ θ", i+1, m.rawNorm[i])
			}
		}
	}
	// 1.5^k > 10 first at k = 6: steps t ≤ T−6 are clipped.
	if nClipped != m.T-6 {
		t.Errorf("got %d clipped steps want %d", nClipped, m.T-6)
	}
	if got := m.Static().Meta["clipped_steps"]; got != m.T-6 {
		t.Errorf("static clipped_steps: got %v want %d", got, m.T-6)
	}
}

func TestBPTTSteps(t *testing.T) {
	m := buildBPTTWith(t, map[string]string{"T": "5"})
	if m.Steps() != 10 {
		t.Fatalf("Steps: got %d want 2T = 10", m.Steps())
	}
	want := []struct {
		phase string
		t     int
	}{{"forward", 1}, {"forward", 2}, {"forward", 3}, {"forward", 4}, {"forward", 5},
		{"backward", 5}, {"backward", 4}, {"backward", 3}, {"backward", 2}, {"backward", 1}}
	var f sim.Frame
	for s, w := range want {
		f = m.At(s + 1)
		if f.Meta["phase"] != w.phase || f.Meta["t"] != w.t {
			t.Errorf("step %d: got %v t = %v want %s t = %d", s+1, f.Meta["phase"], f.Meta["t"], w.phase, w.t)
		}
	}
	if f.Meta["grad_norm"] != m.gradNorm[0] {
		t.Errorf("last step: got grad_norm %v want ‖∂L/∂H_1‖ = %v", f.Meta["grad_norm"], m.gradNorm[0])
	}
}

// TestBPTTHiddenScale: under tanh the hidden-state heatmap uses tanh's fixed range
// (−1, 1); identity and ReLU are unbounded, so their scale is fixed for the run at the
// largest |H_t| (from 0 for ReLU, whose states are ≥ 0).
func TestBPTTHiddenScale(t *testing.T) {
	for _, act := range []string{"tanh", "relu", "identity"} {
		m := buildBPTTWith(t, map[string]string{"activation": act, "rho": "1.2"})
		got := m.Static().Meta["scales"].(map[string][]float64)["H"]
		hi := 0.0
		for _, h := range m.hs {
			for _, v := range h {
				hi = max(hi, math.Abs(v))
			}
		}
		want := map[string][]float64{"tanh": {-1, 1}, "relu": {0, hi}, "identity": {-hi, hi}}[act]
		if !slices.Equal(got, want) {
			t.Errorf("%s: H scale %v, want %v", act, got, want)
		}
	}
}

// bpttTimeOf is where the page draws a per-step array's value at scrubber step s
// (static/js/panels/common.js timeOf): time t = s, or t = steps + 1 − s for an array
// declared Backward; 0 when that is off the time axis 1..T, the largest t of the
// model's passes.
func bpttTimeOf(m *bpttModel, name string, s int) int {
	T := 0
	for _, p := range m.Passes() {
		T = max(T, p.First, p.Last)
	}
	t := s
	if a, _ := bpttLesson.ArrayNamed(name); a.Dir == Backward {
		t = m.Steps() + 1 - s
	}
	if t < 1 || t > T {
		return 0
	}
	return t
}

// TestBPTTTimeAxis: both heatmaps have T columns, one per time step t. H fills
// columns 1..T during the forward pass and nothing after; ∂L/∂H_t arrives only in the
// backward pass, from t = T down to 1: after step T + k exactly the columns
// T − k + 1..T hold it, each with ∂L/∂H_t of its own t. The norm ‖∂L/∂H_t‖ and the
// clipping markers arrive the same way, so the curve covers only the reached t. Every
// step carries every per-step array (the page asks for a snapshot when one is missing).
func TestBPTTTimeAxis(t *testing.T) {
	for _, c := range []map[string]string{{"T": "30"}, {"T": "7", "truncate": "3", "activation": "identity", "rho": "1.5", "clip": "2"}} {
		m := buildBPTTWith(t, c)
		T := m.T
		if ps := m.Passes(); len(ps) != 2 || ps[0].Steps != T || ps[1].First != T || ps[1].Last != 1 {
			t.Fatalf("%v: passes %+v, want the forward pass t = 1..%d then the backward pass t = %d..1", c, ps, T, T)
		}
		names := []string{"H", bpttGradArray, bpttGradNormArray, bpttClippedArray}
		filled := map[string]map[int]int{} // array → time step → scrubber step it arrived at
		for _, name := range names {
			filled[name] = map[int]int{}
		}
		for s := 1; s <= m.Steps(); s++ {
			f := m.At(s)
			for _, name := range names {
				a := arrayOf(f, name)
				if a == nil {
					t.Fatalf("%v step %d: no %s", c, s, name)
				}
				tt := bpttTimeOf(m, name, s)
				if tt == 0 {
					if name != "H" && slices.ContainsFunc(a, func(v float64) bool { return v != 0 }) {
						t.Errorf("%v step %d: %s = %v before the backward pass, want 0", c, s, name, a)
					}
					continue
				}
				if _, dup := filled[name][tt]; dup {
					t.Errorf("%v step %d: %s fills t = %d a second time", c, s, name, tt)
				}
				filled[name][tt] = s
				var want []float64
				switch name {
				case "H":
					want = m.hs[tt-1]
				case bpttGradArray:
					want = m.dHs[tt-1]
				case bpttGradNormArray:
					want = []float64{m.gradNorm[tt-1]}
				case bpttClippedArray:
					want = []float64{models.Indicator(m.clipped[tt-1])}
				}
				if !slices.Equal(a, want) {
					t.Errorf("%v step %d: %s drawn at t = %d is %v, want its value at t = %d", c, s, name, tt, a, tt)
				}
				if f.Meta["t"] != tt {
					t.Errorf("%v step %d: %s at t = %d but the step works on t = %v", c, s, name, tt, f.Meta["t"])
				}
			}
		}
		for _, name := range names {
			if len(filled[name]) != T {
				t.Errorf("%v: %s fills %d columns, want T = %d", c, name, len(filled[name]), T)
			}
			for tt, s := range filled[name] {
				want := tt // the forward pass: step t
				if name != "H" {
					want = 2*T + 1 - tt // the backward pass: step T + k holds t = T − k + 1
				}
				if s != want {
					t.Errorf("%v: %s's t = %d arrives at step %d, want %d", c, name, tt, s, want)
				}
			}
		}
	}
}

// TestBPTTGradientScale: the ∂L/∂H_t heatmap has one colour scale for the whole run,
// sent once in the static frame: ± the largest |∂L/∂H_t| entry over all t, which
// holds every value drawn at every step. With ρ = 1.2 and the identity it is far
// beyond ±1: the explosion shows as colour.
func TestBPTTGradientScale(t *testing.T) {
	for _, c := range []map[string]string{{}, {"activation": "identity", "rho": "1.2"}, {"activation": "tanh", "rho": "0.5", "truncate": "5"}} {
		m := buildBPTTWith(t, c)
		hi := 0.0
		for s := m.T + 1; s <= m.Steps(); s++ {
			for _, v := range arrayOf(m.At(s), bpttGradArray) {
				hi = max(hi, math.Abs(v))
			}
		}
		scales := m.Static().Meta["scales"].(map[string][]float64)
		if got, want := scales["dH"], []float64{-hi, hi}; !slices.Equal(got, want) {
			t.Errorf("%v: dH scale %v, want ± max |∂L/∂H_t| = %v", c, got, want)
		}
		// The norm panel's log axis is fixed too: it holds every norm and bound to come.
		r := scales["grad-norms"]
		for i, v := range append(slices.Clone(m.gradNorm), m.bound...) {
			if float32(v) > 0 && (v < r[0] || v > r[1]) {
				t.Errorf("%v: value %d = %v outside the norm panel's range %v", c, i, v, r)
			}
		}
	}
	// With the identity ‖∂L/∂H_1‖₂ = ρ^{T−1}, and ‖v‖_∞ ≥ ‖v‖₂/√h.
	m := buildBPTTWith(t, map[string]string{"activation": "identity", "rho": "1.2"})
	low := math.Pow(1.2, float64(m.T-1)) / math.Sqrt(bpttHidden)
	if hi := m.Static().Meta["scales"].(map[string][]float64)["dH"][1]; hi < low {
		t.Errorf("identity ρ = 1.2, T = %d: dH scale ±%v, want ≥ ρ^(T−1)/√h = %v", m.T, hi, low)
	}
}

// TestBPTTJacobianAxis: the Jacobian-norm panel's y axis is fixed, shows 0 and 1, and
// holds every ‖∂H_t/∂H_{t−1}‖₂ and the bound ργ at every setting of the sliders.
func TestBPTTJacobianAxis(t *testing.T) {
	var scale []float64
	for _, p := range bpttLesson.Panels {
		if p.ID == "jacobian" {
			scale = p.Scale
		}
	}
	if len(scale) != 2 || scale[0] != 0 || scale[1] < 1 {
		t.Fatalf("jacobian panel scale %v, want [0, ≥ 1]", scale)
	}
	for _, act := range []string{"tanh", "relu", "identity"} {
		for _, rho := range []string{"0.5", "1", "1.5"} {
			m := buildBPTTWith(t, map[string]string{"activation": act, "rho": rho})
			for i, v := range append(slices.Clone(m.jacNorm), m.rho*m.gamma) {
				if v < scale[0] || v > scale[1] {
					t.Errorf("%s ρ = %s: value %d = %v outside the axis %v", act, rho, i, v, scale)
				}
			}
		}
	}
}
