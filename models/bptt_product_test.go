package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// productCells are the vanilla cells whose ∂H_T/∂H_t is the whole state Jacobian
// (an LSTM's Jacobian holds C fixed, so a finite difference through H alone differs).
var productCells = []struct {
	name string
	act  Activation
	leak float64
}{
	{"tanh", ActTanh, 1}, {"relu", ActReLU, 1}, {"identity", ActIdentity, 1}, {"leaky-tanh", ActTanh, 0.4},
}

// finiteDiffStateJacobian is ∂H_T/∂H_t (h×h) by central differences: perturb H_t
// and run the steps t+1..T again from it. It shares no code with Jacobian.
func finiteDiffStateJacobian(c *RNN, xs []*mat.Dense, tr *Trace, t int) *mat.Dense {
	T, h := tr.Len(), c.HiddenSize()
	run := func(ht *mat.Dense) []float64 {
		s := State{H: ht}
		for r := t; r < T; r++ { // steps t+1..T are tr.Steps[t..T-1]
			s = c.Step(xs[r], s).Next
		}
		return mat.Row(nil, 0, s.H)
	}
	out := mat.NewDense(h, h, nil)
	const step = 1e-6
	for j := range h {
		plus, minus := mat.DenseCopyOf(tr.Steps[t-1].Next.H), mat.DenseCopyOf(tr.Steps[t-1].Next.H)
		plus.Set(0, j, plus.At(0, j)+step)
		minus.Set(0, j, minus.At(0, j)-step)
		p, m := run(plus), run(minus)
		for i := range h {
			out.Set(i, j, (p[i]-m[i])/(2*step))
		}
	}
	return out
}

// TestProductNorms (seed 002's chain rule J_{H_s}(H_t) = ∏ J): ‖∂H_T/∂H_t‖₂ agrees
// with the spectral norm of a finite-difference ∂H_T/∂H_t, the product of norms with
// the product of JacobianNorms, and the norm of the product never exceeds the
// product of the norms. For the identity activation with an orthogonal W_hh·ρ the
// two are equal (ρ^{T−t}); for tanh at ρ = 1 the norm of the product is far below.
func TestProductNorms(t *testing.T) {
	const T, d, h = 12, 3, 6
	for _, pc := range productCells {
		for _, rho := range []float64{0.8, 1, 1.3} {
			t.Run(fmt.Sprintf("%s/rho=%v", pc.name, rho), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 1))
				c := NewRNN(d, h, pc.act, rng)
				c.SetLeak(pc.leak)
				Orthogonal(c.Whh, rho, rng)
				xs := cellSequence(T, 1, d, rng)
				for _, x := range xs {
					x.Scale(2, x) // drive tanh into saturation
				}
				tr, err := Forward(c, xs, State{})
				if err != nil {
					t.Fatal(err)
				}
				nop, pon := ProductNorms(c, tr, 0)
				jn := JacobianNorms(c, tr, 0)
				want := 1.0
				for s := T; s >= 1; s-- {
					if s < T {
						want *= jn[s] // ‖J_{s+1}‖
					}
					if math.Abs(pon[s-1]-want) > 1e-12*want {
						t.Errorf("∏‖J‖ at t = %d: got %.15g want %.15g", s, pon[s-1], want)
					}
					if nop[s-1] > pon[s-1]*(1+1e-12) {
						t.Errorf("t = %d: ‖∏J‖ = %.15g exceeds ∏‖J‖ = %.15g", s, nop[s-1], pon[s-1])
					}
					fd := 1.0
					if s < T {
						fd = SpectralNorm(finiteDiffStateJacobian(c, xs, tr, s))
					}
					if math.Abs(nop[s-1]-fd) > 1e-7*max(1, fd) {
						t.Errorf("‖∂H_T/∂H_%d‖₂: got %.12g want %.12g (finite differences)", s, nop[s-1], fd)
					}
				}
				if pc.act == ActIdentity && pc.leak == 1 {
					for s := 1; s <= T; s++ {
						if w := math.Pow(rho, float64(T-s)); math.Abs(nop[s-1]-w) > 1e-9*w {
							t.Errorf("identity: ‖W^%d‖ got %.12g want ρ^%d = %.12g", T-s, nop[s-1], T-s, w)
						}
					}
				}
				if pc.act == ActTanh && pc.leak == 1 && rho == 1 && !(nop[0] < 0.5*pon[0]) {
					t.Errorf("tanh, ρ = 1: ‖∏J‖ = %.4g is not far below ∏‖J‖ = %.4g", nop[0], pon[0])
				}
			})
		}
	}
}

