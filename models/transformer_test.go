package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// transformerFDStep is the central-difference step of the Transformer's checks: the
// truncation error ~step² stays below the tolerances.
const transformerFDStep = 1e-5

func tinyTransformer(seed uint64) *Transformer {
	return NewTransformer(TransformerConfig{SrcVocab: 9, TgtVocab: 8, D: 8, Heads: 2, FF: 12, Layers: 2, Seed: seed})
}

// TestPositionalEncoding: seed 002's Transformer adds sinusoids of geometric
// wavelengths: PE[pos, 2i] = sin(pos/10000^{2i/d}), PE[pos, 2i+1] = cos(…).
func TestPositionalEncoding(t *testing.T) {
	pe := PositionalEncoding(5, 6)
	for _, tc := range []struct {
		pos, j int
		want   float64
	}{
		{0, 0, 0}, {0, 1, 1}, {0, 4, 0}, {0, 5, 1},
		{1, 0, math.Sin(1)}, {1, 1, math.Cos(1)},
		{3, 2, math.Sin(3 / math.Pow(10000, 2.0/6))}, {3, 3, math.Cos(3 / math.Pow(10000, 2.0/6))},
		{4, 5, math.Cos(4 / math.Pow(10000, 4.0/6))},
	} {
		if got := pe.At(tc.pos, tc.j); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("PE[%d,%d]: got %.17g want %.17g", tc.pos, tc.j, got, tc.want)
		}
	}
}

// TestLayerNormForwardAndGradient: every row of LN(x) has mean β and, with γ = 1,
// variance σ²/(σ² + ε); the backward pass agrees with finite differences.
func TestLayerNormForwardAndGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ln := NewLayerNorm("", 5)
	x := attentionRandom(3, 5, rng)
	tr := ln.Forward(x)
	for r := range 3 {
		var mean, sq float64
		for _, v := range tr.Out.RawRowView(r) {
			mean += v
			sq += v * v
		}
		if math.Abs(mean/5) > 1e-15 || math.Abs(sq/5-1) > 1e-4 {
			t.Errorf("row %d: mean %.3g, mean square %.6f; want 0 and ≈ 1", r, mean/5, sq/5)
		}
	}
	ln.Gamma.Uniform(1, rng)
	ln.Beta.Uniform(1, rng)
	up := attentionRandom(3, 5, rng)
	loss := func() float64 { return attentionInner(up, ln.Forward(x).Out) }
	dX := ln.Backward(ln.Forward(x), up)
	for _, c := range []struct {
		what     string
		got, wrt *mat.Dense
	}{{"x", dX, x}, {"γ", ln.Gamma.Grad, ln.Gamma.Value}, {"β", ln.Beta.Grad, ln.Beta.Value}} {
		if msg := gradMismatch(c.what, c.got, numericGrad(c.wrt, loss, transformerFDStep), 1e-7, 1e-9); msg != "" {
			t.Error(msg)
		}
	}
}

