package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Helpers shared by the cell, BPTT and stack tests.

// cellRandom returns an r×c matrix with entries from U(−1, 1).
func cellRandom(r, c int, rng *rand.Rand) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, 2*rng.Float64()-1)
		}
	}
	return m
}

// cellSequence returns T random B×d inputs.
func cellSequence(T, B, d int, rng *rand.Rand) []*mat.Dense {
	xs := make([]*mat.Dense, T)
	for t := range xs {
		xs[t] = cellRandom(B, d, rng)
	}
	return xs
}

// cellDot is ⟨a, b⟩ = Σ a_ij b_ij; a nil a is zero.
func cellDot(a, b *mat.Dense) float64 {
	if a == nil {
		return 0
	}
	var s float64
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			s += a.At(i, j) * b.At(i, j)
		}
	}
	return s
}

// cellLoss is L = Σ_t ⟨dH_t, H_t⟩ for a trace.
func cellLoss(tr *Trace, dH []*mat.Dense) float64 {
	var l float64
	for t, st := range tr.Steps {
		l += cellDot(dH[t], st.Next.H)
	}
	return l
}

// cellTarget is one tensor a loss depends on, with the gradient to check.
type cellTarget struct {
	name  string
	value *mat.Dense // perturbed in place by the check
	grad  *mat.Dense // the analytic ∂L/∂value
}

// paramTargets lists every parameter of ps as a target.
func paramTargets(ps Params) []cellTarget {
	out := make([]cellTarget, len(ps))
	for i, p := range ps {
		out[i] = cellTarget{p.Name, p.Value, p.Grad}
	}
	return out
}

// cellGradCheck compares every target's analytic gradient with central finite
// differences of loss (gonum diff/fd), entrywise within tol·(1 + |numeric|).
func cellGradCheck(t *testing.T, what string, loss func() float64, targets []cellTarget, tol float64) {
	t.Helper()
	for _, tg := range targets {
		if msg := gradMismatch(what+": ∂L/∂"+tg.name, tg.grad, numericGrad(tg.value, loss, 1e-5), tol, tol); msg != "" {
			t.Error(msg)
		}
	}
}

// cellClose reports the first entry where got and want differ by more than tol.
func cellClose(what string, got, want *mat.Dense, tol float64) error {
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		return fmt.Errorf("%s: got %d×%d want %d×%d", what, gr, gc, wr, wc)
	}
	for i := range gr {
		for j := range gc {
			if g, w := got.At(i, j), want.At(i, j); math.Abs(g-w) > tol {
				return fmt.Errorf("%s[%d,%d]: got %.15g want %.15g", what, i, j, g, w)
			}
		}
	}
	return nil
}

// cellExpectPanic checks that call panics with a message starting "models:".
func cellExpectPanic(t *testing.T, what string, call func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s: got no panic want a models: panic", what)
			return
		}
		if msg := fmt.Sprint(r); !strings.HasPrefix(msg, "models:") {
			t.Errorf("%s: got panic %q want one starting with models:", what, msg)
		}
	}()
	call()
}

// stepwiseTrace is Forward done by hand with Step, never the GRU sequence pass.
func stepwiseTrace(c Cell, xs []*mat.Dense, s0 State) *Trace {
	tr := &Trace{Steps: make([]*StepTrace, len(xs))}
	s := s0
	for t, x := range xs {
		tr.Steps[t] = c.Step(x, s)
		s = tr.Steps[t].Next
	}
	return tr
}

