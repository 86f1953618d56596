package zoo

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"unroll/data"
	"unroll/internal/machine"
)

func TestCharCheckpoint(t *testing.T) {
	m, err := loadCharLM()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := checkpointFS.ReadFile("checkpoints/" + charCheckpointFile)
	meta := readMeta(t, raw)
	got := m.BitsPerChar()
	machine.CheckRecorded(t, "bits per character", got, meta.Float("bits_per_char"), machine.RecordedSmooth)
	// A uniform guess over the vocabulary costs log₂ V bits; the trained model must do far better.
	if limit := math.Log2(float64(len(data.CharVocab))) / 4; got > limit {
		t.Errorf("bits per character: got %v want ≤ %v", got, limit)
	}
}

func TestCharGenerate(t *testing.T) {
	m, err := loadCharLM()
	if err != nil {
		t.Fatal(err)
	}
	prompt, _ := charIDs("the ")
	_, a := m.Generate(prompt, 80, 0.5, rand.New(rand.NewPCG(1, 1)))
	_, b := m.Generate(prompt, 80, 0.5, rand.New(rand.NewPCG(1, 1)))
	var text strings.Builder
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("sample %d: same seed gave %q and %q", i, data.CharVocab[a[i]], data.CharVocab[b[i]])
		}
		text.WriteString(data.CharVocab[a[i]])
	}
	// At a low temperature the model writes the corpus's words.
	words := strings.Fields(strings.NewReplacer(".", " ", ",", " ").Replace(text.String()))
	known := 0
	for _, w := range words {
		if strings.Contains(data.CharCorpus, " "+w+" ") {
			known++
		}
	}
	if len(words) == 0 || float64(known) < 0.8*float64(len(words)) {
		t.Errorf("τ = 0.5 sample %q: got %d of %d words from the corpus, want ≥ 80%%", text.String(), known, len(words))
	}
	t.Logf("τ = 0.5 sample after %q: %q", "the ", text.String())
}

// charIDs is text's character ids (every character of text in data.CharVocab), and a nil error.
func charIDs(text string) ([]int, error) {
	var ids []int
	for _, r := range text {
		ids = append(ids, data.CharID(string(r)))
	}
	return ids, nil
}

// sampleStats is the share of distinct character 4-grams among a sample's 4-grams and
// the empirical entropy of its characters in bits.
func sampleStats(ids []int) (distinct4, entropy float64) {
	seen := map[[4]int]bool{}
	for i := 0; i+4 <= len(ids); i++ {
		seen[[4]int(ids[i:i+4])] = true
	}
	count := map[int]float64{}
	for _, id := range ids {
		count[id]++
	}
	for _, c := range count {
		p := c / float64(len(ids))
		entropy -= p * math.Log2(p)
	}
	return float64(len(seen)) / float64(len(ids)-3), entropy
}

