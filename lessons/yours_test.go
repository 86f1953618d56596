package lessons

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"unroll/sim"
	"unroll/torchload"
)

// yoursFixture is a NAME.json of bench/pytorch/torchload_fixtures.py: PyTorch's numbers.
type yoursFixture struct {
	Architecture torchload.Architecture `json:"architecture"`
	Input        torchload.Input        `json:"input"`
	Logits       [][]float64            `json:"logits"`
	Steps        []torchload.Steps      `json:"steps"`
}

var yoursFixtureNames = []string{"gru_bi2", "lstm_bi1", "lstm_bi2", "rnn_relu_nobias", "rnn_tanh3", "char_gru"}

func readYoursFixture(t *testing.T, name string) (*Upload, yoursFixture) {
	t.Helper()
	dir := filepath.Join("..", "torchload", "testdata")
	raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f yoursFixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(dir, name+".pt"))
	if err != nil {
		t.Fatal(err)
	}
	up, err := ReadUpload(name+".pt", file)
	if err != nil {
		t.Fatal(err)
	}
	return up, f
}

// YoursFixtureValues are the yours page's values that feed fixture f's input: its
// text through its vocabulary, or its x as CSV.
func yoursFixtureValues(f yoursFixture) sim.Values {
	v := yoursLesson.Params.Defaults()
	if f.Input.Text != "" {
		voc, _ := json.Marshal(f.Input.Vocab)
		v["input"], v["text"], v["vocab"] = "text", f.Input.Text, string(voc)
	} else {
		var rows []string
		for _, r := range f.Input.X {
			var cells []string
			for _, x := range r {
				cells = append(cells, strconv.FormatFloat(x, 'g', -1, 64))
			}
			rows = append(rows, strings.Join(cells, ","))
		}
		v["input"], v["csv"] = "csv", strings.Join(rows, ";")
	}
	if f.Architecture.Kind == torchload.KindRNNReLU {
		v["nonlinearity"] = "relu"
	}
	return v
}

// TestYoursMatchesPyTorch: the yours page's frames, built from each committed fixture
// file, carry every gate and state of every layer and direction as PyTorch computed
// them, to 1e-5 (the frames travel as float32, so that is what the page can promise),
// and the head's distribution is softmax of PyTorch's logits.
func TestYoursMatchesPyTorch(t *testing.T) {
	covered := map[string]bool{}
	for _, name := range yoursFixtureNames {
		t.Run(name, func(t *testing.T) {
			up, f := readYoursFixture(t, name)
			m, err := WithUpload(up)(yoursFixtureValues(f))
			if err != nil {
				t.Fatal(err)
			}
			if UploadOf(m) != up {
				t.Fatal("UploadOf does not find the upload the model holds")
			}
			checkModel(t, yoursLesson, m)
			checkContract(t, yoursLesson, m)
			listed := m.Static().Meta["arrays"]
			var produced []string
			for _, a := range m.At(1).Arrays {
				produced = append(produced, a.Name)
			}
			if !reflect.DeepEqual(listed, produced) {
				t.Errorf("static arrays lists %v, the frames carry %v", listed, produced)
			}
			L := f.Architecture.Layers
			h := f.Architecture.HiddenSize
			for s := 1; s <= m.Steps(); s++ {
				arrays := map[string]sim.Array{}
				for _, a := range m.At(s).Arrays {
					arrays[a.Name] = a
					covered[a.Name] = true
				}
				for _, st := range f.Steps {
					for gate, byT := range st.Gates {
						name := gate
						if st.Direction == 1 {
							name += "_rev"
						}
						a, ok := arrays[name]
						if !ok {
							t.Fatalf("step %d: no array %s", s, name)
						}
						if a.Shape[0] != L || a.Shape[1] != h {
							t.Fatalf("%s: shape %v, want [%d %d]", name, a.Shape, L, h)
						}
						for j, want := range byT[s-1] {
							if got := a.Data[st.Layer*h+j]; math.Abs(got-want) > 1e-5 {
								t.Errorf("step %d layer %d %s[%d]: got %.8f want %.8f (PyTorch)", s, st.Layer+1, name, j, got, want)
							}
						}
					}
				}
				if f.Logits != nil {
					want := make([]float64, len(f.Logits[s-1]))
					var z float64
					for i, o := range f.Logits[s-1] {
						want[i] = math.Exp(o)
						z += want[i]
					}
					for i, p := range arrays["probs"].Data {
						if math.Abs(p-want[i]/z) > 1e-5 {
							t.Errorf("step %d: p[%d] = %v, want %v from PyTorch's logits", s, i, p, want[i]/z)
						}
					}
				}
			}
		})
	}
	for _, a := range yoursLesson.Arrays { // every declared array is drawn for some real model
		if !covered[a.Name] && !strings.HasPrefix(a.Name, "dH4") && a.Name != "dH3_rev" /* no fixture has 3 bidirectional layers */ {
			t.Errorf("array %s is produced by none of the fixtures", a.Name)
		}
	}
}

