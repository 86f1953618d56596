package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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

// RNN is the vanilla recurrent cell H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h).
type RNN struct {
	Act Activation // φ
	Wxh *Param     // W_xh, d×h
	Whh *Param     // W_hh, h×h
	Bh  *Param     // b_h, 1×h
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
	prev = stepInput(c, x, prev)
	hNew := affine(x, c.Wxh, prev.H, c.Whh, c.Bh)
	applyEach(hNew, c.Act.apply)
	return &StepTrace{X: x, Prev: prev, Next: State{H: hNew}}
}

// StepBack is the backward pass of Step: with A_t = X_t W_xh + H_{t-1} W_hh + b_h,
// ∂L/∂A_t = ∂L/∂H_t ⊙ φ'(A_t); ∂L/∂W_xh += X_tᵀ ∂L/∂A_t, ∂L/∂W_hh += H_{t-1}ᵀ ∂L/∂A_t,
// ∂L/∂b_h += Σ_rows ∂L/∂A_t; ∂L/∂X_t = ∂L/∂A_t W_xhᵀ, ∂L/∂H_{t-1} = ∂L/∂A_t W_hhᵀ.
// A nil dH is zero; dC is ignored.
func (c *RNN) StepBack(tr *StepTrace, dH, dC *mat.Dense) (*mat.Dense, State) {
	return c.backward(tr, dH, dC, true)
}

// backward is StepBack; with accumulate false it leaves every Param.Grad alone
// (a vector–Jacobian product, as Jacobian uses).
func (c *RNN) backward(tr *StepTrace, dH, _ *mat.Dense, accumulate bool) (*mat.Dense, State) {
	B, h := tr.Next.H.Dims()
	dA := mat.NewDense(B, h, nil)
	if dH != nil {
		mustDims("dH", dH, B, h)
		hRaw, dRaw, aRaw := tr.Next.H.RawMatrix(), dH.RawMatrix(), dA.RawMatrix()
		for i := range B {
			y, g, a := hRaw.Data[i*hRaw.Stride:][:h], dRaw.Data[i*dRaw.Stride:][:h], aRaw.Data[i*aRaw.Stride:][:h]
			for j := range a {
				a[j] = g[j] * c.Act.slope(y[j])
			}
		}
	}
	dX, dPrev := zerosLike(tr.X), zerosLike(tr.Prev.H)
	affineBack(dA, tr.X, c.Wxh, tr.Prev.H, c.Whh, c.Bh, dX, dPrev, accumulate)
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
	if x == nil {
		panic("models: X_t is nil")
	}
	B, _ := x.Dims()
	mustDims("X_t", x, B, c.InputSize())
	h := c.HiddenSize()
	if prev.H == nil {
		prev.H = mat.NewDense(B, h, nil)
	}
	mustDims("H_{t-1}", prev.H, B, h)
	if c.Kind() == KindLSTM {
		if prev.C == nil {
			prev.C = mat.NewDense(B, h, nil)
		}
		mustDims("C_{t-1}", prev.C, B, h)
	} else if prev.C != nil {
		panic(fmt.Sprintf("models: a %s has no memory cell C", c.Kind()))
	}
	return prev
}

// affine returns X W_x + H W_h + b as a new B×h matrix; a nil W_x or W_h drops
// its term.
func affine(x *mat.Dense, wx *Param, hPrev *mat.Dense, wh *Param, b *Param) *mat.Dense {
	var B int
	if wx != nil {
		B, _ = x.Dims()
	} else {
		B, _ = hPrev.Dims()
	}
	_, h := b.Value.Dims()
	out := mat.NewDense(B, h, nil)
	raw := out.RawMatrix()
	bias := b.Value.RawRowView(0)
	for i := range B {
		copy(raw.Data[i*raw.Stride:][:h], bias)
	}
	if wx != nil {
		gemmAdd(false, false, x, wx.Value, out)
	}
	if wh != nil {
		gemmAdd(false, false, hPrev, wh.Value, out)
	}
	return out
}

// affineBack is the backward pass of A = X W_x + H W_h + b: it adds dA W_xᵀ to dX
// and dA W_hᵀ to dH and, when accumulate is set, Xᵀ dA, Hᵀ dA and the column sums
// of dA to the gradients of W_x, W_h and b. A nil W_x or W_h has no term.
func affineBack(dA, x *mat.Dense, wx *Param, hPrev *mat.Dense, wh *Param, b *Param, dX, dH *mat.Dense, accumulate bool) {
	if wx != nil {
		gemmAdd(false, true, dA, wx.Value, dX)
	}
	if wh != nil {
		gemmAdd(false, true, dA, wh.Value, dH)
	}
	if !accumulate {
		return
	}
	if wx != nil {
		gemmAdd(true, false, x, dA, wx.Grad)
	}
	if wh != nil {
		gemmAdd(true, false, hPrev, dA, wh.Grad)
	}
	addColumnSums(b.Grad, dA)
}

