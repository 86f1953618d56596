package models

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"
)

// Trace is a forward pass over a sequence: Steps[t-1] records time step t = 1..T,
// with Steps[0].Prev the initial state (H_0, C_0) and Steps[T-1].Next the last.
type Trace struct {
	Steps []*StepTrace

	fused fusedPass // the buffers of a cell's own sequence pass; nil after the per-step loop
}

// fusedPass is what a cell's own sequence-level forward pass keeps for its backward
// pass (the GRU's gruSequence).
type fusedPass interface {
	// owner is the cell whose pass it is.
	owner() Cell
}

// SequenceCell is a Cell that computes a whole sequence at once. Forward and Backward
// use it after checking their arguments; a Cell that is not one runs the per-step
// loop state_t = Step(X_t, state_{t-1}), t = 1..T, and its StepBack in reverse.
// Every cell of this package is one: the RNN and the LSTM with that per-step loop,
// the lecture-form GRU with a faster fused pass (gru_sequence.go) that computes the
// same numbers to rounding.
type SequenceCell interface {
	Cell
	// ForwardSequence returns the trace of state_t = Step(X_t, state_{t-1}) for
	// t = 1..T from s0 (a nil H or C is zero). The inputs are not checked: call Forward.
	ForwardSequence(xs []*mat.Dense, s0 State) *Trace
	// BackwardSequence is full BPTT for L = Σ_t ⟨dH_t, H_t⟩ on a trace of this cell:
	// it adds ∂L/∂θ to every Param.Grad and returns ∂L/∂X_t, ∂L/∂state_0 and the
	// per-step norms (Backward with BPTTOptions{}). The arguments are not checked:
	// call Backward.
	BackwardSequence(tr *Trace, dH []*mat.Dense) *Grads
}

// Len is the number of time steps T.
func (tr *Trace) Len() int { return len(tr.Steps) }

// Outputs lists H_1, …, H_T.
func (tr *Trace) Outputs() []*mat.Dense {
	hs := make([]*mat.Dense, len(tr.Steps))
	for t, st := range tr.Steps {
		hs[t] = st.Next.H
	}
	return hs
}

// Last is the final state (H_T, C_T).
func (tr *Trace) Last() State { return tr.Steps[len(tr.Steps)-1].Next }

// Forward runs c over the sequence xs (T matrices, each B×d) from s0, computing
// state_t = c(X_t, state_{t-1}) for t = 1..T. A nil s0.H (and, for an LSTM, s0.C)
// is the zero state. An empty sequence, or a NaN or ±Inf in xs or s0, is an
// error; inconsistent shapes panic.
//
// A SequenceCell runs its own sequence pass (the lecture-form GRU's computes the
// same numbers as T calls of Step, to rounding, with fused matrix products).
func Forward(c Cell, xs []*mat.Dense, s0 State) (*Trace, error) {
	if err := checkSequence(c, xs, s0); err != nil {
		return nil, err
	}
	if sc, ok := c.(SequenceCell); ok {
		return sc.ForwardSequence(xs, s0), nil
	}
	return forwardSteps(c, xs, s0), nil
}

// ForwardSteps is Forward by the per-step loop state_t = c.Step(X_t, state_{t-1}),
// t = 1..T, even for a cell with a faster sequence pass: every number is Step's,
// bit for bit. The arguments are checked as Forward checks them.
func ForwardSteps(c Cell, xs []*mat.Dense, s0 State) (*Trace, error) {
	if err := checkSequence(c, xs, s0); err != nil {
		return nil, err
	}
	return forwardSteps(c, xs, s0), nil
}

// checkSequence is Forward's check of its arguments: an error for an empty sequence
// or a NaN or ±Inf, a panic for inconsistent shapes.
func checkSequence(c Cell, xs []*mat.Dense, s0 State) error {
	if len(xs) == 0 {
		return errors.New("models: empty sequence: need at least one time step")
	}
	B := -1
	for t, x := range xs {
		if x == nil {
			panic(fmt.Sprintf("models: X_%d is nil", t+1))
		}
		if B < 0 {
			B, _ = x.Dims()
		}
		mustStepDims("X", t, x, B, c.InputSize())
	}
	for t, x := range xs {
		if i, j, v, ok := firstNonFinite(x); !ok {
			return nonFiniteError(fmt.Sprintf("X_%d", t+1), i, j, v)
		}
	}
	if err := checkFinite("H_0", s0.H); err != nil {
		return err
	}
	return checkFinite("C_0", s0.C)
}

