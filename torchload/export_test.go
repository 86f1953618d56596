package torchload

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// TestExportRoundTrip: Export, WriteSafetensors, Load and Map give back every parameter
// and every hidden state of the cell and head exported, to 1e-12, for each cell PyTorch
// has (the GRU in its reset-after form), with biases that are not zero.
func TestExportRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	d, h, V := 5, 4, 3
	cells := map[string]struct {
		cell models.Cell
		opt  Options
	}{
		"gru":      {models.NewGRUResetAfter(d, h, rng), Options{}},
		"lstm":     {models.NewLSTM(d, h, rng), Options{}},
		"rnn_tanh": {models.NewRNN(d, h, models.ActTanh, rng), Options{}},
		"rnn_relu": {models.NewRNN(d, h, models.ActReLU, rng), Options{Nonlinearity: "relu"}},
	}
	for name, c := range cells {
		t.Run(name, func(t *testing.T) {
			head := models.NewDense("out.", h, V, rng)
			for _, p := range append(c.cell.Params(), head.Params()...) { // biases too
				for i := range p.Value.RawMatrix().Data {
					p.Value.RawMatrix().Data[i] = rng.NormFloat64()
				}
			}
			ts, arch, err := Export(c.cell, head)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteSafetensors(&buf, ts, map[string]string{"k": "v"}); err != nil {
				t.Fatal(err)
			}
			back, format, err := Load(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			m, err := Map(back, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if format != FormatSafetensors || m.Arch.Kind != arch.Kind || m.Arch.Prefix != ExportPrefix || m.Arch.HeadName != "out.weight" || m.Arch.Parameters != arch.Parameters {
				t.Fatalf("format %s, arch %+v, exported %+v", format, m.Arch, arch)
			}
			got := m.Cells[0][0]
			want := append(c.cell.Params(), head.Params()...)
			have := append(got.Params(), m.Head.Params()...)
			if len(want) != len(have) {
				t.Fatalf("%d parameters back, want %d", len(have), len(want))
			}
			for i, p := range want {
				if !mat.EqualApprox(p.Value, have[i].Value, 1e-12) || !strings.HasSuffix(p.Name, have[i].Name) {
					t.Errorf("%s came back as %s %v, want %v", p.Name, have[i].Name, mat.Formatted(have[i].Value), mat.Formatted(p.Value))
				}
			}
			// and the hidden states of a run, step by step
			s1, s2 := models.State{}, models.State{}
			for step := range 6 {
				x := mat.NewDense(1, d, nil)
				for i := range d {
					x.Set(0, i, rng.NormFloat64())
				}
				s1, s2 = c.cell.Step(x, s1).Next, got.Step(x, s2).Next
				if diff := maxDiff(s1.H, s2.H); diff > 1e-12 {
					t.Fatalf("step %d: H differs by %g", step+1, diff)
				}
			}
		})
	}
}

func maxDiff(a, b *mat.Dense) float64 {
	out := 0.0
	for i, v := range a.RawMatrix().Data {
		out = math.Max(out, math.Abs(v-b.RawMatrix().Data[i]))
	}
	return out
}

// TestExportRefuses: what nn.RNN/GRU/LSTM cannot compute is refused with a reason.
func TestExportRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	leaky := models.NewRNN(3, 2, models.ActTanh, rng)
	leaky.SetLeak(0.5)
	for name, c := range map[string]struct {
		cell models.Cell
		want string
	}{
		"lecture-gru": {models.NewGRU(3, 2, rng), "reset-before"},
		"clamped-gru": {models.NewGRUResetAfter(3, 2, rng).WithClamp(models.GateClamp{Gate: "R", Value: 1}), "clamped"},
		"leaky-rnn":   {leaky, "leaky"},
	} {
		if _, _, err := Export(c.cell, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one that says %q", name, err, c.want)
		}
	}
}

