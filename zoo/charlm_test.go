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
