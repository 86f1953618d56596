package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// featureWords and featureTable are the lecture's featurised representation (lecture
// 003: gender, royal, age, food for man, woman, king, queen), with apple and orange
// added: one column per word here is one row of E.
var featureWords = []string{"man", "woman", "king", "queen", "apple", "orange"}

var featureTable = mat.NewDense(6, 4, []float64{
	// gender royal age  food
	-1, 0.01, 0.01, 0.03, // man
	1, 0.02, 0.01, 0.04, // woman
	-0.99, 0.97, 0.78, 0.04, // king
	0.99, 0.96, 0.77, 0.02, // queen
	0.00, -0.01, 0.03, 0.95, // apple
	0.01, 0.00, -0.02, 0.97, // orange
})

func wordIndex(t *testing.T, w string) int {
	t.Helper()
	for i, x := range featureWords {
		if x == w {
			return i
		}
	}
	t.Fatalf("no word %q", w)
	return -1
}

func TestAnalogyFeatureTable(t *testing.T) {
	cases := []struct{ a, b, c, want string }{
		{"man", "woman", "king", "queen"}, // the lecture's example
		{"woman", "man", "queen", "king"},
		{"king", "queen", "man", "woman"},
	}
	for _, tc := range cases {
		got := Analogy(featureTable, wordIndex(t, tc.a), wordIndex(t, tc.b), wordIndex(t, tc.c), 1)
		if featureWords[got[0].Word] != tc.want {
			t.Errorf("%s → %s as %s → ?: got %s want %s", tc.a, tc.b, tc.c, featureWords[got[0].Word], tc.want)
		}
	}
	// The lecture's vectors: e_man − e_woman ≈ [−2 0 0 0] ≈ e_king − e_queen.
	diff := func(a, b string) []float64 {
		u := append([]float64(nil), featureTable.RawRowView(wordIndex(t, a))...)
		for i, x := range featureTable.RawRowView(wordIndex(t, b)) {
			u[i] -= x
		}
		return u
	}
	for i, want := range []float64{-2, 0, 0, 0} {
		for _, pair := range [][2]string{{"man", "woman"}, {"king", "queen"}} {
			if got := diff(pair[0], pair[1])[i]; math.Abs(got-want) > 0.03 {
				t.Errorf("(e_%s − e_%s)[%d]: got %g want %g ± 0.03", pair[0], pair[1], i, got, want)
			}
		}
	}
	// king − man + woman = [1.01 0.98 0.78 0.05]: cosine with queen 0.9998 to 4 places.
	q := AnalogyVector(featureTable, wordIndex(t, "man"), wordIndex(t, "woman"), wordIndex(t, "king"))
	for i, want := range []float64{1.01, 0.98, 0.78, 0.05} {
		if math.Abs(q[i]-want) > 1e-9 {
			t.Errorf("king − man + woman [%d]: got %.12g want %g", i, q[i], want)
		}
	}
	best := Analogy(featureTable, wordIndex(t, "man"), wordIndex(t, "woman"), wordIndex(t, "king"), 3)
	if len(best) != 3 {
		t.Fatalf("got %d answers want 3", len(best))
	}
	for _, n := range best {
		if w := featureWords[n.Word]; w == "man" || w == "woman" || w == "king" {
			t.Errorf("the answer lists the query word %s", w)
		}
	}
	if c := best[0].Cosine; math.Abs(c-0.99980) > 5e-5 {
		t.Errorf("sim(queen, king − man + woman): got %.6f want 0.99980 ± 5e-5", c)
	}
}

