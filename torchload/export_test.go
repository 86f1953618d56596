package torchload

import (
	"bytes"
	"math"
	"math/rand/v2"
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
