package models

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Papineni's references, as docs/api.md writes them (lowercase, no final period).
var catRefs = []string{"the cat is on the mat", "there is a cat on the mat"}

func mustBLEU(t *testing.T, cand string, refs []string, opts BLEUOptions) BLEUResult {
	t.Helper()
	res, err := SentenceBLEU(cand, refs, opts)
	if err != nil {
		t.Fatalf("SentenceBLEU(%q, %q, %+v): %v", cand, refs, opts, err)
	}
	return res
}

func closeTo(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestBLEULecturePrecisions checks every precision the lectures work out.
func TestBLEULecturePrecisions(t *testing.T) {
	tests := []struct {
		name  string
		cand  string
		refs  []string
		opts  BLEUOptions
		want  []Precision
		wantP []float64
	}{
		{ // lecture 4.6 (file 000): p1 = 4/5, p2 = 3/4, p3 = 1/3, p4 = 0
			name: "d2l ABBCD", cand: "A B B C D", refs: []string{"A B C D E F"},
			opts:  BLEUOptions{MaxN: 4, Weights: WeightsD2L},
			want:  []Precision{{1, 4, 5}, {2, 3, 4}, {3, 1, 3}, {4, 0, 2}},
			wantP: []float64{4.0 / 5, 3.0 / 4, 1.0 / 3, 0},
		},
		{ // lecture 4.6, k = 2: p1 = p2 = 1
			name: "d2l AB", cand: "A B", refs: []string{"A B C D E F"},
			opts:  BLEUOptions{MaxN: 2, Weights: WeightsD2L},
			want:  []Precision{{1, 2, 2}, {2, 1, 1}},
			wantP: []float64{1, 1},
		},
		{ // lecture 002: modified unigram precision 2/7
			name: "the x7", cand: "the the the the the the the", refs: catRefs,
			opts:  BLEUOptions{MaxN: 1, Weights: WeightsUniform},
			want:  []Precision{{1, 2, 7}},
			wantP: []float64{2.0 / 7},
		},
		{ // lecture 002's own text, capitalised and with periods: lowercasing gives 2/7 too
			name: "the x7 lecture text", cand: "the the the the the the the.",
			refs:  []string{"The cat is on the mat.", "There is a cat on the mat."},
			opts:  BLEUOptions{MaxN: 1, Weights: WeightsUniform, Lowercase: true},
			want:  []Precision{{1, 2, 7}},
			wantP: []float64{2.0 / 7},
		},
		{ // without lowercasing "The" is another word: only one "the" per reference
			name: "the x7 case-sensitive", cand: "the the the the the the the",
			refs:  []string{"The cat is on the mat", "There is a cat on the mat"},
			opts:  BLEUOptions{MaxN: 1, Weights: WeightsUniform},
			want:  []Precision{{1, 1, 7}},
			wantP: []float64{1.0 / 7},
		},
		{ // lecture 003: p1 = (2+1+1+1)/(3+2+1+1) = 5/7, p2 = (1+0+1+1+1)/(2+1+1+1+1) = 2/3
			name: "the cat the cat", cand: "the cat the cat on the mat", refs: catRefs,
			opts:  BLEUOptions{MaxN: 2, Weights: WeightsUniform},
			want:  []Precision{{1, 5, 7}, {2, 4, 6}},
			wantP: []float64{5.0 / 7, 2.0 / 3},
		},
	}
	for _, tc := range tests {
		res := mustBLEU(t, tc.cand, tc.refs, tc.opts)
		if !slices.Equal(res.Precisions, tc.want) {
			t.Errorf("%s: precisions got %v want %v", tc.name, res.Precisions, tc.want)
		}
		for i, p := range res.Precisions {
			if !closeTo(p.Value(), tc.wantP[i], 1e-15) {
				t.Errorf("%s: p_%d got %v want %v", tc.name, i+1, p.Value(), tc.wantP[i])
			}
		}
	}
}

func TestBLEUScores(t *testing.T) {
	tests := []struct {
		name         string
		cand         string
		refs         []string
		opts         BLEUOptions
		wantBLEU     float64
		wantBP       float64
		wantC, wantR int
		tol          float64
	}{
		{ // p4 = 0 makes eq. (7) zero
			name: "d2l k=4", cand: "A B B C D", refs: []string{"A B C D E F"},
			opts:     BLEUOptions{MaxN: 4, Weights: WeightsD2L},
			wantBLEU: 0, wantBP: math.Exp(1 - 6.0/5), wantC: 5, wantR: 6, tol: 1e-15,
		},
		{
			name: "d2l k=3", cand: "A B B C D", refs: []string{"A B C D E F"},
			opts:     BLEUOptions{MaxN: 3, Weights: WeightsD2L},
			wantBLEU: math.Exp(1-6.0/5) * math.Pow(4.0/5, 0.5) * math.Pow(3.0/4, 0.25) * math.Pow(1.0/3, 0.125),
			wantBP:   math.Exp(1 - 6.0/5), wantC: 5, wantR: 6, tol: 1e-12,
		},
		{ // lecture: p1 = p2 = 1 but the penalty exp(1 − 6/2) lowers BLEU
			name: "d2l k=2 short", cand: "A B", refs: []string{"A B C D E F"},
			opts:     BLEUOptions{MaxN: 2, Weights: WeightsD2L},
			wantBLEU: math.Exp(-2), wantBP: math.Exp(-2), wantC: 2, wantR: 6, tol: 1e-15,
		},
		{
			name: "uniform N=3", cand: "A B B C D", refs: []string{"A B C D E F"},
			opts:     BLEUOptions{MaxN: 3, Weights: WeightsUniform},
			wantBLEU: math.Exp(1-6.0/5) * math.Cbrt(4.0/5*3.0/4*1.0/3),
			wantBP:   math.Exp(1 - 6.0/5), wantC: 5, wantR: 6, tol: 1e-12,
		},
		{ // r = 7 (exact match with reference 2), BP = 1, BLEU = √(5/7 · 2/3); lecture 003's
			// last line repeats p2 = 2/3 instead, a known slip.
			name: "the cat the cat", cand: "the cat the cat on the mat", refs: catRefs,
			opts:     BLEUOptions{MaxN: 2, Weights: WeightsUniform},
			wantBLEU: math.Sqrt(10.0 / 21), wantBP: 1, wantC: 7, wantR: 7, tol: 1e-15,
		},
		{ // d2l's seq2seq output "he's calm . => il est riche ., bleu 0.658": √(3/4)·(1/3)^{1/4}
			name: "d2l il est riche", cand: "il est riche .", refs: []string{"il est calme ."},
			opts:     BLEUOptions{MaxN: 2, Weights: WeightsD2L},
			wantBLEU: math.Sqrt(3.0/4) * math.Pow(1.0/3, 0.25), wantBP: 1, wantC: 4, wantR: 4, tol: 1e-15,
		},
		{ // d2l's "i'm home . => je suis en retard ?": √(2/5)·(1/4)^{1/4} ≈ 0.447
			name: "d2l je suis en retard", cand: "je suis en retard ?", refs: []string{"je suis chez moi ."},
			opts:     BLEUOptions{MaxN: 2, Weights: WeightsD2L},
			wantBLEU: math.Sqrt(2.0/5) * math.Pow(1.0/4, 0.25), wantBP: 1, wantC: 5, wantR: 5, tol: 1e-15,
		},
		{ // c = 5 between reference lengths 4 and 6: the tie goes to the shorter, so c > r
			name: "tie shorter", cand: "a b c d e", refs: []string{"a b c d e f", "a b c d"},
			opts:     BLEUOptions{MaxN: 1, Weights: WeightsUniform},
			wantBLEU: 1, wantBP: 1, wantC: 5, wantR: 4, tol: 0,
		},
		{ // closest reference wins over shorter ones: r = 6, not 2
			name: "closest", cand: "a b c d e", refs: []string{"a b", "a b c d e f"},
			opts:     BLEUOptions{MaxN: 1, Weights: WeightsUniform},
			wantBLEU: math.Exp(1 - 6.0/5), wantBP: math.Exp(1 - 6.0/5), wantC: 5, wantR: 6, tol: 1e-15,
		},
		{ // no n-grams of order 4 in a 2-word candidate: p4 has total 0, BLEU 0
			name: "shorter than N uniform", cand: "a b", refs: []string{"a b"},
			opts:     BLEUOptions{MaxN: 4, Weights: WeightsUniform},
			wantBLEU: 0, wantBP: 1, wantC: 2, wantR: 2, tol: 0,
		},
		{
			name: "shorter than N d2l", cand: "a b", refs: []string{"a b"},
			opts:     BLEUOptions{MaxN: 3, Weights: WeightsD2L},
			wantBLEU: 0, wantBP: 1, wantC: 2, wantR: 2, tol: 0,
		},
		{ // empty candidate: BLEU 0 and BP 0, no error
			name: "empty uniform", cand: "  ", refs: []string{"a b"},
			opts:     BLEUOptions{MaxN: 2, Weights: WeightsUniform},
			wantBLEU: 0, wantBP: 0, wantC: 0, wantR: 2, tol: 0,
		},
		{
			name: "empty d2l", cand: "", refs: []string{"a b"},
			opts:     BLEUOptions{MaxN: 2, Weights: WeightsD2L},
			wantBLEU: 0, wantBP: 0, wantC: 0, wantR: 2, tol: 0,
		},
		{ // a longer candidate is not penalised
			name: "longer", cand: "a b c d", refs: []string{"a b c"},
			opts:     BLEUOptions{MaxN: 1, Weights: WeightsUniform},
			wantBLEU: 3.0 / 4, wantBP: 1, wantC: 4, wantR: 3, tol: 1e-15,
		},
	}
	for _, tc := range tests {
		res := mustBLEU(t, tc.cand, tc.refs, tc.opts)
		if !closeTo(res.BLEU, tc.wantBLEU, tc.tol) {
			t.Errorf("%s: BLEU got %.17g want %.17g", tc.name, res.BLEU, tc.wantBLEU)
		}
		if !closeTo(res.BrevityPenalty, tc.wantBP, tc.tol) {
			t.Errorf("%s: BP got %.17g want %.17g", tc.name, res.BrevityPenalty, tc.wantBP)
		}
		if res.CandidateLength != tc.wantC || res.RefLength != tc.wantR {
			t.Errorf("%s: c, r got %d, %d want %d, %d", tc.name, res.CandidateLength, res.RefLength, tc.wantC, tc.wantR)
		}
	}
}

// TestBLEULectureRoundedClaims checks the lectures' rounded numbers as printed.
func TestBLEULectureRoundedClaims(t *testing.T) {
	// lecture 4.6: "the penalty factor exp(1 − 6/2) ≈ 0.14"
	res := mustBLEU(t, "A B", []string{"A B C D E F"}, BLEUOptions{MaxN: 2, Weights: WeightsD2L})
	if !closeTo(res.BrevityPenalty, 0.14, 0.005) || !closeTo(res.BrevityPenalty, 0.1353352832366127, 1e-15) {
		t.Errorf("BP got %v want exp(-2) ≈ 0.1353 (≈ 0.14)", res.BrevityPenalty)
	}
	// d2l prints "bleu 0.658" for il est riche . against il est calme .
	res = mustBLEU(t, "il est riche .", []string{"il est calme ."}, BLEUOptions{MaxN: 2, Weights: WeightsD2L})
	if !closeTo(res.BLEU, 0.658, 0.0005) {
		t.Errorf("BLEU got %v want 0.658 to three decimals", res.BLEU)
	}
}

func TestBLEUIdenticalIsOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	words := []string{"a", "b", "c", "d"}
	for trial := range 200 {
		n := 1 + rng.IntN(12)
		toks := make([]string, n)
		for i := range toks {
			toks[i] = words[rng.IntN(len(words))]
		}
		s := strings.Join(toks, " ")
		for _, w := range []string{WeightsUniform, WeightsD2L} {
			opts := BLEUOptions{MaxN: 1 + rng.IntN(min(n, MaxBLEUOrder)), Weights: w}
			res := mustBLEU(t, s, []string{s}, opts)
			if res.BLEU != 1 || res.BrevityPenalty != 1 {
				t.Fatalf("trial %d %q %+v: BLEU, BP got %v, %v want 1, 1", trial, s, opts, res.BLEU, res.BrevityPenalty)
			}
		}
	}
}

