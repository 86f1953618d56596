package web

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"unroll/models"
	"unroll/torchload"
)

// TestModelSafetensorsTransformer: the transformer page's model.safetensors, with the
// mask and the √d_k switches each way and on both tasks, is the page's own model
// (checkPyTorchProgram), and the file read back by the names and layouts docs/api.md
// gives (transformerFromTorch) decodes the metadata's inputs to the page's softmax
// P(y_t′ | ŷ_<t′, x) at the page's step to 1e-12: the numbers the page's frame shows,
// which lessons/pytorch/transformer.py prints as H. With UNROLL_PYTORCH_BENCH=DIR it
// writes the files bench/pytorch/roundtrip.py runs the script on (the cases named
// transformer*).
func TestModelSafetensorsTransformer(t *testing.T) {
	_, ts := newCatalogServer(t)
	var probs [][]float64 // every case's H, which must differ
	for _, c := range []struct {
		name, query    string
		masked, scaled bool
		step           int // the step the file must be at (0: the last)
	}{
		{"transformer", "step=4", true, true, 4},
		{"transformer-switches", "mask=false&scale=false&step=3&layer=2&head=3", false, false, 3},
		{"unmasked", "mask=false&step=5", false, true, 5},
		{"unscaled", "scale=false&date=nov+22,+2026", true, false, 0},
		{"corpus", "task=corpus&step=2", true, true, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.HasPrefix(c.name, "transformer") {
				// bench/pytorch keeps the two files above (0.36 MB each), whose switches
				// are both on and both off, so that torch reads each; these run in Go only
				t.Setenv("UNROLL_PYTORCH_BENCH", "")
			}
			tensors, meta := checkPyTorchProgram(t, ts, "transformer", c.query, c.name)
			step, _ := strconv.Atoi(meta["step"])
			if meta["mask"] != strconv.FormatBool(c.masked) || meta["scale"] != strconv.FormatBool(c.scaled) || (c.step > 0 && step != c.step) {
				t.Errorf("metadata mask %s, scale %s, step %d; want %v, %v, %d", meta["mask"], meta["scale"], step, c.masked, c.scaled, c.step)
			}
			m := transformerFromTorch(t, tensors, meta)
			var src, in []int
			if err := json.Unmarshal([]byte(meta["source"]), &src); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(meta["decoder_inputs"]), &in); err != nil {
				t.Fatal(err)
			}
			if len(in) != step || in[0] != models.BosID {
				t.Fatalf("decoder inputs %v at step %d", in, step)
			}
			enc, err := m.Encode(src)
			if err != nil {
				t.Fatal(err)
			}
			dec, err := m.Decode(enc, in)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, m.Config.TgtVocab)
			models.Softmax(got, dec.Logits.RawRowView(step-1))
			pm := pageBuild(t, "transformer", c.query)
			if c.step == 0 && step != pm.Steps() {
				t.Errorf("step %d without one asked, want the last, %d", step, pm.Steps())
			}
			var page []float64 // the P the page's frame shows at the step
			for _, a := range pm.At(step).Arrays {
				if a.Name == "P" {
					page = a.Data
				}
			}
			want := pageProgram(t, "transformer", c.query, step).H
			if !slices.Equal(want, page) {
				t.Fatalf("the file's H is not the page's P at step %d", step)
			}
			for v := range got {
				if math.Abs(got[v]-want[v]) > 1e-12 {
					t.Fatalf("P(y_%d = %d) = %v from the file, %v on the page", step, v, got[v], want[v])
				}
			}
			probs = append(probs, want)
		})
	}
	for i := range probs {
		for j := range i {
			if slices.Equal(probs[i], probs[j]) {
				t.Errorf("cases %d and %d export the same softmax", j, i)
			}
		}
	}
}

