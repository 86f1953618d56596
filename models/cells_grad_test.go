package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Finite-difference tests of the backward passes that lessons once wrote by hand:
// a clamped gate, the reset-gate cost, clipped BPTT from the last state, the
// squared-error-and-logistic loss and an activation's backward pass.

// clampedCells lists every gate a lesson can clamp, at a value inside (0, 1).
var clampedCells = []struct {
	name string
	make func(d, h int, rng *rand.Rand) Cell
}{
	{"gru R", func(d, h int, rng *rand.Rand) Cell { return NewGRU(d, h, rng).WithClamp(GateClamp{"R", 0.3}) }},
	{"gru Z", func(d, h int, rng *rand.Rand) Cell { return NewGRU(d, h, rng).WithClamp(GateClamp{"Z", 0.6}) }},
	{"gru-reset-after R", func(d, h int, rng *rand.Rand) Cell { return NewGRUResetAfter(d, h, rng).WithClamp(GateClamp{"R", 0}) }},
	{"gru-reset-after Z", func(d, h int, rng *rand.Rand) Cell { return NewGRUResetAfter(d, h, rng).WithClamp(GateClamp{"Z", 1}) }},
	{"lstm I", func(d, h int, rng *rand.Rand) Cell { return NewLSTM(d, h, rng).WithClamp(GateClamp{"I", 0.4}) }},
	{"lstm F", func(d, h int, rng *rand.Rand) Cell { return NewLSTM(d, h, rng).WithClamp(GateClamp{"F", 1}) }},
	{"lstm O", func(d, h int, rng *rand.Rand) Cell { return NewLSTM(d, h, rng).WithClamp(GateClamp{"O", 0.7}) }},
	{"lstm-peephole I", func(d, h int, rng *rand.Rand) Cell { return NewPeepholeLSTM(d, h, rng).WithClamp(GateClamp{"I", 0.4}) }},
	{"lstm-peephole F", func(d, h int, rng *rand.Rand) Cell { return NewPeepholeLSTM(d, h, rng).WithClamp(GateClamp{"F", 1}) }},
	{"lstm-peephole O", func(d, h int, rng *rand.Rand) Cell { return NewPeepholeLSTM(d, h, rng).WithClamp(GateClamp{"O", 0.7}) }},
}

// TestClampedGateFiniteDifferences: a clamped gate shows its value at every step, and
// BPTT through the clamped cell (∂L/∂A = 0 for the clamped gate) matches central
// differences of L = Σ_t ⟨dH_t, H_t⟩ for every parameter, X_t and H_0.
func TestClampedGateFiniteDifferences(t *testing.T) {
	const T, B, d, h, tol = 4, 2, 3, 4, 1e-7
	for _, kind := range clampedCells {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 9))
			c := kind.make(d, h, rng)
			xs, dH := cellSequence(T, B, d, rng), cellSequence(T, B, h, rng)
			s0 := randomState(c, B, rng)
			var g GateClamp
			switch cc := c.(type) {
			case *GRU:
				g = cc.Clamp()
			case *LSTM:
				g = cc.Clamp()
			}
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
			if tr.fused != nil {
				t.Fatal("a clamped GRU took the fused pass, which has no clamp")
			}
			for s, st := range tr.Steps {
				raw := st.Gate(g.Gate).RawMatrix()
				for _, v := range raw.Data {
					if v != g.Value {
						t.Fatalf("step %d: %s = %v, want the clamped %v", s+1, g.Gate, v, g.Value)
					}
				}
			}
			grads := Backward(c, tr, dH, BPTTOptions{})
			targets := paramTargets(c.Params())
			for s := range xs {
				targets = append(targets, cellTarget{fmt.Sprintf("X_%d", s+1), xs[s], grads.DX[s]})
			}
			targets = append(targets, cellTarget{"H_0", s0.H, grads.DS0.H})
			if s0.C != nil {
				targets = append(targets, cellTarget{"C_0", s0.C, grads.DS0.C})
			}
			cellGradCheck(t, kind.name, loss, targets, tol)
		})
	}
}

// TestWithClampPanics: a gate the cell does not have, or a value that is not
// finite, cannot be clamped; the zero GateClamp is the unclamped cell.
func TestWithClampPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	gru, lstm := NewGRU(2, 3, rng), NewLSTM(2, 3, rng)
	cellExpectPanic(t, "GRU gate F", func() { gru.WithClamp(GateClamp{"F", 0}) })
	cellExpectPanic(t, "LSTM gate R", func() { lstm.WithClamp(GateClamp{"R", 0}) })
	cellExpectPanic(t, "NaN value", func() { gru.WithClamp(GateClamp{"R", math.NaN()}) })
	x := cellRandom(2, 2, rng)
	a, b := gru.Step(x, State{}), gru.WithClamp(GateClamp{}).Step(x, State{})
	if !mat.Equal(a.Next.H, b.Next.H) {
		t.Error("the zero GateClamp changed H_t")
	}
}

