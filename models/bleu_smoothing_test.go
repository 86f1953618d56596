package models

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// TestBLEUAgainstNLTK: sentence and corpus BLEU with general weights w_n and the
// smoothings NLTK names method1 (ε = 0.1) and method2 (add one) agree with NLTK 3.8
// to 1e-9 (models/testdata/bleu_nltk.json, written by bench/nltk/bleu_smoothing.py).
// The corpus cases hold sentences of 4 words or more: for a shorter one NLTK counts
// one n-gram of each order it lacks (dividing by max(1, count)), the paper none.
func TestBLEUAgainstNLTK(t *testing.T) {
	b, err := os.ReadFile("testdata/bleu_nltk.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Sentences [][2]any `json:"sentences"`
		Sentence  []struct {
			Candidate  string    `json:"candidate"`
			References []string  `json:"references"`
			W          []float64 `json:"w"`
			Smoothing  string    `json:"smoothing"`
			BLEU       float64   `json:"bleu"`
		} `json:"sentence"`
		Corpus []struct {
			W         []float64 `json:"w"`
			Smoothing string    `json:"smoothing"`
			BLEU      float64   `json:"bleu"`
		} `json:"corpus"`
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Sentence) == 0 || len(fx.Corpus) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range fx.Sentence {
		opts := BLEUOptions{MaxN: len(c.W), Weights: WeightsUniform, W: c.W, Smoothing: c.Smoothing}
		res, err := SentenceBLEU(c.Candidate, c.References, opts)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.BLEU-c.BLEU) > 1e-9 {
			t.Errorf("%q vs %q, w %v, %s: got %.12g, NLTK %.12g", c.Candidate, c.References, c.W, c.Smoothing, res.BLEU, c.BLEU)
		}
	}
	var cands []string
	var refs [][]string
	for _, s := range fx.Sentences {
		cands = append(cands, s[0].(string))
		var rs []string
		for _, r := range s[1].([]any) {
			rs = append(rs, r.(string))
		}
		refs = append(refs, rs)
	}
	for _, c := range fx.Corpus {
		res, err := CorpusBLEU(cands, refs, BLEUOptions{MaxN: len(c.W), Weights: WeightsUniform, W: c.W, Smoothing: c.Smoothing})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.BLEU-c.BLEU) > 1e-9 {
			t.Errorf("corpus, w %v, %s: got %.12g, NLTK %.12g", c.W, c.Smoothing, res.BLEU, c.BLEU)
		}
	}
}

// TestBLEUEffectiveOrder: a perfect match scores 1 whatever N once only the orders the
// candidate has n-grams of count (lecture 000: "a perfect match gives 1"), while the
// paper's unsmoothed BLEU gives 0 to a candidate shorter than N.
func TestBLEUEffectiveOrder(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8} {
		plain, _ := SentenceBLEU("the cat", []string{"the cat"}, BLEUOptions{MaxN: n, Weights: WeightsUniform})
		eff, _ := SentenceBLEU("the cat", []string{"the cat"}, BLEUOptions{MaxN: n, Weights: WeightsUniform, Smoothing: SmoothEffectiveOrder})
		if want := 0.0; n <= 2 {
			want = 1
			if plain.BLEU != want {
				t.Errorf("N = %d: unsmoothed %g, want %g", n, plain.BLEU, want)
			}
		} else if plain.BLEU != want {
			t.Errorf("N = %d: unsmoothed %g, want 0 (no %d-grams)", n, plain.BLEU, n)
		}
		if math.Abs(eff.BLEU-1) > 1e-12 {
			t.Errorf("N = %d: effective order %g, want 1", n, eff.BLEU)
		}
	}
	// Effective order does not invent matches: a 3-word candidate with no bigram match
	// still scores 0; and a candidate with every order present is the unsmoothed score.
	if r, _ := SentenceBLEU("cat the mat", []string{"the cat sat"}, BLEUOptions{MaxN: 4, Weights: WeightsUniform, Smoothing: SmoothEffectiveOrder}); r.BLEU != 0 {
		t.Errorf("no bigram match: got %g, want 0", r.BLEU)
	}
	long := "the cat is on the mat today"
	a, _ := SentenceBLEU(long, []string{"the cat is on the mat"}, BLEUOptions{MaxN: 4, Weights: WeightsUniform})
	b, _ := SentenceBLEU(long, []string{"the cat is on the mat"}, BLEUOptions{MaxN: 4, Weights: WeightsUniform, Smoothing: SmoothEffectiveOrder})
	if a.BLEU == 0 || math.Abs(a.BLEU-b.BLEU) > 1e-15 {
		t.Errorf("every order present: unsmoothed %g, effective order %g; want equal and > 0", a.BLEU, b.BLEU)
	}
}

func TestBLEUOptionErrors(t *testing.T) {
	for _, tt := range []struct {
		opts BLEUOptions
		says string
	}{
		{BLEUOptions{MaxN: 4, Weights: WeightsUniform, Smoothing: "laplace"}, "smoothing must be"},
		{BLEUOptions{MaxN: 4, Weights: WeightsUniform, W: []float64{0.5, 0.5}}, "2 weights"},
		{BLEUOptions{MaxN: 2, Weights: WeightsUniform, W: []float64{0.3, 0.3}}, "summing to 0.6"},
		{BLEUOptions{MaxN: 2, Weights: WeightsUniform, W: []float64{-0.5, 1.5}}, "got -0.5"},
		{BLEUOptions{MaxN: 2, Weights: WeightsD2L, W: []float64{0.5, 0.5}}, "uniform weighting only"},
	} {
		if _, err := SentenceBLEU("a b", []string{"a b"}, tt.opts); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%+v: got %v, want an error saying %q", tt.opts, err, tt.says)
		}
	}
}