// transformerFromTorch is the Transformer a transformer.py state_dict holds, read by
// the names and layouts of docs/api.md: nn.Embedding's weight is E (V × d) as it is;
// an nn.Linear's weight is the transpose of our W, so our W's column j is the
// weight's row j; an attention's W_Q weight holds head i's W_i^Qᵀ in rows i·d_k …
// (i+1)·d_k − 1; nn.LayerNorm's weight and bias are γ and β. Every tensor is read
// once, and a missing or misshapen one fails the test.
func transformerFromTorch(t *testing.T, tensors []*torchload.Tensor, meta map[string]string) *models.Transformer {
	t.Helper()
	size := func(k string) int {
		n, err := strconv.Atoi(meta[k])
		if err != nil {
			t.Fatalf("metadata %s = %q", k, meta[k])
		}
		return n
	}
	if eps, _ := strconv.ParseFloat(meta["layer_norm_eps"], 64); eps != models.LayerNormEps {
		t.Errorf("layer_norm_eps %q, want %g", meta["layer_norm_eps"], models.LayerNormEps)
	}
	cfg := models.TransformerConfig{D: size("d_model"), Heads: size("nhead"), FF: size("dim_feedforward"), Layers: size("num_layers"),
		SrcVocab: size("src_vocab"), TgtVocab: size("tgt_vocab")}
	m := models.NewTransformer(cfg)
	m.Unmasked, m.Unscaled = meta["mask"] != "true", meta["scale"] != "true"
	byName := map[string]*torchload.Tensor{}
	for _, x := range tensors {
		byName[x.Name] = x
	}
	take := func(name string, shape ...int) []float64 {
		x, ok := byName[name]
		if !ok || !slices.Equal(x.Shape, shape) {
			t.Fatalf("%s: %v, want shape %v", name, x, shape)
		}
		delete(byName, name)
		return x.Data
	}
	// fromRows sets p (in × k) to rows r0 … r0+k−1 of an nn.Linear weight of width in, transposed.
	fromRows := func(p *models.Param, w []float64, r0 int) {
		in, k := p.Value.Dims()
		for j := range k {
			for i := range in {
				p.Value.Set(i, j, w[(r0+j)*in+i])
			}
		}
	}
	linear := func(prefix string, l *models.Dense) {
		in, out := l.W.Value.Dims()
		fromRows(l.W, take(prefix+"weight", out, in), 0)
		copy(l.B.Value.RawRowView(0), take(prefix+"bias", out))
	}
	dk := cfg.D / cfg.Heads
	attention := func(prefix string, a *models.MultiHeadAttention) {
		for _, w := range []struct {
			name  string
			heads []*models.Param
		}{{"W_Q", a.WQ}, {"W_K", a.WK}, {"W_V", a.WV}} {
			weight := take(prefix+w.name+".weight", cfg.Heads*dk, cfg.D)
			for i, p := range w.heads {
				fromRows(p, weight, i*dk)
			}
		}
		fromRows(a.WO, take(prefix+"W_O.weight", cfg.D, cfg.Heads*dk), 0)
	}
	norm := func(prefix string, ln *models.LayerNorm) {
		copy(ln.Gamma.Value.RawRowView(0), take(prefix+"weight", cfg.D))
		copy(ln.Beta.Value.RawRowView(0), take(prefix+"bias", cfg.D))
	}
	copy(m.SrcEmbed.E.Value.RawMatrix().Data, take("src_embedding.weight", cfg.SrcVocab, cfg.D))
	copy(m.TgtEmbed.E.Value.RawMatrix().Data, take("tgt_embedding.weight", cfg.TgtVocab, cfg.D))
	for l, e := range m.Encoder {
		p := "encoder." + strconv.Itoa(l) + "."
		attention(p+"self_attn.", e.Self)
		norm(p+"norm1.", e.Norm1)
		norm(p+"norm2.", e.Norm2)
		linear(p+"linear1.", e.FFN.First)
		linear(p+"linear2.", e.FFN.Second)
	}
	for l, d := range m.Decoder {
		p := "decoder." + strconv.Itoa(l) + "."
		attention(p+"self_attn.", d.Self)
		attention(p+"cross_attn.", d.Cross)
		for i, ln := range []*models.LayerNorm{d.Norm1, d.Norm2, d.Norm3} {
			norm(p+"norm"+strconv.Itoa(i+1)+".", ln)
		}
		linear(p+"linear1.", d.FFN.First)
		linear(p+"linear2.", d.FFN.Second)
	}
	linear("out.", m.Out)
	if len(byName) > 0 {
		t.Errorf("tensors left over: %v", byName)
	}
	return m
}
