package models

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Optimizer updates parameters from their gradients: Step applies every p.Grad to
// p.Value once. It does not zero the gradients; call Params.ZeroGrad before the next
// backward pass. A Value listed several times in ps (Params.WithPrefix copies) is
// updated once.
type Optimizer interface {
	Step(ps Params)
}

// SGD is plain gradient descent, θ ← θ − η ∂L/∂θ, with learning rate η = LR.
type SGD struct {
	LR float64
}

// Step applies θ ← θ − η g to every parameter.
func (o *SGD) Step(ps Params) {
	for _, p := range distinctValues(ps) {
		r, c := p.Value.Dims()
		mustDims("gradient of "+p.Name, p.Grad, r, c)
		for i := 0; i < r; i++ {
			theta, grad := p.Value.RawRowView(i), p.Grad.RawRowView(i)
			for j, g := range grad {
				theta[j] -= o.LR * g
			}
		}
	}
}

// Adam is the optimiser of Kingma & Ba (2015). For each parameter θ with gradient g,
// at its t-th update:
//
//	m ← β₁ m + (1 − β₁) g          v ← β₂ v + (1 − β₂) g²
//	m̂ = m / (1 − β₁ᵗ)              v̂ = v / (1 − β₂ᵗ)
//	θ ← θ − η m̂ / (√v̂ + ε)
//
// with η = LR, β₁ = Beta1, β₂ = Beta2, ε = Eps, squares and roots elementwise.
// The moments m, v and the count t are kept per parameter, keyed by the Value matrix,
// so Params.WithPrefix copies of a parameter share them.
type Adam struct {
	LR, Beta1, Beta2, Eps float64

	moments map[*mat.Dense]*adamMoments
}

// adamMoments is one parameter's optimiser state.
type adamMoments struct {
	m, v []float64 // first and second moment estimates, row-major like Value
	t    int       // updates applied so far
}

// The defaults Kingma & Ba recommend and most frameworks use.
const (
	adamBeta1 = 0.9   // first-moment decay: averages over ~10 steps
	adamBeta2 = 0.999 // second-moment decay: averages over ~1000 steps
	adamEps   = 1e-8  // guards the division when v̂ ≈ 0
)

// NewAdam returns Adam with learning rate lr and β₁ = 0.9, β₂ = 0.999, ε = 1e-8.
func NewAdam(lr float64) *Adam {
	return &Adam{LR: lr, Beta1: adamBeta1, Beta2: adamBeta2, Eps: adamEps}
}

// Step applies one Adam update to every parameter in ps.
func (o *Adam) Step(ps Params) {
	if o.moments == nil {
		o.moments = make(map[*mat.Dense]*adamMoments)
	}
	for _, p := range distinctValues(ps) {
		r, c := p.Value.Dims()
		mustDims("gradient of "+p.Name, p.Grad, r, c)
		st := o.moments[p.Value]
		if st == nil {
			st = &adamMoments{m: make([]float64, r*c), v: make([]float64, r*c)}
			o.moments[p.Value] = st
		}
		st.t++
		correct1 := 1 - math.Pow(o.Beta1, float64(st.t))
		correct2 := 1 - math.Pow(o.Beta2, float64(st.t))
		for i := 0; i < r; i++ {
			theta := p.Value.RawRowView(i)
			grad := p.Grad.RawRowView(i)
			m := st.m[i*c : (i+1)*c]
			v := st.v[i*c : (i+1)*c]
			for j, g := range grad {
				m[j] = o.Beta1*m[j] + (1-o.Beta1)*g
				v[j] = o.Beta2*v[j] + (1-o.Beta2)*g*g
				mHat := m[j] / correct1
				vHat := v[j] / correct2
				theta[j] -= o.LR * mHat / (math.Sqrt(vHat) + o.Eps)
			}
		}
	}
}

// Reset forgets every moment estimate and step count, as after loading a checkpoint
// into the same parameters.
func (o *Adam) Reset() { o.moments = nil }

// distinctValues lists the parameters of ps, skipping any whose Value matrix was
// already listed.
func distinctValues(ps Params) Params {
	seen := make(map[*mat.Dense]bool, len(ps))
	out := make(Params, 0, len(ps))
	for _, p := range ps {
		if !seen[p.Value] {
			seen[p.Value] = true
			out = append(out, p)
		}
	}
	return out
}
