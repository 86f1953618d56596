package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRNNByHand: one step H_1 = φ(x W_xh + H_0 W_hh + b_h) with x = 1, H_0 = ½,
// W_xh = ln 3 − 1, W_hh = 2, b_h = 0, so A = ln 3 and tanh(ln 3) = 4/5.
func TestRNNByHand(t *testing.T) {
	ln3 := math.Log(3)
	cases := []struct {
		act  Activation
		want float64
	}{{ActTanh, 0.8}, {ActReLU, ln3}, {ActIdentity, ln3}}
	for _, tc := range cases {
		c := NewRNN(1, 1, tc.act, rand.New(rand.NewPCG(1, 1)))
		c.Wxh.Value.Set(0, 0, ln3-1)
		c.Whh.Value.Set(0, 0, 2)
		c.Bh.Value.Set(0, 0, 0)
		st := c.Step(mat.NewDense(1, 1, []float64{1}), State{H: mat.NewDense(1, 1, []float64{0.5})})
		if got := st.Next.H.At(0, 0); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%v: H_1 got %.17g want %.17g", tc.act, got, tc.want)
		}
	}
}

// TestRNNLinearUnroll: the identity-activation RNN with W_hh = ½, W_xh = 1, b = 0
// on x = 1, 1, 1 from H_0 = 0 gives H = 1, 3/2, 7/4, and ∂H_3/∂H_0 = W_hh³ = 1/8
// (lecture 002: J = W^{t−s}), so with dH_3 = 1 alone ∂L/∂H_0 = 1/8 and the
// gradient norms reaching H_3, H_2, H_1 are 1, ½, ¼.
func TestRNNLinearUnroll(t *testing.T) {
	c := NewRNN(1, 1, ActIdentity, rand.New(rand.NewPCG(1, 1)))
	c.Wxh.Value.Set(0, 0, 1)
	c.Whh.Value.Set(0, 0, 0.5)
	c.Bh.Value.Set(0, 0, 0)
	one := func() *mat.Dense { return mat.NewDense(1, 1, []float64{1}) }
	tr, err := Forward(c, []*mat.Dense{one(), one(), one()}, State{})
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range []float64{1, 1.5, 1.75} {
		if got := tr.Steps[s].Next.H.At(0, 0); got != want {
			t.Errorf("H_%d: got %g want %g", s+1, got, want)
		}
	}
	g := Backward(c, tr, []*mat.Dense{nil, nil, one()}, BPTTOptions{})
	if got := g.DS0.H.At(0, 0); got != 0.125 {
		t.Errorf("∂L/∂H_0: got %g want 1/8", got)
	}
	for s, want := range []float64{0.25, 0.5, 1} {
		if got := g.HNorm[s]; got != want {
			t.Errorf("HNorm[%d]: got %g want %g", s, got, want)
		}
	}
	// ∂L/∂W_hh = Σ_t ∂L/∂A_t · H_{t-1} = ¼·0 + ½·1 + 1·3/2 = 2.
	if got := c.Whh.Grad.At(0, 0); got != 2 {
		t.Errorf("∂L/∂W_hh: got %g want 2", got)
	}
}

// TestRNNParseActivation: names round-trip and unknown names are errors.
func TestRNNParseActivation(t *testing.T) {
	for _, a := range []Activation{ActTanh, ActReLU, ActIdentity} {
		got, err := ParseActivation(a.String())
		if err != nil || got != a {
			t.Errorf("ParseActivation(%q): got %v, %v want %v, nil", a.String(), got, err, a)
		}
		if a.MaxSlope() != 1 {
			t.Errorf("%v MaxSlope: got %g want 1", a, a.MaxSlope())
		}
	}
	if _, err := ParseActivation("sigmoid"); err == nil {
		t.Error(`ParseActivation("sigmoid"): got nil error want an error`)
	}
	if got := Activation(7).String(); got != "Activation(7)" {
		t.Errorf("String of an unknown activation: got %q want Activation(7)", got)
	}
}

// TestStepAllocations: a step of every cell, from a given state or from nothing,
// allocates its trace, its matrices' headers and their entries in three blocks (and
// the zero state in two more), and its backward pass its gradients in two; the
// matrices of one step do not share entries.
func TestStepAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const B, d, h = 2, 3, 4
	cells := []Cell{
		NewRNN(d, h, ActTanh, rng), NewGRU(d, h, rng), NewGRUResetAfter(d, h, rng), NewLSTM(d, h, rng),
		NewGRU(d, h, rng).WithClamp(GateClamp{Gate: "R", Value: 0.5}),
	}
	x := cellSequence(1, B, d, rng)[0]
	for _, c := range cells {
		name := string(c.Kind())
		prev := c.Step(x, State{}).Next
		if n := testing.AllocsPerRun(20, func() { c.Step(x, prev) }); n > 3 {
			t.Errorf("%s: Step from a state: %v allocations, want ≤ 3", name, n)
		}
		if n := testing.AllocsPerRun(20, func() { c.Step(x, State{}) }); n > 5 {
			t.Errorf("%s: Step from nothing: %v allocations, want ≤ 5", name, n)
		}
		st := c.Step(x, prev)
		dH := mat.NewDense(B, h, nil)
		dH.Apply(func(i, j int, _ float64) float64 { return float64(i - j) }, dH)
		if n := testing.AllocsPerRun(20, func() { c.StepBack(st, dH, prev.C) }); n > 2 {
			t.Errorf("%s: StepBack: %v allocations, want ≤ 2", name, n)
		}
		ms := []*mat.Dense{st.Next.H, st.Next.C}
		for _, g := range st.Gates {
			ms = append(ms, g.Value)
		}
		ms = append(ms, st.aux...)
		seen := map[*float64]bool{}
		for _, m := range ms {
			if m == nil {
				continue
			}
			raw := m.RawMatrix()
			for i := range raw.Rows {
				for j := range raw.Cols {
					p := &raw.Data[i*raw.Stride+j]
					if seen[p] {
						t.Fatalf("%s: two matrices of one step share an entry", name)
					}
					seen[p] = true
				}
			}
		}
	}
}