// cellKinds lists a constructor for every cell variant the tests cover.
var cellKinds = []struct {
	name string
	make func(d, h int, rng *rand.Rand) Cell
}{
	{"rnn-tanh", func(d, h int, rng *rand.Rand) Cell { return NewRNN(d, h, ActTanh, rng) }},
	{"rnn-relu", func(d, h int, rng *rand.Rand) Cell { return NewRNN(d, h, ActReLU, rng) }},
	{"rnn-identity", func(d, h int, rng *rand.Rand) Cell { return NewRNN(d, h, ActIdentity, rng) }},
	// lecture 002's leaky unit, H_t = (1 − α) H_{t−1} + α tanh(A_t)
	{"rnn-leaky-tanh", func(d, h int, rng *rand.Rand) Cell { c := NewRNN(d, h, ActTanh, rng); c.SetLeak(0.3); return c }},
	{"gru", func(d, h int, rng *rand.Rand) Cell { return NewGRU(d, h, rng) }},
	{"gru-reset-after", func(d, h int, rng *rand.Rand) Cell { return NewGRUResetAfter(d, h, rng) }},
	{"lstm", func(d, h int, rng *rand.Rand) Cell { return NewLSTM(d, h, rng) }},
}

// randomState is a random initial state for c.
func randomState(c Cell, B int, rng *rand.Rand) State {
	h := c.HiddenSize()
	s := State{H: cellRandom(B, h, rng)}
	if c.Kind() == KindLSTM {
		s.C = cellRandom(B, h, rng)
	}
	return s
}

// TestBPTTFiniteDifferences checks full BPTT for every cell kind on random
// shapes: every parameter, every X_t, H_0 and C_0, with some dH_t nil.
func TestBPTTFiniteDifferences(t *testing.T) {
	shapes := []struct{ T, B, d, h int }{{1, 1, 1, 1}, {3, 2, 3, 4}, {5, 3, 2, 3}}
	const tol = 1e-7
	for _, kind := range cellKinds {
		for _, sh := range shapes {
			name := fmt.Sprintf("%s/T=%d,B=%d,d=%d,h=%d", kind.name, sh.T, sh.B, sh.d, sh.h)
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 1))
				c := kind.make(sh.d, sh.h, rng)
				xs := cellSequence(sh.T, sh.B, sh.d, rng)
				s0 := randomState(c, sh.B, rng)
				dH := cellSequence(sh.T, sh.B, sh.h, rng)
				if sh.T > 2 {
					dH[1] = nil
				}
				tr, err := Forward(c, xs, s0)
				if err != nil {
					t.Fatalf("Forward: got error %v want nil", err)
				}
				c.Params().ZeroGrad()
				g := Backward(c, tr, dH, BPTTOptions{})
				loss := func() float64 {
					tr, err := Forward(c, xs, s0)
					if err != nil {
						t.Fatalf("Forward: %v", err)
					}
					return cellLoss(tr, dH)
				}
				targets := paramTargets(c.Params())
				for i, x := range xs {
					targets = append(targets, cellTarget{fmt.Sprintf("X_%d", i+1), x, g.DX[i]})
				}
				targets = append(targets, cellTarget{"H_0", s0.H, g.DS0.H})
				if s0.C != nil {
					targets = append(targets, cellTarget{"C_0", s0.C, g.DS0.C})
				}
				cellGradCheck(t, name, loss, targets, tol)
			})
		}
	}
}

