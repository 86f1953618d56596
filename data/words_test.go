package data

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestSkipGramPairs(t *testing.T) {
	cases := []struct {
		ids    []int
		window int
		want   [][2]int
	}{
		{[]int{1, 2, 3}, 1, [][2]int{{1, 2}, {2, 1}, {2, 3}, {3, 2}}},
		{[]int{1, 2, 3}, 2, [][2]int{{1, 2}, {1, 3}, {2, 1}, {2, 3}, {3, 1}, {3, 2}}},
		{[]int{7, 8}, 4, [][2]int{{7, 8}, {8, 7}}},
	}
	for _, tc := range cases {
		if got := SkipGramPairs(tc.ids, tc.window); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SkipGramPairs(%v, %d): got %v want %v", tc.ids, tc.window, got, tc.want)
		}
	}
}

func TestWords(t *testing.T) {
	c := Words()
	if len(c.Words) < 200 {
		t.Errorf("vocabulary: got %d words want ≥ 200", len(c.Words))
	}
	for i := 1; i < len(c.Counts); i++ {
		if c.Counts[i] > c.Counts[i-1] {
			t.Fatalf("word %d (%s) is more frequent than word %d: not sorted by frequency", i, c.Words[i], i-1)
		}
	}
	for _, w := range []string{".", "?", "!"} {
		if _, ok := c.Index[w]; ok {
			t.Errorf("punctuation %q is in the vocabulary", w)
		}
	}
	for w, class := range map[string]int{"she": classPronoun, "girl": classPerson, "dog": classAnimal, "milk": classFood,
		"car": classThing, "drinks": classVerb, "happy": classAdjective, "the": ClassFunction} {
		if got := c.Class[c.Index[w]]; got != class {
			t.Errorf("class of %q: got %s want %s", w, WordClasses[got], WordClasses[class])
		}
	}
	batch := c.Batch(rand.New(rand.NewPCG(1, 0x7a1)), 50, 2, 3)
	for _, ex := range batch {
		if len(ex.Negatives) != 3 {
			t.Fatalf("got %d negatives want 3", len(ex.Negatives))
		}
	}
}
