package check

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// Limits of POST /api/v1/cell, from docs/api.md.
const (
	MaxSize  = 256 // d and h: a teaching cell, not a production model
	MaxSteps = 512 // T: long enough to watch gradients vanish
)

// CellRequest is the body of POST /api/v1/cell as DecodeCell reads it: the JSON fields
// kind, params, x, h0, c0 and dh. A nil field was omitted (or null).
type CellRequest struct {
	Kind string
	// Params holds each parameter by name: a weight (W_…) as its rows, a bias (b_…) as
	// a single row.
	Params map[string][][]float64
	X      [][]float64
	H0     []float64
	C0     []float64
	DH     [][]float64
}

// CellResponse is the answer: one object per time step with the step's intermediates
// under docs/api.md's keys, and the gradients when dh was given.
type CellResponse struct {
	Steps []object `json:"steps"`
	Grads object   `json:"grads,omitempty"`
}

// paramNames lists each kind's parameters in docs/api.md's order.
var paramNames = map[models.Kind][]string{
	models.KindRNN:  {"W_xh", "W_hh", "b_h"},
	models.KindGRU:  {"W_xr", "W_hr", "b_r", "W_xz", "W_hz", "b_z", "W_xh", "W_hh", "b_h"},
	models.KindLSTM: {"W_xi", "W_hi", "b_i", "W_xf", "W_hf", "b_f", "W_xo", "W_ho", "b_o", "W_xc", "W_hc", "b_c"},
}

