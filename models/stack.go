package models

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Deep is a deep RNN of L layers (lecture 4.5, eq. 6): with H_t^{(0)} = X_t,
//
//	H_t^{(l)} = f_l(H_t^{(l−1)}, H_{t−1}^{(l)}),  l = 1..L,
//
// where f_l is layer l's cell (any kind). Layer 1 reads X_t (size d); every higher
// layer reads the hidden state of the layer below (size h). The output at step t is
// the top layer's H_t^{(L)}.
type Deep struct {
	Layers []Cell // Layers[l-1] is layer l
}

// NewDeep returns a deep RNN of L layers of the given kind, input size d and hidden
// size h in every layer, initialised as NewCell does.
func NewDeep(kind Kind, d, h, L int, rng *rand.Rand) (*Deep, error) {
	if L < 1 {
		return nil, fmt.Errorf("models: a deep RNN needs at least one layer, got L=%d", L)
	}
	m := &Deep{Layers: make([]Cell, L)}
	in := d
	for l := range m.Layers {
		c, err := NewCell(kind, in, h, rng)
		if err != nil {
			return nil, err
		}
		m.Layers[l] = c
		in = h
	}
	return m, nil
}

// InputSize is d, the input size of layer 1.
func (m *Deep) InputSize() int { return m.Layers[0].InputSize() }

// HiddenSize is h, the hidden size of the top layer.
func (m *Deep) HiddenSize() int { return m.Layers[len(m.Layers)-1].HiddenSize() }

// Params lists every layer's parameters in layer order, named "l1.W_xh", "l2.W_xh", ….
func (m *Deep) Params() Params {
	var ps Params
	for l, c := range m.Layers {
		ps = append(ps, c.Params().WithPrefix(fmt.Sprintf("l%d.", l+1))...)
	}
	return ps
}

// DeepTrace is a forward pass of a Deep: Layers[l-1] is layer l's trace, whose
// inputs X_t are H_t^{(l−1)}.
type DeepTrace struct {
	Layers []*Trace
}

// Outputs lists the top layer's H_1^{(L)}, …, H_T^{(L)}.
func (tr *DeepTrace) Outputs() []*mat.Dense { return tr.Layers[len(tr.Layers)-1].Outputs() }

// Forward runs every layer over the sequence xs (T matrices B×d), layer l from
// s0[l-1] (s0 nil, or a zero State entry, is the zero state). Errors are those of
// Forward: an empty sequence or a non-finite input.
func (m *Deep) Forward(xs []*mat.Dense, s0 []State) (*DeepTrace, error) {
	if s0 != nil && len(s0) != len(m.Layers) {
		panic(fmt.Sprintf("models: %d initial states for %d layers", len(s0), len(m.Layers)))
	}
	tr := &DeepTrace{Layers: make([]*Trace, len(m.Layers))}
	in := xs
	for l, c := range m.Layers {
		var s State
		if s0 != nil {
			s = s0[l]
		}
		lt, err := Forward(c, in, s)
		if err != nil {
			if l == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("models: layer %d: %w", l+1, err)
		}
		tr.Layers[l] = lt
		in = lt.Outputs()
	}
	return tr, nil
}

// DeepGrads is what Deep.Backward returns besides the parameter gradients.
type DeepGrads struct {
	DX     []*mat.Dense // ∂L/∂X_t, the input of layer 1
	Layers []*Grads     // Layers[l-1]: layer l's Backward result (its DX is ∂L/∂H_t^{(l−1)})
}

// Backward is BPTT through the stack for L = Σ_t ⟨dTop_t, H_t^{(L)}⟩: the upstream
// gradients reach the top layer only. See BackwardLayers.
func (m *Deep) Backward(tr *DeepTrace, dTop []*mat.Dense, opt BPTTOptions) *DeepGrads {
	dH := make([][]*mat.Dense, len(m.Layers))
	dH[len(dH)-1] = dTop
	return m.BackwardLayers(tr, dH, opt)
}

