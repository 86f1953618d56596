package lessons

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// rebuildBPTT draws the same cell, inputs and u as buildBPTT for m's settings and
// seed 1, independently of the lesson's code, and runs the forward pass.
func rebuildBPTT(t *testing.T, m *bpttModel) (*models.RNN, []*mat.Dense, *mat.Dense, *models.Trace) {
	t.Helper()
	rng := newBPTTRand(1)
	cell := models.NewRNN(bpttInput, bpttHidden, m.act, rng)
	cell.SetLeak(m.alpha)
	models.Orthogonal(cell.Whh, m.rho, rng)
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
	return cell, xs, u, tr
}

// TestBPTTProductOfJacobians (seed 002: J_{H_s}(H_t) = ∏ J and ‖J_{H_s}(H_t)‖ ≤
// (ρ(W)γ)^{t−s}): for every t, ‖∂L/∂H_t‖ ≤ ‖∏J‖ ≤ ∏‖J‖ ≤ β^{T−t}; ‖∏J‖ equals the
// spectral norm of the product of the closed-form Jacobians (1 − α) I + α
// diag(φ'(A_r)) W_hhᵀ, multiplied out here; and with tanh at ρ = 1, the page's
// claim: ∏‖J‖ stays near 1 while ‖∏J‖ falls below 0.05.
func TestBPTTProductOfJacobians(t *testing.T) {
	for _, c := range []map[string]string{
		{}, {"rho": "0.7"}, {"rho": "1.4"}, {"activation": "relu", "rho": "1.2"}, {"activation": "identity", "rho": "0.9"}, {"alpha": "0.3"}, {"alpha": "0.6", "rho": "1.5"},
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			m := buildBPTTWith(t, c)
			cell, _, _, tr := rebuildBPTT(t, m)
			P := mat.NewDense(bpttHidden, bpttHidden, nil)
			for i := range bpttHidden {
				P.Set(i, i, 1)
			}
			for s := m.T; s >= 1; s-- {
				i := s - 1
				if got, want := m.prodNorm[i], models.SpectralNorm(P); math.Abs(got-want) > 1e-9*max(want, 1e-300) {
					t.Errorf("t = %d: ‖∏J‖ got %.12g want %.12g (closed form)", s, got, want)
				}
				if m.gradNorm[i] > m.prodNorm[i]*(1+1e-9) || m.prodNorm[i] > m.normProd[i]*(1+1e-9) || m.normProd[i] > m.bound[i]*(1+1e-9) {
					t.Errorf("t = %d: want ‖∂L/∂H_t‖ %.6g ≤ ‖∏J‖ %.6g ≤ ∏‖J‖ %.6g ≤ β^(T−t) %.6g", s, m.gradNorm[i], m.prodNorm[i], m.normProd[i], m.bound[i])
				}
				// J_s = (1 − α) I + α diag(φ'(A_s)) W_hhᵀ with φ' read from H̃_s = (H_s − (1 − α) H_{s−1}) / α
				J := mat.NewDense(bpttHidden, bpttHidden, nil)
				st := tr.Steps[i]
				for r := range bpttHidden {
					cand := (st.Next.H.At(0, r) - (1-m.alpha)*st.Prev.H.At(0, r)) / m.alpha
					slope := 1.0
					switch m.act {
					case models.ActTanh:
						slope = 1 - cand*cand
					case models.ActReLU:
						if cand <= 0 {
							slope = 0
						}
					}
					for col := range bpttHidden {
						v := m.alpha * slope * cell.Whh.Value.At(col, r)
						if r == col {
							v += 1 - m.alpha
						}
						J.Set(r, col, v)
					}
				}
				var next mat.Dense
				next.Mul(P, J)
				P = &next
			}
		})
	}
	m := buildBPTTWith(t, nil)
	if !(m.normProd[0] > 0.8 && m.prodNorm[0] < 0.05) {
		t.Errorf("tanh, ρ = 1: got ∏‖J‖ = %.4g and ‖∏J‖ = %.4g from T to 1, want ∏‖J‖ > 0.8 (every factor ≈ 1) and ‖∏J‖ < 0.05", m.normProd[0], m.prodNorm[0])
	}
	for i, v := range m.jacNorm {
		if math.Abs(v-1) > 0.02 {
			t.Errorf("tanh, ρ = 1: ‖∂H_%d/∂H_%d‖₂ = %.4g, the page says about 1", i+1, i, v)
		}
	}
}