// forwardSteps is the per-step loop state_t = c.Step(X_t, state_{t-1}), t = 1..T.
func forwardSteps(c Cell, xs []*mat.Dense, s0 State) *Trace {
	tr := &Trace{Steps: make([]*StepTrace, len(xs))}
	s := s0
	for t, x := range xs {
		tr.Steps[t] = c.Step(x, s)
		s = tr.Steps[t].Next
	}
	return tr
}

// checkFinite returns an error naming the first NaN or ±Inf entry of m (nil m is fine).
func checkFinite(what string, m *mat.Dense) error {
	if m == nil {
		return nil
	}
	if i, j, v, ok := firstNonFinite(m); !ok {
		return nonFiniteError(what, i, j, v)
	}
	return nil
}

// firstNonFinite finds the first NaN or ±Inf entry of m; ok is true when there is none.
func firstNonFinite(m *mat.Dense) (i, j int, v float64, ok bool) {
	raw := m.RawMatrix()
	for i := range raw.Rows {
		for j, v := range raw.Data[i*raw.Stride:][:raw.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i, j, v, false
			}
		}
	}
	return 0, 0, 0, true
}

func nonFiniteError(what string, i, j int, v float64) error {
	return fmt.Errorf("models: %s has %v at row %d, column %d; every number must be finite", what, v, i+1, j+1)
}

// mustStepDims panics unless the step-t matrix name_{t+1} is r×c; the name is
// only formatted on failure.
func mustStepDims(name string, t int, m *mat.Dense, r, c int) {
	if mr, mc := m.Dims(); mr != r || mc != c {
		mustDims(fmt.Sprintf("%s_%d", name, t+1), m, r, c)
	}
}

// BPTTOptions tunes Backward.
type BPTTOptions struct {
	// Truncate = k > 0 is truncated BPTT: the upstream gradient ∂L/∂H_t of each
	// step t flows back through at most k steps, t, t−1, …, t−k+1, and what
	// would pass on to H_{t−k} is dropped (unless t−k = 0: H_0 is not a step,
	// so ∂L/∂H_0 still receives it). k = 1 keeps only the direct term of every
	// step, no gradient through H_{t−1}; k ≥ T is full BPTT; 0 means full BPTT.
	// For an LSTM the cut applies to the state (H, C) together.
	Truncate int
	// NoParamGrads leaves every Param.Grad alone: Backward then only reads the
	// cell and returns the same DX, DS0 and norms (the vector–Jacobian products),
	// so calls on one cell may run concurrently — as pages that share one loaded
	// model do when they show its gradients. Cells of this package only.
	NoParamGrads bool
}

// Grads is what Backward returns for the loss L = Σ_t ⟨dH_t, H_t⟩ besides the
// parameter gradients it accumulates.
type Grads struct {
	DX  []*mat.Dense // DX[t-1] = ∂L/∂X_t, B×d
	DS0 State        // ∂L/∂H_0 and, for an LSTM, ∂L/∂C_0 (B×h)
	// HNorm[t-1] = ‖∂L/∂H_t‖_F over the batch: the total gradient that reaches
	// H_t (its own dH_t plus what flows back from later steps, within the
	// truncation window) — the quantity that vanishes or explodes.
	HNorm []float64
	// CNorm[t-1] = ‖∂L/∂C_t‖_F, the gradient reaching the memory cell, for an
	// LSTM only (nil otherwise). At t = T it is 0: the loss reads only H.
	CNorm []float64
}

// stepBackward is the vector–Jacobian product of one step with or without
// accumulating parameter gradients; every cell in this package has one.
type stepBackward interface {
	backward(tr *StepTrace, dH, dC *mat.Dense, accumulate bool) (*mat.Dense, State)
}