// BackwardLayers is BPTT through the stack for L = Σ_l Σ_t ⟨dH[l-1]_t, H_t^{(l)}⟩,
// upstream gradients on any layer's states (nil entries are zero). Layers run top
// down: layer l's ∂L/∂X_t is added to the upstream gradient of layer l−1. Every
// Param.Grad accumulates; opt applies within each layer's recurrence.
func (m *Deep) BackwardLayers(tr *DeepTrace, dH [][]*mat.Dense, opt BPTTOptions) *DeepGrads {
	L := len(m.Layers)
	if len(tr.Layers) != L || len(dH) != L {
		panic(fmt.Sprintf("models: %d layers, trace has %d, upstream gradients %d", L, len(tr.Layers), len(dH)))
	}
	out := &DeepGrads{Layers: make([]*Grads, L)}
	var fromAbove []*mat.Dense // ∂L/∂H_t^{(l)} through layer l+1's input
	for l := L - 1; l >= 0; l-- {
		up := sumUpstream(dH[l], fromAbove, tr.Layers[l])
		out.Layers[l] = Backward(m.Layers[l], tr.Layers[l], up, opt)
		fromAbove = out.Layers[l].DX
	}
	out.DX = fromAbove
	return out
}

// sumUpstream adds two per-step gradient lists (either may be nil, as may entries).
func sumUpstream(a, b []*mat.Dense, tr *Trace) []*mat.Dense {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	T := tr.Len()
	if len(a) != T {
		panic(fmt.Sprintf("models: upstream gradient has %d steps, want T = %d", len(a), T))
	}
	out := make([]*mat.Dense, T)
	for t := range out {
		switch {
		case a[t] == nil:
			out[t] = b[t]
		case b[t] == nil:
			out[t] = a[t]
		default:
			out[t] = addOrNew(a[t], b[t], tr.Steps[t].Next.H)
		}
	}
	return out
}

// Bidirectional is a bidirectional RNN: a forward cell reads X_1..X_T, a backward
// cell reads X_T..X_1, and the output at step t is the concatenation
//
//	H_t = [→H_t, ←H_t]  (B×2h),  →H_t = f(X_t, →H_{t−1}),  ←H_t = b(X_t, ←H_{t+1}).
type Bidirectional struct {
	Fwd, Bwd Cell
}

// NewBidirectional returns a bidirectional RNN of two cells of the given kind,
// each with input size d and hidden size h.
func NewBidirectional(kind Kind, d, h int, rng *rand.Rand) (*Bidirectional, error) {
	f, err := NewCell(kind, d, h, rng)
	if err != nil {
		return nil, err
	}
	b, err := NewCell(kind, d, h, rng)
	if err != nil {
		return nil, err
	}
	return &Bidirectional{Fwd: f, Bwd: b}, nil
}

// Params lists the forward cell's parameters as "fwd.…", then the backward cell's
// as "bwd.…".
func (m *Bidirectional) Params() Params {
	return append(m.Fwd.Params().WithPrefix("fwd."), m.Bwd.Params().WithPrefix("bwd.")...)
}

// BidirectionalTrace is a forward pass of a Bidirectional. Bwd.Steps are in the
// backward cell's reading order: Bwd.Steps[k] is time step T−k, so its Next.H is
// ←H_{T−k}.
type BidirectionalTrace struct {
	Fwd, Bwd *Trace
	H        []*mat.Dense // H_t = [→H_t, ←H_t], B×2h, t = 1..T
}

// Outputs lists H_1, …, H_T, each [→H_t, ←H_t].
func (tr *BidirectionalTrace) Outputs() []*mat.Dense { return tr.H }

// Forward runs both directions over xs from their initial states (a zero State is
// the zero state) and concatenates their hidden states step by step.
func (m *Bidirectional) Forward(xs []*mat.Dense, s0Fwd, s0Bwd State) (*BidirectionalTrace, error) {
	fwd, err := Forward(m.Fwd, xs, s0Fwd)
	if err != nil {
		return nil, err
	}
	bwd, err := Forward(m.Bwd, reversed(xs), s0Bwd)
	if err != nil {
		return nil, err
	}
	T := len(xs)
	tr := &BidirectionalTrace{Fwd: fwd, Bwd: bwd, H: make([]*mat.Dense, T)}
	for t := range T {
		f, b := fwd.Steps[t].Next.H, bwd.Steps[T-1-t].Next.H
		B, hf := f.Dims()
		_, hb := b.Dims()
		h := mat.NewDense(B, hf+hb, nil)
		h.Slice(0, B, 0, hf).(*mat.Dense).Copy(f)
		h.Slice(0, B, hf, hf+hb).(*mat.Dense).Copy(b)
		tr.H[t] = h
	}
	return tr, nil
}

