package models

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// stackFixture is a torch.nn.RNN, GRU or LSTM of torchload's fixtures
// (torchload/testdata/NAME.safetensors and NAME.json, written by
// bench/pytorch/torchload_fixtures.py): PyTorch's weights, a fixed input, the module's
// output, h_n and c_n, and every gate of every layer, direction and step recomputed in
// float64 from the weights with PyTorch's equations.
type stackFixture struct {
	Architecture struct {
		Kind          string `json:"kind"`
		Layers        int    `json:"layers"`
		Bidirectional bool   `json:"bidirectional"`
		InputSize     int    `json:"input_size"`
		HiddenSize    int    `json:"hidden_size"`
		Bias          bool   `json:"bias"`
	} `json:"architecture"`
	Dtype string `json:"dtype"`
	Input struct {
		X [][]float64 `json:"x"`
	} `json:"input"`
	Output [][]float64 `json:"output"`
	HN     [][]float64 `json:"h_n"`
	CN     [][]float64 `json:"c_n"`
	Steps  []struct {
		Layer     int                    `json:"layer"`
		Direction int                    `json:"direction"`
		Gates     map[string][][]float64 `json:"gates"`
	} `json:"steps"`
}

// stackFixtures are the fixtures of stacked or bidirectional modules whose input is
// numbers, with the name prefix of their tensors. (gru_bi2_f16 and _bf16 are stored in
// half precision, which ReadSafetensors does not read; char_gru is one layer behind
// an embedding.)
var stackFixtures = []struct{ name, prefix string }{
	{"gru_bi2", "rnn."}, {"gru_bi2_f64", "rnn."}, {"lstm_bi1", "encoder."}, {"lstm_bi2", ""},
	{"rnn_relu_nobias", "rnn."}, {"rnn_tanh3", "net.rnn."},
}

