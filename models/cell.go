package models

import "gonum.org/v1/gonum/mat"

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
