package models

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Kind names a recurrent cell as API.md does.
type Kind string

// The cell kinds.
const (
	KindRNN  Kind = "rnn"
	KindGRU  Kind = "gru"
	KindLSTM Kind = "lstm"
)

// State is a recurrent state: the hidden state H (B×h) and, for the LSTM only,
// the memory cell C (B×h; nil for the other kinds).
type State struct {
	H, C *mat.Dense
}

// Named is one named intermediate of a step, such as the reset gate "R".
type Named struct {
	Name  string
	Value *mat.Dense
}

// StepTrace records one time step: its input, the previous and next state, and every
// intermediate the pages show, in lecture order under API.md's per-step keys
// (rnn: none besides H; gru: R, Z, H_tilde; lstm: I, F, O, C_tilde).
type StepTrace struct {
	X     *mat.Dense
	Prev  State
	Gates []Named
	Next  State
	aux   []*mat.Dense // cell-private values kept for the backward pass
}

// Gate returns the intermediate called name ("R", "Z", "H", "C", …), or nil.
// "H" and "C" are the step's new state.
func (s *StepTrace) Gate(name string) *mat.Dense {
	switch name {
	case "H":
		return s.Next.H
	case "C":
		return s.Next.C
	}
	for _, g := range s.Gates {
		if g.Name == name {
			return g.Value
		}
	}
	return nil
}

// gatedStep is one GRU or LSTM step's trace with the slices it points to,
// allocated together: its gates (three for the GRU, four for the LSTM) and the one
// matrix kept for the backward pass. The matrices are a slice of mat.Dense headers
// over one backing array (newGatedStep). (Holding the headers in this struct as well
// makes a 512-byte object that, at h = 64, made the GRU's Step 30% slower.)
type gatedStep struct {
	tr    StepTrace
	gates [4]Named
	aux   [1]*mat.Dense
}

// newGatedStep allocates a step's trace and n B×h matrices over one backing array.
func newGatedStep(n, B, h int) (*gatedStep, []mat.Dense) {
	ms := make([]mat.Dense, n)
	data := make([]float64, n*B*h)
	for i := range ms {
		data = carveDense(data, B, h, &ms[i])
	}
	return new(gatedStep), ms
}

// trace completes the step's trace: X_t, the previous and the new state, the gates in
// lecture order, and aux, kept for the backward pass.
func (s *gatedStep) trace(x *mat.Dense, prev, next State, aux *mat.Dense, gates ...Named) *StepTrace {
	n := copy(s.gates[:], gates)
	s.aux = [1]*mat.Dense{aux}
	s.tr = StepTrace{X: x, Prev: prev, Next: next, Gates: s.gates[:n:n], aux: s.aux[:]}
	return &s.tr
}

// Cell is one recurrent cell: a function (X_t, state_{t-1}) → state_t with parameters.
// Sequence code (BPTT, stacks, encoder-decoder) is written against this interface.
type Cell interface {
	Kind() Kind
	// InputSize is d and HiddenSize is h.
	InputSize() int
	HiddenSize() int
	// Params lists the parameters under API.md's names, in API.md's order.
	Params() Params
	// Step computes one time step for a batch: x is B×d, prev.H is B×h.
	Step(x *mat.Dense, prev State) *StepTrace
	// StepBack takes ∂L/∂H_t and (LSTM) ∂L/∂C_t for the step tr, adds this step's
	// contribution to every Param.Grad, and returns ∂L/∂X_t and ∂L/∂state_{t-1}.
	// dC is nil for cells without a memory cell.
	StepBack(tr *StepTrace, dH, dC *mat.Dense) (dX *mat.Dense, dPrev State)
}

// GateClamp fixes one gate of a cell to a constant at every step, a what-if
// experiment: the gate is computed, then every entry is replaced by Value before it
// is used (and shows as Value in the trace), so no gradient flows through its
// pre-activation. Gate names the gate as the trace does: "R" or "Z" for a GRU, "I",
// "F" or "O" for an LSTM; the zero GateClamp clamps nothing. A clamped cell is made by
// the cell's WithClamp and shares its parameters.
type GateClamp struct {
	Gate  string
	Value float64
}

// clamped reports whether g clamps the gate called name.
func (g GateClamp) clamped(name string) bool { return g.Gate != "" && g.Gate == name }

// apply replaces every entry of m by g.Value when g clamps the gate name.
func (g GateClamp) apply(name string, m *mat.Dense) {
	if !g.clamped(name) {
		return
	}
	raw := m.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride:][:raw.Cols]
		for j := range row {
			row[j] = g.Value
		}
	}
}

// sigmoidGate writes the gate σ(X_t W_x + H_{t-1} W_h + b) into out, then every
// entry replaced by g.Value when g clamps the gate name.
func (g GateClamp) sigmoidGate(name string, out, x *mat.Dense, wx *Param, hp *mat.Dense, wh, b *Param) {
	affineInto(out, x, wx, hp, wh, b)
	applyEach(out, sigmoid)
	g.apply(name, out)
}

// mustClampable panics unless g names one of gates (or none) and its value is finite.
func (g GateClamp) mustClampable(kind Kind, gates ...string) {
	if math.IsNaN(g.Value) || math.IsInf(g.Value, 0) {
		panic(fmt.Sprintf("models: clamped value %v; it must be finite", g.Value))
	}
	if g.Gate == "" || slices.Contains(gates, g.Gate) {
		return
	}
	panic(fmt.Sprintf("models: a %s has no gate %q to clamp; it has %s", kind, g.Gate, strings.Join(gates, ", ")))
}
