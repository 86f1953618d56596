package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var stackKinds = []Kind{KindRNN, KindGRU, KindLSTM}

// stackStates is one random initial state per layer.
func stackStates(m *Deep, B int, rng *rand.Rand) []State {
	s := make([]State, len(m.Layers))
	for l, c := range m.Layers {
		s[l] = randomState(c, B, rng)
	}
	return s
}

// TestDeepFiniteDifferences checks BPTT through L stacked layers of every kind,
// with upstream gradients on the top layer and on a middle one: every parameter,
// every X_t and every layer's initial state.
func TestDeepFiniteDifferences(t *testing.T) {
	const T, B, d, h, L = 4, 2, 3, 2, 3
	for _, kind := range stackKinds {
		t.Run(string(kind), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			m, err := NewDeep(kind, d, h, L, rng)
			if err != nil {
				t.Fatal(err)
			}
			xs := cellSequence(T, B, d, rng)
			s0 := stackStates(m, B, rng)
			dH := [][]*mat.Dense{nil, cellSequence(T, B, h, rng), cellSequence(T, B, h, rng)}
			dH[1][0] = nil
			loss := func() float64 {
				tr, err := m.Forward(xs, s0)
				if err != nil {
					t.Fatal(err)
				}
				var l float64
				for k, layer := range tr.Layers {
					if dH[k] != nil {
						l += cellLoss(layer, dH[k])
					}
				}
				return l
			}
			tr, err := m.Forward(xs, s0)
			if err != nil {
				t.Fatal(err)
			}
			m.Params().ZeroGrad()
			g := m.BackwardLayers(tr, dH, BPTTOptions{})
			targets := paramTargets(m.Params())
			for i, x := range xs {
				targets = append(targets, cellTarget{fmt.Sprintf("X_%d", i+1), x, g.DX[i]})
			}
			for l, s := range s0 {
				targets = append(targets, cellTarget{fmt.Sprintf("H_0^(%d)", l+1), s.H, g.Layers[l].DS0.H})
				if s.C != nil {
					targets = append(targets, cellTarget{fmt.Sprintf("C_0^(%d)", l+1), s.C, g.Layers[l].DS0.C})
				}
			}
			cellGradCheck(t, string(kind), loss, targets, 1e-7)
		})
	}
}