// TestClippedTerms (seed 002: ∂L/∂θ = Σ_t J_{H_t}(L) J_θ(H_t)): the per-step terms
// sum to the gradient BackwardClipped adds, the W_hh term of step t is
// H_{t−1}ᵀ (α ∂L/∂H_t ⊙ φ'(A_t)) written out by hand, and a cut step's term is zero.
func TestClippedTerms(t *testing.T) {
	const T, d, h = 9, 2, 4
	for _, pc := range productCells {
		for _, opt := range []struct {
			k     int
			theta float64
		}{{0, 0}, {4, 0}, {0, 0.3}} {
			t.Run(fmt.Sprintf("%s/k=%d,theta=%v", pc.name, opt.k, opt.theta), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(2, 2))
				c := NewRNN(d, h, pc.act, rng)
				c.SetLeak(pc.leak)
				xs := cellSequence(T, 1, d, rng)
				tr, err := Forward(c, xs, State{})
				if err != nil {
					t.Fatal(err)
				}
				u := cellRandom(1, h, rng)
				ps := c.Params()
				ps.ZeroGrad()
				g := BackwardClipped(c, tr, u, opt.k, opt.theta)
				for i, p := range ps {
					sum := mat.NewDense(p.Grad.RawMatrix().Rows, p.Grad.RawMatrix().Cols, nil)
					for s := range T {
						sum.Add(sum, g.Terms[s][i])
					}
					if err := cellClose("Σ_t terms of ∂L/∂"+p.Name, sum, p.Grad, 1e-12); err != nil {
						t.Error(err)
					}
				}
				for s := range T {
					want := mat.NewDense(h, h, nil)
					if !g.Cut[s] {
						out := tr.Steps[s].Next.H
						if pc.leak != 1 {
							out = tr.Steps[s].aux[0]
						}
						delta := mat.NewDense(1, h, nil)
						for j := range h {
							y := out.At(0, j)
							slope := 1.0
							switch pc.act {
							case ActTanh:
								slope = 1 - y*y
							case ActReLU:
								if y <= 0 {
									slope = 0
								}
							}
							delta.Set(0, j, pc.leak*g.DH[s].At(0, j)*slope)
						}
						want.Mul(tr.Steps[s].Prev.H.T(), delta)
					}
					if err := cellClose(fmt.Sprintf("W_hh term of t = %d", s+1), g.Terms[s][1], want, 1e-12); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

// TestSetLeakBounds: α outside (0, 1] panics; α = 1 is the plain cell.
func TestSetLeakBounds(t *testing.T) {
	for _, a := range []float64{0, -0.1, 1.5, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetLeak(%v): no panic, want one", a)
				}
			}()
			NewRNN(1, 1, ActTanh, rand.New(rand.NewPCG(1, 1))).SetLeak(a)
		}()
	}
	c := NewRNN(2, 3, ActTanh, rand.New(rand.NewPCG(1, 1)))
	x := cellRandom(1, 2, rand.New(rand.NewPCG(3, 3)))
	plain := c.Step(x, State{}).Next.H
	c.SetLeak(1)
	if got := c.Step(x, State{}).Next.H; !mat.Equal(got, plain) || c.Leak() != 1 {
		t.Errorf("α = 1: got H = %v, α = %v, want the plain cell's %v and 1", mat.Formatted(got), c.Leak(), mat.Formatted(plain))
	}
}