// TestMultiHeadAttentionGradients: seed 002's MultiHead(Q, K, V) = Concat(head_i) W^O
// with head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V): every weight's and input's
// gradient agrees with finite differences, with and without the causal mask and
// the 1/√d_k.
func TestMultiHeadAttentionGradients(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n, m   int
		mask   KeyMask
		scaled bool
	}{
		{"cross", 3, 5, nil, true},
		{"causal self", 4, 4, CausalMask, true},
		{"unscaled", 3, 4, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, 2))
			a := NewMultiHeadAttention(6, 3, rng)
			xq := attentionRandom(tc.n, 6, rng)
			xkv := attentionRandom(tc.m, 6, rng)
			up := attentionRandom(tc.n, 6, rng)
			loss := func() float64 { return attentionInner(up, a.Forward(xq, xkv, tc.mask, tc.scaled).Out) }
			tr := a.Forward(xq, xkv, tc.mask, tc.scaled)
			if want := 1.0; !tc.scaled && tr.Scale != want || tc.scaled && math.Abs(tr.Scale-1/math.Sqrt(2)) > 1e-15 {
				t.Errorf("scale: got %v", tr.Scale)
			}
			dq, dkv := a.Backward(tr, up)
			if msg := gradMismatch("X_q", dq, numericGrad(xq, loss, transformerFDStep), 1e-6, 1e-9); msg != "" {
				t.Error(msg)
			}
			if msg := gradMismatch("X_kv", dkv, numericGrad(xkv, loss, transformerFDStep), 1e-6, 1e-9); msg != "" {
				t.Error(msg)
			}
			for _, p := range a.Params() {
				if msg := gradMismatch(p.Name, p.Grad, numericGrad(p.Value, loss, transformerFDStep), 1e-6, 1e-9); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// TestFeedForwardGradient: FFN(x) = ReLU(x W⁽¹⁾ + b⁽¹⁾) W⁽²⁾ + b⁽²⁾ and its backward pass.
func TestFeedForwardGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	f := NewFeedForward(4, 7, rng)
	f.First.B.Uniform(0.5, rng)
	x := attentionRandom(3, 4, rng)
	up := attentionRandom(3, 4, rng)
	loss := func() float64 { return attentionInner(up, f.Forward(x).Out) }
	dX := f.Backward(f.Forward(x), up)
	if msg := gradMismatch("x", dX, numericGrad(x, loss, transformerFDStep), 1e-6, 1e-9); msg != "" {
		t.Error(msg)
	}
	for _, p := range f.Params() {
		if msg := gradMismatch(p.Name, p.Grad, numericGrad(p.Value, loss, transformerFDStep), 1e-6, 1e-9); msg != "" {
			t.Error(msg)
		}
	}
}

