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
// (−1, 1); identity and ReLU are unbounded, so their scale is fitted to the values.
func TestBPTTHiddenScale(t *testing.T) {
	for act, want := range map[string][]float64{"tanh": {-1, 1}, "relu": nil, "identity": nil} {
		scales := buildBPTTWith(t, map[string]string{"activation": act}).Static().Meta["scales"].(map[string][]float64)
		if got := scales["H"]; !slices.Equal(got, want) {
			t.Errorf("%s: H scale %v, want %v", act, got, want)
		}
	}
}
