package torchload

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// Limits on one run.
const (
	// MaxSteps bounds T: the page steps through every t, and the response holds every
	// gate at every step.
	MaxSteps = 256
	// MaxTraceValues bounds the numbers of one run's steps (layers × directions × T ×
	// recorded values × h), about 20 MB of JSON: a 4-layer bidirectional LSTM with h = 64
	// over 256 steps records 0.79 M.
	MaxTraceValues = 1 << 20
)

// Input is API.md's input JSON: either X, a T × input_size sequence for batch 1, or Text
// with Vocab, whose characters' indices in Vocab are token ids fed through the embedding.
type Input struct {
	X     [][]float64 `json:"x,omitempty"`
	Text  string      `json:"text,omitempty"`
	Vocab []string    `json:"vocab,omitempty"`
	// Nonlinearity is nn.RNN's ("tanh" or "relu"), which a state_dict does not record.
	Nonlinearity string `json:"nonlinearity,omitempty"`
	// H0 and C0 are the initial states, as PyTorch's h_0 and c_0 for batch 1:
	// (layers·directions) × h, row l·directions + d for layer l's direction d (the
	// reverse direction's starts at t = T). Omitted, zeros; C0 is an LSTM's only.
	H0 [][]float64 `json:"h0,omitempty"`
	C0 [][]float64 `json:"c0,omitempty"`
}

// Steps is one layer and direction's trace in natural time order: Gates["R"][t] is R at
// step t+1 (for the reverse direction too, which reads t = T..1). The names are the
// cells' trace names: "H" for every kind; "R", "Z", "H_tilde" for a GRU (H_tilde is
// PyTorch's n); "I", "F", "O", "C_tilde", "C" for an LSTM (C_tilde is PyTorch's g).
type Steps struct {
	Layer     int                    `json:"layer"`
	Direction int                    `json:"direction"` // 0 forward, 1 reverse
	Gates     map[string][][]float64 `json:"gates"`
}

// Result is a run as API.md's response: PyTorch's output, h_n, c_n for batch 1, the
// head's logits, and every gate.
type Result struct {
	Architecture Architecture `json:"architecture"`
	Output       [][]float64  `json:"output"`           // T × (directions·h), the last layer's
	HN           [][]float64  `json:"h_n"`              // (layers·directions) × h
	CN           [][]float64  `json:"c_n,omitempty"`    // LSTM only
	Logits       [][]float64  `json:"logits,omitempty"` // T × V with a head
	Steps        []Steps      `json:"steps"`
}

// Sequence turns in into the T input vectors X_t (1×input_size each): the rows of X, or
// the embedding's rows of the text's token ids.
func (m *Model) Sequence(in Input) ([]*mat.Dense, error) {
	d := m.Arch.InputSize
	switch {
	case in.X != nil && in.Text != "":
		return nil, errors.New("give x or text, not both")
	case in.X != nil:
		if len(in.X) == 0 || len(in.X) > MaxSteps {
			return nil, fmt.Errorf("x has %d steps; give 1 to %d (MaxSteps)", len(in.X), MaxSteps)
		}
		xs := make([]*mat.Dense, len(in.X))
		for t, row := range in.X {
			if len(row) != d {
				return nil, fmt.Errorf("x[%d] has %d numbers; the model's input_size is %d", t, len(row), d)
			}
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("x[%d][%d] is %v", t, j, v)
				}
			}
			xs[t] = mat.NewDense(1, d, append([]float64(nil), row...))
		}
		return xs, nil
	case in.Text != "":
		if m.Embed == nil {
			return nil, errors.New("text needs an nn.Embedding in the file; this model has none, give x")
		}
		V, _ := m.Embed.E.Value.Dims()
		if len(in.Vocab) != V {
			return nil, fmt.Errorf("vocab has %d entries; the embedding has %d rows", len(in.Vocab), V)
		}
		id := make(map[rune]int, V)
		for i, s := range in.Vocab {
			r, n := utf8.DecodeRuneInString(s)
			if n == 0 || n != len(s) || r == utf8.RuneError {
				return nil, fmt.Errorf("vocab[%d] is %q; each entry is one character", i, s)
			}
			if _, dup := id[r]; dup {
				return nil, fmt.Errorf("vocab has %q twice", s)
			}
			id[r] = i
		}
		if !utf8.ValidString(in.Text) {
			return nil, errors.New("text is not UTF-8")
		}
		n := utf8.RuneCountInString(in.Text)
		if n > MaxSteps {
			return nil, fmt.Errorf("text has %d characters; give at most %d (MaxSteps)", n, MaxSteps)
		}
		xs := make([]*mat.Dense, 0, n)
		for i, r := range []rune(in.Text) {
			k, ok := id[r]
			if !ok {
				return nil, fmt.Errorf("text[%d] is %q, which is not in vocab", i, r)
			}
			xs = append(xs, m.Embed.Forward([]int{k}))
		}
		return xs, nil
	}
	return nil, errors.New("give x (a T × input_size list) or text with vocab")
}

// Run runs the model on xs (T matrices 1×input_size) from zero states, as PyTorch's
// module does for batch 1: each layer's directions read the layer below's output (the
// forward and reverse hidden states concatenated), through models.Stack, so the numbers
// are the models cells' own.
func (m *Model) Run(xs []*mat.Dense) (*Result, error) { return m.RunFrom(xs, nil, nil) }