func TestCosine(t *testing.T) {
	cases := []struct {
		name string
		u, v []float64
		want float64
	}{
		{"one-hot vectors of two words", []float64{0, 1, 0, 0}, []float64{0, 0, 0, 1}, 0},
		{"a one-hot vector with itself", []float64{0, 1, 0, 0}, []float64{0, 1, 0, 0}, 1},
		{"same direction", []float64{1, 2, 3}, []float64{2, 4, 6}, 1},
		{"opposite", []float64{1, -2}, []float64{-1, 2}, -1},
		{"45 degrees", []float64{1, 0}, []float64{1, 1}, 1 / math.Sqrt2},
		{"zero vector", []float64{0, 0}, []float64{1, 1}, 0},
	}
	for _, tc := range cases {
		if got := Cosine(tc.u, tc.v); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: got %.15g want %.15g", tc.name, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	queen := wordIndex(t, "queen")
	got := Nearest(featureTable, featureTable.RawRowView(queen), 6)
	if got[0].Word != queen || math.Abs(got[0].Cosine-1) > 1e-12 {
		t.Errorf("nearest to queen: got %s (%g) want queen itself (1)", featureWords[got[0].Word], got[0].Cosine)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Cosine > got[i-1].Cosine {
			t.Errorf("rank %d: cosine %g above rank %d's %g", i, got[i].Cosine, i-1, got[i-1].Cosine)
		}
	}
	got = Nearest(featureTable, featureTable.RawRowView(wordIndex(t, "apple")), 1, wordIndex(t, "apple"))
	if w := featureWords[got[0].Word]; w != "orange" {
		t.Errorf("nearest to apple but apple: got %s want orange", w)
	}
	if n := len(Nearest(featureTable, featureTable.RawRowView(0), 100)); n != 6 {
		t.Errorf("k larger than V: got %d neighbours want 6", n)
	}
}

// TestSkipGramGradient checks Backward against central finite differences of Loss on
// random models and batches, repeated words included.
func TestSkipGramGradient(t *testing.T) {
	cases := []struct {
		vocab, dim, batch, k int
		seed                 uint64
	}{
		{5, 3, 1, 1, 1},
		{7, 4, 4, 3, 2},
		{4, 6, 6, 5, 3}, // a small vocabulary: words repeat within examples
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(tc.seed, 1))
		m := NewSkipGram(tc.vocab, tc.dim, rng)
		m.E.Uniform(1, rng) // larger than the initial scale, so σ is not ≈ ½ everywhere
		m.Theta.Uniform(1, rng)
		batch := make([]SkipGramExample, tc.batch)
		for i := range batch {
			ex := SkipGramExample{Centre: rng.IntN(tc.vocab), Context: rng.IntN(tc.vocab)}
			for range tc.k {
				ex.Negatives = append(ex.Negatives, rng.IntN(tc.vocab))
			}
			batch[i] = ex
		}
		m.Params().ZeroGrad()
		if _, err := m.Backward(batch); err != nil {
			t.Fatal(err)
		}
		loss := func() float64 { l, _ := m.Loss(batch); return l }
		for _, p := range m.Params() {
			want := numericGrad(p.Value, loss, 1e-6)
			if msg := gradMismatch(p.Name, p.Grad, want, 1e-6, 1e-9); msg != "" {
				t.Errorf("V=%d d=%d B=%d k=%d: %s", tc.vocab, tc.dim, tc.batch, tc.k, msg)
			}
		}
	}
}

func TestSkipGramLoss(t *testing.T) {
	m := NewSkipGram(3, 2, rand.New(rand.NewPCG(1, 1)))
	// Theta starts at zero: every σ is ½ and L = (1 + k) log 2.
	for _, k := range []int{0, 1, 5} {
		l, err := m.Loss([]SkipGramExample{{Centre: 0, Context: 1, Negatives: make([]int, k)}})
		if err != nil {
			t.Fatal(err)
		}
		if want := float64(1+k) * math.Ln2; math.Abs(l-want) > 1e-12 {
			t.Errorf("k=%d at Θ = 0: got %.15g want %.15g", k, l, want)
		}
	}
	if _, err := m.Loss(nil); err == nil || !strings.HasPrefix(err.Error(), "models: ") {
		t.Errorf("empty batch: got %v want a models: error", err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("word id 3 of a 3-word vocabulary: got no panic")
		}
	}()
	_, _ = m.Loss([]SkipGramExample{{Centre: 3, Context: 0}})
}

// TestSkipGramLearns: Adam on one positive pair and fixed negatives drives σ(θ_tᵀ e_c)
// towards 1 and the negatives' scores towards 0.
func TestSkipGramLearns(t *testing.T) {
	m := NewSkipGram(6, 8, rand.New(rand.NewPCG(1, 1)))
	batch := []SkipGramExample{{Centre: 0, Context: 1, Negatives: []int{2, 3, 4}}}
	opt := NewAdam(0.05)
	for range 200 {
		m.Params().ZeroGrad()
		if _, err := m.Backward(batch); err != nil {
			t.Fatal(err)
		}
		opt.Step(m.Params())
	}
	if s := m.Score(0, 1); s < 0.95 {
		t.Errorf("σ(θ_1ᵀ e_0) after training: got %.4f want ≥ 0.95", s)
	}
	for _, n := range []int{2, 3, 4} {
		if s := m.Score(0, n); s > 0.05 {
			t.Errorf("σ(θ_%dᵀ e_0) after training: got %.4f want ≤ 0.05", n, s)
		}
	}
}