// TestYoursBPTTFiniteDifferences: the page's ∂L/∂X_t, carried down through every layer
// and both directions by models.Backward, agrees with central differences of
// L = o_{T,k} (house rule: every backward pass checked by finite differences).
func TestYoursBPTTFiniteDifferences(t *testing.T) {
	for _, name := range []string{"gru_bi2", "lstm_bi2", "rnn_tanh3", "char_gru"} {
		t.Run(name, func(t *testing.T) {
			up, f := readYoursFixture(t, name)
			v := yoursFixtureValues(f)
			v["output"] = "2"
			y, err := buildYours(v, up)
			if err != nil {
				t.Fatal(err)
			}
			loss := func() float64 {
				if err := y.forward(); err != nil {
					t.Fatal(err)
				}
				if y.logits != nil {
					return y.logits[len(y.logits)-1][y.k]
				}
				return y.out[len(y.out)-1].At(0, y.k)
			}
			const eps = 1e-6
			for ts := range y.xs {
				x := y.xs[ts]
				var sq float64
				for j := range x.RawRowView(0) {
					orig := x.At(0, j)
					x.Set(0, j, orig+eps)
					up := loss()
					x.Set(0, j, orig-eps)
					down := loss()
					x.Set(0, j, orig)
					g := (up - down) / (2 * eps)
					sq += g * g
				}
				if got, want := y.gradInput[ts], math.Sqrt(sq); math.Abs(got-want) > 1e-6*(1+want) {
					t.Errorf("t = %d: ‖∂L/∂X_t‖ got %.9g want %.9g (finite differences)", ts+1, got, want)
				}
			}
		})
	}
}

// TestYoursRefusals: a file that is not a model, or a hostile pickle, is refused by
// ReadUpload with torchload's message (which names the global); nothing is built.
func TestYoursRefusals(t *testing.T) {
	if _, err := ReadUpload("x.pt", []byte("not a model")); err == nil {
		t.Error("garbage: got no error")
	}
	raw, err := os.ReadFile(filepath.Join("..", "torchload", "testdata", "hostile_os_system.pt"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadUpload("evil.pt", raw)
	if err == nil || !strings.Contains(err.Error(), "system") {
		t.Errorf("hostile pickle: got %v, want a refusal naming the global", err)
	}
	up, f := readYoursFixture(t, "gru_bi2")
	v := yoursFixtureValues(f)
	v["input"] = "text"
	if _, err := WithUpload(up)(v); err == nil || !strings.Contains(err.Error(), "nn.Embedding") {
		t.Errorf("text for a model without an embedding: got %v", err)
	}
	v["input"], v["csv"] = "csv", "1,2"
	if _, err := WithUpload(up)(v); err == nil || !strings.Contains(err.Error(), "d = 3") {
		t.Errorf("two numbers for d = 3: got %v", err)
	}
}

// TestYoursParamCount: the page's P is the architecture torchload counted (PyTorch's
// sum of numel over the state_dict, as the fixtures recorded it).
func TestYoursParamCount(t *testing.T) {
	for _, name := range yoursFixtureNames {
		up, f := readYoursFixture(t, name)
		y, err := buildYours(yoursFixtureValues(f), up)
		if err != nil {
			t.Fatal(err)
		}
		if P, formula := y.paramCount(); P != f.Architecture.Parameters || !strings.HasSuffix(formula, fmt.Sprintf("= %d", P)) {
			t.Errorf("%s: P = %d (%s), PyTorch counts %d", name, P, formula, f.Architecture.Parameters)
		}
	}
}

// TestYoursSampling: with a head, each step's distribution is softmax(o_t/τ) of the
// head's logits (PyTorch's, from the fixture) at the page's temperature, and the page
// writes n tokens after the input, each fed back as the next input: step T+k reads the
// token drawn at step T+k−1, the run has a second pass of n steps, and the same seed
// draws the same tokens.
func TestYoursSampling(t *testing.T) {
	up, f := readYoursFixture(t, "char_gru")
	v := yoursFixtureValues(f)
	v["temperature"], v["sample"] = "2", "6"
	build := func() *yoursModel {
		y, err := buildYours(v, up)
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	y := build()
	T := utf8.RuneCountInString(f.Input.Text)
	if y.Steps() != T+6 || len(y.Passes()) != 2 || y.Passes()[1].Steps != 6 {
		t.Fatalf("%d steps, passes %+v; want %d input steps and 6 written", y.Steps(), y.Passes(), T)
	}
	for s := range T {
		var z float64
		want := make([]float64, len(f.Logits[s]))
		for i, o := range f.Logits[s] {
			want[i] = math.Exp(o / 2)
			z += want[i]
		}
		for i, p := range y.probs[s] {
			if math.Abs(p-want[i]/z) > 1e-6 {
				t.Fatalf("t = %d: p[%d] = %v, want softmax(o/τ) = %v", s+1, i, p, want[i]/z)
			}
		}
	}
	for s := T; s < y.Steps(); s++ {
		if got, want := y.tokens[s], y.vocab[y.drawn[s-1]]; got != want {
			t.Errorf("step %d reads %q, want the token drawn at step %d, %q", s+1, got, s, want)
		}
	}
	if again := build(); !slices.Equal(again.drawn, y.drawn) {
		t.Errorf("the same seed drew %v, then %v", y.drawn, again.drawn)
	}
	up2, f2 := readYoursFixture(t, "gru_bi2")
	v2 := yoursFixtureValues(f2)
	v2["sample"] = "3"
	y2, err := buildYours(v2, up2)
	if err != nil || y2.Steps() != len(f2.Input.X) || y2.sampleNote == "" {
		t.Errorf("sampling without a head: %v, %d steps, note %q", err, y2.Steps(), y2.sampleNote)
	}
}