// initialStates checks h0 and c0 (Input.H0, C0) against the model and returns the
// initial state of each layer and direction, [l·directions + d]; zero states for nil.
func (m *Model) initialStates(h0, c0 [][]float64) ([]models.State, error) {
	a := m.Arch
	n := a.Layers * a.Directions()
	out := make([]models.State, n)
	if c0 != nil && a.Kind != KindLSTM {
		return nil, errors.New("c0 is an LSTM's initial memory cell; this model has none")
	}
	for _, st := range []struct {
		name string
		rows [][]float64
		c    bool
	}{{"h0", h0, false}, {"c0", c0, true}} {
		if st.rows == nil {
			continue
		}
		if len(st.rows) != n {
			return nil, fmt.Errorf("%s has %d rows; want layers·directions = %d, as PyTorch's %s for batch 1", st.name, len(st.rows), n, st.name[:1]+"_0")
		}
		for i, row := range st.rows {
			if len(row) != a.HiddenSize {
				return nil, fmt.Errorf("%s[%d] has %d numbers; the model's hidden_size is %d", st.name, i, len(row), a.HiddenSize)
			}
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("%s[%d][%d] is %v", st.name, i, j, v)
				}
			}
			v := mat.NewDense(1, a.HiddenSize, append([]float64(nil), row...))
			if st.c {
				out[i].C = v
			} else {
				out[i].H = v
			}
		}
	}
	if a.Kind == KindLSTM { // a given h0 with no c0 (or the reverse) starts the other at zero
		for i := range out {
			if out[i].H != nil && out[i].C == nil {
				out[i].C = mat.NewDense(1, a.HiddenSize, nil)
			}
			if out[i].C != nil && out[i].H == nil {
				out[i].H = mat.NewDense(1, a.HiddenSize, nil)
			}
		}
	}
	return out, nil
}

// Stack is the model's recurrent layers, its Cells, as a models.Stack.
func (m *Model) Stack() *models.Stack { return &models.Stack{Cells: m.Cells} }

// Forward runs the recurrent layers over xs (T matrices 1×input_size) from s0 (one
// state a layer and direction in PyTorch's order l·directions + d, as
// models.Stack.Forward takes them; nil for zero states) and keeps every step's trace:
// the one trace budget of a run. T is at most MaxSteps, and the values recorded
// (models.StepValues at every layer, direction and step) at most MaxTraceValues.
func (m *Model) Forward(xs []*mat.Dense, s0 []models.State) (*models.StackTrace, error) {
	s, T := m.Stack(), len(xs)
	if T == 0 || T > MaxSteps {
		return nil, fmt.Errorf("torchload: %d steps; give 1 to %d (MaxSteps)", T, MaxSteps)
	}
	if n := s.TraceValues(T); n > MaxTraceValues {
		return nil, fmt.Errorf("torchload: the run would record %d numbers, over %d (MaxTraceValues); give fewer steps", n, MaxTraceValues)
	}
	tr, err := s.Forward(xs, s0)
	if err != nil {
		return nil, fmt.Errorf("torchload: %w", err)
	}
	return tr, nil
}

// RunFrom is Run from the initial states h0 and c0 (Input.H0 and C0; nil for zeros).
func (m *Model) RunFrom(xs []*mat.Dense, h0, c0 [][]float64) (*Result, error) {
	s0, err := m.initialStates(h0, c0)
	if err != nil {
		return nil, fmt.Errorf("torchload: input: %w", err)
	}
	tr, err := m.Forward(xs, s0)
	if err != nil {
		return nil, err
	}
	a := m.Arch
	T, values := len(xs), models.StepValues(a.CellKind())
	res := &Result{Architecture: a}
	for l, row := range tr.Layers {
		for d, lt := range row {
			st := Steps{Layer: l, Direction: d, Gates: map[string][][]float64{}}
			for _, name := range values {
				byT := make([][]float64, T)
				for t := range T {
					byT[t] = append([]float64(nil), tr.At(l, d, t).Gate(name).RawRowView(0)...)
				}
				st.Gates[name] = byT
			}
			last := lt.Last()
			res.HN = append(res.HN, append([]float64(nil), last.H.RawRowView(0)...))
			if last.C != nil {
				res.CN = append(res.CN, append([]float64(nil), last.C.RawRowView(0)...))
			}
			res.Steps = append(res.Steps, st)
		}
	}
	out := tr.Outputs()
	for _, o := range out {
		res.Output = append(res.Output, append([]float64(nil), o.RawRowView(0)...))
	}
	if m.Head != nil {
		stacked := mat.NewDense(T, a.Directions()*a.HiddenSize, nil)
		for t, o := range out {
			stacked.SetRow(t, o.RawRowView(0))
		}
		logits := m.Head.Forward(stacked)
		for t := range T {
			res.Logits = append(res.Logits, append([]float64(nil), logits.RawRowView(t)...))
		}
	}
	return res, nil
}

// RunInput is Sequence then Run.
func (m *Model) RunInput(in Input) (*Result, error) {
	xs, err := m.Sequence(in)
	if err != nil {
		return nil, fmt.Errorf("torchload: input: %w", err)
	}
	return m.RunFrom(xs, in.H0, in.C0)
}