func TestNegativeSampler(t *testing.T) {
	counts := []float64{16, 1, 0, 81}
	s, err := NewNegativeSampler(counts, UnigramPower)
	if err != nil {
		t.Fatal(err)
	}
	// 16^¾ = 8, 1^¾ = 1, 0, 81^¾ = 27: P = 8/36, 1/36, 0, 27/36.
	want := []float64{8.0 / 36, 1.0 / 36, 0, 27.0 / 36}
	for w, p := range want {
		if got := s.Prob(w); math.Abs(got-p) > 1e-12 {
			t.Errorf("P(%d): got %.15g want %.15g", w, got, p)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	const draws = 200000
	seen := make([]float64, len(counts))
	for range draws {
		seen[s.Draw(rng)]++
	}
	for w, p := range want {
		// 5 standard deviations of a binomial share
		if tol := 5 * math.Sqrt(p*(1-p)/draws); math.Abs(seen[w]/draws-p) > tol+1e-12 {
			t.Errorf("share of %d: got %.4f want %.4f ± %.4f", w, seen[w]/draws, p, tol)
		}
	}
	for _, n := range s.Negatives(rng, 50, 0) {
		if n == 0 || n == 2 {
			t.Errorf("negatives for context 0: drew %d", n)
		}
	}
	for _, bad := range [][]float64{nil, {0, 0}, {1, -1}, {math.NaN()}} {
		if _, err := NewNegativeSampler(bad, UnigramPower); err == nil {
			t.Errorf("counts %v: got no error", bad)
		}
	}
}

// BenchmarkSkipGramBackward is one minibatch of the embeddings lesson's size:
// 128 examples with k = 5 negatives over 262 words of d = 32.
func BenchmarkSkipGramBackward(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := NewSkipGram(262, 32, rng)
	m.Theta.Uniform(0.1, rng)
	batch := make([]SkipGramExample, 128)
	for i := range batch {
		batch[i] = SkipGramExample{Centre: rng.IntN(262), Context: rng.IntN(262), Negatives: []int{rng.IntN(262), rng.IntN(262), rng.IntN(262), rng.IntN(262), rng.IntN(262)}}
	}
	for b.Loop() {
		m.Params().ZeroGrad()
		if _, err := m.Backward(batch); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSoftmaxObjective (seed 003): P(t | c) = exp(θ_tᵀ e_c) / Σ_w exp(θ_wᵀ e_c) sums
// to one over the vocabulary, and its normaliser is the sum of V terms written out.
func TestSoftmaxObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := NewSkipGram(7, 3, rng)
	m.Theta.Uniform(1, rng)
	for c := range m.Vocab() {
		sum := 0.0
		for w := range m.Vocab() {
			sum += m.SoftmaxProb(c, w)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("c = %d: Σ_t P(t | c) = %v want 1", c, sum)
		}
		z := 0.0
		for w := range m.Vocab() {
			s := 0.0
			for j := range m.Dim() {
				s += m.Theta.Value.At(w, j) * m.E.Value.At(c, j)
			}
			z += math.Exp(s)
		}
		if got := m.SoftmaxNormaliser(c); math.Abs(got-z) > 1e-12*z {
			t.Errorf("c = %d: normaliser got %v want %v", c, got, z)
		}
	}
}

// TestHuffmanCodeLengths (seed 003: hierarchical softmax puts common words near the
// top of a Huffman tree): a worked example, equal counts give a balanced tree,
// Kraft's equality Σ 2^−depth = 1 holds, and the mean depth lies within one bit of
// the entropy of the counts.
func TestHuffmanCodeLengths(t *testing.T) {
	if got := HuffmanCodeLengths([]float64{1, 1, 2, 4}); !slices.Equal(got, []int{3, 3, 2, 1}) {
		t.Errorf("counts 1, 1, 2, 4: got %v want [3 3 2 1]", got)
	}
	if got := HuffmanCodeLengths(slices.Repeat([]float64{5}, 8)); !slices.Equal(got, slices.Repeat([]int{3}, 8)) {
		t.Errorf("8 equal counts: got %v want all 3", got)
	}
	if got := HuffmanCodeLengths([]float64{2}); !slices.Equal(got, []int{0}) {
		t.Errorf("one word: got %v want [0]", got)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	counts := make([]float64, 300)
	for i := range counts {
		counts[i] = float64(1 + rng.IntN(1000)/(1+i))
	}
	depth := HuffmanCodeLengths(counts)
	kraft, total, entropy := 0.0, 0.0, 0.0
	for _, d := range depth {
		kraft += math.Pow(2, -float64(d))
	}
	for _, f := range counts {
		total += f
	}
	for _, f := range counts {
		entropy -= f / total * math.Log2(f/total)
	}
	if math.Abs(kraft-1) > 1e-12 {
		t.Errorf("Σ 2^−depth = %v want 1", kraft)
	}
	if mean := MeanCodeLength(counts, depth); mean < entropy || mean >= entropy+1 {
		t.Errorf("mean depth %v not in [H, H+1) = [%v, %v)", mean, entropy, entropy+1)
	}
}