// BidirectionalGrads is what Bidirectional.Backward returns besides the parameter
// gradients.
type BidirectionalGrads struct {
	DX []*mat.Dense // ∂L/∂X_t, t = 1..T: the sum of both directions' contributions
	// Fwd and Bwd are each direction's Backward result; Bwd's slices are in the
	// backward cell's reading order (index k is time step T−k).
	Fwd, Bwd *Grads
}

// Backward is BPTT for L = Σ_t ⟨dH_t, H_t⟩ with dH_t B×2h: its first h columns
// reach →H_t and the rest ←H_t; each direction runs its own BPTT (opt applies to
// both) and ∂L/∂X_t adds the two.
func (m *Bidirectional) Backward(tr *BidirectionalTrace, dH []*mat.Dense, opt BPTTOptions) *BidirectionalGrads {
	T := tr.Fwd.Len()
	if dH != nil && len(dH) != T {
		panic(fmt.Sprintf("models: dH has %d steps, want T = %d", len(dH), T))
	}
	hf := m.Fwd.HiddenSize()
	hb := m.Bwd.HiddenSize()
	var dF, dB []*mat.Dense
	if dH != nil {
		dF, dB = make([]*mat.Dense, T), make([]*mat.Dense, T)
		for t, d := range dH {
			if d == nil {
				continue
			}
			B, _ := tr.H[t].Dims()
			mustStepDims("dH", t, d, B, hf+hb)
			dF[t] = mat.DenseCopyOf(d.Slice(0, B, 0, hf))
			dB[T-1-t] = mat.DenseCopyOf(d.Slice(0, B, hf, hf+hb))
		}
	}
	out := &BidirectionalGrads{
		Fwd: Backward(m.Fwd, tr.Fwd, dF, opt),
		Bwd: Backward(m.Bwd, tr.Bwd, dB, opt),
		DX:  make([]*mat.Dense, T),
	}
	for t := range T {
		out.DX[t] = addOrNew(out.Fwd.DX[t], out.Bwd.DX[T-1-t], out.Fwd.DX[t])
	}
	return out
}

// reversed returns xs in reverse order.
func reversed(xs []*mat.Dense) []*mat.Dense {
	out := make([]*mat.Dense, len(xs))
	for t, x := range xs {
		out[len(xs)-1-t] = x
	}
	return out
}

// Stack is a deep bidirectional RNN as torch.nn.RNN, GRU and LSTM compute it with
// num_layers = L and bidirectional = (D = 2): L layers of D directions, each a Cell of
// its own. With H_t^{(0)} = X_t, both directions of layer l read the layer below's
// output, and layer l's output is their hidden states side by side:
//
//	→H_t^{(l)} = f_l(H_t^{(l−1)}, →H_{t−1}^{(l)}),  ←H_t^{(l)} = b_l(H_t^{(l−1)}, ←H_{t+1}^{(l)}),
//	H_t^{(l)} = [→H_t^{(l)}, ←H_t^{(l)}]  (B×2h; →H_t^{(l)} alone when D = 1).
//
// The output at step t is the top layer's H_t^{(L)}. With D = 1 it is a Deep, with
// L = 1 and D = 2 a Bidirectional.
type Stack struct {
	// Cells[l-1][d] is layer l's cell of direction d (0 forward, 1 reverse); every
	// layer has the same number D of directions, 1 or 2.
	Cells [][]Cell
}

// NewStack returns L layers of D directions (D = 1 or 2) of cells of the given kind,
// hidden size h in every one: layer 1 reads d numbers, every higher layer D·h. The
// cells are initialised as NewCell does.
func NewStack(kind Kind, d, h, L, D int, rng *rand.Rand) (*Stack, error) {
	if L < 1 || D < 1 || D > 2 {
		return nil, fmt.Errorf("models: a stack needs L ≥ 1 layers of D = 1 or 2 directions, got L=%d, D=%d", L, D)
	}
	s := &Stack{Cells: make([][]Cell, L)}
	in := d
	for l := range s.Cells {
		for range D {
			c, err := NewCell(kind, in, h, rng)
			if err != nil {
				return nil, err
			}
			s.Cells[l] = append(s.Cells[l], c)
		}
		in = D * h
	}
	return s, nil
}

// Layers is L.
func (s *Stack) Layers() int { return len(s.Cells) }

// Directions is D: 2 for a bidirectional stack, else 1.
func (s *Stack) Directions() int { return len(s.Cells[0]) }