// TestBPTTStepwiseMatchesSequence checks that Backward over a trace built
// with Step gives the same gradients as over a trace from Forward (which the GRU
// computes with its sequence pass), and that Backward on the same trace twice
// accumulates twice.
func TestBPTTStepwiseMatchesSequence(t *testing.T) {
	const tol = 1e-12
	for _, kind := range cellKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			c := kind.make(3, 4, rng)
			xs, dH := cellSequence(4, 2, 3, rng), cellSequence(4, 2, 4, rng)
			s0 := randomState(c, 2, rng)
			tr, err := Forward(c, xs, s0)
			if err != nil {
				t.Fatal(err)
			}
			c.Params().ZeroGrad()
			Backward(c, tr, dH, BPTTOptions{})
			want := cloneGrads(c.Params())
			c.Params().ZeroGrad()
			Backward(c, stepwiseTrace(c, xs, s0), dH, BPTTOptions{})
			Backward(c, stepwiseTrace(c, xs, s0), dH, BPTTOptions{})
			for i, p := range c.Params() {
				var twice mat.Dense
				twice.Scale(2, want[i])
				if err := cellClose("twice ∂L/∂"+p.Name, p.Grad, &twice, tol); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// cloneGrads copies every parameter's gradient.
func cloneGrads(ps Params) []*mat.Dense {
	out := make([]*mat.Dense, len(ps))
	for i, p := range ps {
		out[i] = mat.DenseCopyOf(p.Grad)
	}
	return out
}

// TestBPTTHNorm checks the per-step gradient norms against ∂L/∂H_t built by hand:
// ∂L/∂H_T = dH_T and ∂L/∂H_t = dH_t + ∂L/∂H_{t} from step t+1's StepBack.
func TestBPTTHNorm(t *testing.T) {
	const tol = 1e-12
	for _, kind := range cellKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			c := kind.make(2, 3, rng)
			xs, dH := cellSequence(5, 3, 2, rng), cellSequence(5, 3, 3, rng)
			tr, err := Forward(c, xs, State{})
			if err != nil {
				t.Fatal(err)
			}
			g := Backward(c, tr, dH, BPTTOptions{})
			if len(g.HNorm) != 5 {
				t.Fatalf("len(HNorm): got %d want 5", len(g.HNorm))
			}
			vjp := c.(stepBackward)
			carry := State{}
			for s := 4; s >= 0; s-- {
				total := addOrNew(carry.H, dH[s], dH[s])
				if got, want := g.HNorm[s], mat.Norm(total, 2); math.Abs(got-want) > tol*want {
					t.Errorf("HNorm[%d]: got %.15g want %.15g", s, got, want)
				}
				if g.CNorm != nil {
					want := 0.0
					if carry.C != nil {
						want = mat.Norm(carry.C, 2)
					}
					if got := g.CNorm[s]; math.Abs(got-want) > tol*max(1, want) {
						t.Errorf("CNorm[%d]: got %.15g want %.15g", s, got, want)
					}
				}
				_, carry = vjp.backward(tr.Steps[s], total, carry.C, false)
			}
			if (g.CNorm != nil) != (c.Kind() == KindLSTM) {
				t.Errorf("CNorm present: got %v want %v", g.CNorm != nil, c.Kind() == KindLSTM)
			}
		})
	}
}

// TestBPTTNoUpstream: with no upstream gradient (dH nil) every gradient is zero.
func TestBPTTNoUpstream(t *testing.T) {
	for _, kind := range cellKinds {
		rng := rand.New(rand.NewPCG(1, 1))
		c := kind.make(2, 3, rng)
		tr, err := Forward(c, cellSequence(3, 2, 2, rng), State{})
		if err != nil {
			t.Fatal(err)
		}
		c.Params().ZeroGrad()
		for _, k := range []int{0, 2} {
			g := Backward(c, tr, nil, BPTTOptions{Truncate: k})
			if n := c.Params().GradNorm(); n != 0 {
				t.Errorf("%s k=%d: got parameter gradient norm %g want 0", kind.name, k, n)
			}
			if n := mat.Norm(g.DX[0], 2) + mat.Norm(g.DS0.H, 2); n != 0 || g.HNorm[2] != 0 {
				t.Errorf("%s k=%d: got nonzero ∂L/∂X_1, ∂L/∂H_0 or HNorm want zero", kind.name, k)
			}
		}
	}
}

// truncatedLoss is the function whose exact gradient truncated BPTT with window k
// computes: each term ⟨dH_s, H_s⟩ sees H_{s−k} as a constant (a stop-gradient
// taken from a frozen forward pass), recomputing only steps s−k+1..s.
func truncatedLoss(c Cell, xs []*mat.Dense, s0 State, dH []*mat.Dense, k int, frozen *Trace) float64 {
	var l float64
	for s := range xs {
		start := max(0, s-k+1) // first recomputed step (0-based)
		st := s0
		if start > 0 {
			st = frozen.Steps[start-1].Next
		}
		for t := start; t <= s; t++ {
			st = c.Step(xs[t], st).Next
		}
		l += cellDot(dH[s], st.H)
	}
	return l
}

