package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Param is one named parameter tensor of a model and ∂L/∂(that tensor), which
// backward passes accumulate into Grad.
type Param struct {
	Name  string     // the lecture's name, e.g. "W_xr" or "b_r"
	Value *mat.Dense // biases are 1×h
	Grad  *mat.Dense // same shape as Value
	// Vector marks a bias: stored 1×h here, written as a 1-D tensor of length h
	// in checkpoints and JSON.
	Vector bool
}

// NewParam returns a zero r×c parameter and its zero gradient.
func NewParam(name string, r, c int) *Param {
	return &Param{Name: name, Value: mat.NewDense(r, c, nil), Grad: mat.NewDense(r, c, nil)}
}

// NewBias returns a zero 1×n bias parameter.
func NewBias(name string, n int) *Param {
	p := NewParam(name, 1, n)
	p.Vector = true
	return p
}

// Params is a model's parameter list, in a fixed documented order.
type Params []*Param

// ZeroGrad sets every gradient to zero.
func (ps Params) ZeroGrad() {
	for _, p := range ps {
		p.Grad.Zero()
	}
}

// ByName returns the parameter called name, or nil.
func (ps Params) ByName(name string) *Param {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// GradNorm is the global gradient norm √(Σ_p ‖∂L/∂p‖²_F) over all parameters.
func (ps Params) GradNorm() float64 {
	var s float64
	for _, p := range ps {
		n := mat.Norm(p.Grad, 2)
		s += n * n
	}
	return math.Sqrt(s)
}

// Count is the number of scalar parameters, Σ_p rows·cols.
func (ps Params) Count() int {
	n := 0
	for _, p := range ps {
		r, c := p.Value.Dims()
		n += r * c
	}
	return n
}

// mustDims panics with a models: message unless m is r×c.
func mustDims(what string, m mat.Matrix, r, c int) {
	mr, mc := m.Dims()
	if mr != r || mc != c {
		panic(fmt.Sprintf("models: %s is %d×%d, want %d×%d", what, mr, mc, r, c))
	}
}

// Uniform fills p.Value with draws from U(−a, a); a = 1/√h is the usual choice for
// recurrent weights.
func (p *Param) Uniform(a float64, rng *rand.Rand) {
	raw := p.Value.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j := range row {
			row[j] = (2*rng.Float64() - 1) * a
		}
	}
}

// WithPrefix returns the same parameters (sharing Value and Grad) under names
// prefix+Name, so a model built of parts has unique names in a checkpoint.
func (ps Params) WithPrefix(prefix string) Params {
	out := make(Params, len(ps))
	for i, p := range ps {
		q := *p
		q.Name = prefix + p.Name
		out[i] = &q
	}
	return out
}