// Params lists every cell's parameters, layer by layer, named "l1.W_xh", … for one
// direction and "l1.fwd.W_xh", …, "l1.bwd.W_xh", … for two.
func (s *Stack) Params() Params {
	var ps Params
	for l, row := range s.Cells {
		for d, c := range row {
			prefix := fmt.Sprintf("l%d.", l+1)
			if len(row) == 2 {
				prefix += [2]string{"fwd.", "bwd."}[d]
			}
			ps = append(ps, c.Params().WithPrefix(prefix)...)
		}
	}
	return ps
}

// StepValues names what a trace of a cell of kind k holds at every step, as
// StepTrace.Gate reads them, in the lecture's order: the gates, then C_t (LSTM), then
// H_t. RNN: H; GRU: R, Z, H_tilde, H; LSTM: I, F, O, C_tilde, C, H. It is the table
// of what a page that shows a whole trace holds (Stack.TraceValues).
func StepValues(k Kind) []string {
	switch k {
	case KindGRU:
		return []string{"R", "Z", "H_tilde", "H"}
	case KindLSTM:
		return []string{"I", "F", "O", "C_tilde", "C", "H"}
	}
	return []string{"H"}
}

// TraceValues is how many numbers the StepValues of a forward pass over T steps of
// batch 1 come to: Σ over layers and directions of T·n·h, n = len(StepValues(kind)),
// L·D·T·n·h when every cell is of one kind and size.
func (s *Stack) TraceValues(T int) int {
	n := 0
	for _, row := range s.Cells {
		for _, c := range row {
			n += T * len(StepValues(c.Kind())) * c.HiddenSize()
		}
	}
	return n
}

// StackTrace is a forward pass of a Stack.
type StackTrace struct {
	// Layers[l-1][d] is the trace of layer l's direction d in its cell's reading
	// order: the reverse direction's Steps[k] is time step T−k (At reads either in
	// time order).
	Layers [][]*Trace
	// H[l-1][t-1] is layer l's output H_t^{(l)} = [→H_t^{(l)}, ←H_t^{(l)}] (B×Dh), the
	// input of layer l+1.
	H [][]*mat.Dense
}

// Len is the number of time steps T.
func (tr *StackTrace) Len() int { return len(tr.H[0]) }

// Outputs lists the top layer's H_1^{(L)}, …, H_T^{(L)}.
func (tr *StackTrace) Outputs() []*mat.Dense { return tr.H[len(tr.H)-1] }

// At is the step of Layers[l][d] at time step t+1 (0-based t, as in Trace.Steps), for
// either direction: the reverse direction's Steps[T−1−t].
func (tr *StackTrace) At(l, d, t int) *StepTrace {
	if d == 1 {
		return tr.Layers[l][d].Steps[tr.Len()-1-t]
	}
	return tr.Layers[l][d].Steps[t]
}

// Forward runs the stack over xs (T matrices B×d): layer by layer, each direction
// from its initial state s0[(l−1)·D + d] (PyTorch's order of h_0 and c_0; s0 nil, or
// a zero State entry, is the zero state), the reverse one over X_T, …, X_1. Errors
// are those of Forward: an empty sequence or a number that is not finite.
func (s *Stack) Forward(xs []*mat.Dense, s0 []State) (*StackTrace, error) {
	L, D := s.Layers(), s.Directions()
	if s0 != nil && len(s0) != L*D {
		panic(fmt.Sprintf("models: %d initial states for %d layers of %d directions", len(s0), L, D))
	}
	tr := &StackTrace{Layers: make([][]*Trace, L), H: make([][]*mat.Dense, L)}
	in := xs
	for l, row := range s.Cells {
		if len(row) != D {
			panic(fmt.Sprintf("models: layer %d has %d directions, layer 1 has %d", l+1, len(row), D))
		}
		tr.Layers[l] = make([]*Trace, D)
		for d, c := range row {
			var st State
			if s0 != nil {
				st = s0[l*D+d]
			}
			seq := in
			if d == 1 {
				seq = reversed(in)
			}
			lt, err := Forward(c, seq, st)
			if err != nil {
				if l == 0 {
					return nil, err
				}
				return nil, fmt.Errorf("models: layer %d: %w", l+1, err)
			}
			tr.Layers[l][d] = lt
		}
		tr.H[l] = tr.Layers[l][0].Outputs()
		if D == 2 {
			tr.H[l] = concatSteps(tr.H[l], tr.Layers[l][1])
		}
		in = tr.H[l]
	}
	return tr, nil
}