// TestTruncatedBPTT checks BPTTOptions.Truncate: k ≥ T is full BPTT, k = 1 is the
// sum of single steps with no gradient through H_{t−1}, and every k matches finite
// differences of the stop-gradient loss that defines it.
func TestTruncatedBPTT(t *testing.T) {
	const T, B, d, h = 5, 2, 2, 3
	for _, kind := range cellKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			c := kind.make(d, h, rng)
			xs, dH := cellSequence(T, B, d, rng), cellSequence(T, B, h, rng)
			s0 := randomState(c, B, rng)
			tr, err := Forward(c, xs, s0)
			if err != nil {
				t.Fatal(err)
			}
			c.Params().ZeroGrad()
			full := Backward(c, tr, dH, BPTTOptions{})
			fullGrads := cloneGrads(c.Params())

			for _, k := range []int{T, T + 3} {
				c.Params().ZeroGrad()
				g := Backward(c, tr, dH, BPTTOptions{Truncate: k})
				for i, p := range c.Params() {
					if err := cellClose(fmt.Sprintf("k=%d ∂L/∂%s", k, p.Name), p.Grad, fullGrads[i], 1e-12); err != nil {
						t.Error(err)
					}
				}
				for i := range xs {
					if err := cellClose(fmt.Sprintf("k=%d ∂L/∂X_%d", k, i+1), g.DX[i], full.DX[i], 1e-12); err != nil {
						t.Error(err)
					}
				}
			}

			// k = 1: Σ_t of StepBack(step t, dH_t), nothing carried.
			c.Params().ZeroGrad()
			one := Backward(c, tr, dH, BPTTOptions{Truncate: 1})
			oneGrads := cloneGrads(c.Params())
			c.Params().ZeroGrad()
			for s := range T {
				dx, _ := c.StepBack(tr.Steps[s], dH[s], nil)
				if err := cellClose(fmt.Sprintf("k=1 ∂L/∂X_%d", s+1), one.DX[s], dx, 1e-12); err != nil {
					t.Error(err)
				}
				if got, want := one.HNorm[s], mat.Norm(dH[s], 2); math.Abs(got-want) > 1e-12 {
					t.Errorf("k=1 HNorm[%d]: got %g want ‖dH_t‖ = %g", s, got, want)
				}
			}
			for i, p := range c.Params() {
				if err := cellClose("k=1 ∂L/∂"+p.Name, oneGrads[i], p.Grad, 1e-12); err != nil {
					t.Error(err)
				}
			}

			for _, k := range []int{1, 2, 3} {
				c.Params().ZeroGrad()
				g := Backward(c, tr, dH, BPTTOptions{Truncate: k})
				frozen := stepwiseTrace(c, xs, s0) // H_{s−k} from the unperturbed parameters
				targets := paramTargets(c.Params())
				for i, x := range xs {
					targets = append(targets, cellTarget{fmt.Sprintf("X_%d", i+1), x, g.DX[i]})
				}
				targets = append(targets, cellTarget{"H_0", s0.H, g.DS0.H})
				if s0.C != nil {
					targets = append(targets, cellTarget{"C_0", s0.C, g.DS0.C})
				}
				loss := func() float64 { return truncatedLoss(c, xs, s0, dH, k, frozen) }
				cellGradCheck(t, fmt.Sprintf("k=%d", k), loss, targets, 1e-7)
			}
		})
	}
}