// TestResetGateCostGradient: the reset-gate cost's gradient, sent back through the
// GRU by BPTT, matches central differences of C = λ·mean R_t in both forms.
func TestResetGateCostGradient(t *testing.T) {
	const tol, lambda = 1e-7, 0.7
	for _, tc := range []struct {
		name    string
		make    func(d, h int, rng *rand.Rand) *GRU
		T, B, d int
	}{{"lecture", NewGRU, 4, 2, 3}, {"reset-after", NewGRUResetAfter, 3, 3, 2}, {"lecture T=1", NewGRU, 1, 1, 2}} {
		rng := rand.New(rand.NewPCG(5, 1))
		c := tc.make(tc.d, 4, rng)
		for _, p := range c.Params() {
			p.Uniform(1, rng)
		}
		xs := cellSequence(tc.T, tc.B, tc.d, rng)
		cost := func() (float64, *Trace, []*mat.Dense) {
			tr, err := Forward(c, xs, State{})
			if err != nil {
				t.Fatal(err)
			}
			dH := make([]*mat.Dense, tc.T)
			return c.ResetGateCost(lambda, tr, dH), tr, dH
		}
		c.Params().ZeroGrad()
		_, tr, dH := cost()
		Backward(c, tr, dH, BPTTOptions{})
		targets := paramTargets(c.Params())
		for i := range targets { // the loss below adds to Grad again: check a copy
			targets[i].grad = mat.DenseCopyOf(targets[i].grad)
		}
		cellGradCheck(t, tc.name, func() float64 { v, _, _ := cost(); return v }, targets, tol)
	}
}

// TestBackwardClippedGradient: without clipping, BackwardClipped's parameter
// gradients match central differences of L = ⟨u, H_T⟩ (every cell kind) and its
// G_t are those of Backward; with a window k they are Backward's truncated ones; with
// clipping every recorded norm is at most θ and clipping fires where the raw norm
// exceeds θ.
func TestBackwardClippedGradient(t *testing.T) {
	const T, B, d, h, tol = 5, 2, 3, 4, 1e-7
	for _, kind := range cellKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 2))
			c := kind.make(d, h, rng)
			xs, u := cellSequence(T, B, d, rng), cellRandom(B, h, rng)
			tr, err := Forward(c, xs, State{})
			if err != nil {
				t.Fatal(err)
			}
			loss := func() float64 {
				tr, err := Forward(c, xs, State{})
				if err != nil {
					t.Fatal(err)
				}
				return cellDot(u, tr.Last().H)
			}
			c.Params().ZeroGrad()
			g := BackwardClipped(c, tr, u, 0, 0)
			cellGradCheck(t, kind.name, loss, paramTargets(c.Params()), tol)
			dH := make([]*mat.Dense, T)
			dH[T-1] = u
			for _, k := range []int{0, 2} {
				want := Backward(c, tr, dH, BPTTOptions{Truncate: k, NoParamGrads: true})
				got := BackwardClipped(c, tr, u, k, 0)
				if k == 0 {
					got = g
				}
				for s := range T {
					if math.Abs(got.Norm[s]-want.HNorm[s]) > 1e-12*(1+want.HNorm[s]) || got.Cut[s] != (k > 0 && T-1-s >= k) {
						t.Errorf("k=%d step %d: norm %v cut %v, want Backward's %v", k, s+1, got.Norm[s], got.Cut[s], want.HNorm[s])
					}
				}
			}
			theta := g.RawNorm[T-1] / 2
			c.Params().ZeroGrad()
			clipped := BackwardClipped(c, tr, u, 0, theta)
			for s := range T {
				if clipped.Norm[s] > theta*(1+1e-12) || clipped.Clipped[s] != (clipped.RawNorm[s] > theta) {
					t.Errorf("θ=%v step %d: norm %v (raw %v), clipped %v", theta, s+1, clipped.Norm[s], clipped.RawNorm[s], clipped.Clipped[s])
				}
			}
			if !clipped.Clipped[T-1] {
				t.Error("clipping did not fire at t = T")
			}
		})
	}
}