// Error is invalid input, worded for a student; package web answers it with 400. When
// reading the body failed, it wraps the reader's error (package web answers a body over
// its limit with 413).
type Error struct {
	Msg string
	err error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the reading error behind e, or nil.
func (e *Error) Unwrap() error { return e.err }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Cell validates req, runs the cell forward over x (and BPTT with the upstream
// gradients dh, loss L = Σ_t ⟨dh_t, H_t⟩), and returns every step and gradient.
func Cell(req *CellRequest) (*CellResponse, error) {
	kind := models.Kind(req.Kind)
	names, ok := paramNames[kind]
	if !ok {
		return nil, errorf("kind: %.40q is not a cell kind; use \"rnn\", \"gru\" or \"lstm\"", req.Kind)
	}
	T, d, err := matrixShape("x", req.X)
	if err != nil {
		return nil, err
	}
	if T > MaxSteps {
		return nil, errorf("x: %d time steps is over the limit of %d", T, MaxSteps)
	}
	if d > MaxSize {
		return nil, errorf("x: input size d = %d is over the limit of %d", d, MaxSize)
	}
	h, err := hiddenSize(kind, names, req.Params)
	if err != nil {
		return nil, err
	}

	cell, err := models.NewCell(kind, d, h, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, errorf("kind: %v", err)
	}
	for _, p := range cell.Params() {
		if err := fillParam(p, req.Params[p.Name], d, h); err != nil {
			return nil, err
		}
	}
	var s0 models.State
	if s0.H, err = vectorOf("h0", req.H0, h); err != nil {
		return nil, err
	}
	if kind == models.KindLSTM {
		if s0.C, err = vectorOf("c0", req.C0, h); err != nil {
			return nil, err
		}
	} else if req.C0 != nil {
		return nil, errorf("c0: only an lstm has a memory cell; leave c0 out for %s", kind)
	}
	var dH []*mat.Dense
	if req.DH != nil {
		dT, dh, err := matrixShape("dh", req.DH)
		if err != nil {
			return nil, err
		}
		if dT != T || dh != h {
			return nil, errorf("dh: must be T×h = %d×%d (one row per row of x), got %d×%d", T, h, dT, dh)
		}
		dH = rows(req.DH)
	}

	tr, err := models.Forward(cell, rows(req.X), s0)
	if err != nil {
		return nil, errorf("x: %v", err)
	}
	resp := &CellResponse{Steps: make([]object, T)}
	for t, st := range tr.Steps {
		o := object{{"t", t + 1}}
		for _, g := range st.Gates {
			o = append(o, field{g.Name, vector(g.Value)})
		}
		if st.Next.C != nil {
			o = append(o, field{"C", vector(st.Next.C)})
		}
		resp.Steps[t] = append(o, field{"H", vector(st.Next.H)})
	}
	if dH != nil {
		g := models.Backward(cell, tr, dH, models.BPTTOptions{})
		for _, p := range cell.Params() {
			resp.Grads = append(resp.Grads, field{p.Name, paramJSON(p.Grad, p.Vector)})
		}
		dx := make([][]float64, T)
		for t, m := range g.DX {
			dx[t] = vector(m)
		}
		resp.Grads = append(resp.Grads, field{"x", dx}, field{"h0", vector(g.DS0.H)})
		if kind == models.KindLSTM {
			resp.Grads = append(resp.Grads, field{"c0", vector(g.DS0.C)})
		}
	}
	if err := finite(resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// hiddenSize reads h from the first recurrent weight and checks the parameter names.
func hiddenSize(kind models.Kind, names []string, params map[string][][]float64) (int, error) {
	for name := range params {
		if !slices.Contains(names, name) {
			return 0, errorf("params.%s: not a %s parameter; a %s has %s", name, kind, kind, strings.Join(names, " "))
		}
	}
	for _, name := range names {
		if _, ok := params[name]; !ok {
			return 0, errorf("params.%s is missing; a %s needs %s", name, kind, strings.Join(names, " "))
		}
	}
	recurrent := names[1] // W_hh, W_hr or W_hi: h×h
	h := len(params[recurrent])
	if h == 0 {
		return 0, errorf("params.%s: is empty; the hidden size h must be at least 1", recurrent)
	}
	if h > MaxSize {
		return 0, errorf("params.%s: hidden size h = %d is over the limit of %d", recurrent, h, MaxSize)
	}
	return h, nil
}

// fillParam copies m into p: a bias is one row of h numbers, W_x* is d×h, W_h* is h×h.
func fillParam(p *models.Param, m [][]float64, d, h int) error {
	field := "params." + p.Name
	if p.Vector {
		var v []float64
		if m != nil {
			if len(m) != 1 {
				return errorf("%s: must be a list of h = %d numbers", field, h)
			}
			v = m[0]
		}
		if len(v) != h {
			return errorf("%s: must have h = %d numbers, got %d", field, h, len(v))
		}
		p.Value.SetRow(0, v)
		return nil
	}
	r, c := p.Value.Dims()
	want := fmt.Sprintf("%d×%d (h×h)", r, c)
	if strings.HasPrefix(p.Name, "W_x") {
		want = fmt.Sprintf("%d×%d (d×h, d from the width of x)", r, c)
	}
	gotR, gotC, err := matrixShape(field, m)
	if err != nil {
		return err
	}
	if gotR != r || gotC != c {
		return errorf("%s: must be %s, got %d×%d", field, want, gotR, gotC)
	}
	for i, row := range m {
		p.Value.SetRow(i, row)
	}
	return nil
}

// matrixShape checks that m is a non-empty rectangular list of rows.
func matrixShape(field string, m [][]float64) (rows, cols int, err error) {
	if len(m) == 0 {
		return 0, 0, errorf("%s: is missing or empty; give at least one row", field)
	}
	cols = len(m[0])
	if cols == 0 {
		return 0, 0, errorf("%s: row 1 is empty", field)
	}
	for i, row := range m {
		if len(row) != cols {
			return 0, 0, errorf("%s: row %d has %d numbers but row 1 has %d; every row must be the same length", field, i+1, len(row), cols)
		}
	}
	return len(m), cols, nil
}

// vectorOf returns v as a 1×n state, zeros when v is omitted.
func vectorOf(field string, v []float64, n int) (*mat.Dense, error) {
	if v == nil {
		return mat.NewDense(1, n, nil), nil
	}
	if len(v) != n {
		return nil, errorf("%s: must have h = %d numbers, got %d", field, n, len(v))
	}
	return mat.NewDense(1, n, slices.Clone(v)), nil
}

// rows turns a T×n list into T matrices of 1×n (a batch of one).
func rows(m [][]float64) []*mat.Dense {
	out := make([]*mat.Dense, len(m))
	for t, r := range m {
		out[t] = mat.NewDense(1, len(r), slices.Clone(r))
	}
	return out
}

// vector returns the single row of a 1×n matrix.
func vector(m *mat.Dense) []float64 { return slices.Clone(m.RawRowView(0)) }

// paramJSON returns a bias as a list and a weight as a list of rows.
func paramJSON(m *mat.Dense, isVector bool) any {
	if isVector {
		return vector(m)
	}
	r, _ := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = slices.Clone(m.RawRowView(i))
	}
	return out
}

// finite reports an overflow in any returned number (JSON cannot carry ±Inf or NaN).
func finite(resp *CellResponse) error {
	bad := func(where string, v []float64) error {
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return errorf("%s[%d] overflowed float64 (%v): the weights or inputs are too large", where, i, x)
			}
		}
		return nil
	}
	check := func(where string, v any) error {
		switch v := v.(type) {
		case []float64:
			return bad(where, v)
		case [][]float64:
			for i, r := range v {
				if err := bad(fmt.Sprintf("%s[%d]", where, i), r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for t, st := range resp.Steps {
		for _, f := range st {
			if err := check(fmt.Sprintf("steps[%d].%s", t, f.key), f.value); err != nil {
				return err
			}
		}
	}
	for _, f := range resp.Grads {
		if err := check("grads."+f.key, f.value); err != nil {
			return err
		}
	}
	return nil
}