// TestTransformerGradients: the whole model's backward pass, every parameter
// against central differences of the summed cross-entropy, for the lecture's model
// and with the mask or the 1/√d_k switched off.
func TestTransformerGradients(t *testing.T) {
	for _, tc := range []struct {
		name               string
		unmasked, unscaled bool
	}{{"lecture", false, false}, {"unmasked", true, false}, {"unscaled", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			m := tinyTransformer(5)
			m.Unmasked, m.Unscaled = tc.unmasked, tc.unscaled
			rng := rand.New(rand.NewPCG(4, 4))
			for _, p := range m.Params() { // biases and gains away from their initial 0 and 1
				if p.Vector {
					p.Value.Apply(func(_, _ int, v float64) float64 { return v + 0.3*(2*rng.Float64()-1) }, p.Value)
				}
			}
			src, labels := []int{4, 5, 6, 7, 8}, []int{4, 6, 5, EosID}
			loss := func() float64 {
				l, _, _, _, err := m.Forward(src, labels)
				if err != nil {
					t.Fatal(err)
				}
				return l
			}
			_, enc, dec, dLogits, err := m.Forward(src, labels)
			if err != nil {
				t.Fatal(err)
			}
			m.Backward(enc, dec, dLogits)
			for _, p := range m.Params() {
				if msg := gradMismatch(p.Name, p.Grad, numericGrad(p.Value, loss, transformerFDStep), 1e-6, 1e-9); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// TestTransformerMaskPreventsLookingAhead: seed 002, "each position in the decoder
// can attend to all positions in the decoder up to and including that position":
// changing a later target token changes no earlier output, bit for bit; without the
// mask it does (the test can fail).
func TestTransformerMaskPreventsLookingAhead(t *testing.T) {
	m := tinyTransformer(6)
	src := []int{4, 5, 6}
	enc, err := m.Encode(src)
	if err != nil {
		t.Fatal(err)
	}
	a, b := []int{BosID, 4, 5, 6, 7}, []int{BosID, 4, 5, 7, 4} // differ from position 3 on
	for _, unmasked := range []bool{false, true} {
		m.Unmasked = unmasked
		da, _ := m.Decode(enc, a)
		db, _ := m.Decode(enc, b)
		same := true
		for pos := range 3 {
			for j, v := range da.Logits.RawRowView(pos) {
				if db.Logits.At(pos, j) != v {
					same = false
				}
			}
		}
		if !unmasked && !same {
			t.Errorf("with the causal mask, a later input changed an earlier output")
		}
		if unmasked && same {
			t.Errorf("without the mask, earlier outputs ignored a later input: the check cannot fail")
		}
		if !unmasked {
			for l, lt := range da.Layers {
				for i, w := range lt.Self.Weights {
					for q := range 5 {
						for k := q + 1; k < 5; k++ {
							if w.At(q, k) != 0 {
								t.Errorf("layer %d head %d: A[%d,%d] = %v, want exactly 0 after the position", l+1, i+1, q, k, w.At(q, k))
							}
						}
					}
				}
			}
		}
	}
}

// TestTransformerFreeRunMatchesOnePass: with the mask, the step-by-step decoding's
// outputs and weights equal those of one decoder pass over its own outputs.
func TestTransformerFreeRunMatchesOnePass(t *testing.T) {
	m := tinyTransformer(7)
	src := []int{4, 8, 6, 5}
	enc, steps, err := m.FreeRun(src, 6)
	if err != nil {
		t.Fatal(err)
	}
	in := []int{BosID}
	for _, s := range steps[:len(steps)-1] {
		in = append(in, s.Output)
	}
	dec, _ := m.Decode(enc, in)
	for t2, s := range steps {
		var want []float64 = make([]float64, m.Config.TgtVocab)
		Softmax(want, dec.Logits.RawRowView(t2))
		for j := range want {
			if math.Abs(want[j]-s.Probs[j]) > 1e-12 {
				t.Fatalf("step %d: P differs from the one-pass decoding", t2+1)
			}
		}
		for l := range dec.Layers {
			for i := range dec.Layers[l].Self.Weights {
				row := dec.Layers[l].Self.Weights[i].RawRowView(t2)
				for k, w := range s.Self[l][i] {
					if math.Abs(row[k]-w) > 1e-12 {
						t.Fatalf("step %d layer %d head %d: self weights differ", t2+1, l+1, i+1)
					}
				}
			}
		}
	}
	if _, _, err := m.FreeRun(nil, 3); err == nil {
		t.Errorf("an empty source: got no error")
	}
}

// TestTransformerLearnsToCopy: a few hundred Adam steps teach the tiny model to copy
// a short sequence, so training works end to end.
func TestTransformerLearnsToCopy(t *testing.T) {
	m := NewTransformer(TransformerConfig{SrcVocab: 8, TgtVocab: 8, D: 16, Heads: 2, FF: 32, Layers: 1, Seed: 1})
	opt := NewAdam(0.01)
	rng := rand.New(rand.NewPCG(9, 9))
	var loss float64
	draw := func() []int {
		s := make([]int, 3+rng.IntN(2))
		for i := range s {
			s[i] = 4 + rng.IntN(4)
		}
		return s
	}
	for range 300 {
		var src, lab [][]int
		for range 8 {
			s := draw()
			src, lab = append(src, s), append(lab, append(append([]int(nil), s...), EosID))
		}
		var err error
		if loss, err = m.TrainStep(src, lab, opt, 1); err != nil {
			t.Fatal(err)
		}
	}
	if loss > 0.2 {
		t.Errorf("loss after 300 steps: got %.3f, want < 0.2", loss)
	}
	right := 0
	for range 20 {
		s := draw()
		out, _ := m.Greedy(s, 8)
		if len(out) == len(s)+1 && func() bool {
			for i := range s {
				if out[i] != s[i] {
					return false
				}
			}
			return out[len(s)] == EosID
		}() {
			right++
		}
	}
	if right < 18 {
		t.Errorf("copied %d of 20 sequences, want ≥ 18", right)
	}
}
