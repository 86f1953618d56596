package torchload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureTensors loads testdata/name.
func fixtureTensors(t *testing.T, name string) []*Tensor {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	ts, _, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// edited returns ts with f applied to copies of the tensors (a nil result drops one).
func edited(ts []*Tensor, f func(*Tensor) *Tensor) []*Tensor {
	var out []*Tensor
	for _, t := range ts {
		c := *t
		if e := f(&c); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// TestMapRefuses: layouts Unroll cannot map are refused with a message that says what is
// wrong and lists the tensors found.
func TestMapRefuses(t *testing.T) {
	lstm := fixtureTensors(t, "lstm_bi1.pt")
	gru := fixtureTensors(t, "gru_bi2.safetensors")
	char := fixtureTensors(t, "char_gru.pt")
	rename := func(from, to string) func(*Tensor) *Tensor {
		return func(x *Tensor) *Tensor { x.Name = strings.Replace(x.Name, from, to, 1); return x }
	}
	cases := map[string]struct {
		ts   []*Tensor
		want string
	}{
		"proj_size": {append(lstm, &Tensor{Name: "encoder.weight_hr_l0", Dtype: F32, Shape: []int{2, 4}, Data: make([]float64, 8)}),
			"proj_size > 0"},
		"no-rnn":   {edited(lstm, rename("weight_ih_l0", "w_ih_l0")), "no tensor is called <prefix>weight_ih_l0"},
		"two-rnns": {append(lstm, edited(gru, rename("rnn.", "other."))...), "2 recurrent modules"},
		"missing-layer-tensor": {edited(gru, func(x *Tensor) *Tensor {
			if x.Name == "rnn.bias_hh_l1_reverse" {
				return nil
			}
			return x
		}), "needs rnn.bias_hh_l1_reverse, which is missing"},
		"wrong-shape": {edited(gru, func(x *Tensor) *Tensor {
			if x.Name == "rnn.weight_ih_l1" {
				x.Shape, x.Data = []int{12, 4}, x.Data[:48]
			}
			return x
		}), "rnn.weight_ih_l1 has shape [12 4], want [12 8]"},
		"five-layers": {append(gru, &Tensor{Name: "rnn.weight_ih_l4", Dtype: F32, Shape: []int{12, 8}, Data: make([]float64, 96)}),
			"MaxLayers"},
		"unknown-tensor": {append(gru, &Tensor{Name: "norm.gamma", Dtype: F32, Shape: []int{8}, Data: make([]float64, 8)}),
			"norm.gamma [8] has no place"},
		"vocab": {append(gru, &Tensor{Name: "head.weight", Dtype: F32, Shape: []int{MaxVocab + 1, 8}, Data: make([]float64, 8*(MaxVocab+1))}),
			"MaxVocab"},
		"gate-count": {edited(gru, func(x *Tensor) *Tensor {
			if x.Name == "rnn.weight_hh_l0" {
				x.Shape, x.Data = []int{8, 4}, x.Data[:32]
			}
			return x
		}), "2 blocks"},
	}
	cases["ambiguous"] = struct {
		ts   []*Tensor
		want string
	}{ambiguousChar(t, char), "could be the embedding or the head"}
	for name, c := range cases {
		_, err := Map(c.ts, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "the file holds: ") {
			t.Errorf("%s: %v, want an error containing %q and the list of tensors", name, err, c.want)
		}
	}
	if _, err := Map(fixtureTensors(t, "rnn_tanh3.pt"), Options{Nonlinearity: "sigmoid"}); err == nil || !strings.Contains(err.Error(), "tanh or relu") {
		t.Errorf("nonlinearity sigmoid: %v", err)
	}
}

// ambiguousChar is char_gru with a GRU whose input size equals its hidden size, so a
// bias-less [V, 6] tensor under a neutral module name fits both roles.
func ambiguousChar(t *testing.T, char []*Tensor) []*Tensor {
	t.Helper()
	return edited(char, func(x *Tensor) *Tensor {
		switch x.Name {
		case "embed.weight": // [7, 5] → [7, 6] under a neutral name
			x.Name, x.Shape, x.Data = "thing.weight", []int{7, 6}, make([]float64, 42)
		case "gru.weight_ih_l0": // [18, 5] → [18, 6]
			x.Shape, x.Data = []int{18, 6}, make([]float64, 108)
		case "head.bias", "head.weight":
			return nil
		}
		return x
	})
}

// TestMapFindsHeadByName: a bias-less [V, h] tensor that fits both roles is the head
// under a head-like module name and the embedding under an embedding-like one.
func TestMapFindsHeadByName(t *testing.T) {
	char := fixtureTensors(t, "char_gru.pt")
	for module, role := range map[string]string{"fc": "head", "decoder": "head", "encoder": "embedding", "tok_emb.emb": "embedding"} {
		ts := edited(ambiguousChar(t, char), func(x *Tensor) *Tensor {
			if x.Name == "thing.weight" {
				x.Name = module + ".weight"
			}
			return x
		})
		m, err := Map(ts, Options{})
		if err != nil {
			t.Fatalf("%s: %v", module, err)
		}
		if got := m.Arch.HeadName; (role == "head") != (got == module+".weight") {
			t.Errorf("%s.weight: head %q, embedding %q; want it as the %s", module, m.Arch.HeadName, m.Arch.EmbeddingName, role)
		}
	}
}

// TestInputRefused: bad inputs are refused with a message naming the problem.
func TestInputRefused(t *testing.T) {
	char, err := Map(fixtureTensors(t, "char_gru.safetensors"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	gru, err := Map(fixtureTensors(t, "gru_bi2.pt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	vocab := []string{"a", "b", "c", "d", "e", " ", "."}
	long := make([][]float64, MaxSteps+1)
	for i := range long {
		long[i] = []float64{0, 0, 0}
	}
	cases := []struct {
		m    *Model
		in   Input
		want string
	}{
		{gru, Input{}, "give x"},
		{gru, Input{X: [][]float64{{1, 2}}}, "input_size is 3"},
		{gru, Input{X: long}, "MaxSteps"},
		{gru, Input{X: [][]float64{}}, "0 steps"},
		{gru, Input{Text: "ab", Vocab: vocab}, "needs an nn.Embedding"},
		{char, Input{Text: "abz", Vocab: vocab}, `text[2] is 'z'`},
		{char, Input{Text: "ab", Vocab: vocab[:3]}, "vocab has 3 entries; the embedding has 7"},
		{char, Input{Text: "ab", Vocab: []string{"a", "a", "b", "c", "d", "e", "f"}}, "twice"},
		{char, Input{Text: "ab", Vocab: []string{"ab", "b", "c", "d", "e", "f", "g"}}, "one character"},
		{char, Input{Text: "ab", Vocab: vocab, X: [][]float64{{1, 2, 3, 4, 5}}}, "not both"},
	}
	for _, c := range cases {
		_, err := c.m.RunInput(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.in, err, c.want)
		}
	}
}
