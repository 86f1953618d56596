package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// captionBatch is a small batch of random images and captions of different lengths
// (so padding and its mask are in it), each ending in <eos>.
func captionBatch(rng *rand.Rand, cfg CaptionConfig) ([][]float64, [][]int) {
	imgs := make([][]float64, 3)
	caps := make([][]int, 3)
	for b := range imgs {
		imgs[b] = make([]float64, cfg.Pixels)
		for j := range imgs[b] {
			imgs[b][j] = rng.Float64()
		}
		n := 2 + b
		for range n - 1 {
			caps[b] = append(caps[b], EosID+1+rng.IntN(cfg.Vocab-EosID-1))
		}
		caps[b] = append(caps[b], EosID)
	}
	return imgs, caps
}

// TestCaptionerGradients checks LossAndGrad's gradient of every parameter by central
// differences for each of seed 002's three approaches ("Vector to sequence RNN
// models"): the encoder W_v, b_v receive ∂L/∂x through h⁽⁰⁾ (approaches 1, 3), through
// every step's input (2, 3), or both.
func TestCaptionerGradients(t *testing.T) {
	const rel, abs = 1e-6, 1e-9
	for _, a := range CaptionApproaches {
		cfg := CaptionConfig{Approach: a, Pixels: 5, Vocab: 8, Embed: 3, Hidden: 4, Seed: 7}
		m := NewCaptioner(cfg)
		imgs, caps := captionBatch(rand.New(rand.NewPCG(1, uint64(a))), cfg)
		m.Params().ZeroGrad()
		if _, err := m.LossAndGrad(imgs, caps); err != nil {
			t.Fatal(err)
		}
		loss := func() float64 {
			saved := make([]*mat.Dense, len(m.Params()))
			for i, p := range m.Params() {
				saved[i] = mat.DenseCopyOf(p.Grad)
			}
			l, err := m.LossAndGrad(imgs, caps)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range m.Params() {
				p.Grad.Copy(saved[i])
			}
			return l
		}
		for _, p := range m.Params() {
			if msg := gradMismatch(fmt.Sprintf("approach %d %s", a, p.Name), p.Grad, numericGrad(p.Value, loss, 1e-5), rel, abs); msg != "" {
				t.Error(msg)
			}
		}
		if mat.Norm(m.Encoder.W.Grad, 2) == 0 {
			t.Errorf("approach %d: the encoder got no gradient", a)
		}
	}
}

// TestCaptionerApproaches: the three approaches differ where seed 002 says: h⁽⁰⁾ = x
// for 1 and 3 (0 for 2), and the GRU's input has x beside the word for 2 and 3. A
// change of the image reaches step 1's state in every approach.
func TestCaptionerApproaches(t *testing.T) {
	for _, a := range CaptionApproaches {
		cfg := CaptionConfig{Approach: a, Pixels: 6, Vocab: 9, Embed: 3, Hidden: 5, Seed: 2}
		m := NewCaptioner(cfg)
		img := []float64{1, 0, 0.5, 0, 1, 0}
		tr, err := m.Greedy(img, 4)
		if err != nil {
			t.Fatal(err)
		}
		wantIn := cfg.Embed
		if a != CaptionInitial {
			wantIn += cfg.Hidden
		}
		if m.Decoder.InputSize() != wantIn {
			t.Errorf("approach %d: GRU input size %d want %d", a, m.Decoder.InputSize(), wantIn)
		}
		zero := true
		for _, v := range tr.H0 {
			zero = zero && v == 0
		}
		if zero != (a == CaptionEveryStep) {
			t.Errorf("approach %d: h⁽⁰⁾ = %v, x = %v", a, tr.H0, tr.X)
		}
		if a != CaptionInitial {
			for i, st := range tr.Steps {
				got := mat.Row(nil, 0, st.Decoder.X)[cfg.Embed:]
				for j := range got {
					if got[j] != tr.X[j] {
						t.Fatalf("approach %d step %d: input's x part %v want x %v", a, i+1, got, tr.X)
					}
				}
			}
		}
		other, _ := m.Greedy([]float64{0, 1, 0, 1, 0, 0.5}, 1)
		if mat.Equal(other.Steps[0].Decoder.Next.H, tr.Steps[0].Decoder.Next.H) {
			t.Errorf("approach %d: h⁽¹⁾ does not depend on the image", a)
		}
		if tr.Steps[0].Input != BosID {
			t.Errorf("approach %d: first input %d want <bos>", a, tr.Steps[0].Input)
		}
		for i := 1; i < len(tr.Steps); i++ {
			if tr.Steps[i].Input != tr.Steps[i-1].Output {
				t.Errorf("approach %d step %d: input %d, want the previous output %d", a, i+1, tr.Steps[i].Input, tr.Steps[i-1].Output)
			}
		}
		sum := 0.0
		for _, p := range tr.Steps[0].Probs {
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 || tr.Steps[0].TopK(1)[0].ID != tr.Steps[0].Output {
			t.Errorf("approach %d: ŷ⁽¹⁾ sums to %v, top-1 %v, output %d", a, sum, tr.Steps[0].TopK(1), tr.Steps[0].Output)
		}
	}
}

// TestCaptionerLearns: a few hundred Adam steps fit four images' captions (the
// decoder reads x; with x ignored it could not tell the images apart).
func TestCaptionerLearns(t *testing.T) {
	for _, a := range CaptionApproaches {
		cfg := CaptionConfig{Approach: a, Pixels: 4, Vocab: 8, Embed: 4, Hidden: 8, Seed: 3}
		m := NewCaptioner(cfg)
		imgs := [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
		caps := [][]int{{4, 5, EosID}, {4, 6, EosID}, {7, 5, EosID}, {7, 6, 6, EosID}}
		opt := NewAdam(0.03)
		for range 300 {
			if _, err := m.TrainStep(imgs, caps, opt, 5); err != nil {
				t.Fatal(err)
			}
		}
		for b, img := range imgs {
			tr, _ := m.Greedy(img, 6)
			if got, want := fmt.Sprint(tr.Words()), fmt.Sprint(caps[b][:len(caps[b])-1]); got != want {
				t.Errorf("approach %d image %d: caption %s want %s", a, b, got, want)
			}
		}
	}
}

// TestCaptionerRefuses: bad batches are errors, not panics.
func TestCaptionerRefuses(t *testing.T) {
	m := NewCaptioner(CaptionConfig{Approach: CaptionBoth, Pixels: 2, Vocab: 6, Embed: 2, Hidden: 2, Seed: 1})
	for _, c := range []struct {
		imgs [][]float64
		caps [][]int
		want string
	}{
		{nil, nil, "at least one image"},
		{[][]float64{{1}}, [][]int{{EosID}}, "has 1 values, want 2"},
		{[][]float64{{1, math.NaN()}}, [][]int{{EosID}}, "NaN"},
		{[][]float64{{1, 0}}, [][]int{{}}, "empty"},
		{[][]float64{{1, 0}}, [][]int{{9}}, "outside vocabulary"},
		{[][]float64{{1, 0}}, nil, "0 captions for 1 images"},
	} {
		if _, err := m.LossAndGrad(c.imgs, c.caps); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: got %v want an error with %q", c.imgs, c.caps, err, c.want)
		}
	}
	if _, err := m.Greedy([]float64{1, 0}, 0); err == nil {
		t.Errorf("maxLen 0: no error")
	}
}