// TestDeepStructure: parameter names carry the layer prefix, layer l > 1 reads
// size h, one layer is the plain cell, Backward is BackwardLayers on the top.
func TestDeepStructure(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := NewDeep(KindGRU, 3, 4, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	ps := m.Params()
	if got := []string{ps[0].Name, ps[9].Name, ps[17].Name}; strings.Join(got, " ") != "l1.W_xr l2.W_xr l2.b_h" {
		t.Errorf("names: got %v want [l1.W_xr l2.W_xr l2.b_h]", got)
	}
	if r, _ := ps.ByName("l2.W_xr").Value.Dims(); r != 4 {
		t.Errorf("layer 2 W_xr rows: got %d want h = 4", r)
	}
	if ps.ByName("l1.W_xr").Value != m.Layers[0].Params()[0].Value {
		t.Error("prefixed parameters do not share the layer's values")
	}
	if m.InputSize() != 3 || m.HiddenSize() != 4 {
		t.Errorf("sizes: got d=%d h=%d want 3, 4", m.InputSize(), m.HiddenSize())
	}

	one, err := NewDeep(KindLSTM, 2, 3, 1, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cell := NewLSTM(2, 3, rand.New(rand.NewPCG(1, 1)))
	xs := cellSequence(3, 2, 2, rng)
	dTop := cellSequence(3, 2, 3, rng)
	dt, err := one.Forward(xs, nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := Forward(cell, xs, State{})
	if err != nil {
		t.Fatal(err)
	}
	for s := range xs {
		if err := cellClose(fmt.Sprintf("H_%d", s+1), dt.Outputs()[s], ct.Outputs()[s], 0); err != nil {
			t.Error(err)
		}
	}
	g := one.Backward(dt, dTop, BPTTOptions{})
	gc := Backward(cell, ct, dTop, BPTTOptions{})
	for i, p := range cell.Params() {
		if err := cellClose("∂L/∂"+p.Name, one.Layers[0].Params()[i].Grad, p.Grad, 0); err != nil {
			t.Error(err)
		}
	}
	if err := cellClose("∂L/∂X_1", g.DX[0], gc.DX[0], 0); err != nil {
		t.Error(err)
	}

	if _, err := NewDeep(KindGRU, 2, 2, 0, rng); err == nil {
		t.Error("NewDeep with L=0: got nil error want an error")
	}
	if _, err := NewDeep("cnn", 2, 2, 2, rng); err == nil {
		t.Error(`NewDeep("cnn"): got nil error want an error`)
	}
	if _, err := m.Forward(nil, nil); err == nil || !strings.HasPrefix(err.Error(), "models: empty sequence") {
		t.Errorf("Forward of nothing: got %v want models: empty sequence", err)
	}
	cellExpectPanic(t, "wrong number of initial states", func() { m.Forward(xs, make([]State, 3)) })
	tr, _ := m.Forward(cellSequence(2, 1, 3, rng), nil)
	cellExpectPanic(t, "wrong number of upstream layers", func() { m.BackwardLayers(tr, make([][]*mat.Dense, 1), BPTTOptions{}) })
}

// TestBidirectionalFiniteDifferences checks BPTT of the bidirectional RNN for every
// kind: every parameter, every X_t, both initial states.
func TestBidirectionalFiniteDifferences(t *testing.T) {
	const T, B, d, h = 4, 2, 2, 3
	for _, kind := range stackKinds {
		t.Run(string(kind), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			m, err := NewBidirectional(kind, d, h, rng)
			if err != nil {
				t.Fatal(err)
			}
			xs := cellSequence(T, B, d, rng)
			sf, sb := randomState(m.Fwd, B, rng), randomState(m.Bwd, B, rng)
			dH := cellSequence(T, B, 2*h, rng)
			dH[2] = nil
			loss := func() float64 {
				tr, err := m.Forward(xs, sf, sb)
				if err != nil {
					t.Fatal(err)
				}
				var l float64
				for s, o := range tr.Outputs() {
					l += cellDot(dH[s], o)
				}
				return l
			}
			tr, err := m.Forward(xs, sf, sb)
			if err != nil {
				t.Fatal(err)
			}
			m.Params().ZeroGrad()
			g := m.Backward(tr, dH, BPTTOptions{})
			targets := paramTargets(m.Params())
			for i, x := range xs {
				targets = append(targets, cellTarget{fmt.Sprintf("X_%d", i+1), x, g.DX[i]})
			}
			targets = append(targets, cellTarget{"→H_0", sf.H, g.Fwd.DS0.H}, cellTarget{"←H_{T+1}", sb.H, g.Bwd.DS0.H})
			if sf.C != nil {
				targets = append(targets, cellTarget{"→C_0", sf.C, g.Fwd.DS0.C}, cellTarget{"←C_{T+1}", sb.C, g.Bwd.DS0.C})
			}
			cellGradCheck(t, string(kind), loss, targets, 1e-7)
		})
	}
}

// TestBidirectionalOutputs: H_t = [→H_t, ←H_t], where ←H_t is the backward cell
// run over the reversed sequence, read back in time order ("I am ___ hungry": the
// blank at t = 3 sees both "I am" and "hungry").
func TestBidirectionalOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := NewBidirectional(KindGRU, 2, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	xs := cellSequence(4, 1, 2, rng)
	tr, err := m.Forward(xs, State{}, State{})
	if err != nil {
		t.Fatal(err)
	}
	fwd := stepwiseTrace(m.Fwd, xs, State{})
	bwd := stepwiseTrace(m.Bwd, []*mat.Dense{xs[3], xs[2], xs[1], xs[0]}, State{})
	for s, o := range tr.Outputs() {
		if r, c := o.Dims(); r != 1 || c != 6 {
			t.Fatalf("H_%d: got %d×%d want 1×6", s+1, r, c)
		}
		if err := cellClose(fmt.Sprintf("→H_%d", s+1), o.Slice(0, 1, 0, 3).(*mat.Dense), fwd.Steps[s].Next.H, 1e-12); err != nil {
			t.Error(err)
		}
		if err := cellClose(fmt.Sprintf("←H_%d", s+1), o.Slice(0, 1, 3, 6).(*mat.Dense), bwd.Steps[3-s].Next.H, 1e-12); err != nil {
			t.Error(err)
		}
	}
	// ←H_1 depends on X_4; →H_1 does not.
	x4 := mat.DenseCopyOf(xs[3])
	xs[3].Set(0, 0, xs[3].At(0, 0)+1)
	tr2, _ := m.Forward(xs, State{}, State{})
	xs[3].Copy(x4)
	if tr2.H[0].At(0, 0) != tr.H[0].At(0, 0) || tr2.H[0].At(0, 3) == tr.H[0].At(0, 3) {
		t.Error("changing X_4: got →H_1 changed or ←H_1 unchanged want only ←H_1 to change")
	}
	names := m.Params()
	if names[0].Name != "fwd.W_xr" || names[9].Name != "bwd.W_xr" || len(names) != 18 {
		t.Errorf("params: got %s, %s, %d want fwd.W_xr, bwd.W_xr, 18", names[0].Name, names[9].Name, len(names))
	}
	if _, err := m.Forward([]*mat.Dense{}, State{}, State{}); err == nil {
		t.Error("Forward of an empty sequence: got nil error want an error")
	}
	cellExpectPanic(t, "dH wrong width", func() { m.Backward(tr, cellSequence(4, 1, 3, rng), BPTTOptions{}) })
	if _, err := NewBidirectional("cnn", 2, 2, rng); err == nil {
		t.Error(`NewBidirectional("cnn"): got nil error want an error`)
	}
}

// nudged is a cell that adds Delta to H_t (or C_t) at its step at, counted in its
// reading order from the last reset of steps: ∂L/∂Delta is the whole ∂L/∂H_t (∂L/∂C_t),
// along the recurrence and the layers above. It is no SequenceCell, so Forward runs
// its Step.
type nudged struct {
	Cell
	at    int
	c     bool // nudge C_t, not H_t
	delta *mat.Dense
	steps int
}

func (n *nudged) Step(x *mat.Dense, prev State) *StepTrace {
	st := n.Cell.Step(x, prev)
	if n.steps == n.at {
		v := &st.Next.H
		if n.c {
			v = &st.Next.C
		}
		m := mat.DenseCopyOf(*v)
		m.Add(m, n.delta)
		*v = m
	}
	n.steps++
	return st
}

// TestStackFiniteDifferences checks BPTT through L layers of D directions for every
// cell kind, with L = Σ_t ⟨dTop_t, H_t^{(L)}⟩ (one dTop_t nil): every parameter, every
// X_t, every layer's and direction's initial state, each lower layer's ∂L/∂H_t^{(l)}
// (central differences of the layers above, fed H^{(l)}), and the norms of the whole
// ∂L/∂H_t and ∂L/∂C_t of every layer, direction and step (a nudge of the state).
func TestStackFiniteDifferences(t *testing.T) {
	const T, B, d, h, L, tol = 4, 2, 3, 2, 3, 1e-7
	for _, kind := range stackKinds {
		for _, D := range []int{1, 2} {
			name := fmt.Sprintf("%s/D=%d", kind, D)
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 1))
				s, err := NewStack(kind, d, h, L, D, rng)
				if err != nil {
					t.Fatal(err)
				}
				xs := cellSequence(T, B, d, rng)
				var s0 []State
				for _, row := range s.Cells {
					for _, c := range row {
						s0 = append(s0, randomState(c, B, rng))
					}
				}
				dTop := cellSequence(T, B, D*h, rng)
				dTop[1] = nil
				lossOf := func(s *Stack, xs []*mat.Dense, s0 []State) float64 {
					tr, err := s.Forward(xs, s0)
					if err != nil {
						t.Fatal(err)
					}
					var l float64
					for k, o := range tr.Outputs() {
						l += cellDot(dTop[k], o)
					}
					return l
				}
				loss := func() float64 { return lossOf(s, xs, s0) }
				tr, err := s.Forward(xs, s0)
				if err != nil {
					t.Fatal(err)
				}
				s.Params().ZeroGrad()
				g := s.Backward(tr, dTop, BPTTOptions{})
				targets := paramTargets(s.Params())
				for i, x := range xs {
					targets = append(targets, cellTarget{fmt.Sprintf("X_%d", i+1), x, g.DX[i]})
				}
				for i, st := range s0 {
					l, dir := i/D, i%D
					targets = append(targets, cellTarget{fmt.Sprintf("H_0^(%d,%d)", l+1, dir), st.H, g.Layers[l][dir].DS0.H})
					if st.C != nil {
						targets = append(targets, cellTarget{fmt.Sprintf("C_0^(%d,%d)", l+1, dir), st.C, g.Layers[l][dir].DS0.C})
					}
				}
				cellGradCheck(t, name, loss, targets, tol)

				for l := range L - 1 { // ∂L/∂H_t^{(l)} as the layers above read it
					above := &Stack{Cells: s.Cells[l+1:]}
					hs := make([]*mat.Dense, T)
					var upper []cellTarget
					for k, o := range tr.H[l] {
						hs[k] = mat.DenseCopyOf(o)
						upper = append(upper, cellTarget{fmt.Sprintf("H_%d^(%d)", k+1, l+1), hs[k], g.DH[l][k]})
					}
					cellGradCheck(t, name, func() float64 { return lossOf(above, hs, s0[(l+1)*D:]) }, upper, tol)
				}
				if g.DH[L-1][0] != dTop[0] {
					t.Error("DH of the top layer is not dTop")
				}

				for l, row := range s.Cells { // ‖∂L/∂H_t‖ and ‖∂L/∂C_t‖, in time order
					for dir, c := range row {
						for _, nudgeC := range []bool{false, true} {
							want := g.HNorms(l, dir)
							if nudgeC {
								if want = g.CNorms(l, dir); want == nil {
									continue
								}
							}
							n := &nudged{Cell: c, c: nudgeC, delta: mat.NewDense(B, h, nil)}
							s.Cells[l][dir] = n
							for k := range T {
								n.at = k
								if dir == 1 {
									n.at = T - 1 - k
								}
								got := mat.Norm(numericGrad(n.delta, func() float64 { n.steps = 0; return loss() }, 1e-5), 2)
								if math.Abs(got-want[k]) > tol*(1+math.Abs(got)) {
									t.Errorf("layer %d direction %d t = %d (C: %v): norm %.12g, finite differences %.12g", l+1, dir, k+1, nudgeC, want[k], got)
								}
							}
							s.Cells[l][dir] = c
						}
					}
				}
			})
		}
	}
}