// Backward is backpropagation through time for the trace tr of c and the loss
// L = Σ_t ⟨dH_t, H_t⟩: dH has one B×h upstream gradient per step (a nil entry,
// or a nil dH, is zero). It adds ∂L/∂θ to every Param.Grad of c (unless
// opt.NoParamGrads) and returns
// ∂L/∂X_t, ∂L/∂H_0 (∂L/∂C_0) and the per-step gradient norms. Full BPTT runs
// the steps T..1 once, carrying ∂L/∂state_t back; see BPTTOptions.Truncate for
// the truncated form. Full BPTT with parameter gradients is the cell's
// BackwardSequence when it is a SequenceCell (for the lecture-form GRU, a fused
// pass with the same numbers as StepBack, to rounding). Backward writes every Param.Grad of c, so calls on one cell must not
// run concurrently (unless opt.NoParamGrads); Forward only reads the parameters.
func Backward(c Cell, tr *Trace, dH []*mat.Dense, opt BPTTOptions) *Grads {
	T := tr.Len()
	if T == 0 {
		panic("models: Backward of an empty trace")
	}
	if dH != nil && len(dH) != T {
		panic(fmt.Sprintf("models: dH has %d steps, want T = %d", len(dH), T))
	}
	if opt.Truncate < 0 {
		panic(fmt.Sprintf("models: Truncate = %d, want k ≥ 0", opt.Truncate))
	}
	B, h := tr.Steps[0].Prev.H.Dims()
	if h != c.HiddenSize() {
		panic(fmt.Sprintf("models: trace has hidden size %d, cell %d", h, c.HiddenSize()))
	}
	for t, d := range dH {
		if d != nil {
			mustStepDims("dH", t, d, B, h)
		}
	}
	step := c.StepBack
	if opt.NoParamGrads {
		vjp, ok := c.(stepBackward)
		if !ok {
			panic(fmt.Sprintf("models: Backward without parameter gradients needs a cell of this package, got %T", c))
		}
		step = func(st *StepTrace, dH, dC *mat.Dense) (*mat.Dense, State) { return vjp.backward(st, dH, dC, false) }
	}
	if opt.Truncate > 0 && opt.Truncate < T {
		return backwardTruncated(c, tr, dH, opt.Truncate, step)
	}
	if sc, ok := c.(SequenceCell); ok && !opt.NoParamGrads {
		return sc.BackwardSequence(tr, dH)
	}
	return backwardSteps(c, tr, dH, step)
}

// stepBack is one step's backward pass: Cell.StepBack, or the same without
// accumulating parameter gradients.
type stepBack func(st *StepTrace, dH, dC *mat.Dense) (*mat.Dense, State)

// upstream is dH[t], or nil when there is none.
func upstream(dH []*mat.Dense, t int) *mat.Dense {
	if dH == nil {
		return nil
	}
	return dH[t]
}

// newGrads returns Grads with room for T steps.
func newGrads(c Cell, T int) *Grads {
	g := &Grads{DX: make([]*mat.Dense, T), HNorm: make([]float64, T)}
	if c.Kind() == KindLSTM {
		g.CNorm = make([]float64, T)
	}
	return g
}

// backwardFull runs the steps T..1 once: G_t = dH_t + ∂L/∂H_t from step t+1.
func backwardFull(c Cell, tr *Trace, dH []*mat.Dense) *Grads {
	return backwardSteps(c, tr, dH, c.StepBack)
}

// backwardSteps is backwardFull with step as each step's backward pass.
func backwardSteps(c Cell, tr *Trace, dH []*mat.Dense, step stepBack) *Grads {
	T := tr.Len()
	g := newGrads(c, T)
	var carry State // ∂L/∂state_t flowing back from step t+1
	for t := T - 1; t >= 0; t-- {
		st := tr.Steps[t]
		gH := addOrNew(carry.H, upstream(dH, t), st.Next.H)
		g.HNorm[t] = mat.Norm(gH, 2)
		if g.CNorm != nil && carry.C != nil {
			g.CNorm[t] = mat.Norm(carry.C, 2)
		}
		g.DX[t], carry = step(st, gH, carry.C)
	}
	g.DS0 = carry
	return g
}