// concatSteps is [→H_t, ←H_t] for t = 1..T, with bwd in its reading order.
func concatSteps(fwd []*mat.Dense, bwd *Trace) []*mat.Dense {
	T := len(fwd)
	out := make([]*mat.Dense, T)
	for t, f := range fwd {
		b := bwd.Steps[T-1-t].Next.H
		B, hf := f.Dims()
		_, hb := b.Dims()
		h := mat.NewDense(B, hf+hb, nil)
		h.Slice(0, B, 0, hf).(*mat.Dense).Copy(f)
		h.Slice(0, B, hf, hf+hb).(*mat.Dense).Copy(b)
		out[t] = h
	}
	return out
}

// StackGrads is what Stack.Backward returns besides the parameter gradients.
type StackGrads struct {
	DX []*mat.Dense // ∂L/∂X_t, t = 1..T: the input of layer 1
	// DH[l-1][t-1] = ∂L/∂H_t^{(l)}, the gradient of layer l's output as the layers
	// above read it (B×Dh): dTop for the top layer, layer l+1's ∂L/∂X_t below it.
	DH [][]*mat.Dense
	// Layers[l-1][d] is the Backward result of layer l's direction d, in its cell's
	// reading order (the reverse direction's index k is time step T−k): its DS0 is
	// ∂L/∂ of the direction's initial state, its HNorm the norm of the whole gradient
	// that reaches each H_t, along the recurrence too (HNorms reads it in time order).
	Layers [][]*Grads
}

// HNorms lists ‖∂L/∂H_t‖ of layer l+1's direction d for t = 1..T (0-based l).
func (g *StackGrads) HNorms(l, d int) []float64 { return inTimeOrder(g.Layers[l][d].HNorm, d) }

// CNorms lists ‖∂L/∂C_t‖ of layer l+1's direction d for t = 1..T (0-based l), for an
// LSTM; nil for the other cells.
func (g *StackGrads) CNorms(l, d int) []float64 { return inTimeOrder(g.Layers[l][d].CNorm, d) }

// inTimeOrder is v of direction d in time order: a copy, reversed for the reverse
// direction.
func inTimeOrder(v []float64, d int) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for k, x := range v {
		if d == 1 {
			k = len(v) - 1 - k
		}
		out[k] = x
	}
	return out
}

// Backward is BPTT through the stack for L = Σ_t ⟨dTop_t, H_t^{(L)}⟩ (dTop: one B×Dh
// gradient per step, nil entries, or a nil dTop, zero). Layers run top down: the
// first h columns of the upstream gradient reach →H_t and the rest ←H_t, each
// direction runs Backward with opt, and the two directions' ∂L/∂X_t add up to the
// upstream gradient of the layer below. Every Param.Grad accumulates, unless
// opt.NoParamGrads (then Backward only reads the stack).
func (s *Stack) Backward(tr *StackTrace, dTop []*mat.Dense, opt BPTTOptions) *StackGrads {
	L, D, T := s.Layers(), s.Directions(), tr.Len()
	if len(tr.Layers) != L {
		panic(fmt.Sprintf("models: %d layers, trace has %d", L, len(tr.Layers)))
	}
	if dTop != nil && len(dTop) != T {
		panic(fmt.Sprintf("models: dTop has %d steps, want T = %d", len(dTop), T))
	}
	out := &StackGrads{DH: make([][]*mat.Dense, L), Layers: make([][]*Grads, L)}
	up := dTop
	for l := L - 1; l >= 0; l-- {
		out.DH[l] = up
		out.Layers[l] = make([]*Grads, D)
		dIn := make([]*mat.Dense, T)
		col := 0 // the direction's first column in H_t^{(l)}
		for d, c := range s.Cells[l] {
			h := c.HiddenSize()
			dH := make([]*mat.Dense, T) // in the cell's reading order
			for t, g := range up {
				if g == nil {
					continue
				}
				B, w := tr.H[l][t].Dims()
				mustStepDims("dH", t, g, B, w)
				k := t
				if d == 1 {
					k = T - 1 - t
				}
				dH[k] = mat.DenseCopyOf(g.Slice(0, B, col, col+h))
			}
			gr := Backward(c, tr.Layers[l][d], dH, opt)
			out.Layers[l][d] = gr
			for k, dx := range gr.DX {
				t := k
				if d == 1 {
					t = T - 1 - k
				}
				if dIn[t] == nil {
					dIn[t] = mat.DenseCopyOf(dx)
				} else {
					dIn[t].Add(dIn[t], dx)
				}
			}
			col += h
		}
		up = dIn
	}
	out.DX = up
	return out
}