// TestCharTemperatureMatters: the bundled model has not learned its text by heart, so
// the temperature changes what it writes, measurably: at τ = 1.5 a long sample has a
// far larger share of distinct 4-grams and a higher character entropy than at τ = 0.5,
// and τ = 0.1 and τ = 0.8 do not write the same text. (The model of the old corpus of
// about 650 characters wrote it back nearly verbatim at 0.1 and 0.8: its distinct-4-gram
// shares were 0.08 and 0.12, at 0.5 and 1.5 0.13 and 0.25, its entropies 3.88 and 3.91.)
func TestCharTemperatureMatters(t *testing.T) {
	m, err := SharedCharLM()
	if err != nil {
		t.Fatal(err)
	}
	prompt, _ := charIDs("the sea ")
	const n = 2000
	stats := map[float64][2]float64{}
	texts := map[float64]string{}
	for _, tau := range []float64{0.1, 0.5, 0.8, 1.5} {
		_, gen := m.Generate(prompt, n, tau, rand.New(rand.NewPCG(7, 7)))
		d, h := sampleStats(gen)
		stats[tau] = [2]float64{d, h}
		var s strings.Builder
		for _, id := range gen {
			s.WriteString(data.CharVocab[id])
		}
		texts[tau] = s.String()
		t.Logf("τ = %v: distinct 4-grams %.3f, entropy %.3f bits: %q", tau, d, h, texts[tau][:80])
	}
	if d := stats[1.5][0] - stats[0.5][0]; d < 0.2 {
		t.Errorf("distinct 4-gram share: τ = 1.5 %.3f, τ = 0.5 %.3f, a gap of %.3f, want ≥ 0.2", stats[1.5][0], stats[0.5][0], d)
	}
	if d := stats[1.5][1] - stats[0.5][1]; d < 0.07 {
		t.Errorf("character entropy: τ = 1.5 %.3f bits, τ = 0.5 %.3f, a gap of %.3f, want ≥ 0.07", stats[1.5][1], stats[0.5][1], d)
	}
	// at 0.1 it keeps to a few phrases and repeats itself
	if stats[0.1][0] > 0.15 {
		t.Errorf("τ = 0.1: distinct 4-gram share %.3f, want ≤ 0.15 (a sample that repeats itself)", stats[0.1][0])
	}
	// above 1, more misspelt words: words the corpus never has
	known := map[string]bool{}
	for _, w := range strings.Fields(strings.NewReplacer(".", " ", ",", " ").Replace(data.CharCorpus)) {
		known[w] = true
	}
	misspelt := func(text string) float64 {
		words := strings.Fields(strings.NewReplacer(".", " ", ",", " ").Replace(text))
		bad := 0
		for _, w := range words {
			if !known[w] {
				bad++
			}
		}
		return float64(bad) / float64(len(words))
	}
	if lo, hi := misspelt(texts[0.5]), misspelt(texts[1.5]); hi < lo+0.2 {
		t.Errorf("share of words the corpus lacks: τ = 0.5 %.3f, τ = 1.5 %.3f, want ≥ 0.2 more at 1.5", lo, hi)
	} else {
		t.Logf("share of words the corpus lacks: τ = 0.5 %.3f, τ = 1.5 %.3f", lo, hi)
	}
	if d := stats[0.8][0] - stats[0.1][0]; d < 0.2 || texts[0.8][:100] == texts[0.1][:100] {
		t.Errorf("τ = 0.1 and τ = 0.8: distinct 4-gram shares %.3f and %.3f (want a gap ≥ 0.2), first 100 characters equal: %v", stats[0.1][0], stats[0.8][0], texts[0.8][:100] == texts[0.1][:100])
	}
}

// TestCharLossIsNLL (seeds 002 and 003): the loss the model trains on is the negative
// log-likelihood of the text under the factorisation P(x_2 … x_T | x_1) =
// ∏ P(x_{t+1} | x_1 … x_t): MeanNLL (TrainStep's computation) equals minus the log of
// the product of Run's P entries of the characters that came next, over T − 1. And the
// sampling distribution softmax(O_t / τ) is the model's P sharpened or flattened:
// softmax(log P / τ), equal to P at τ = 1.
func TestCharLossIsNLL(t *testing.T) {
	m, err := SharedCharLM()
	if err != nil {
		t.Fatal(err)
	}
	ids := data.CharCorpusIDs[1000:1100]
	for _, tau := range []float64{0.5, 1, 2} {
		steps := m.Run(ids[:len(ids)-1], tau)
		logProduct := 0.0
		for i, st := range steps {
			logProduct += math.Log(st.Probs[ids[i+1]])
			sum := 0.0
			for k, p := range st.Probs {
				sum += p
				want := math.Exp(math.Log(p) / tau)
				norm := 0.0
				for _, q := range st.Probs {
					norm += math.Exp(math.Log(q) / tau)
				}
				if got := st.Tau[k]; math.Abs(got-want/norm) > 1e-9 {
					t.Fatalf("τ = %v, step %d, entry %d: softmax(O_t/τ) = %v want softmax(log P/τ) = %v", tau, i+1, k, got, want/norm)
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("τ = %v, step %d: P sums to %v", tau, i+1, sum)
			}
		}
		if got, want := m.MeanNLL(ids), -logProduct/float64(len(ids)-1); math.Abs(got-want) > 1e-9 {
			t.Errorf("τ = %v: the training loss on the text is %v, −log ∏ P / (T − 1) is %v", tau, got, want)
		}
	}
}

// TestCharCorpusSize: the text the model learns is far larger than the model (about
// 60 000 characters, some 20 times its parameters), so it cannot be learned by heart,
// and every letter a–z occurs in it.
func TestCharCorpusSize(t *testing.T) {
	n, params := len(data.CharCorpus), NewCharLM(0).Params().Count()
	if n < 55000 || n > 65000 || n < 15*params {
		t.Errorf("corpus of %d characters for %d parameters: want about 60 000, ≥ 15 × the parameters", n, params)
	}
	for r := 'a'; r <= 'z'; r++ {
		if data.CharID(string(r)) < 0 {
			t.Errorf("the corpus has no %q", r)
		}
	}
}
