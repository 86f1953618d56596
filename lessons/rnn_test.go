package lessons

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCharCheckpoint(t *testing.T) {
	m, err := LoadCharLM()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := checkpointFS.ReadFile("checkpoints/" + CharCheckpointFile)
	meta := readMeta(t, raw)
	got, want := m.BitsPerChar(), metaFloat(meta, "bits_per_char")
	if got != want {
		t.Errorf("bits per character: got %v want the recorded %v", got, want)
	}
	// A uniform guess over the vocabulary costs log₂ V bits; the trained model must do far better.
	if limit := math.Log2(float64(len(CharVocab))) / 4; got > limit {
		t.Errorf("bits per character: got %v want ≤ %v", got, limit)
	}
}

func TestCharGenerate(t *testing.T) {
	m, err := LoadCharLM()
	if err != nil {
		t.Fatal(err)
	}
	prompt, _ := ParsePrompt("the ")
	_, a := m.Generate(prompt, 80, 0.5, rand.New(rand.NewPCG(1, 1)))
	_, b := m.Generate(prompt, 80, 0.5, rand.New(rand.NewPCG(1, 1)))
	var text strings.Builder
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("sample %d: same seed gave %q and %q", i, CharVocab[a[i]], CharVocab[b[i]])
		}
		text.WriteString(CharVocab[a[i]])
	}
	// At a low temperature the model writes the corpus's words.
	words := strings.Fields(strings.NewReplacer(".", " ", ",", " ").Replace(text.String()))
	known := 0
	for _, w := range words {
		if strings.Contains(CharCorpus, " "+w+" ") {
			known++
		}
	}
	if len(words) == 0 || float64(known) < 0.8*float64(len(words)) {
		t.Errorf("τ = 0.5 sample %q: got %d of %d words from the corpus, want ≥ 80%%", text.String(), known, len(words))
	}
	t.Logf("τ = 0.5 sample after %q: %q", "the ", text.String())
}

func TestParsePrompt(t *testing.T) {
	if ids, err := ParsePrompt("The Sea"); err != nil || len(ids) != 7 {
		t.Errorf("ParsePrompt(%q): got %v, %v want 7 ids (lowercased)", "The Sea", ids, err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "the prompt is empty"},
		{"hello!", `"!" is not one of them`},
		{"3 cats", `"3" is not one of them`},
		{strings.Repeat("a", charMaxPrompt+1), "at most 40"},
	} {
		_, err := ParsePrompt(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePrompt(%q): got %v want an error containing %q", c.in, err, c.want)
		}
	}
}

func TestCharTrainFromScratch(t *testing.T) {
	build := func() *rnnModel {
		m, err := rnnLesson.Build(rnnLesson.Params.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		return m.(*rnnModel)
	}
	a, b := build(), build()
	var first, last float64
	const steps = 100
	for i := range steps {
		fa, err := a.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := b.TrainStep()
		la, lb := fa.Meta["loss"].(float64), fb.Meta["loss"].(float64)
		if la != lb {
			t.Fatalf("train step %d: same seed gave losses %v and %v", i+1, la, lb)
		}
		if i == 0 {
			first = la
		}
		last = la
	}
	if last > 0.75*first {
		t.Errorf("loss after %d steps: got %v want ≤ 0.75 × the first (%v)", steps, last, first)
	}
	if a.Static().Meta["generated"] != b.Static().Meta["generated"] {
		t.Errorf("same seed, same training: different samples")
	}
}