func TestBLEUNGramBreakdown(t *testing.T) {
	res := mustBLEU(t, "the cat the cat on the mat", catRefs, BLEUOptions{MaxN: 2, Weights: WeightsUniform})
	if len(res.NGrams) != 7+6 {
		t.Fatalf("ngram count got %d want 13", len(res.NGrams))
	}
	find := func(n, start int) NGram {
		for _, g := range res.NGrams {
			if g.N == n && g.Start == start {
				return g
			}
		}
		t.Fatalf("no %d-gram at %d", n, start)
		return NGram{}
	}
	tests := []struct {
		n, start int
		want     NGram
	}{
		// first "the": 3 in the candidate, at most 2 in reference 1; pairs with the first
		// "the" of each reference
		{1, 0, NGram{N: 1, Words: []string{"the"}, Start: 0, Count: 3, Clip: 2, Matched: 2, Credited: true,
			Refs: []RefSpan{{0, []int{0}}, {1, []int{5}}}}},
		// second "the": only reference 1 has a second one
		{1, 2, NGram{N: 1, Words: []string{"the"}, Start: 2, Count: 3, Clip: 2, Matched: 2, Credited: true,
			Refs: []RefSpan{{0, []int{4}}}}},
		// third "the" is clipped
		{1, 5, NGram{N: 1, Words: []string{"the"}, Start: 5, Count: 3, Clip: 2, Matched: 2, Credited: false,
			Refs: []RefSpan{}}},
		{2, 0, NGram{N: 2, Words: []string{"the", "cat"}, Start: 0, Count: 2, Clip: 1, Matched: 1, Credited: true,
			Refs: []RefSpan{{0, []int{0, 1}}}}},
		{2, 2, NGram{N: 2, Words: []string{"the", "cat"}, Start: 2, Count: 2, Clip: 1, Matched: 1, Credited: false,
			Refs: []RefSpan{}}},
		{2, 1, NGram{N: 2, Words: []string{"cat", "the"}, Start: 1, Count: 1, Clip: 0, Matched: 0, Credited: false,
			Refs: []RefSpan{}}},
		{2, 3, NGram{N: 2, Words: []string{"cat", "on"}, Start: 3, Count: 1, Clip: 1, Matched: 1, Credited: true,
			Refs: []RefSpan{{1, []int{3, 4}}}}},
	}
	for _, tc := range tests {
		got := find(tc.n, tc.start)
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(tc.want)
		if string(gj) != string(wj) {
			t.Errorf("%d-gram at %d got %s want %s", tc.n, tc.start, gj, wj)
		}
	}
	// credited occurrences add up to Matched
	for _, p := range res.Precisions {
		credited := 0
		for _, g := range res.NGrams {
			if g.N == p.N && g.Credited {
				credited++
			}
		}
		if credited != p.Matched {
			t.Errorf("n=%d: credited got %d want %d", p.N, credited, p.Matched)
		}
	}
}

