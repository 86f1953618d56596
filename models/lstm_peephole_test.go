package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPeepholeLSTMFiniteDifferences: BPTT through the peephole LSTM (seed 003's
// peephole connections: I_t and F_t see C_{t-1}, O_t sees C_t through p_i, p_f, p_o)
// matches central differences of L = Σ_t ⟨dH_t, H_t⟩ for every parameter (the
// peephole weights included), every X_t, H_0 and C_0.
func TestPeepholeLSTMFiniteDifferences(t *testing.T) {
	const T, B, d, h, tol = 4, 2, 3, 4, 1e-7
	rng := rand.New(rand.NewPCG(5, 11))
	c := NewPeepholeLSTM(d, h, rng)
	for _, p := range []*Param{c.Pi, c.Pf, c.Po} { // peepholes large enough to matter
		p.Value.Scale(3, p.Value)
	}
	xs, dH := cellSequence(T, B, d, rng), cellSequence(T, B, h, rng)
	s0 := randomState(c, B, rng)
	loss := func() float64 {
		tr, err := Forward(c, xs, s0)
		if err != nil {
			t.Fatal(err)
		}
		return cellLoss(tr, dH)
	}
	c.Params().ZeroGrad()
	tr, err := Forward(c, xs, s0)
	if err != nil {
		t.Fatal(err)
	}
	grads := Backward(c, tr, dH, BPTTOptions{})
	targets := paramTargets(c.Params())
	for s := range xs {
		targets = append(targets, cellTarget{fmt.Sprintf("X_%d", s+1), xs[s], grads.DX[s]})
	}
	targets = append(targets, cellTarget{"H_0", s0.H, grads.DS0.H}, cellTarget{"C_0", s0.C, grads.DS0.C})
	if len(c.Params()) != 15 {
		t.Fatalf("a peephole LSTM has %d parameters, want 12 + p_i, p_f, p_o", len(c.Params()))
	}
	cellGradCheck(t, "peephole", loss, targets, tol)
}

// TestPeepholeLSTMByHand: one unit, one step, the peephole equations computed by
// hand: O_t sees the new cell C_t, I_t and F_t the old one; with p = 0 the cell is
// the plain LSTM.
func TestPeepholeLSTMByHand(t *testing.T) {
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	c := NewPeepholeLSTM(1, 1, rand.New(rand.NewPCG(1, 1)))
	for _, p := range c.Params() {
		p.Value.Zero()
	}
	c.Wxc.Value.Set(0, 0, 1)
	c.Pi.Value.Set(0, 0, 0.5)
	c.Pf.Value.Set(0, 0, -1)
	c.Po.Value.Set(0, 0, 2)
	const x, c0 = 0.7, 0.4
	st := c.Step(mat.NewDense(1, 1, []float64{x}), State{H: mat.NewDense(1, 1, nil), C: mat.NewDense(1, 1, []float64{c0})})
	i, f, ct := sig(0.5*c0), sig(-c0), math.Tanh(x)
	cn := f*c0 + i*ct
	o := sig(2 * cn)
	for _, w := range []struct {
		name      string
		got, want float64
	}{{"I", st.Gate("I").At(0, 0), i}, {"F", st.Gate("F").At(0, 0), f}, {"O", st.Gate("O").At(0, 0), o}, {"C", st.Next.C.At(0, 0), cn}, {"H", st.Next.H.At(0, 0), o * math.Tanh(cn)}} {
		if math.Abs(w.got-w.want) > 1e-15 {
			t.Errorf("%s: got %.17g want %.17g", w.name, w.got, w.want)
		}
	}
	plain := NewLSTM(1, 1, rand.New(rand.NewPCG(1, 1)))
	for k, p := range plain.Params() {
		p.Value.Copy(c.Params()[k].Value)
	}
	for _, p := range []*Param{c.Pi, c.Pf, c.Po} {
		p.Value.Zero()
	}
	a := c.Step(mat.NewDense(1, 1, []float64{x}), State{C: mat.NewDense(1, 1, []float64{c0})})
	b := plain.Step(mat.NewDense(1, 1, []float64{x}), State{C: mat.NewDense(1, 1, []float64{c0})})
	if a.Next.H.At(0, 0) != b.Next.H.At(0, 0) || a.Next.C.At(0, 0) != b.Next.C.At(0, 0) {
		t.Errorf("with p = 0 the peephole LSTM gives H %v C %v, the plain LSTM H %v C %v", a.Next.H.At(0, 0), a.Next.C.At(0, 0), b.Next.H.At(0, 0), b.Next.C.At(0, 0))
	}
}