// TestBPTTForwardErrors: an empty sequence or a non-finite number is an error that
// names the problem, never a panic.
func TestBPTTForwardErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	c := NewGRU(2, 3, rng)
	withEntry := func(v float64) []*mat.Dense {
		xs := cellSequence(3, 1, 2, rng)
		xs[1].Set(0, 1, v)
		return xs
	}
	badH0 := cellRandom(1, 3, rng)
	badH0.Set(0, 2, math.Inf(-1))
	cases := []struct {
		name string
		xs   []*mat.Dense
		s0   State
		want string
	}{
		{"empty", nil, State{}, "models: empty sequence"},
		{"empty slice", []*mat.Dense{}, State{}, "models: empty sequence"},
		{"NaN", withEntry(math.NaN()), State{}, "models: X_2 has NaN"},
		{"+Inf", withEntry(math.Inf(1)), State{}, "models: X_2 has +Inf"},
		{"Inf in H_0", cellSequence(2, 1, 2, rng), State{H: badH0}, "models: H_0 has -Inf"},
	}
	for _, tc := range cases {
		for _, kind := range cellKinds {
			c := kind.make(2, 3, rng)
			s0 := tc.s0
			if kind.name == "lstm" && s0.H != nil {
				s0.C = mat.NewDense(1, 3, nil)
			}
			tr, err := Forward(c, tc.xs, s0)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%s/%s: got error %v want one starting %q", tc.name, kind.name, err, tc.want)
			}
			if tr != nil {
				t.Errorf("%s/%s: got a trace with the error want nil", tc.name, kind.name)
			}
		}
	}
	_ = c
}

// TestBPTTShapePanics: programmer errors panic with a models: message.
func TestBPTTShapePanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	gru, lstm := NewGRU(2, 3, rng), NewLSTM(2, 3, rng)
	xs := cellSequence(2, 2, 2, rng)
	tr, err := Forward(gru, xs, State{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		call func()
	}{
		{"x has wrong width", func() { Forward(gru, cellSequence(2, 2, 3, rng), State{}) }},
		{"batch changes over time", func() { Forward(gru, []*mat.Dense{cellRandom(2, 2, rng), cellRandom(3, 2, rng)}, State{}) }},
		{"nil X_t", func() { Forward(gru, []*mat.Dense{nil}, State{}) }},
		{"H_0 wrong shape", func() { Forward(gru, xs, State{H: cellRandom(2, 4, rng)}) }},
		{"C_0 for a GRU", func() { Forward(gru, xs, State{C: cellRandom(2, 3, rng)}) }},
		{"C_0 wrong shape", func() { Forward(lstm, xs, State{C: cellRandom(1, 3, rng)}) }},
		{"Step x wrong width", func() { gru.Step(cellRandom(2, 5, rng), State{}) }},
		{"rnn Step H wrong", func() { NewRNN(2, 3, ActTanh, rng).Step(cellRandom(2, 2, rng), State{H: cellRandom(3, 3, rng)}) }},
		{"lstm Step", func() { lstm.Step(cellRandom(1, 1, rng), State{}) }},
		{"dH wrong shape", func() { Backward(gru, tr, []*mat.Dense{nil, cellRandom(2, 2, rng)}, BPTTOptions{}) }},
		{"dH wrong length", func() { Backward(gru, tr, cellSequence(3, 2, 3, rng), BPTTOptions{}) }},
		{"negative Truncate", func() { Backward(gru, tr, nil, BPTTOptions{Truncate: -1}) }},
		{"StepBack dH wrong", func() { gru.StepBack(tr.Steps[0], cellRandom(1, 3, rng), nil) }},
		{"Jacobian row out of range", func() { Jacobian(gru, tr.Steps[0], 2) }},
		{"SpectralRadius not square", func() { SpectralRadius(cellRandom(2, 3, rng)) }},
		{"NewGRU zero size", func() { NewGRU(0, 3, rng) }},
		{"NewRNN bad activation", func() { NewRNN(1, 1, Activation(9), rng) }},
		{"NewLSTM negative", func() { NewLSTM(2, -1, rng) }},
	}
	for _, tc := range cases {
		cellExpectPanic(t, tc.name, tc.call)
	}
}