func TestBLEUJSONShape(t *testing.T) {
	res := mustBLEU(t, "the cat", catRefs, BLEUOptions{MaxN: 2, Weights: WeightsUniform})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	want := []string{"bleu", "brevity_penalty", "candidate_length", "ngrams", "precisions", "ref_length"}
	var got []string
	for k := range top {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("keys got %q want %q", got, want)
	}
	var ps []map[string]int
	if err := json.Unmarshal(top["precisions"], &ps); err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[1]["n"] != 2 || ps[1]["matched"] != 1 || ps[1]["total"] != 1 || len(ps[1]) != 3 {
		t.Errorf("precisions got %v want [{n:1 …} {n:2 matched:1 total:1}]", ps)
	}
	// an empty candidate still sends lists, not null
	res = mustBLEU(t, "", catRefs, BLEUOptions{MaxN: 2, Weights: WeightsUniform})
	b, _ = json.Marshal(res)
	if !strings.Contains(string(b), `"ngrams":[]`) {
		t.Errorf("empty candidate JSON got %s want \"ngrams\":[]", b)
	}
}

func TestBLEUErrors(t *testing.T) {
	tests := []struct {
		name string
		cand string
		refs []string
		opts BLEUOptions
		want error
	}{
		{"max_n 0", "a", []string{"a"}, BLEUOptions{MaxN: 0, Weights: WeightsUniform}, ErrBLEUMaxN},
		{"max_n too big", "a", []string{"a"}, BLEUOptions{MaxN: MaxBLEUOrder + 1, Weights: WeightsUniform}, ErrBLEUMaxN},
		{"no weights", "a", []string{"a"}, BLEUOptions{MaxN: 1}, ErrBLEUWeights},
		{"unknown weights", "a", []string{"a"}, BLEUOptions{MaxN: 1, Weights: "geometric"}, ErrBLEUWeights},
		{"no references", "a", nil, BLEUOptions{MaxN: 1, Weights: WeightsUniform}, ErrBLEUNoReferences},
		{"d2l two refs", "a", []string{"a", "b"}, BLEUOptions{MaxN: 1, Weights: WeightsD2L}, ErrBLEUOneReference},
	}
	for _, tc := range tests {
		_, err := SentenceBLEU(tc.cand, tc.refs, tc.opts)
		if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), "models: ") {
			t.Errorf("%s: error got %v want %v", tc.name, err, tc.want)
		}
	}
	_, err := SentenceBLEU("a", []string{"a"}, BLEUOptions{MaxN: 12, Weights: WeightsUniform})
	if want := "models: max_n must be between 1 and 8, got 12"; err == nil || err.Error() != want {
		t.Errorf("message got %v want %q", err, want)
	}

	opts := BLEUOptions{MaxN: 1, Weights: WeightsUniform}
	corpus := []struct {
		name  string
		cands []string
		refs  [][]string
		want  error
	}{
		{"empty corpus", nil, nil, ErrBLEUEmptyCorpus},
		{"shape", []string{"a", "b"}, [][]string{{"a"}}, ErrBLEUCorpusShape},
		{"sentence without refs", []string{"a", "b"}, [][]string{{"a"}, {}}, ErrBLEUNoReferences},
	}
	for _, tc := range corpus {
		_, err := CorpusBLEU(tc.cands, tc.refs, opts)
		if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), "models: ") {
			t.Errorf("%s: error got %v want %v", tc.name, err, tc.want)
		}
	}
}

