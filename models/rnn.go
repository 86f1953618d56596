package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Activation is the nonlinearity φ of a vanilla RNN,
// H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h).
type Activation int

// The activations a vanilla RNN can use.
const (
	// ActTanh is φ(a) = tanh(a), the lectures' default; φ'(a) = 1 − φ(a)².
	ActTanh Activation = iota
	// ActReLU is φ(a) = max(0, a); φ'(a) = 1 for a > 0, else 0.
	ActReLU
	// ActIdentity is φ(a) = a, the linear RNN of lecture 002's spectral-radius
	// argument, for which ∂H_t/∂H_s = (W_hhᵀ)^{t−s}.
	ActIdentity
)

// String is the activation's name: "tanh", "relu" or "identity".
func (a Activation) String() string {
	switch a {
	case ActTanh:
		return "tanh"
	case ActReLU:
		return "relu"
	case ActIdentity:
		return "identity"
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// ParseActivation returns the activation called name ("tanh", "relu" or "identity").
func ParseActivation(name string) (Activation, error) {
	for _, a := range []Activation{ActTanh, ActReLU, ActIdentity} {
		if a.String() == name {
			return a, nil
		}
	}
	return 0, fmt.Errorf("models: unknown activation %q; use tanh, relu or identity", name)
}

// MaxSlope is γ = sup_a |φ'(a)|, the bound on ‖diag(φ'(·))‖ in lecture 002's
// estimate ‖∂H_t/∂H_s‖ ≤ (ρ(W_hh)·γ)^{t−s}. It is 1 for all three activations.
func (a Activation) MaxSlope() float64 { return 1 }

// apply is φ(v).
func (a Activation) apply(v float64) float64 {
	switch a {
	case ActTanh:
		return math.Tanh(v)
	case ActReLU:
		return max(v, 0)
	case ActIdentity:
		return v
	}
	panic(fmt.Sprintf("models: unknown activation %d", int(a)))
}

// slope is φ'(a) written through the output y = φ(a).
func (a Activation) slope(y float64) float64 {
	switch a {
	case ActTanh:
		return 1 - y*y
	case ActReLU:
		if y > 0 {
			return 1
		}
		return 0
	}
	return 1
}

// Apply sets every entry of A to φ(A): H = φ(A), in place.
func (a Activation) Apply(m *mat.Dense) { applyEach(m, a.apply) }

// Backward is the backward pass of H = φ(A): given G = ∂L/∂H it sets
// G ← G ⊙ φ'(A) = ∂L/∂A in place, with φ'(A) written through the output H
// (tanh: 1 − H², ReLU: 1 where H > 0, identity: 1).
func (a Activation) Backward(g, h *mat.Dense) {
	r, c := h.Dims()
	mustDims("∂L/∂H", g, r, c)
	for i := range r {
		gr, hr := g.RawRowView(i), h.RawRowView(i)
		for j, y := range hr {
			gr[j] *= a.slope(y)
		}
	}
}

// RNN is the vanilla recurrent cell H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h), or,
// with a leak α ∈ (0, 1) set by SetLeak, the leaky unit of lecture 002's
// strategies for multiple time scales,
//
//	H_t = (1 − α) H_{t-1} + α φ(X_t W_xh + H_{t-1} W_hh + b_h),
//
// which keeps a share 1 − α of its state each step (α = 1 is the plain cell).
type RNN struct {
	Act Activation // φ
	Wxh *Param     // W_xh, d×h
	Whh *Param     // W_hh, h×h
	Bh  *Param     // b_h, 1×h

	leak float64 // α of a leaky unit; 0 is the plain cell (α = 1)
}

// SetLeak makes the cell a leaky unit with α ∈ (0, 1] (α = 1 is the plain cell);
// any other α panics.
func (c *RNN) SetLeak(alpha float64) {
	if !(alpha > 0 && alpha <= 1) {
		panic(fmt.Sprintf("models: leak α = %v, want 0 < α ≤ 1", alpha))
	}
	c.leak = alpha
	if alpha == 1 {
		c.leak = 0
	}
}

// Leak is α of a leaky unit, 1 for the plain cell.
func (c *RNN) Leak() float64 {
	if c.leak == 0 {
		return 1
	}
	return c.leak
}

// NewRNN returns a vanilla RNN cell with input size d and hidden size h, its
// weights and bias drawn from U(−1/√h, 1/√h).
func NewRNN(d, h int, act Activation, rng *rand.Rand) *RNN {
	mustSizes(d, h)
	act.apply(0) // panics on an unknown activation
	c := &RNN{Act: act, Wxh: NewParam("W_xh", d, h), Whh: NewParam("W_hh", h, h), Bh: NewBias("b_h", h)}
	initUniform(c.Params(), h, rng)
	return c
}

// Kind is KindRNN.
func (c *RNN) Kind() Kind { return KindRNN }

// InputSize is d.
func (c *RNN) InputSize() int { r, _ := c.Wxh.Value.Dims(); return r }

// HiddenSize is h.
func (c *RNN) HiddenSize() int { _, h := c.Whh.Value.Dims(); return h }

// Params is W_xh, W_hh, b_h.
func (c *RNN) Params() Params { return Params{c.Wxh, c.Whh, c.Bh} }

// Step computes H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h); a nil prev.H is H_{t-1} = 0.
func (c *RNN) Step(x *mat.Dense, prev State) *StepTrace {
	B, h := stepBatch(c, x), c.HiddenSize()
	s := new(rnnStep)
	carveDense(make([]float64, B*h), B, h, &s.h)
	prev = stepPrev(c, B, prev)
	affineInto(&s.h, x, c.Wxh, prev.H, c.Whh, c.Bh)
	applyEach(&s.h, c.Act.apply)
	s.tr = StepTrace{X: x, Prev: prev, Next: State{H: &s.h}}
	if c.leak != 0 { // H̃_t = φ(A_t) kept for the backward pass; H_t = (1 − α) H_{t-1} + α H̃_t
		cand := mat.DenseCopyOf(&s.h)
		s.h.Scale(c.leak, cand)
		s.h.Add(&s.h, scaled(1-c.leak, prev.H))
		s.tr.aux = []*mat.Dense{cand}
	}
	return &s.tr
}

// scaled is a·m as a new matrix.
func scaled(a float64, m *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(a, m)
	return &out
}

// rnnStep is one RNN step's trace with H_t, allocated together.
type rnnStep struct {
	tr StepTrace
	h  mat.Dense
}

// StepBack is the backward pass of Step: with A_t = X_t W_xh + H_{t-1} W_hh + b_h,
// ∂L/∂A_t = ∂L/∂H_t ⊙ φ'(A_t); ∂L/∂W_xh += X_tᵀ ∂L/∂A_t, ∂L/∂W_hh += H_{t-1}ᵀ ∂L/∂A_t,
// ∂L/∂b_h += Σ_rows ∂L/∂A_t; ∂L/∂X_t = ∂L/∂A_t W_xhᵀ, ∂L/∂H_{t-1} = ∂L/∂A_t W_hhᵀ.
// For a leaky unit ∂L/∂A_t = α ∂L/∂H_t ⊙ φ'(A_t) and ∂L/∂H_{t-1} gains (1 − α) ∂L/∂H_t.
// A nil dH is zero; dC is ignored.
func (c *RNN) StepBack(tr *StepTrace, dH, dC *mat.Dense) (*mat.Dense, State) {
	return c.backward(tr, dH, dC, true)
}

// backward is StepBack; with accumulate false it leaves every Param.Grad alone
// (a vector–Jacobian product, as Jacobian uses).
func (c *RNN) backward(tr *StepTrace, dH, _ *mat.Dense, accumulate bool) (*mat.Dense, State) {
	B, h := tr.Next.H.Dims()
	_, d := tr.X.Dims()
	m := make([]mat.Dense, 3)
	dA, dPrev, dX := &m[0], &m[1], &m[2]
	carveDense(carveDense(make([]float64, 2*B*h+B*d), B, h, dA, dPrev), B, d, dX)
	out, alpha := tr.Next.H, 1.0 // φ(A_t), read through for φ'
	if c.leak != 0 {
		out, alpha = tr.aux[0], c.leak
	}
	if dH != nil {
		mustDims("dH", dH, B, h)
		hRaw, dRaw, aRaw := out.RawMatrix(), dH.RawMatrix(), dA.RawMatrix()
		for i := range B {
			y, g, a := hRaw.Data[i*hRaw.Stride:][:h], dRaw.Data[i*dRaw.Stride:][:h], aRaw.Data[i*aRaw.Stride:][:h]
			for j := range a {
				a[j] = alpha * g[j] * c.Act.slope(y[j])
			}
		}
	}
	affineBack(dA, tr.X, c.Wxh, tr.Prev.H, c.Whh, c.Bh, dX, dPrev, accumulate)
	if c.leak != 0 && dH != nil {
		dPrev.Add(dPrev, scaled(1-c.leak, dH))
	}
	return dX, State{H: dPrev}
}

// NewCell returns a cell of the given kind with input size d and hidden size h,
// initialised from U(−1/√h, 1/√h); the vanilla RNN uses tanh.
func NewCell(kind Kind, d, h int, rng *rand.Rand) (Cell, error) {
	if d < 1 || h < 1 {
		return nil, fmt.Errorf("models: sizes must be positive, got d=%d h=%d", d, h)
	}
	switch kind {
	case KindRNN:
		return NewRNN(d, h, ActTanh, rng), nil
	case KindGRU:
		return NewGRU(d, h, rng), nil
	case KindLSTM:
		return NewLSTM(d, h, rng), nil
	}
	return nil, fmt.Errorf("models: unknown cell kind %q; use rnn, gru or lstm", kind)
}

// ZeroState is the state H_0 = 0 (B×h) and, for an LSTM, C_0 = 0.
func ZeroState(c Cell, B int) State {
	h := c.HiddenSize()
	s := State{H: mat.NewDense(B, h, nil)}
	if c.Kind() == KindLSTM {
		s.C = mat.NewDense(B, h, nil)
	}
	return s
}

// Helpers shared by the three cells.

// mustSizes panics unless d and h are positive.
func mustSizes(d, h int) {
	if d < 1 || h < 1 {
		panic(fmt.Sprintf("models: sizes must be positive, got d=%d h=%d", d, h))
	}
}

// initUniform fills every parameter from U(−1/√h, 1/√h).
func initUniform(ps Params, h int, rng *rand.Rand) {
	a := 1 / math.Sqrt(float64(h))
	for _, p := range ps {
		p.Uniform(a, rng)
	}
}

// stepInput checks the shapes of one step's input against c and returns prev with
// a missing H (and, for an LSTM, C) replaced by zeros.
func stepInput(c Cell, x *mat.Dense, prev State) State {
	return stepPrev(c, stepBatch(c, x), prev)
}

// stepBatch checks one step's input X_t against c and returns its batch size B.
func stepBatch(c Cell, x *mat.Dense) int {
	if x == nil {
		panic("models: X_t is nil")
	}
	B, _ := x.Dims()
	mustDims("X_t", x, B, c.InputSize())
	return B
}

// stepPrev checks the previous state of a step of B rows against c and returns it
// with a missing H (and, for an LSTM, C) replaced by zeros, allocated together.
func stepPrev(c Cell, B int, prev State) State {
	h, lstm := c.HiddenSize(), c.Kind() == KindLSTM
	missing := 0
	if prev.H == nil {
		missing++
	}
	if lstm && prev.C == nil {
		missing++
	}
	if missing > 0 {
		zeros := new([2]mat.Dense)
		data := make([]float64, missing*B*h)
		if prev.H == nil {
			data = carveDense(data, B, h, &zeros[0])
			prev.H = &zeros[0]
		}
		if lstm && prev.C == nil {
			carveDense(data, B, h, &zeros[1])
			prev.C = &zeros[1]
		}
	}
	mustDims("H_{t-1}", prev.H, B, h)
	if lstm {
		mustDims("C_{t-1}", prev.C, B, h)
	} else if prev.C != nil {
		panic(fmt.Sprintf("models: a %s has no memory cell C", c.Kind()))
	}
	return prev
}

// ForwardSequence is the per-step loop state_t = Step(X_t, state_{t-1}) (see
// SequenceCell).
func (c *RNN) ForwardSequence(xs []*mat.Dense, s0 State) *Trace { return forwardSteps(c, xs, s0) }

// BackwardSequence is StepBack for t = T..1, carrying ∂L/∂state_t back (see
// SequenceCell).
func (c *RNN) BackwardSequence(tr *Trace, dH []*mat.Dense) *Grads { return backwardFull(c, tr, dH) }