// backwardTruncated sends each dH_t back through at most k steps (see
// BPTTOptions.Truncate). It costs O(T·k) steps.
func backwardTruncated(c Cell, tr *Trace, dH []*mat.Dense, k int, step stepBack) *Grads {
	T := tr.Len()
	g := newGrads(c, T)
	reachH := make([]*mat.Dense, T) // Σ of the contributions that reach H_t
	reachC := make([]*mat.Dense, T)
	for t := range T {
		g.DX[t] = zerosLike(tr.Steps[t].X)
	}
	g.DS0 = State{H: zerosLike(tr.Steps[0].Prev.H)}
	if c.Kind() == KindLSTM {
		g.DS0.C = zerosLike(tr.Steps[0].Prev.C)
	}
	for src := T - 1; src >= 0; src-- {
		d := upstream(dH, src)
		if d == nil {
			continue
		}
		flow := State{H: d}
		for t := src; t >= 0 && t > src-k; t-- {
			st := tr.Steps[t]
			reachH[t] = addOrNew(reachH[t], flow.H, st.Next.H)
			if flow.C != nil {
				reachC[t] = addOrNew(reachC[t], flow.C, st.Next.C)
			}
			var dx *mat.Dense
			dx, flow = step(st, flow.H, flow.C)
			g.DX[t].Add(g.DX[t], dx)
			if t == 0 {
				g.DS0.H.Add(g.DS0.H, flow.H)
				if flow.C != nil {
					g.DS0.C.Add(g.DS0.C, flow.C)
				}
			}
		}
	}
	for t := range T {
		if reachH[t] != nil {
			g.HNorm[t] = mat.Norm(reachH[t], 2)
		}
		if g.CNorm != nil && reachC[t] != nil {
			g.CNorm[t] = mat.Norm(reachC[t], 2)
		}
	}
	return g
}

// StatesAt gathers one state per batch row: row b of the result (B×h) is row b of
// H_{t_b}, the hidden state after step t_b = steps[b] + 1 of the trace (steps are
// 0-based indices into tr.Steps). A model that reads each sequence at its own
// position (a padded batch, a fill-in-the-blank question) uses it.
func StatesAt(tr *Trace, steps []int) *mat.Dense {
	B, h := tr.Steps[0].Next.H.Dims()
	if len(steps) != B {
		panic(fmt.Sprintf("models: %d steps for %d batch rows", len(steps), B))
	}
	out := mat.NewDense(B, h, nil)
	for b, t := range steps {
		if t < 0 || t >= tr.Len() {
			panic(fmt.Sprintf("models: step %d of row %d outside [0, %d)", t, b, tr.Len()))
		}
		copy(out.RawRowView(b), tr.Steps[t].Next.H.RawRowView(b))
	}
	return out
}

// BackwardAt is the backward pass of StatesAt: BPTT for L = Σ_b ⟨G_b, H_{t_b}[b]⟩,
// where G (B×h) holds the upstream gradient of each row's gathered state. It sends
// row b of G to dH_{t_b} (zero elsewhere) and runs Backward with opt.
func BackwardAt(c Cell, tr *Trace, steps []int, g *mat.Dense, opt BPTTOptions) *Grads {
	B, h := tr.Steps[0].Next.H.Dims()
	mustDims("G", g, B, h)
	if len(steps) != B {
		panic(fmt.Sprintf("models: %d steps for %d batch rows", len(steps), B))
	}
	dH := make([]*mat.Dense, tr.Len())
	for b, t := range steps {
		if dH[t] == nil {
			dH[t] = mat.NewDense(B, h, nil)
		}
		copy(dH[t].RawRowView(b), g.RawRowView(b))
	}
	return Backward(c, tr, dH, opt)
}

// ClippedGrads is what BackwardClipped records for every step t = 1..T.
type ClippedGrads struct {
	DH      []*mat.Dense // G_t = ∂L/∂H_t as it flows on, after clipping (B×h; zero where cut)
	Norm    []float64    // ‖G_t‖_F after clipping (0 where cut)
	RawNorm []float64    // ‖G_t‖_F before clipping (0 where cut)
	Clipped []bool       // clipping fired at t
	Cut     []bool       // t is outside the truncation window: no gradient reaches it
	// Terms[t-1][i] is step t's term of ∂L/∂p for p = c.Params()[i]: lecture 002's
	// J_{H_t}(L) J_θ(H_t), what StepBack adds at t (zero where cut). They sum to the
	// gradient BackwardClipped adds; a term with t far below T is a long-term
	// contribution, one with t near T a short-term one.
	Terms [][]*mat.Dense
}