// TestSquaredLogisticLossGradient: ∂L/∂O_t matches central differences of
// L = (1/n) Σ ½(x̂ − x)² − log P(y), and hits counts the rows σ(a) classifies right.
func TestSquaredLogisticLossGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const T, B = 3, 4
	outs := cellSequence(T, B, 2, rng)
	targets, labels := make([][]float64, T), make([][]float64, T)
	wantHits := 0
	for s := range T {
		targets[s], labels[s] = make([]float64, B), make([]float64, B)
		for b := range B {
			targets[s][b], labels[s][b] = rng.NormFloat64(), float64(rng.IntN(2))
			if (outs[s].At(b, 1) > 0) == (labels[s][b] == 1) {
				wantHits++
			}
		}
	}
	n := float64(T * B)
	loss := func() float64 { sum, _, _ := SquaredLogisticLoss(outs, targets, labels, n); return sum / n }
	_, hits, dO := SquaredLogisticLoss(outs, targets, labels, n)
	if hits != wantHits {
		t.Errorf("hits: got %d want %d", hits, wantHits)
	}
	var targetsFD []cellTarget
	for s := range T {
		targetsFD = append(targetsFD, cellTarget{fmt.Sprintf("O_%d", s+1), outs[s], dO[s]})
	}
	cellGradCheck(t, "squared-logistic", loss, targetsFD, 1e-8)
}

// TestActivationBackward: Activation.Backward gives ∂L/∂A of L = ⟨G, φ(A)⟩ as
// central differences do, away from ReLU's kink.
func TestActivationBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, act := range []Activation{ActTanh, ActReLU, ActIdentity} {
		a, g := cellRandom(3, 4, rng), cellRandom(3, 4, rng)
		a.Apply(func(_, _ int, v float64) float64 {
			if math.Abs(v) < 0.05 {
				return v + 0.1
			}
			return v
		}, a)
		loss := func() float64 {
			h := mat.DenseCopyOf(a)
			act.Apply(h)
			return cellDot(g, h)
		}
		h := mat.DenseCopyOf(a)
		act.Apply(h)
		dA := mat.DenseCopyOf(g)
		act.Backward(dA, h)
		cellGradCheck(t, act.String(), loss, []cellTarget{{"A", a, dA}}, 1e-8)
	}
}

// TestBackwardAtGradient: BackwardAt, the backward pass of StatesAt, matches
// central differences of L = Σ_b ⟨G_b, H_{t_b}[b]⟩ for every parameter and X_t,
// with two rows reading the same step and one step read by no row.
func TestBackwardAtGradient(t *testing.T) {
	const T, B, d, h, tol = 4, 3, 2, 3, 1e-7
	steps := []int{2, 0, 2}
	for _, kind := range cellKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(6, 6))
			c := kind.make(d, h, rng)
			xs, g := cellSequence(T, B, d, rng), cellRandom(B, h, rng)
			loss := func() float64 {
				tr, err := Forward(c, xs, State{})
				if err != nil {
					t.Fatal(err)
				}
				return cellDot(g, StatesAt(tr, steps))
			}
			tr, err := Forward(c, xs, State{})
			if err != nil {
				t.Fatal(err)
			}
			for b, s := range steps {
				if !mat.Equal(StatesAt(tr, steps).RowView(b), tr.Steps[s].Next.H.RowView(b)) {
					t.Fatalf("row %d is not H_%d's", b, s+1)
				}
			}
			c.Params().ZeroGrad()
			grads := BackwardAt(c, tr, steps, g, BPTTOptions{})
			targets := paramTargets(c.Params())
			for s := range xs {
				targets = append(targets, cellTarget{fmt.Sprintf("X_%d", s+1), xs[s], grads.DX[s]})
			}
			cellGradCheck(t, kind.name, loss, targets, tol)
		})
	}
}

// TestForwardSteps: ForwardSteps is Step's loop bit for bit, also for the GRU whose
// Forward takes the fused pass, and checks its arguments as Forward does.
func TestForwardSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	c := NewGRU(3, 4, rng)
	xs := cellSequence(5, 2, 3, rng)
	got, err := ForwardSteps(c, xs, State{})
	if err != nil {
		t.Fatal(err)
	}
	want := stepwiseTrace(c, xs, State{})
	if got.fused != nil {
		t.Error("ForwardSteps took the fused pass")
	}
	for s := range xs {
		if !mat.Equal(got.Steps[s].Next.H, want.Steps[s].Next.H) {
			t.Errorf("step %d: H differs from Step's", s+1)
		}
	}
	if _, err := ForwardSteps(c, nil, State{}); err == nil {
		t.Error("an empty sequence gave no error")
	}
}
