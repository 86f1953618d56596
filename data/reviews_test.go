package data

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReviewLabels: the grammar's semantics (seed 003, sentiment classification),
// on the page's examples: "not" flips a phrase, "very" and "at all" do not, and
// the same words in another order can mean the opposite.
func TestReviewLabels(t *testing.T) {
	for _, c := range []struct {
		text    string
		label   int
		negated bool
		ok      bool
	}{
		{"good", ReviewPositive, false, true},
		{"very good", ReviewPositive, false, true},
		{"not good", ReviewNegative, true, true},
		{"not bad", ReviewPositive, true, true},
		{"not bad at all", ReviewPositive, true, true},
		{"not good at all", ReviewNegative, true, true},
		{"good , not bad", ReviewPositive, true, true},
		{"bad , not good", ReviewNegative, true, true},
		{"the film is really awful", ReviewNegative, false, true},
		{"it was not dull , great", ReviewPositive, true, true},
		{"good , bad", 0, false, false},    // phrases that disagree: not a review of the grammar
		{"very not good", 0, false, false}, // no such phrase
		{"good at all", 0, false, false},   // "at all" only after "not"
		{"the film is", 0, false, false},   // no phrase
		{"good , good , good", 0, false, false},
	} {
		ids, err := ParseReview(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		label, negated, ok := ReviewLabelOf(ids)
		if ok != c.ok || ok && (label != c.label || negated != c.negated) {
			t.Errorf("%q: got label %d negated %v ok %v, want %d %v %v", c.text, label, negated, ok, c.label, c.negated, c.ok)
		}
	}
}

// TestReviewGenerator: every generated review is one of the grammar with the label
// its words give (ReviewLabelOf reads them independently of how it was drawn), and
// "not" occurs in ReviewNegationShare of them.
func TestReviewGenerator(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 20000
	negated, positive := 0, 0
	for range n {
		r := drawReview(rng)
		label, neg, ok := ReviewLabelOf(r.IDs)
		if !ok || label != r.Label || neg != r.Negated {
			t.Fatalf("%q: drawn with label %d negated %v; its words give %d %v (ok %v)", r.Text(), r.Label, r.Negated, label, neg, ok)
		}
		if neg != strings.Contains(" "+r.Text()+" ", " not ") {
			t.Fatalf("%q: negated %v", r.Text(), neg)
		}
		if len(r.IDs) > MaxReviewWords {
			t.Fatalf("%q has %d words, more than the page takes (%d)", r.Text(), len(r.IDs), MaxReviewWords)
		}
		if neg {
			negated++
		}
		positive += r.Label
	}
	// 4 standard errors of a share of n draws at p = 1/2: 4·√(1/4n) ≈ 0.014
	tol := 4 * math.Sqrt(0.25/n)
	if got := float64(negated) / n; math.Abs(got-ReviewNegationShare) > tol {
		t.Errorf("share of reviews with \"not\": got %.4f want %.2f ± %.3f", got, ReviewNegationShare, tol)
	}
	if got := float64(positive) / n; math.Abs(got-0.5) > tol {
		t.Errorf("share of positive reviews: got %.4f want 0.5 ± %.3f", got, tol)
	}
}

// TestReviewSplit: no held-out review is ever drawn for training; the held-out set
// is distinct held-out reviews, about half of them with "not" and half positive.
func TestReviewSplit(t *testing.T) {
	set := ReviewEvalSet()
	if len(set) != reviewEvalSize {
		t.Fatalf("held-out set has %d reviews, want %d", len(set), reviewEvalSize)
	}
	held := map[string]bool{}
	negated, positive := 0, 0
	for _, r := range set {
		if !ReviewHeldOut(r.IDs) || held[r.Text()] {
			t.Fatalf("%q: held out %v, repeated %v", r.Text(), ReviewHeldOut(r.IDs), held[r.Text()])
		}
		held[r.Text()] = true
		if r.Negated {
			negated++
		}
		positive += r.Label
	}
	for what, k := range map[string]int{"with \"not\"": negated, "positive": positive} {
		if share := float64(k) / float64(len(set)); math.Abs(share-0.5) > 0.08 {
			t.Errorf("held-out share %s: got %.3f want about 0.5", what, share)
		}
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for range 20000 {
		if r := DrawReview(rng); held[r.Text()] || ReviewHeldOut(r.IDs) {
			t.Fatalf("a held-out review %q was drawn for training", r.Text())
		}
	}
}

func TestParseReview(t *testing.T) {
	for _, c := range []struct{ text, errPart string }{
		{"Not bad, at all", ""},
		{"", "at least one word"},
		{"not goood", `closest in spelling: "good"`},
		{"the movie is good", `"movie" is not one of them (closest in spelling: `},
		{"the movie is good", "known words: all at awful"},
		{strings.Repeat("good ", MaxReviewWords+1), "at most 16"},
	} {
		_, err := ParseReview(c.text)
		if c.errPart == "" {
			if err != nil {
				t.Errorf("%q: %v", c.text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.errPart) {
			t.Errorf("%q: got error %v, want one containing %s", c.text, err, c.errPart)
		}
	}
	if got := NearestReviewWord("borring"); got != "boring" {
		t.Errorf("nearest of borring: got %q want boring", got)
	}
}