// torchStack reads the fixture's weights (PyTorch's names and layout) and builds the
// Stack with them, as torchload maps a file: gate block k of weight_ih is rows
// k·h..(k+1)·h, transposed; a GRU is the reset-after form with b_hn = bias_hh's n block.
func torchStack(t *testing.T, name, prefix string, f *stackFixture) *Stack {
	t.Helper()
	a := f.Architecture
	G := map[string]int{"gru": 3, "lstm": 4}[a.Kind]
	G = max(G, 1)
	D, h := 1, a.HiddenSize
	if a.Bidirectional {
		D = 2
	}
	type tensors struct{ wih, whh, bih, bhh *Param }
	var ps Params
	ts := make([][]tensors, a.Layers)
	for l := range a.Layers {
		in := a.InputSize
		if l > 0 {
			in = D * h
		}
		for d := range D {
			sfx := fmt.Sprintf("_l%d", l)
			if d == 1 {
				sfx += "_reverse"
			}
			w := tensors{wih: NewParam(prefix+"weight_ih"+sfx, G*h, in), whh: NewParam(prefix+"weight_hh"+sfx, G*h, h),
				bih: NewBias(prefix+"bias_ih"+sfx, G*h), bhh: NewBias(prefix+"bias_hh"+sfx, G*h)}
			ps = append(ps, w.wih, w.whh)
			if a.Bias {
				ps = append(ps, w.bih, w.bhh)
			}
			ts[l] = append(ts[l], w)
		}
	}
	file, err := os.Open(filepath.Join("..", "torchload", "testdata", name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, err := ReadSafetensors(file, ps); err != nil {
		t.Fatal(err)
	}
	rows := func(p *Param) [][]float64 {
		r, _ := p.Value.Dims()
		out := make([][]float64, r)
		for i := range out {
			out[i] = p.Value.RawRowView(i)
		}
		return out
	}
	bias := func(p *Param) []float64 { return p.Value.RawRowView(0) }
	rng := rand.New(rand.NewPCG(1, 1)) // every value is then overwritten
	s := &Stack{Cells: make([][]Cell, a.Layers)}
	for l, row := range ts {
		for _, w := range row {
			_, in := w.wih.Value.Dims()
			wih, whh, bih, bhh := rows(w.wih), rows(w.whh), bias(w.bih), bias(w.bhh)
			var c Cell
			switch a.Kind {
			case "gru":
				g := NewGRUResetAfter(in, h, rng)
				for k, ws := range [][2]*Param{{g.Wxr, g.Whr}, {g.Wxz, g.Whz}, {g.Wxh, g.Whh}} {
					ws[0].Value.Copy(torchBlock(wih, k, h))
					ws[1].Value.Copy(torchBlock(whh, k, h))
				}
				g.Br.Value.Copy(torchBias(0, h, bih, bhh))
				g.Bz.Value.Copy(torchBias(1, h, bih, bhh))
				g.Bh.Value.Copy(torchBias(2, h, bih))
				g.Bhn.Value.Copy(torchBias(2, h, bhh))
				c = g
			case "lstm":
				m := NewLSTM(in, h, rng)
				for k, g := range [][3]*Param{{m.Wxi, m.Whi, m.Bi}, {m.Wxf, m.Whf, m.Bf}, {m.Wxc, m.Whc, m.Bc}, {m.Wxo, m.Who, m.Bo}} {
					g[0].Value.Copy(torchBlock(wih, k, h))
					g[1].Value.Copy(torchBlock(whh, k, h))
					g[2].Value.Copy(torchBias(k, h, bih, bhh))
				}
				c = m
			default:
				act := ActTanh
				if a.Kind == "rnn_relu" {
					act = ActReLU
				}
				r := NewRNN(in, h, act, rng)
				r.Wxh.Value.Copy(torchBlock(wih, 0, h))
				r.Whh.Value.Copy(torchBlock(whh, 0, h))
				r.Bh.Value.Copy(torchBias(0, h, bih, bhh))
				c = r
			}
			s.Cells[l] = append(s.Cells[l], c)
		}
	}
	return s
}

// TestStackMatchesPyTorch: with PyTorch's weights, the Stack computes what torch.nn's
// module computed, every output, h_n and c_n to 1e-5 (1e-9 for the module PyTorch ran
// in float64), and every gate of every layer, direction and step as the fixture's
// float64 recomputation from the same weights, to 1e-9.
func TestStackMatchesPyTorch(t *testing.T) {
	for _, fx := range stackFixtures {
		t.Run(fx.name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "torchload", "testdata", fx.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var f stackFixture
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			s := torchStack(t, fx.name, fx.prefix, &f)
			if s.Layers() != f.Architecture.Layers || (s.Directions() == 2) != f.Architecture.Bidirectional {
				t.Fatalf("%d layers of %d directions, PyTorch's %+v", s.Layers(), s.Directions(), f.Architecture)
			}
			xs := make([]*mat.Dense, len(f.Input.X))
			for k, x := range f.Input.X {
				xs[k] = mat.NewDense(1, len(x), x)
			}
			tr, err := s.Forward(xs, nil)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-5
			if f.Dtype == "float64" {
				tol = 1e-9
			}
			for k, want := range f.Output {
				if err := cellClose(fmt.Sprintf("H_%d", k+1), tr.Outputs()[k], mat.NewDense(1, len(want), want), tol); err != nil {
					t.Error(err)
				}
			}
			for i, want := range f.HN { // PyTorch's row l·D + d
				last := tr.Layers[i/s.Directions()][i%s.Directions()].Last()
				if err := cellClose(fmt.Sprintf("h_n[%d]", i), last.H, mat.NewDense(1, len(want), want), tol); err != nil {
					t.Error(err)
				}
				if f.CN != nil {
					if err := cellClose(fmt.Sprintf("c_n[%d]", i), last.C, mat.NewDense(1, len(f.CN[i]), f.CN[i]), tol); err != nil {
						t.Error(err)
					}
				}
			}
			if len(f.Steps) != s.Layers()*s.Directions() {
				t.Fatalf("%d layer-directions recorded, the stack has %d", len(f.Steps), s.Layers()*s.Directions())
			}
			for _, st := range f.Steps {
				for name, byT := range st.Gates {
					for k, want := range byT {
						got := tr.At(st.Layer, st.Direction, k).Gate(name)
						if got == nil {
							t.Fatalf("layer %d direction %d has no %s", st.Layer+1, st.Direction, name)
						}
						if err := cellClose(fmt.Sprintf("layer %d direction %d %s_%d", st.Layer+1, st.Direction, name, k+1), got, mat.NewDense(1, len(want), want), 1e-9); err != nil {
							t.Error(err)
						}
					}
				}
			}
		})
	}
}
