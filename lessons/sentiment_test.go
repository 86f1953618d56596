package lessons

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"unroll/data"
	"unroll/models"
	"unroll/zoo"
)

// sentimentScores recomputes both models' held-out accuracies from the shipped file.
func sentimentScores(t *testing.T) zoo.SentimentScores {
	t.Helper()
	m, _, err := zoo.SharedSentiment()
	if err != nil {
		t.Fatal(err)
	}
	return m.Score(data.ReviewEvalSet())
}

// TestSentimentFacts: the page's held-out accuracies are the checkpoint's, and
// recomputing them on the held-out reviews gives the same numbers.
func TestSentimentFacts(t *testing.T) {
	pm, err := sentimentLesson.Model(sentimentLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]any{}
	for _, f := range pm.Static().Facts {
		facts[f.Label] = f.Value
	}
	s := sentimentScores(t)
	for label, want := range map[string]float64{
		"held-out accuracy, average, without “not”": s.AvgPlain,
		"held-out accuracy, average, with “not”":    s.AvgNegated,
		"held-out accuracy, GRU, without “not”":     s.RNNPlain,
		"held-out accuracy, GRU, with “not”":        s.RNNNegated,
	} {
		if got, ok := facts[label].(float64); !ok || got != want {
			t.Errorf("fact %q: got %v want %v (recomputed)", label, facts[label], want)
		}
	}
}

// TestSentimentDocs: docs/lessons.md's table states the recomputed accuracies.
func TestSentimentDocs(t *testing.T) {
	raw, err := os.ReadFile("../docs/lessons.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	s := sentimentScores(t)
	for _, row := range []string{
		fmt.Sprintf("| model | without \"not\" (%d reviews) | with \"not\" (%d) | all (%d) |", s.Plain, s.Negated, s.Plain+s.Negated),
		fmt.Sprintf("| average of embeddings | %.3f | %.3f | %.3f |", s.AvgPlain, s.AvgNegated, s.Avg),
		fmt.Sprintf("| GRU, many-to-one      | %.3f | %.3f | %.3f |", s.RNNPlain, s.RNNNegated, s.RNN),
	} {
		if !strings.Contains(doc, row) {
			t.Errorf("docs/lessons.md has no row %q", row)
		}
	}
}

// TestSentimentContrast holds the page's prose (seed 003: sentiment classification
// with the average of embeddings vs a many-to-one RNN): the average model calls "not
// good" positive and "not bad at all" negative, gives "good , not bad" and "bad , not
// good" the same answer, and the GRU gets every example of the table right.
func TestSentimentContrast(t *testing.T) {
	m, _, err := zoo.SharedSentiment()
	if err != nil {
		t.Fatal(err)
	}
	read := func(text string) zoo.SentimentRun {
		ids, err := data.ParseReview(text)
		if err != nil {
			t.Fatal(err)
		}
		return m.Read(ids)
	}
	if p := read("not good").AvgNow[data.ReviewPositive]; p <= 0.5 {
		t.Errorf("average P(positive | not good) = %v, the prose says it comes out positive", p)
	}
	if p := read("not bad at all").AvgNow[data.ReviewPositive]; p >= 0.5 {
		t.Errorf("average P(positive | not bad at all) = %v, want < 0.5", p)
	}
	a, b := read("good , not bad").AvgNow, read("bad , not good").AvgNow
	if math.Abs(a[1]-b[1]) > 1e-12 {
		t.Errorf("average P(positive): good , not bad %v; bad , not good %v; want the same", a[1], b[1])
	}
	for _, text := range sentimentExamples {
		ids, _ := data.ParseReview(text)
		label, _, ok := data.ReviewLabelOf(ids)
		if !ok {
			t.Fatalf("example %q is not a review of the grammar", text)
		}
		if got := models.Argmax(m.Read(ids).RNNNow); got != label {
			t.Errorf("GRU on %q: got %s want %s", text, data.ReviewClasses[got], data.ReviewClasses[label])
		}
	}
}

// TestSentimentRefuses: a word outside the vocabulary is refused naming the nearest
// known word, a review longer than the page takes is refused, and a review of known
// words outside the grammar is shown without a right answer.
func TestSentimentRefuses(t *testing.T) {
	for text, part := range map[string]string{
		"the film is goood":           `closest in spelling: "good"`,
		strings.Repeat("good ", 17):   "at most 16",
		"   ":                         "at least one word",
		"the film is nice but boring": `"but" is not one of them`,
	} {
		v := sentimentLesson.Params.Defaults()
		v["review"] = text
		if _, err := sentimentLesson.Build(v); err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("%q: got error %v, want one containing %s", text, err, part)
		}
	}
	v := sentimentLesson.Params.Defaults()
	v["review"] = "good , bad"
	sm, err := sentimentLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := sm.Static().Meta["label"]; !strings.HasPrefix(got.(string), "not a review of the grammar") {
		t.Errorf("label of good , bad: got %v", got)
	}
}

// TestSentimentTrainFromScratch: the page's Train runs the recipe's two phases: E
// and the average model first, then the GRU with E frozen, which then reads
// negation far better than the average on the held-out reviews.
func TestSentimentTrainFromScratch(t *testing.T) {
	sm, err := sentimentLesson.Build(sentimentLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	m := sm.(*sentimentModel)
	var e0 []float64
	for i := range 2500 {
		f, err := m.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		want := "average"
		if i >= 1500 {
			want = "GRU"
		}
		if f.Meta["phase"] != want {
			t.Fatalf("step %d: phase %v want %s", i+1, f.Meta["phase"], want)
		}
		if i == 1499 {
			e0 = append([]float64(nil), m.m.E.E.Value.RawMatrix().Data...)
		}
	}
	if e := m.m.E.E.Value.RawMatrix().Data; !slices.Equal(e, e0) {
		t.Error("E changed during the GRU phase; it should be frozen")
	}
	s := m.heldOut()
	if s.RNNNegated < s.AvgNegated+0.3 || s.AvgPlain < 0.9 {
		t.Errorf("after 2500 steps: held-out accuracy with \"not\" GRU %v, average %v; average without %v", s.RNNNegated, s.AvgNegated, s.AvgPlain)
	}
	if got := m.Static().Meta["held_out_rnn_negated"]; got != s.RNNNegated {
		t.Errorf("the page's fact %v is not the measured %v", got, s.RNNNegated)
	}
}
