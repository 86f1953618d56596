package models

import (
	"fmt"
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
