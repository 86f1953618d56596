package torchload

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"unroll/models"
)

// loadModel reads and maps testdata/name.pt.
func loadModel(t *testing.T, name string, opt Options) *Model {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".pt"))
	if err != nil {
		t.Fatal(err)
	}
	ts, _, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Map(ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randomLSTM is a 2-layer one-way nn.LSTM with PyTorch's names, drawn from a seed: no
// fixture has a one-way LSTM.
func randomLSTM(t *testing.T) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 2))
	d, h := 3, 5
	tensor := func(name string, shape ...int) *Tensor {
		n := 1
		for _, s := range shape {
			n *= s
		}
		data := make([]float64, n)
		for i := range data {
			data[i] = rng.Float64() - 0.5
		}
		return &Tensor{Name: name, Shape: shape, Dtype: F32, Data: data}
	}
	m, err := Map([]*Tensor{
		tensor("lstm.weight_ih_l0", 4*h, d), tensor("lstm.weight_hh_l0", 4*h, h), tensor("lstm.bias_ih_l0", 4*h), tensor("lstm.bias_hh_l0", 4*h),
		tensor("lstm.weight_ih_l1", 4*h, h), tensor("lstm.weight_hh_l1", 4*h, h), tensor("lstm.bias_ih_l1", 4*h), tensor("lstm.bias_hh_l1", 4*h),
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func closeRows(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		for j := range got[i] {
			if math.Abs(got[i][j]-want[i][j]) > 1e-12 {
				t.Fatalf("%s[%d][%d]: got %v want %v", what, i, j, got[i][j], want[i][j])
			}
		}
	}
}

// TestRunFromInitialState: h0 (and c0) are PyTorch's initial states. Running a one-way
// model over x_1…x_k and then over x_{k+1}…x_T from the first run's h_n (and c_n) gives
// the whole run's outputs and h_n; for a bidirectional layer, the reverse direction
// started at t = k+1 from the suffix's final state gives the whole run's reverse outputs
// over the prefix. Zeros given are the default; wrong shapes are refused clearly.
func TestRunFromInitialState(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	seq := func(T, d int) [][]float64 {
		x := make([][]float64, T)
		for i := range x {
			x[i] = make([]float64, d)
			for j := range x[i] {
				x[i][j] = rng.NormFloat64()
			}
		}
		return x
	}
	for _, c := range []struct {
		name string
		m    *Model
	}{
		{"rnn_tanh3", loadModel(t, "rnn_tanh3", Options{})},
		{"lstm 2 layers", randomLSTM(t)},
	} {
		x := seq(9, c.m.Arch.InputSize)
		whole, err := c.m.RunInput(Input{X: x})
		if err != nil {
			t.Fatal(err)
		}
		first, err := c.m.RunInput(Input{X: x[:4]})
		if err != nil {
			t.Fatal(err)
		}
		rest, err := c.m.RunInput(Input{X: x[4:], H0: first.HN, C0: first.CN})
		if err != nil {
			t.Fatal(err)
		}
		closeRows(t, c.name+" output", rest.Output, whole.Output[4:])
		closeRows(t, c.name+" h_n", rest.HN, whole.HN)
		zeros := make([][]float64, len(whole.HN))
		for i := range zeros {
			zeros[i] = make([]float64, c.m.Arch.HiddenSize)
		}
		fromZero, err := c.m.RunInput(Input{X: x, H0: zeros})
		if err != nil {
			t.Fatal(err)
		}
		closeRows(t, c.name+" from zeros", fromZero.Output, whole.Output)
	}

	// One bidirectional LSTM layer: each direction continues from the other half.
	m := loadModel(t, "lstm_bi1", Options{})
	h := m.Arch.HiddenSize
	x := seq(8, m.Arch.InputSize)
	whole, err := m.RunInput(Input{X: x})
	if err != nil {
		t.Fatal(err)
	}
	prefix, _ := m.RunInput(Input{X: x[:3]})
	suffix, _ := m.RunInput(Input{X: x[3:]})
	// suffix from the prefix's forward state; prefix from the suffix's reverse state
	s2, err := m.RunInput(Input{X: x[3:], H0: [][]float64{prefix.HN[0], make([]float64, h)}, C0: [][]float64{prefix.CN[0], make([]float64, h)}})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := m.RunInput(Input{X: x[:3], H0: [][]float64{make([]float64, h), suffix.HN[1]}, C0: [][]float64{make([]float64, h), suffix.CN[1]}})
	if err != nil {
		t.Fatal(err)
	}
	for tt := range 5 {
		closeRows(t, "forward after the prefix", [][]float64{s2.Output[tt][:h]}, [][]float64{whole.Output[3+tt][:h]})
	}
	for tt := range 3 {
		closeRows(t, "reverse before the suffix", [][]float64{p2.Output[tt][h:]}, [][]float64{whole.Output[tt][h:]})
	}

	for _, c := range []struct {
		in   Input
		says string
	}{
		{Input{X: x, H0: [][]float64{{1}}}, "layers·directions = 2"},
		{Input{X: x, H0: [][]float64{make([]float64, h), {1, 2}}}, "hidden_size is"},
		{Input{X: x, H0: [][]float64{make([]float64, h), append(make([]float64, h-1), math.NaN())}}, "NaN"},
	} {
		if _, err := m.RunInput(c.in); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("h0 %v: got %v, want an error saying %q", c.in.H0, err, c.says)
		}
	}
	if _, err := loadModel(t, "rnn_tanh3", Options{}).RunInput(Input{X: seq(2, 3), C0: [][]float64{{0}}}); err == nil || !strings.Contains(err.Error(), "LSTM") {
		t.Errorf("c0 for an RNN: got %v", err)
	}
}

// TestExportStackRoundTrip: ExportStack writes a mapped stack (layers, directions, head)
// back under PyTorch's names, and Map of what it wrote runs exactly as the original: the
// 2-layer bidirectional GRU and LSTM fixtures and the 3-layer RNN, each checked against
// PyTorch by TestFixturesMatchPyTorch, so the exported files are PyTorch's too.
func TestExportStackRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, name := range []string{"gru_bi2", "lstm_bi2", "rnn_tanh3"} {
		m := loadModel(t, name, Options{})
		ts, arch, err := ExportStack(m.Cells, m.Head)
		if err != nil {
			t.Fatal(err)
		}
		if arch.Layers != m.Arch.Layers || arch.Bidirectional != m.Arch.Bidirectional || arch.Kind != m.Arch.Kind || (m.Arch.Bias && arch.Parameters != m.Arch.Parameters) {
			t.Errorf("%s: exported %+v, mapped %+v", name, arch, m.Arch)
		}
		back, err := Map(ts, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		x := make([][]float64, 6)
		for i := range x {
			x[i] = make([]float64, m.Arch.InputSize)
			for j := range x[i] {
				x[i][j] = rng.NormFloat64()
			}
		}
		want, _ := m.RunInput(Input{X: x})
		got, err := back.RunInput(Input{X: x})
		if err != nil {
			t.Fatal(err)
		}
		closeRows(t, name+" output", got.Output, want.Output)
		closeRows(t, name+" h_n", got.HN, want.HN)
	}
	m := loadModel(t, "gru_bi2", Options{})
	if _, _, err := ExportStack([][]models.Cell{m.Cells[0], m.Cells[1][:1]}, nil); err == nil {
		t.Error("a stack whose layers have different directions: got no error")
	}
}
