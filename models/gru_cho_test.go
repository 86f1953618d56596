package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGRUChoForm: the GRU as Cho et al. (2014) define it (seed 001's notes on the
// paper), written independently with column vectors multiplied from the left and no
// biases,
//
//	r_t = σ(W^r x_t + U^r h_{t-1}),  z_t = σ(W^z x_t + U^z h_{t-1}),
//	h̃_t = tanh(W x_t + U (r_t ⊙ h_{t-1})),  h_t = z_t ⊙ h_{t-1} + (1 − z_t) ⊙ h̃_t,
//
// equals the lecture's GRU with its biases at zero and W^r = W_xrᵀ, U^r = W_hrᵀ, …:
// the claim of the gru page's Cho et al. paragraph.
func TestGRUChoForm(t *testing.T) {
	const d, h, T = 3, 4, 6
	rng := rand.New(rand.NewPCG(1, 1))
	c := NewGRU(d, h, rng)
	for _, b := range []*Param{c.Br, c.Bz, c.Bh} {
		b.Value.Zero()
	}
	tr := func(p *Param) *mat.Dense { var m mat.Dense; m.CloneFrom(p.Value.T()); return &m }
	Wr, Ur, Wz, Uz, W, U := tr(c.Wxr), tr(c.Whr), tr(c.Wxz), tr(c.Whz), tr(c.Wxh), tr(c.Whh)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	// affine is A a + B b, element-wise through f.
	affine := func(A *mat.Dense, a *mat.VecDense, B *mat.Dense, b *mat.VecDense, f func(float64) float64) *mat.VecDense {
		var p, q mat.VecDense
		p.MulVec(A, a)
		q.MulVec(B, b)
		p.AddVec(&p, &q)
		for j := range h {
			p.SetVec(j, f(p.AtVec(j)))
		}
		return &p
	}
	hCho := mat.NewVecDense(h, nil)
	var state State
	for step := range T {
		xs := make([]float64, d)
		for i := range xs {
			xs[i] = rng.NormFloat64()
		}
		x := mat.NewVecDense(d, xs)
		r := affine(Wr, x, Ur, hCho, sig)
		z := affine(Wz, x, Uz, hCho, sig)
		var rh mat.VecDense
		rh.MulElemVec(r, hCho)
		hTilde := affine(W, x, U, &rh, math.Tanh)
		next := mat.NewVecDense(h, nil)
		for j := range h {
			next.SetVec(j, z.AtVec(j)*hCho.AtVec(j)+(1-z.AtVec(j))*hTilde.AtVec(j))
		}
		hCho = next

		st := c.Step(mat.NewDense(1, d, xs), state)
		state = st.Next
		for j := range h {
			if got, want := st.Next.H.At(0, j), hCho.AtVec(j); math.Abs(got-want) > 1e-12 {
				t.Fatalf("step %d unit %d: lecture GRU without biases %v, Cho et al. %v", step+1, j+1, got, want)
			}
			if got, want := st.Gate("Z").At(0, j), z.AtVec(j); math.Abs(got-want) > 1e-12 {
				t.Fatalf("step %d unit %d: Z_t %v, Cho et al.'s z_t %v (same direction: near 1 keeps)", step+1, j+1, got, want)
			}
		}
	}
}