// TestBPTTClipWhat (lecture 000's g ← min(1, θ/‖g‖) g): with clip_on = params the
// walk back is that of θ = 0 (no step clipped, ∂L/∂H_t untouched) and the gradient
// of all the weights is scaled to norm θ; with clip_on = state ∂L/∂H_t is clipped
// at every step and the parameter gradient is left as the walk made it.
func TestBPTTClipWhat(t *testing.T) {
	base := map[string]string{"activation": "identity", "rho": "1.3", "T": "30"}
	with := func(extra map[string]string) *bpttModel {
		c := map[string]string{}
		for k, v := range base {
			c[k] = v
		}
		for k, v := range extra {
			c[k] = v
		}
		return buildBPTTWith(t, c)
	}
	off := with(nil)
	params := with(map[string]string{"clip": "2", "clip_on": "params"})
	state := with(map[string]string{"clip": "2", "clip_on": "state"})
	if off.paramRawNorm <= 2 {
		t.Fatalf("‖g‖ = %v: the case must need clipping", off.paramRawNorm)
	}
	for i := range off.T {
		if params.gradNorm[i] != off.gradNorm[i] || params.clipped[i] {
			t.Errorf("params, t = %d: ‖∂L/∂H_t‖ got %v (clipped %v) want %v unclipped", i+1, params.gradNorm[i], params.clipped[i], off.gradNorm[i])
		}
	}
	if !params.paramClipped || math.Abs(params.paramRawNorm-off.paramRawNorm) > 1e-12*off.paramRawNorm {
		t.Errorf("params: got clipped %v, ‖g‖ before %v, want true and %v", params.paramClipped, params.paramRawNorm, off.paramRawNorm)
	}
	// W_hh's share is scaled by θ/‖g‖ like every other weight
	if want := off.paramGradNorm * 2 / off.paramRawNorm; math.Abs(params.paramGradNorm-want) > 1e-9*want {
		t.Errorf("params: ‖∂L/∂W_hh‖ after clipping got %v want %v", params.paramGradNorm, want)
	}
	if got := params.Static().Meta["clip_on"]; got != "the parameter gradient g, once, after the backward pass" {
		t.Errorf("params: the facts say clipping acts on %q", got)
	}
	n := 0
	for i := range state.T {
		if state.gradNorm[i] > 2*(1+1e-12) {
			t.Errorf("state, t = %d: ‖∂L/∂H_t‖ = %v above θ", i+1, state.gradNorm[i])
		}
		if state.clipped[i] {
			n++
		}
	}
	if n == 0 || state.paramClipped {
		t.Errorf("state: %d steps clipped, parameters clipped %v; want some steps and not the parameters", n, state.paramClipped)
	}
	if got := state.Static().Meta["clip_on"]; got != "∂L/∂Hₜ at every step of the backward pass" {
		t.Errorf("state: the facts say clipping acts on %q", got)
	}
	if got := off.Static().Meta["clip_on"]; got != "off (θ = 0)" {
		t.Errorf("θ = 0: the facts say clipping acts on %q", got)
	}
}