// TestExportLecture: ExportLecture writes what no torch.nn module computes (ExportStack
// refuses each) as LectureCell's blocks, and every parameter reads back from its block
// (rows k·h to (k+1)·h, transposed): the lectures' reset-before GRU (its clamp is not a
// parameter), a leaky RNN with φ = identity, and a 2-layer stack of lecture GRUs with a
// head. LectureCell refuses what torch.nn computes.
func TestExportLecture(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	d, h := 3, 4
	leaky := models.NewRNN(d, h, models.ActIdentity, rng)
	leaky.SetLeak(0.25)
	for name, c := range map[string]struct {
		layers [][]models.Cell
		head   *models.Dense
	}{
		"lecture-gru":    {[][]models.Cell{{models.NewGRU(d, h, rng).WithClamp(models.GateClamp{Gate: "R", Value: 1})}}, nil},
		"leaky-identity": {[][]models.Cell{{leaky}}, nil},
		"lecture-gru-2":  {[][]models.Cell{{models.NewGRU(d, h, rng)}, {models.NewGRU(h, h, rng)}}, models.NewDense("out.", h, 2, rng)},
	} {
		for _, row := range c.layers { // biases too
			for _, p := range row[0].Params() {
				for i := range p.Value.RawMatrix().Data {
					p.Value.RawMatrix().Data[i] = rng.NormFloat64()
				}
			}
		}
		if _, _, err := ExportStack(c.layers, c.head); err == nil {
			t.Errorf("%s: ExportStack wrote it", name)
		}
		ts, err := ExportLecture(c.layers, c.head)
		if err != nil {
			t.Fatal(name, err)
		}
		file := map[string]*Tensor{}
		for _, x := range ts {
			file[x.Name] = x
		}
		want := 3*len(c.layers) + 2
		if c.head == nil {
			want -= 2
		}
		if len(file) != want {
			t.Fatalf("%s: %d tensors, want %d", name, len(file), want)
		}
		for l, row := range c.layers {
			var blocks [][3]*models.Param
			switch cell := row[0].(type) {
			case *models.GRU:
				blocks = [][3]*models.Param{{cell.Wxr, cell.Whr, cell.Br}, {cell.Wxz, cell.Whz, cell.Bz}, {cell.Wxh, cell.Whh, cell.Bh}}
			case *models.RNN:
				blocks = [][3]*models.Param{{cell.Wxh, cell.Whh, cell.Bh}}
			}
			wih, whh, b := file[fmt.Sprintf("rnn.weight_ih_l%d", l)], file[fmt.Sprintf("rnn.weight_hh_l%d", l)], file[fmt.Sprintf("rnn.bias_l%d", l)]
			if wih == nil || whh == nil || b == nil || len(b.Data) != len(blocks)*h {
				t.Fatalf("%s: layer %d's tensors missing or misshapen in %v", name, l, ts)
			}
			for k, ps := range blocks {
				if !mat.Equal(transposed(wih, k*h, (k+1)*h), ps[0].Value) || !mat.Equal(transposed(whh, k*h, (k+1)*h), ps[1].Value) ||
					!slices.Equal(b.Data[k*h:(k+1)*h], ps[2].Value.RawRowView(0)) {
					t.Errorf("%s: layer %d's block %d is not %s, %s, %s", name, l, k, ps[0].Name, ps[1].Name, ps[2].Name)
				}
			}
		}
		if c.head != nil && !mat.Equal(transposed(file["out.weight"], 0, 2), c.head.W.Value) {
			t.Errorf("%s: out.weight is not the head's Wᵀ", name)
		}
	}
	for _, c := range []models.Cell{models.NewGRUResetAfter(d, h, rng), models.NewLSTM(d, h, rng)} {
		if _, err := LectureCell("rnn.", "_l0", c); err == nil {
			t.Errorf("LectureCell wrote a %T, which torch.nn computes", c)
		}
	}
}