// TestStackIsDeepAndBidirectional: one direction is a Deep, one layer of two a
// Bidirectional: the same outputs, gradients and parameter names' order, bit for bit.
func TestStackIsDeepAndBidirectional(t *testing.T) {
	const T, B, d, h = 5, 2, 3, 4
	rng := rand.New(rand.NewPCG(4, 4))
	deep, err := NewDeep(KindLSTM, d, h, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	bi, err := NewBidirectional(KindGRU, d, h, rng)
	if err != nil {
		t.Fatal(err)
	}
	xs := cellSequence(T, B, d, rng)
	for _, c := range []struct {
		name    string
		stack   *Stack
		ps      Params
		forward func() ([]*mat.Dense, func([]*mat.Dense) []*mat.Dense)
	}{
		{"deep", &Stack{Cells: [][]Cell{{deep.Layers[0]}, {deep.Layers[1]}, {deep.Layers[2]}}}, deep.Params(),
			func() ([]*mat.Dense, func([]*mat.Dense) []*mat.Dense) {
				tr, err := deep.Forward(xs, nil)
				if err != nil {
					t.Fatal(err)
				}
				return tr.Outputs(), func(dTop []*mat.Dense) []*mat.Dense { return deep.Backward(tr, dTop, BPTTOptions{}).DX }
			}},
		{"bidirectional", &Stack{Cells: [][]Cell{{bi.Fwd, bi.Bwd}}}, bi.Params(),
			func() ([]*mat.Dense, func([]*mat.Dense) []*mat.Dense) {
				tr, err := bi.Forward(xs, State{}, State{})
				if err != nil {
					t.Fatal(err)
				}
				return tr.Outputs(), func(dTop []*mat.Dense) []*mat.Dense { return bi.Backward(tr, dTop, BPTTOptions{}).DX }
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.ps.ZeroGrad()
			want, back := c.forward()
			dTop := cellSequence(T, B, c.stack.Directions()*h, rng)
			wantDX := back(dTop)
			wantGrads := make([]*mat.Dense, len(c.ps))
			for i, p := range c.ps {
				wantGrads[i] = mat.DenseCopyOf(p.Grad)
			}
			c.ps.ZeroGrad()
			tr, err := c.stack.Forward(xs, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := c.stack.Backward(tr, dTop, BPTTOptions{})
			for k := range T {
				if err := cellClose(fmt.Sprintf("H_%d", k+1), tr.Outputs()[k], want[k], 0); err != nil {
					t.Error(err)
				}
				if err := cellClose(fmt.Sprintf("∂L/∂X_%d", k+1), g.DX[k], wantDX[k], 0); err != nil {
					t.Error(err)
				}
			}
			for i, p := range c.stack.Params() {
				if err := cellClose("∂L/∂"+p.Name, p.Grad, wantGrads[i], 0); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestStackStructure: parameter names, sizes, the budget table, At in time order,
// NoParamGrads, and the panics and errors of wrong arguments.
func TestStackStructure(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	s, err := NewStack(KindGRU, 3, 4, 2, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	ps := s.Params()
	if got := []string{ps[0].Name, ps[9].Name, ps[18].Name, ps[35].Name}; strings.Join(got, " ") != "l1.fwd.W_xr l1.bwd.W_xr l2.fwd.W_xr l2.bwd.b_h" {
		t.Errorf("names: got %v", got)
	}
	if r, _ := ps.ByName("l2.fwd.W_xr").Value.Dims(); r != 8 {
		t.Errorf("layer 2 reads %d numbers, want D·h = 8", r)
	}
	if one, _ := NewStack(KindRNN, 3, 4, 2, 1, rng); one.Params()[3].Name != "l2.W_xh" {
		t.Errorf("one direction: got %s want l2.W_xh", one.Params()[3].Name)
	}
	for k, want := range map[Kind]string{KindRNN: "H", KindGRU: "R Z H_tilde H", KindLSTM: "I F O C_tilde C H"} {
		if got := strings.Join(StepValues(k), " "); got != want {
			t.Errorf("StepValues(%s) = %s, want %s", k, got, want)
		}
	}
	if n := s.TraceValues(7); n != 2*2*7*4*4 {
		t.Errorf("TraceValues(7) = %d, want L·D·T·4·h = %d", n, 2*2*7*4*4)
	}
	xs := cellSequence(3, 1, 3, rng)
	tr, err := s.Forward(xs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 { // At(l, 1, t) is ←H_{t+1}: the columns 4..7 of H_{t+1}
		if err := cellClose("←H", tr.At(1, 1, k).Gate("H"), tr.H[1][k].Slice(0, 1, 4, 8).(*mat.Dense), 0); err != nil {
			t.Error(err)
		}
		for _, v := range StepValues(KindGRU) {
			if tr.At(0, 0, k).Gate(v) == nil {
				t.Errorf("step %d has no %s", k+1, v)
			}
		}
	}
	s.Params().ZeroGrad()
	g := s.Backward(tr, []*mat.Dense{nil, nil, cellRandom(1, 8, rng)}, BPTTOptions{NoParamGrads: true})
	for _, p := range s.Params() {
		if mat.Norm(p.Grad, 2) != 0 {
			t.Fatalf("NoParamGrads: %s.Grad changed", p.Name)
		}
	}
	// Only X_T's step of the top layer's reverse direction reaches the loss at T: ←H_t
	// for t < T comes after ←H_T in its reading order. The forward direction's every
	// →H_t reaches →H_T.
	if n := g.HNorms(1, 1); n[0] != 0 || n[1] != 0 || n[2] == 0 {
		t.Errorf("the top layer's ‖∂L/∂←H_t‖ in time order: %v, want 0, 0, > 0", n)
	}
	if n := g.HNorms(1, 0); n[0] == 0 || n[1] == 0 || n[2] == 0 {
		t.Errorf("the top layer's ‖∂L/∂→H_t‖: %v, want every one > 0", n)
	}

	if _, err := NewStack(KindGRU, 2, 2, 0, 1, rng); err == nil {
		t.Error("NewStack with L = 0: got nil error")
	}
	if _, err := NewStack(KindGRU, 2, 2, 1, 3, rng); err == nil {
		t.Error("NewStack with D = 3: got nil error")
	}
	if _, err := s.Forward(nil, nil); err == nil || !strings.HasPrefix(err.Error(), "models: empty sequence") {
		t.Errorf("Forward of nothing: got %v want models: empty sequence", err)
	}
	cellExpectPanic(t, "wrong number of initial states", func() { s.Forward(xs, make([]State, 2)) })
	cellExpectPanic(t, "dTop of the wrong length", func() { s.Backward(tr, make([]*mat.Dense, 2), BPTTOptions{}) })
	cellExpectPanic(t, "dTop of the wrong width", func() { s.Backward(tr, cellSequence(3, 1, 4, rng), BPTTOptions{}) })
	uneven := &Stack{Cells: [][]Cell{s.Cells[0], s.Cells[1][:1]}}
	cellExpectPanic(t, "layers with different directions", func() { uneven.Forward(xs, nil) })
}
