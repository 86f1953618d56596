package torchload

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fixture is a NAME.json of bench/pytorch/torchload_fixtures.py: PyTorch's own numbers.
type fixture struct {
	Architecture Architecture `json:"architecture"`
	Dtype        string       `json:"dtype"`
	Input        Input        `json:"input"`
	Output       [][]float64  `json:"output"`
	HN           [][]float64  `json:"h_n"`
	CN           [][]float64  `json:"c_n"`
	Logits       [][]float64  `json:"logits"`
	Steps        []Steps      `json:"steps"`
}

// fixtureNames are the models the script writes, each as .pt, .safetensors and .json.
var fixtureNames = []string{
	"gru_bi2", "gru_bi2_f64", "gru_bi2_f16", "gru_bi2_bf16", "lstm_bi1", "lstm_bi2",
	"rnn_relu_nobias", "rnn_tanh3", "char_gru",
}

// pytorchTolerance is API.md's promise for float32 models; float64Tolerance is the
// house's for numbers both sides compute in float64: the gates the script recomputes
// from the weights, and every number of the F64, F16 and BF16 fixtures (run in float64).
const (
	pytorchTolerance = 1e-5
	float64Tolerance = 1e-9
)

func readFixture(t *testing.T, name string) fixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// loadFixture reads testdata/name+ext, maps it with the fixture's nonlinearity and runs
// the fixture's input.
func loadFixture(t *testing.T, name, ext string, f fixture) (*Result, Format) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+ext))
	if err != nil {
		t.Fatal(err)
	}
	ts, format, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{}
	if f.Architecture.Kind == KindRNNReLU {
		opt.Nonlinearity = "relu"
	}
	m, err := Map(ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.RunInput(f.Input)
	if err != nil {
		t.Fatal(err)
	}
	return res, format
}

// TestFixturesMatchPyTorch: every fixture, read from torch.save and from safetensors, is
// mapped onto the models cells and agrees with PyTorch's module to 1e-5 in every output,
// h_n, c_n and logit (1e-9 for the fixtures PyTorch ran in float64), and with the gates
// the script recomputed in float64 from the weights to 1e-9, every gate of every layer,
// direction and step.
func TestFixturesMatchPyTorch(t *testing.T) {
	for _, name := range fixtureNames {
		f := readFixture(t, name)
		for _, ext := range []string{".pt", ".safetensors"} {
			t.Run(name+ext, func(t *testing.T) {
				res, format := loadFixture(t, name, ext, f)
				if want := map[string]Format{".pt": FormatTorch, ".safetensors": FormatSafetensors}[ext]; format != want {
					t.Errorf("format %s, want %s", format, want)
				}
				a, w := res.Architecture, f.Architecture
				if a.Kind != w.Kind || a.Layers != w.Layers || a.Bidirectional != w.Bidirectional || a.InputSize != w.InputSize ||
					a.HiddenSize != w.HiddenSize || a.Bias != w.Bias || !slices.Equal(a.Embedding, w.Embedding) ||
					!slices.Equal(a.Head, w.Head) || a.Parameters != w.Parameters {
					t.Errorf("architecture %+v, PyTorch's %+v", a, w)
				}
				tol := pytorchTolerance
				if f.Dtype != "float32" {
					tol = float64Tolerance
				}
				closeTo(t, "output", res.Output, f.Output, tol)
				closeTo(t, "h_n", res.HN, f.HN, tol)
				closeTo(t, "c_n", res.CN, f.CN, tol)
				closeTo(t, "logits", res.Logits, f.Logits, tol)
				if len(res.Steps) != len(f.Steps) {
					t.Fatalf("%d layer-directions, PyTorch %d", len(res.Steps), len(f.Steps))
				}
				for i, st := range f.Steps {
					got := res.Steps[i]
					if got.Layer != st.Layer || got.Direction != st.Direction {
						t.Fatalf("steps[%d] is layer %d direction %d, want %d %d", i, got.Layer, got.Direction, st.Layer, st.Direction)
					}
					if len(got.Gates) != len(st.Gates) {
						t.Errorf("steps[%d] has gates %v, want %v", i, sortedKeys(got.Gates), sortedKeys(st.Gates))
					}
					for g, v := range st.Gates {
						closeTo(t, fmt.Sprintf("layer %d direction %d gate %s", st.Layer, st.Direction, g), got.Gates[g], v, float64Tolerance)
					}
				}
			})
		}
	}
}

// closeTo fails unless got and want have the same shape and agree to tol.
func closeTo(t *testing.T, what string, got, want [][]float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s has %d rows, PyTorch %d", what, len(got), len(want))
		return
	}
	worst := 0.0
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("%s row %d has %d values, PyTorch %d", what, i, len(got[i]), len(want[i]))
			return
		}
		for j := range want[i] {
			worst = max(worst, math.Abs(got[i][j]-want[i][j]))
		}
	}
	if worst > tol {
		t.Errorf("%s differs from PyTorch by %.3g, over %g", what, worst, tol)
	}
}