// gemmAdd adds op(a)·op(b) to c, where op transposes when its flag is set.
func gemmAdd(transA, transB bool, a, b, c *mat.Dense) {
	ra, rb, rc := a.RawMatrix(), b.RawMatrix(), c.RawMatrix()
	switch {
	case !transA && !transB:
		addMul(ra, rb, rc)
	case !transA && transB:
		addMulT(ra, rb, rc)
	case transA && !transB:
		addTMul(ra, rb, rc)
	default:
		panic("models: gemmAdd of aᵀ·bᵀ is not used")
	}
}

// The three products below are computed with one matrix–vector product per row:
// at a recurrent cell's sizes (h ≤ a few hundred) gonum's blocked Gemv kernels are
// faster than its Gemm, which works one axpy at a time.

// addMul sets c += a·b.
func addMul(a, b, c blas64.General) {
	mustProduct("a·b", a.Rows, a.Cols, b.Rows, b.Cols, c)
	for i := range a.Rows {
		blas64.Gemv(blas.Trans, 1, b, rowVector(a, i), 1, rowVector(c, i))
	}
}

// addMulT sets c += a·bᵀ.
func addMulT(a, b, c blas64.General) {
	mustProduct("a·bᵀ", a.Rows, a.Cols, b.Cols, b.Rows, c)
	for i := range a.Rows {
		blas64.Gemv(blas.NoTrans, 1, b, rowVector(a, i), 1, rowVector(c, i))
	}
}

// tMulRows is how many rows of a and b addTMul takes at a time, so that a block of
// b (tMulRows × a few hundred float64s) stays in cache while every row of c is
// updated from it.
const tMulRows = 64

// addTMul sets c += aᵀ·b: row i of c gains Σ_l a_li b_l, a product of bᵀ with
// column i of a.
func addTMul(a, b, c blas64.General) {
	mustProduct("aᵀ·b", a.Cols, a.Rows, b.Rows, b.Cols, c)
	for l0 := 0; l0 < a.Rows; l0 += tMulRows {
		n := min(tMulRows, a.Rows-l0)
		block := blas64.General{Rows: n, Cols: b.Cols, Stride: b.Stride, Data: b.Data[l0*b.Stride:]}
		for i := range a.Cols {
			col := blas64.Vector{N: n, Inc: a.Stride, Data: a.Data[l0*a.Stride+i:]}
			blas64.Gemv(blas.Trans, 1, block, col, 1, rowVector(c, i))
		}
	}
}

// rowVector is row i of m as a vector.
func rowVector(m blas64.General, i int) blas64.Vector {
	return blas64.Vector{N: m.Cols, Inc: 1, Data: m.Data[i*m.Stride:][:m.Cols]}
}

// mustProduct panics unless an (m×k)·(k2×n) product fits c (m×n) and k = k2.
func mustProduct(what string, m, k, k2, n int, c blas64.General) {
	if k != k2 || c.Rows != m || c.Cols != n {
		panic(fmt.Sprintf("models: %s of %d×%d and %d×%d into %d×%d", what, m, k, k2, n, c.Rows, c.Cols))
	}
}

// addColumnSums adds Σ_rows m to the 1×n row vector dst.
func addColumnSums(dst, m *mat.Dense) {
	d := dst.RawRowView(0)
	raw := m.RawMatrix()
	for i := range raw.Rows {
		for j, v := range raw.Data[i*raw.Stride:][:raw.Cols] {
			d[j] += v
		}
	}
}

// applyEach replaces every entry v of m by f(v).
func applyEach(m *mat.Dense, f func(float64) float64) {
	raw := m.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride:][:raw.Cols]
		for j, v := range row {
			row[j] = f(v)
		}
	}
}

// sigmoid is σ(a) = 1/(1 + e^{−a}).
func sigmoid(a float64) float64 { return 1 / (1 + math.Exp(-a)) }

// zerosLike returns a zero matrix of m's shape.
func zerosLike(m *mat.Dense) *mat.Dense {
	r, c := m.Dims()
	return mat.NewDense(r, c, nil)
}
