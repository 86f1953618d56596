package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// optimScalar returns a 1×1 parameter θ = value.
func optimScalar(name string, value float64) *Param {
	p := NewParam(name, 1, 1)
	p.Value.Set(0, 0, value)
	return p
}

func TestSGDStep(t *testing.T) {
	cases := []struct {
		name      string
		lr        float64
		value     []float64
		grad      []float64
		want      []float64
		tol       float64
		wantGrads bool
	}{
		{"hand", 0.1, []float64{1, -2, 0}, []float64{0.5, 0.25, -4}, []float64{0.95, -2.025, 0.4}, 1e-15, true},
		{"zero rate", 0, []float64{1, 2}, []float64{3, 4}, []float64{1, 2}, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParam("W", 1, len(tc.value))
			p.Value.Copy(mat.NewDense(1, len(tc.value), tc.value))
			p.Grad.Copy(mat.NewDense(1, len(tc.grad), tc.grad))
			var opt Optimizer = &SGD{LR: tc.lr}
			opt.Step(Params{p})
			for j, w := range tc.want {
				if got := p.Value.At(0, j); math.Abs(got-w) > tc.tol {
					t.Errorf("θ[%d]: got %.17g want %.17g", j, got, w)
				}
				if got := p.Grad.At(0, j); got != tc.grad[j] {
					t.Errorf("grad[%d]: got %v want %v (Step must not zero it)", j, got, tc.grad[j])
				}
			}
		})
	}
}

func TestSGDSharedValueUpdatedOnce(t *testing.T) {
	p := optimScalar("w", 1)
	p.Grad.Set(0, 0, 1)
	ps := Params{p}
	(&SGD{LR: 0.5}).Step(append(ps, ps.WithPrefix("copy.")...))
	if got := p.Value.At(0, 0); got != 0.5 {
		t.Errorf("θ: got %v want 0.5 (one update, not two)", got)
	}
}

func TestAdamDefaults(t *testing.T) {
	o := NewAdam(0.01)
	if o.LR != 0.01 || o.Beta1 != 0.9 || o.Beta2 != 0.999 || o.Eps != 1e-8 {
		t.Errorf("NewAdam: got %+v want lr 0.01 β1 0.9 β2 0.999 ε 1e-8", *o)
	}
}

func TestAdamTwoStepsByHand(t *testing.T) {
	// θ₀ = 1, η = 0.1, g₁ = 0.5, g₂ = −1, β₁ = 0.9, β₂ = 0.999, ε = 1e-8, worked in
	// 40-digit decimal arithmetic:
	//   t=1: m = 0.05, v = 0.00025, m̂ = 0.5, v̂ = 0.25, θ₁ = 1 − 0.1·0.5/(0.5 + 1e-8)
	//        = 0.90000000199999996000000079999998
	//   t=2: m = −0.055, v = 0.00124975, m̂ = −0.055/0.19, v̂ = 0.00124975/0.001999
	//        θ₂ = 0.93661035424056560281073769126803
	cases := []struct {
		name  string
		grads []float64
		want  []float64
		tol   float64
	}{
		{"two steps", []float64{0.5, -1}, []float64{0.90000000199999996, 0.93661035424056560}, 1e-12},
		{"zero gradient stays put", []float64{0, 0}, []float64{1, 1}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := optimScalar("w", 1)
			o := NewAdam(0.1)
			for k, g := range tc.grads {
				p.Grad.Set(0, 0, g)
				o.Step(Params{p})
				if got := p.Value.At(0, 0); math.Abs(got-tc.want[k]) > tc.tol {
					t.Errorf("θ after step %d: got %.17g want %.17g", k+1, got, tc.want[k])
				}
			}
		})
	}
}

func TestAdamStateSharedByPrefixCopies(t *testing.T) {
	direct, viaPrefix := optimScalar("w", 1), optimScalar("w", 1)
	a, b := NewAdam(0.1), NewAdam(0.1)
	for k, g := range []float64{0.5, -1, 2} {
		direct.Grad.Set(0, 0, g)
		viaPrefix.Grad.Set(0, 0, g)
		a.Step(Params{direct})
		ps := Params{viaPrefix}
		if k%2 == 1 {
			ps = ps.WithPrefix("enc.") // a different Param, the same Value matrix
		}
		b.Step(ps)
	}
	if got, want := viaPrefix.Value.At(0, 0), direct.Value.At(0, 0); got != want {
		t.Errorf("θ via prefixed copies: got %.17g want %.17g", got, want)
	}
}

func TestAdamReset(t *testing.T) {
	p, fresh := optimScalar("w", 1), optimScalar("w", 1)
	o := NewAdam(0.1)
	p.Grad.Set(0, 0, 3)
	o.Step(Params{p})
	o.Reset()
	p.Value.Set(0, 0, 1)
	p.Grad.Set(0, 0, 0.5)
	o.Step(Params{p})
	fresh.Grad.Set(0, 0, 0.5)
	NewAdam(0.1).Step(Params{fresh})
	if got, want := p.Value.At(0, 0), fresh.Value.At(0, 0); got != want {
		t.Errorf("after Reset: got %.17g want %.17g (a first step)", got, want)
	}
}

func TestAdamMinimisesQuadratic(t *testing.T) {
	// f(θ) = ½ Σ_i a_i (θ_i − c_i)², ∇f = a ⊙ (θ − c): badly scaled (a spans 10⁴), which
	// Adam's per-coordinate step size handles.
	cases := []struct {
		name  string
		lr    float64
		steps int
		tol   float64
	}{
		{"lr 0.05", 0.05, 3000, 1e-3},
		{"lr 0.01", 0.01, 5000, 1e-3},
	}
	a := []float64{100, 1, 0.01, 3}
	c := []float64{1, -2, 0.5, 3}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			p := NewParam("theta", 1, len(a))
			Normal(p, 1, rng)
			o := NewAdam(tc.lr)
			for s := 0; s < tc.steps; s++ {
				for i := range a {
					p.Grad.Set(0, i, a[i]*(p.Value.At(0, i)-c[i]))
				}
				o.Step(Params{p})
			}
			for i := range c {
				if got := p.Value.At(0, i); math.Abs(got-c[i]) > tc.tol {
					t.Errorf("θ[%d]: got %v want %v ± %v", i, got, c[i], tc.tol)
				}
			}
		})
	}
}

func TestSGDAndAdamShapeMismatchPanic(t *testing.T) {
	p := NewParam("W", 2, 2)
	p.Grad = mat.NewDense(1, 2, nil)
	layersExpectPanic(t, "models: gradient of W is 1×2, want 2×2", func() { (&SGD{LR: 1}).Step(Params{p}) })
	layersExpectPanic(t, "models: gradient of W is 1×2, want 2×2", func() { NewAdam(1).Step(Params{p}) })
}