func TestCorpusBLEU(t *testing.T) {
	opts := BLEUOptions{MaxN: 2, Weights: WeightsUniform}
	cand := "the cat the cat on the mat"
	sent := mustBLEU(t, cand, catRefs, opts)

	// one sentence, or the same sentence twice: the ratios and BP are unchanged
	for _, k := range []int{1, 2, 3} {
		cands := slices.Repeat([]string{cand}, k)
		refs := slices.Repeat([][]string{catRefs}, k)
		corp, err := CorpusBLEU(cands, refs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(corp.BLEU, sent.BLEU, 1e-15) || corp.BrevityPenalty != sent.BrevityPenalty {
			t.Errorf("%d copies: BLEU, BP got %v, %v want %v, %v", k, corp.BLEU, corp.BrevityPenalty, sent.BLEU, sent.BrevityPenalty)
		}
		if corp.CandidateLength != k*7 || corp.RefLength != k*7 || len(corp.Sentences) != k {
			t.Errorf("%d copies: c, r, sentences got %d, %d, %d want %d, %d, %d", k, corp.CandidateLength, corp.RefLength, len(corp.Sentences), 7*k, 7*k, k)
		}
	}

	// counts and lengths are sums; the score is not the mean of sentence scores
	cands := []string{"a b c d", "x y"}
	refs := [][]string{{"a b c d"}, {"x z w"}}
	corp, err := CorpusBLEU(cands, refs, opts)
	if err != nil {
		t.Fatal(err)
	}
	s1 := mustBLEU(t, cands[0], refs[0], opts)
	s2 := mustBLEU(t, cands[1], refs[1], opts)
	for n := range 2 {
		m := s1.Precisions[n].Matched + s2.Precisions[n].Matched
		tot := s1.Precisions[n].Total + s2.Precisions[n].Total
		if corp.Precisions[n].Matched != m || corp.Precisions[n].Total != tot {
			t.Errorf("p_%d got %v want matched %d total %d", n+1, corp.Precisions[n], m, tot)
		}
	}
	// p1 = 5/6, p2 = 3/4, c = 6, r = 7
	want := math.Exp(1-7.0/6) * math.Sqrt(5.0/6*3.0/4)
	if !closeTo(corp.BLEU, want, 1e-15) || s2.BLEU != 0 {
		t.Errorf("corpus BLEU got %v want %v (sentence 2 alone got %v want 0)", corp.BLEU, want, s2.BLEU)
	}
	if !slices.Equal(corp.Sentences[1].Precisions, s2.Precisions) || corp.Sentences[0].BLEU != s1.BLEU {
		t.Errorf("per-sentence results got %+v want the sentence results", corp.Sentences)
	}

	// d2l corpus: one reference each, len_label and len_pred summed
	d2l := BLEUOptions{MaxN: 2, Weights: WeightsD2L}
	corp, err = CorpusBLEU([]string{"A B", "C D"}, [][]string{{"A B C"}, {"C D E"}}, d2l)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Exp(1 - 6.0/4); !closeTo(corp.BLEU, want, 1e-15) {
		t.Errorf("d2l corpus BLEU got %v want %v", corp.BLEU, want)
	}
}

func TestBLEUTokensLowercase(t *testing.T) {
	opts := BLEUOptions{MaxN: 1, Weights: WeightsUniform, Lowercase: true}
	cand := []string{"The", "CAT"}
	res, err := SentenceBLEUTokens(cand, [][]string{{"the", "cat"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.BLEU != 1 || cand[0] != "The" {
		t.Errorf("BLEU got %v want 1, and the input unchanged (got %q)", res.BLEU, cand)
	}
}

func TestBLEUClosestRefLength(t *testing.T) {
	tests := []struct {
		c    int
		lens []int
		want int
	}{
		{5, []int{4, 6}, 4},
		{5, []int{6, 4}, 4},
		{5, []int{3, 7, 6}, 6},
		{0, []int{2, 1}, 1},
		{9, []int{9}, 9},
	}
	for _, tc := range tests {
		if got := ClosestRefLength(tc.c, tc.lens); got != tc.want {
			t.Errorf("ClosestRefLength(%d, %v) got %d want %d", tc.c, tc.lens, got, tc.want)
		}
	}
}

func FuzzBLEU(f *testing.F) {
	f.Add("the cat the cat on the mat", "the cat is on the mat", "there is a cat on the mat", uint8(2), false, false)
	f.Add("A B B C D", "A B C D E F", "", uint8(4), true, false)
	f.Add("", "x", "y", uint8(1), false, true)
	f.Fuzz(func(t *testing.T, cand, ref1, ref2 string, maxN uint8, d2l, lower bool) {
		opts := BLEUOptions{MaxN: int(maxN % (MaxBLEUOrder + 1)), Weights: WeightsUniform, Lowercase: lower}
		refs := []string{ref1, ref2}
		if d2l {
			opts.Weights = WeightsD2L
			refs = refs[:1]
		}
		res, err := SentenceBLEU(cand, refs, opts)
		if opts.MaxN == 0 {
			if err == nil {
				t.Fatalf("max_n 0 got nil error")
			}
			return
		}
		if err != nil {
			t.Fatalf("SentenceBLEU: %v", err)
		}
		if !(res.BLEU >= 0 && res.BLEU <= 1) || !(res.BrevityPenalty >= 0 && res.BrevityPenalty <= 1) {
			t.Fatalf("BLEU, BP got %v, %v want both in [0, 1]", res.BLEU, res.BrevityPenalty)
		}
		for _, p := range res.Precisions {
			if p.Matched < 0 || p.Matched > p.Total {
				t.Fatalf("precision %+v out of range", p)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("json: %v", err)
		}
	})
}

// TestBLEURefSpansCapped: a credited n-gram lists its place in at most MaxNGramRefSpans
// references (the first ones), while its clip and the precisions count every reference.
func TestBLEURefSpansCapped(t *testing.T) {
	refs := slices.Repeat([]string{"x a b"}, MaxNGramRefSpans+5)
	refs = append(refs, "a b a b") // the only reference with two "a b", past the cap
	res := mustBLEU(t, "a b a b", refs, BLEUOptions{MaxN: 2, Weights: WeightsUniform})
	for _, g := range res.NGrams {
		if len(g.Refs) > MaxNGramRefSpans {
			t.Errorf("%d-gram at %d lists %d references, want at most %d", g.N, g.Start, len(g.Refs), MaxNGramRefSpans)
		}
		if g.Start == 0 { // "a", "a b": in every reference; the first 16 are listed, in order
			if len(g.Refs) != MaxNGramRefSpans || g.Refs[0].Ref != 0 || g.Refs[MaxNGramRefSpans-1].Ref != MaxNGramRefSpans-1 {
				t.Errorf("%d-gram at 0 lists %+v, want references 0 to %d", g.N, g.Refs, MaxNGramRefSpans-1)
			}
		}
	}
	if p := res.Precisions[0]; p.Matched != 4 || p.Total != 4 {
		t.Errorf("p_1 = %+v, want 4/4: the last reference, past the cap, still clips", p)
	}
	if g := res.NGrams[2]; g.Start != 2 || !g.Credited || len(g.Refs) != 1 || g.Refs[0].Ref != MaxNGramRefSpans+5 {
		t.Errorf("second \"a\" got %+v, want credited by the last reference", g)
	}
}

// TestCorpusBLEUListsNoNGrams: the corpus form's sentences carry their scores but no
// n-gram listing (an empty list, as in the corpus total).
func TestCorpusBLEUListsNoNGrams(t *testing.T) {
	corp, err := CorpusBLEU([]string{"the cat the cat on the mat", "a b"}, [][]string{catRefs, {"a b"}}, BLEUOptions{MaxN: 2, Weights: WeightsUniform})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(corp)
	if got := strings.Count(string(b), `"ngrams":[]`); got != 3 {
		t.Errorf(`got %d "ngrams":[] in %s, want 3 (the total and both sentences)`, got, b)
	}
	sent := mustBLEU(t, "the cat the cat on the mat", catRefs, BLEUOptions{MaxN: 2, Weights: WeightsUniform})
	if s := corp.Sentences[0]; s.BLEU != sent.BLEU || !slices.Equal(s.Precisions, sent.Precisions) {
		t.Errorf("sentence 1 got %+v, want the sentence score %v", s, sent.BLEU)
	}
}