// TestNewCellRNNGRULSTM: the factory builds each kind with docs/api.md's parameter names, and
// rejects unknown kinds and sizes with an error.
func TestNewCellRNNGRULSTM(t *testing.T) {
	cases := []struct {
		kind  Kind
		names string
	}{
		{KindRNN, "W_xh W_hh b_h"},
		{KindGRU, "W_xr W_hr b_r W_xz W_hz b_z W_xh W_hh b_h"},
		{KindLSTM, "W_xi W_hi b_i W_xf W_hf b_f W_xo W_ho b_o W_xc W_hc b_c"},
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(1, 1))
		c, err := NewCell(tc.kind, 2, 5, rng)
		if err != nil {
			t.Fatalf("%s: got error %v want nil", tc.kind, err)
		}
		var names []string
		for _, p := range c.Params() {
			names = append(names, p.Name)
			r, cols := p.Value.Dims()
			wantR := 5
			switch {
			case p.Vector:
				wantR = 1
			case strings.HasPrefix(p.Name, "W_x"):
				wantR = 2
			}
			if r != wantR || cols != 5 {
				t.Errorf("%s %s: got %d×%d want %d×5", tc.kind, p.Name, r, cols, wantR)
			}
			bound := 1 / math.Sqrt(5)
			if m := max(mat.Max(p.Value), -mat.Min(p.Value)); m > bound || m == 0 {
				t.Errorf("%s %s: got max |entry| %g want in (0, 1/√h = %g]", tc.kind, p.Name, m, bound)
			}
		}
		if got := strings.Join(names, " "); got != tc.names {
			t.Errorf("%s params: got %q want %q", tc.kind, got, tc.names)
		}
		if c.Kind() != tc.kind || c.InputSize() != 2 || c.HiddenSize() != 5 {
			t.Errorf("%s: got kind %s d=%d h=%d want %s d=2 h=5", tc.kind, c.Kind(), c.InputSize(), c.HiddenSize(), tc.kind)
		}
		s := ZeroState(c, 3)
		if r, cols := s.H.Dims(); r != 3 || cols != 5 || (s.C != nil) != (tc.kind == KindLSTM) {
			t.Errorf("%s ZeroState: got H %d×%d, C present %v", tc.kind, r, cols, s.C != nil)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, bad := range []struct {
		kind Kind
		d, h int
	}{{"transformer", 2, 2}, {KindGRU, 0, 2}, {KindLSTM, 2, -1}} {
		if _, err := NewCell(bad.kind, bad.d, bad.h, rng); err == nil || !strings.HasPrefix(err.Error(), "models: ") {
			t.Errorf("NewCell(%q, %d, %d): got error %v want a models: error", bad.kind, bad.d, bad.h, err)
		}
	}
}

// TestBPTTTraceGates: every step exposes its intermediates under docs/api.md's keys, in
// lecture order, with the new state under "H" (and "C").
func TestBPTTTraceGates(t *testing.T) {
	cases := []struct {
		kind  string
		gates string
	}{
		{"rnn-tanh", ""},
		{"gru", "R Z H_tilde"},
		{"gru-reset-after", "R Z H_tilde"},
		{"lstm", "I F O C_tilde"},
	}
	for _, tc := range cases {
		for _, kind := range cellKinds {
			if kind.name != tc.kind {
				continue
			}
			rng := rand.New(rand.NewPCG(1, 1))
			c := kind.make(2, 3, rng)
			tr, err := Forward(c, cellSequence(3, 2, 2, rng), State{})
			if err != nil {
				t.Fatal(err)
			}
			for s, st := range tr.Steps {
				var names []string
				for _, g := range st.Gates {
					names = append(names, g.Name)
					if r, cols := g.Value.Dims(); r != 2 || cols != 3 {
						t.Errorf("%s step %d gate %s: got %d×%d want 2×3", tc.kind, s+1, g.Name, r, cols)
					}
					if st.Gate(g.Name) != g.Value {
						t.Errorf("%s step %d: Gate(%q) is not the trace's value", tc.kind, s+1, g.Name)
					}
				}
				if got := strings.Join(names, " "); got != tc.gates {
					t.Errorf("%s step %d gates: got %q want %q", tc.kind, s+1, got, tc.gates)
				}
				if st.Gate("H") != st.Next.H || st.Gate("C") != st.Next.C {
					t.Errorf("%s step %d: Gate(H), Gate(C) are not the new state", tc.kind, s+1)
				}
				if (st.Next.C != nil) != (c.Kind() == KindLSTM) {
					t.Errorf("%s step %d: memory cell present %v", tc.kind, s+1, st.Next.C != nil)
				}
				if s > 0 && mat.Norm(st.Prev.H, 1) != mat.Norm(tr.Steps[s-1].Next.H, 1) {
					t.Errorf("%s step %d: Prev.H is not step %d's H", tc.kind, s+1, s)
				}
			}
			if tr.Last().H != tr.Steps[2].Next.H || len(tr.Outputs()) != 3 || tr.Len() != 3 {
				t.Errorf("%s: Last/Outputs/Len disagree with Steps", tc.kind)
			}
		}
	}
}

// TestJacobianFiniteDifferences checks ∂H_t/∂H_{t-1} (and the LSTM's full state
// Jacobian) against central differences of one Step, for a middle batch row.
func TestJacobianFiniteDifferences(t *testing.T) {
	const tol = 1e-8
	for _, kind := range cellKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			const B, d, h, row = 3, 2, 4, 1
			c := kind.make(d, h, rng)
			x := cellRandom(B, d, rng)
			prev := randomState(c, B, rng)
			st := c.Step(x, prev)
			before := cloneGrads(c.Params())
			J := Jacobian(c, st, row)
			S := StateJacobian(c, st, row)
			for i, p := range c.Params() {
				if err := cellClose("Jacobian left ∂L/∂"+p.Name, p.Grad, before[i], 0); err != nil {
					t.Error(err)
				}
			}
			withC := c.Kind() == KindLSTM
			n := h
			if withC {
				n = 2 * h
			}
			want := mat.NewDense(n, n, nil)
			for j := range n { // column j: perturb state entry j of row `row`
				target := prev.H
				if j >= h {
					target = prev.C
				}
				orig := target.At(row, j%h)
				f := func(v float64) []float64 {
					target.Set(row, j%h, v)
					next := c.Step(x, prev).Next
					target.Set(row, j%h, orig)
					out := mat.Row(nil, row, next.H)
					if withC {
						out = append(out, mat.Row(nil, row, next.C)...)
					}
					return out
				}
				const step = 1e-5
				plus, minus := f(orig+step), f(orig-step)
				for i := range n {
					want.Set(i, j, (plus[i]-minus[i])/(2*step))
				}
			}
			if err := cellClose("StateJacobian", S, want, tol); err != nil {
				t.Error(err)
			}
			if err := cellClose("Jacobian", J, want.Slice(0, h, 0, h).(*mat.Dense), tol); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestJacobianRNNClosedForm: for the vanilla RNN J = diag(φ'(A_t)) W_hhᵀ, which is
// exactly W_hhᵀ for the identity activation (lecture 002's linear case).
func TestJacobianRNNClosedForm(t *testing.T) {
	for _, act := range []Activation{ActIdentity, ActTanh, ActReLU} {
		rng := rand.New(rand.NewPCG(1, 1))
		c := NewRNN(3, 5, act, rng)
		st := c.Step(cellRandom(2, 3, rng), State{H: cellRandom(2, 5, rng)})
		for b := range 2 {
			want := mat.DenseCopyOf(c.Whh.Value.T())
			for i := range 5 {
				slope := act.slope(st.Next.H.At(b, i))
				for j := range 5 {
					want.Set(i, j, slope*want.At(i, j))
				}
			}
			if err := cellClose(fmt.Sprintf("%v Jacobian row %d", act, b), Jacobian(c, st, b), want, 1e-15); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestSpectral checks SpectralNorm and SpectralRadius on matrices with known
// answers, and lecture 002's linear RNN: ‖∂H_t/∂H_s‖ = ‖(W_hhᵀ)^{t−s}‖ shrinks
// like ρ(W_hh)^{t−s} when ρ < 1.
func TestSpectral(t *testing.T) {
	cases := []struct {
		name         string
		m            *mat.Dense
		norm, radius float64
	}{
		{"diagonal", mat.NewDense(2, 2, []float64{3, 0, 0, -0.5}), 3, 3},
		{"rotation by 90° scaled by 2", mat.NewDense(2, 2, []float64{0, -2, 2, 0}), 2, 2},
		{"lower triangular", mat.NewDense(2, 2, []float64{3, 0, 4, 5}), math.Sqrt(45), 5},
		{"nilpotent", mat.NewDense(2, 2, []float64{0, 1, 0, 0}), 1, 0},
	}
	for _, tc := range cases {
		if got := SpectralNorm(tc.m); math.Abs(got-tc.norm) > 1e-12 {
			t.Errorf("%s SpectralNorm: got %.15g want %.15g", tc.name, got, tc.norm)
		}
		if got := SpectralRadius(tc.m); math.Abs(got-tc.radius) > 1e-12 {
			t.Errorf("%s SpectralRadius: got %.15g want %.15g", tc.name, got, tc.radius)
		}
	}

	// Linear RNN with symmetric W_hh (so ‖W‖₂ = ρ(W)) scaled to ρ = 0.9.
	rng := rand.New(rand.NewPCG(1, 1))
	const h, T = 4, 12
	c := NewRNN(1, h, ActIdentity, rng)
	a := cellRandom(h, h, rng)
	var w mat.Dense
	w.Add(a, a.T())
	w.Scale(0.9/SpectralRadius(&w), &w)
	c.Whh.Value.Copy(&w)
	tr, err := Forward(c, cellSequence(T, 1, 1, rng), State{})
	if err != nil {
		t.Fatal(err)
	}
	prod := mat.NewDense(h, h, nil) // ∂H_t/∂H_0 = J_t ⋯ J_1
	for i := range h {
		prod.Set(i, i, 1)
	}
	rho := SpectralRadius(c.Whh.Value)
	for s, st := range tr.Steps {
		prod.Mul(Jacobian(c, st, 0), prod)
		got, bound := SpectralNorm(prod), math.Pow(rho*ActIdentity.MaxSlope(), float64(s+1))
		if math.Abs(got-bound) > 1e-12 {
			t.Errorf("‖∂H_%d/∂H_0‖₂: got %.15g want (ρ γ)^t = %.15g (equality for symmetric W)", s+1, got, bound)
		}
	}
	norms := JacobianNorms(c, tr, 0)
	for s, n := range norms {
		if math.Abs(n-0.9) > 1e-12 {
			t.Errorf("JacobianNorms[%d]: got %.15g want ‖W_hh‖₂ = 0.9", s, n)
		}
	}
}

// TestJacobianNormBound: for a tanh RNN every step's ‖∂H_t/∂H_{t-1}‖₂ is at most
// ‖W_hh‖₂·γ with γ = 1 (lecture 002's bound, with the spectral norm of W_hh,
// which equals ρ(W_hh) only for a normal W_hh).
func TestJacobianNormBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	c := NewRNN(2, 6, ActTanh, rng)
	c.Whh.Value.Scale(3, c.Whh.Value)
	tr, err := Forward(c, cellSequence(10, 2, 2, rng), State{})
	if err != nil {
		t.Fatal(err)
	}
	bound := SpectralNorm(c.Whh.Value) * ActTanh.MaxSlope()
	for b := range 2 {
		for s, n := range JacobianNorms(c, tr, b) {
			if n > bound+1e-12 || n <= 0 {
				t.Errorf("row %d step %d: got ‖J‖₂ = %g want in (0, ‖W_hh‖₂ γ = %g]", b, s+1, n, bound)
			}
		}
	}
}