// TestBPTTLeaky (seed 002, leaky units): ‖∂L/∂H_1‖ agrees with a finite difference
// of L = H_T uᵀ in H_1 (the leaky backward pass), and with tanh at ρ = 1 a leak
// α = 0.1 keeps ‖∂L/∂H_1‖ at least 20 times larger than the plain RNN does, for
// several seeds, as the page says.
func TestBPTTLeaky(t *testing.T) {
	for _, a := range []string{"0.1", "0.5", "1"} {
		m := buildBPTTWith(t, map[string]string{"alpha": a})
		cell, xs, u, tr := rebuildBPTT(t, m)
		loss := func(h1 *mat.Dense) float64 {
			s := models.State{H: h1}
			for r := 1; r < m.T; r++ {
				s = cell.Step(xs[r], s).Next
			}
			return mat.Dot(s.H.RowView(0), u.RowView(0))
		}
		const step = 1e-6
		fd := make([]float64, bpttHidden)
		for j := range bpttHidden {
			p, q := mat.DenseCopyOf(tr.Steps[0].Next.H), mat.DenseCopyOf(tr.Steps[0].Next.H)
			p.Set(0, j, p.At(0, j)+step)
			q.Set(0, j, q.At(0, j)-step)
			fd[j] = (loss(p) - loss(q)) / (2 * step)
		}
		for j := range bpttHidden {
			if got := m.dHs[0][j]; math.Abs(got-fd[j]) > 1e-8 {
				t.Errorf("α = %s: ∂L/∂H_1[%d] got %.12g want %.12g (finite differences)", a, j, got, fd[j])
			}
		}
	}
	for seed := 1; seed <= 5; seed++ {
		plain := buildBPTTWith(t, map[string]string{"seed": fmt.Sprint(seed)})
		leaky := buildBPTTWith(t, map[string]string{"seed": fmt.Sprint(seed), "alpha": "0.1"})
		if !(leaky.gradNorm[0] > 20*plain.gradNorm[0]) {
			t.Errorf("seed %d: ‖∂L/∂H_1‖ got %.4g with α = 0.1 and %.4g with α = 1, want the leaky one 20× larger", seed, leaky.gradNorm[0], plain.gradNorm[0])
		}
		for i := range leaky.T {
			if leaky.jacNorm[i] > leaky.beta()*(1+1e-9) {
				t.Errorf("seed %d, t = %d: ‖J‖ = %v above β = %v", seed, i+1, leaky.jacNorm[i], leaky.beta())
			}
		}
	}
}

// TestBPTTTerms (seed 002: ∂L/∂θ as a sum of short- and long-term contributions):
// the short- and long-term parts add up to ∂L/∂W_hh (their norms bound it by the
// triangle inequality both ways), a truncated step has no term, and with tanh at
// ρ = 0.5 (a vanishing gradient); t = 1 has no term, since H_0 = 0, the long-term part is under a tenth of the
// short-term one.
func TestBPTTTerms(t *testing.T) {
	for _, c := range []map[string]string{{}, {"rho": "1.3"}, {"truncate": "7"}, {"alpha": "0.2"}} {
		m := buildBPTTWith(t, c)
		if m.paramGradNorm > m.shortTerm+m.longTerm+1e-12 || m.paramGradNorm < math.Abs(m.shortTerm-m.longTerm)-1e-12 {
			t.Errorf("%v: ‖∂L/∂W_hh‖ = %v, parts %v and %v: not their sum", c, m.paramGradNorm, m.shortTerm, m.longTerm)
		}
		for i := range m.T {
			if m.cut[i] && m.term[i] != 0 {
				t.Errorf("%v, t = %d: a truncated step has term %v", c, i+1, m.term[i])
			}
			if i == 0 && m.term[i] != 0 {
				t.Errorf("%v: the term of t = 1 is %v, want 0 (H_0 = 0)", c, m.term[i])
			}
			if i > 0 && !m.cut[i] && !(m.term[i] > 0) {
				t.Errorf("%v, t = %d: term %v, want > 0", c, i+1, m.term[i])
			}
		}
	}
	// what the walk has collected when it reaches t = 1 is the whole ∂L/∂W_hh; when
	// it reaches T − 5 + 1, the short-term part
	for _, c := range []map[string]string{{}, {"rho": "1.3"}, {"alpha": "0.2"}} {
		m := buildBPTTWith(t, c)
		if got, want := m.collected[0], m.paramGradNorm; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%v: collected at t = 1 got %v want ‖∂L/∂W_hh‖ = %v", c, got, want)
		}
		if got, want := m.collected[m.T-bpttShortTerm], m.shortTerm; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%v: collected at t = T − %d + 1 got %v want the short-term part %v", c, bpttShortTerm, got, want)
		}
		if got := m.At(2*m.T + 1 - 3).Meta["collected"]; got != m.collected[2] {
			t.Errorf("%v: the frame of t = 3 says collected %v, want %v", c, got, m.collected[2])
		}
	}
	m := buildBPTTWith(t, map[string]string{"rho": "0.5"})
	if !(m.longTerm < 0.1*m.shortTerm) {
		t.Errorf("ρ = 0.5: long-term part %v, short-term %v; want the long-term part under a tenth", m.longTerm, m.shortTerm)
	}
	cut := buildBPTTWith(t, map[string]string{"truncate": fmt.Sprint(bpttShortTerm)})
	if cut.longTerm != 0 {
		t.Errorf("k = %d: the long-term part is %v, want 0 (truncation keeps only the short-term terms)", bpttShortTerm, cut.longTerm)
	}
}