// BackwardClipped is BPTT for a loss that reads only the last state,
// L = ⟨G_T, H_T⟩ with G_T = dHT, under lecture 002's two remedies. For t = T, …, 1:
//
//	G_t ← min(1, θ/‖G_t‖) G_t                  (clipping, when θ > 0)
//	∂L/∂θ += step t's share (StepBack),  G_{t−1} = G_t ∂H_t/∂H_{t−1}
//
// and with a window k > 0 the walk stops after k steps: the steps t ≤ T − k are
// cut. It adds the parameter gradients of the (clipped) walk to every Param.Grad and
// records each step in the result. With θ = 0 and k = 0 the gradients are those of
// Backward; clipping changes them (it is a remedy, not a derivative). For an LSTM the
// memory cell's gradient flows along unclipped.
func BackwardClipped(c Cell, tr *Trace, dHT *mat.Dense, k int, theta float64) *ClippedGrads {
	T := tr.Len()
	if T == 0 {
		panic("models: BackwardClipped of an empty trace")
	}
	if k < 0 || theta < 0 || math.IsNaN(theta) {
		panic(fmt.Sprintf("models: window k = %d and threshold θ = %v, want k ≥ 0 and θ ≥ 0", k, theta))
	}
	B, h := tr.Steps[T-1].Next.H.Dims()
	mustDims("∂L/∂H_T", dHT, B, h)
	out := &ClippedGrads{
		DH: make([]*mat.Dense, T), Norm: make([]float64, T), RawNorm: make([]float64, T),
		Clipped: make([]bool, T), Cut: make([]bool, T), Terms: make([][]*mat.Dense, T),
	}
	ps := c.Params()
	g := State{H: mat.DenseCopyOf(dHT)}
	for t := T - 1; t >= 0; t-- {
		before := make([]*mat.Dense, len(ps))
		for i, p := range ps {
			before[i] = mat.DenseCopyOf(p.Grad)
		}
		out.Terms[t] = before // overwritten below with the step's term
		if k > 0 && T-1-t >= k {
			out.Cut[t] = true
			out.DH[t] = mat.NewDense(B, h, nil)
			for i := range before {
				before[i].Zero()
			}
			continue
		}
		n := mat.Norm(g.H, 2)
		out.RawNorm[t] = n
		if theta > 0 && n > theta {
			g.H.Scale(theta/n, g.H)
			out.Clipped[t] = true
			n = theta
		}
		out.Norm[t] = n
		out.DH[t] = mat.DenseCopyOf(g.H)
		_, g = c.StepBack(tr.Steps[t], g.H, g.C)
		for i, p := range ps {
			before[i].Sub(p.Grad, before[i])
		}
	}
	return out
}

// ProductNorms compares, for batch row b and t = 1..T, the norm of the product of
// the Jacobians from H_t to H_T with the product of their norms:
//
//	normOfProduct[t-1] = ‖∂H_T/∂H_t‖₂ = ‖J_T J_{T−1} ⋯ J_{t+1}‖₂,  J_r = ∂H_r/∂H_{r−1}
//	productOfNorms[t-1] = ‖J_T‖₂ ‖J_{T−1}‖₂ ⋯ ‖J_{t+1}‖₂
//
// (both 1 at t = T, the empty product). Since ‖AB‖ ≤ ‖A‖‖B‖, normOfProduct ≤
// productOfNorms: the product of the norms only bounds the norm of the product, and
// falls far short of it when the factors shrink different directions. The Jacobians
// are Jacobian's (for an LSTM, with C held fixed). It leaves every Param.Grad alone.
func ProductNorms(c Cell, tr *Trace, b int) (normOfProduct, productOfNorms []float64) {
	T := tr.Len()
	normOfProduct, productOfNorms = make([]float64, T), make([]float64, T)
	h := c.HiddenSize()
	P := mat.NewDense(h, h, nil) // ∂H_T/∂H_t
	for i := range h {
		P.Set(i, i, 1)
	}
	prod := 1.0
	for t := T - 1; t >= 0; t-- {
		normOfProduct[t], productOfNorms[t] = SpectralNorm(P), prod
		if t == 0 {
			break
		}
		J := Jacobian(c, tr.Steps[t], b) // ∂H_{t+1}/∂H_t (0-based step t is time t+1)
		var next mat.Dense
		next.Mul(P, J)
		P = &next
		prod *= SpectralNorm(J)
	}
	return normOfProduct, productOfNorms
}

