package data

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseBlank(t *testing.T) {
	for _, c := range []struct {
		text    string
		want    []string // the words read, or nil for an error
		errPart string
	}{
		{"i am ___ hungry.", []string{"i", "am", blankToken, "hungry", "."}, ""},
		{"She is _ to see you go .", []string{"she", "is", blankToken, "to", "see", "you", "go", "."}, ""},
		{"i am hungry .", nil, "exactly one blank"},
		{"i am ___ ___ .", nil, "exactly one blank"},
		{"i am ___ starving .", nil, `"starving"`},
	} {
		ids, err := ParseBlank(c.text)
		if c.want == nil {
			if err == nil || !strings.Contains(err.Error(), c.errPart) {
				t.Errorf("%q: got error %v want one mentioning %s", c.text, err, c.errPart)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: got error %v", c.text, err)
			continue
		}
		var got []string
		for _, id := range ids {
			got = append(got, BlankVocab[id])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q want %q", c.text, got, c.want)
		}
	}
}

// TestBlankSplit: no held-out sentence is ever drawn for training, every held-out
// left context occurs there with different answers (so it cannot decide), and
// BlankAnswerOf recovers each sentence's answer.
func TestBlankSplit(t *testing.T) {
	set := BlankEvalSet()
	held := map[string]bool{}
	answersOf := map[string]map[int]bool{}
	for _, s := range set {
		held[key(s.IDs)] = true
		left := key(s.IDs[:s.Blank])
		if answersOf[left] == nil {
			answersOf[left] = map[int]bool{}
		}
		answersOf[left][s.Answer] = true
		if got := BlankAnswerOf(s.IDs, s.Blank); got != s.Answer {
			t.Errorf("BlankAnswerOf %v: got %d want %d", s.IDs, got, s.Answer)
		}
	}
	for left, as := range answersOf {
		if len(as) < 2 {
			t.Errorf("left context %s has only the answers %v among held-out sentences, want ≥ 2", left, as)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 2000 {
		if s := DrawBlankSentence(rng); held[key(s.IDs)] {
			t.Fatalf("a held-out sentence %v was drawn for training", s.IDs)
		}
	}
}

func key(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(BlankVocab[id] + " ")
	}
	return b.String()
}