// addOrNew returns a + b as a new matrix shaped like like; nil operands are zero.
func addOrNew(a, b, like *mat.Dense) *mat.Dense {
	out := zerosLike(like)
	if a != nil {
		out.Add(out, a)
	}
	if b != nil {
		out.Add(out, b)
	}
	return out
}

// Jacobian is J = ∂H_t/∂H_{t-1} of the step st for batch row b, the h×h matrix
// J_ij = ∂H_t,i/∂H_{t-1},j. With the lectures' row vectors this is the transpose
// of the matrix that multiplies H_{t-1}: for the identity-activation RNN
// H_t = H_{t-1} W_hh + X_t W_xh + b_h it is W_hhᵀ, and for tanh it is
// diag(1 − H_t²) W_hhᵀ — lecture 002's D W, whose column-vector W is our W_hhᵀ.
// For an LSTM it is the partial derivative with C_{t-1} held fixed (the path
// H_{t-1} → gates → C_t → H_t is included, C_{t-1} → C_t is not); StateJacobian
// has the full derivative of (H_t, C_t). It leaves every Param.Grad alone.
func Jacobian(c Cell, st *StepTrace, b int) *mat.Dense {
	return stateJacobian(c, st, b, false)
}

// StateJacobian is ∂s_t/∂s_{t-1} for batch row b, with s = H for an RNN or GRU
// (then it equals Jacobian) and s = [H, C] for an LSTM, a 2h×2h matrix with
// blocks [∂H_t/∂H_{t-1}, ∂H_t/∂C_{t-1}; ∂C_t/∂H_{t-1}, ∂C_t/∂C_{t-1}].
func StateJacobian(c Cell, st *StepTrace, b int) *mat.Dense {
	return stateJacobian(c, st, b, c.Kind() == KindLSTM)
}

func stateJacobian(c Cell, st *StepTrace, b int, withC bool) *mat.Dense {
	vjp, ok := c.(stepBackward)
	if !ok {
		panic(fmt.Sprintf("models: Jacobian needs a cell of this package, got %T", c))
	}
	B, h := st.Next.H.Dims()
	if b < 0 || b >= B {
		panic(fmt.Sprintf("models: batch row %d out of range [0, %d)", b, B))
	}
	n := h
	if withC {
		n = 2 * h
	}
	J := mat.NewDense(n, n, nil)
	for i := range n {
		seed := mat.NewDense(B, h, nil) // e_i on row b: row i of J is its vector–Jacobian product
		seed.Set(b, i%h, 1)
		var dPrev State
		if i < h {
			_, dPrev = vjp.backward(st, seed, nil, false)
		} else {
			_, dPrev = vjp.backward(st, nil, seed, false)
		}
		for j := range h {
			J.Set(i, j, dPrev.H.At(b, j))
			if withC {
				J.Set(i, h+j, dPrev.C.At(b, j))
			}
		}
	}
	return J
}

// JacobianNorms lists ‖∂H_t/∂H_{t-1}‖₂ (spectral norm of Jacobian) for t = 1..T
// and batch row b — the per-step factors whose product bounds ‖∂H_t/∂H_s‖.
func JacobianNorms(c Cell, tr *Trace, b int) []float64 {
	out := make([]float64, tr.Len())
	for t, st := range tr.Steps {
		out[t] = SpectralNorm(Jacobian(c, st, b))
	}
	return out
}

// SpectralNorm is ‖M‖₂ = σ_max(M), the largest singular value (NaN if the SVD
// fails to converge).
func SpectralNorm(m mat.Matrix) float64 {
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDNone) {
		return math.NaN()
	}
	return svd.Values(nil)[0]
}

// SpectralRadius is ρ(M) = max_i |λ_i(M)| over the eigenvalues of the square
// matrix M (NaN if the eigendecomposition fails).
func SpectralRadius(m mat.Matrix) float64 {
	r, c := m.Dims()
	if r != c {
		panic(fmt.Sprintf("models: spectral radius of a %d×%d matrix; it must be square", r, c))
	}
	var eig mat.Eigen
	if !eig.Factorize(m, mat.EigenNone) {
		return math.NaN()
	}
	rho := 0.0
	for _, l := range eig.Values(nil) {
		rho = max(rho, cmplx.Abs(l))
	}
	return rho
}
