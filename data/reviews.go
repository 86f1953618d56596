package data

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// The review corpus: short generated reviews whose sentiment depends on word order,
// from a grammar written here (lecture 003, sentiment classification, many-to-one):
//
//	review  := [prefix] phrase [ "," phrase ]   (the two phrases agree in polarity)
//	phrase  := [intensifier] adjective  |  "not" adjective [ "at all" ]
//	prefix  := "the film is" | "the food was" | "the service is" | "it was"
//
// A phrase's polarity is its adjective's, flipped by "not"; intensifiers and "at all"
// do not change it. The review is positive exactly when its phrases are. So "good ,
// not bad" is positive and "bad , not good" negative: the same words in another order.

// ReviewClasses are the classes ŷ ranges over, in the order of the output units.
var ReviewClasses = []string{"negative", "positive"}

// The class indices.
const (
	ReviewNegative = 0
	ReviewPositive = 1
)

// reviewAdjectives maps each adjective to its polarity (+1 positive, −1 negative).
var reviewAdjectives = map[string]int{
	"good": 1, "great": 1, "nice": 1, "fine": 1,
	"bad": -1, "awful": -1, "boring": -1, "dull": -1,
}

// reviewIntensifiers strengthen an adjective without changing its polarity.
var reviewIntensifiers = []string{"very", "really"}

// reviewPrefixes are the optional openings; "" is none.
var reviewPrefixes = []string{"", "the film is", "the food was", "the service is", "it was"}

// ReviewNegationShare is the share of generated reviews that contain "not": the
// generator first decides whether a review is negated with this probability.
const ReviewNegationShare = 0.5

// ReviewVocab lists every word of the grammar, sorted; a word's index is its id.
var ReviewVocab = func() []string {
	words := []string{"not", "at", "all", ","}
	words = append(words, reviewIntensifiers...)
	for a := range reviewAdjectives {
		words = append(words, a)
	}
	for _, p := range reviewPrefixes {
		words = append(words, strings.Fields(p)...)
	}
	slices.Sort(words)
	return slices.Compact(words)
}()

// Review is one generated review: its word ids, its label (ReviewNegative or
// ReviewPositive) and whether it contains "not".
type Review struct {
	IDs     []int
	Label   int
	Negated bool
}

// Text is the review's words separated by spaces.
func (r Review) Text() string { return ReviewText(r.IDs) }

// ReviewText writes ids as words separated by spaces.
func ReviewText(ids []int) string {
	words := make([]string, len(ids))
	for i, id := range ids {
		words[i] = ReviewVocab[id]
	}
	return strings.Join(words, " ")
}

// reviewPhrase draws a phrase of polarity pol, negated or not, as words.
func reviewPhrase(rng *rand.Rand, pol int, negated bool) []string {
	adj := reviewAdjective(rng, pol)
	if negated {
		adj = reviewAdjective(rng, -pol) // "not bad" is positive
		out := []string{"not", adj}
		if rng.IntN(2) == 0 {
			out = append(out, "at", "all")
		}
		return out
	}
	if k := rng.IntN(len(reviewIntensifiers) + 1); k > 0 {
		return []string{reviewIntensifiers[k-1], adj}
	}
	return []string{adj}
}

// reviewAdjective draws an adjective of polarity pol uniformly.
func reviewAdjective(rng *rand.Rand, pol int) string {
	var as []string
	for a, p := range reviewAdjectives {
		if p == pol {
			as = append(as, a)
		}
	}
	slices.Sort(as) // map order is random: sort so that a seed draws the same words
	return as[rng.IntN(len(as))]
}

// drawReview draws one review of the grammar, held out or not.
func drawReview(rng *rand.Rand) Review {
	label := rng.IntN(2)
	pol := 2*label - 1
	negated := rng.Float64() < ReviewNegationShare
	var words []string
	if p := reviewPrefixes[rng.IntN(len(reviewPrefixes))]; p != "" {
		words = strings.Fields(p)
	}
	if rng.IntN(5) < 2 { // one phrase
		words = append(words, reviewPhrase(rng, pol, negated)...)
	} else { // two phrases: which of them carry "not" (none when not negated)
		first, second := false, false
		if negated {
			switch rng.IntN(3) {
			case 0:
				first = true
			case 1:
				second = true
			default:
				first, second = true, true
			}
		}
		words = append(words, reviewPhrase(rng, pol, first)...)
		words = append(words, ",")
		words = append(words, reviewPhrase(rng, pol, second)...)
	}
	ids := make([]int, len(words))
	for i, w := range words {
		ids[i] = slices.Index(ReviewVocab, w)
	}
	return Review{IDs: ids, Label: label, Negated: negated}
}

// ReviewHeldOut reports whether a review is kept out of training: a fixed fifth of
// all reviews of the grammar, chosen by a hash of the text, so the held-out
// accuracy is measured on reviews neither model has seen.
func ReviewHeldOut(ids []int) bool {
	h := fnv.New32a()
	h.Write([]byte(ReviewText(ids)))
	return h.Sum32()%5 == 0
}

// DrawReview draws a training review: one of the grammar, never a held-out one.
func DrawReview(rng *rand.Rand) Review {
	for {
		if r := drawReview(rng); !ReviewHeldOut(r.IDs) {
			return r
		}
	}
}

// Held-out set: how many distinct held-out reviews, and the seed they are drawn from.
const (
	reviewEvalSize = 600   // enough for a share to ±2 % (one standard error) on each half
	reviewEvalSeed = 20031 // fixed: the recorded accuracies are measured on this set
)

// ReviewEvalSet is the held-out set: reviewEvalSize distinct held-out reviews drawn
// from a fixed seed, in the order drawn.
func ReviewEvalSet() []Review {
	rng := rand.New(rand.NewPCG(reviewEvalSeed, 3))
	seen := map[string]bool{}
	var out []Review
	for len(out) < reviewEvalSize {
		r := drawReview(rng)
		if !ReviewHeldOut(r.IDs) || seen[r.Text()] {
			continue
		}
		seen[r.Text()] = true
		out = append(out, r)
	}
	return out
}

// ReviewLabelOf reads a review's label from its words by the grammar's semantics,
// and whether it contains "not"; ok is false when the words are not a review of the
// grammar (then no right answer is known).
func ReviewLabelOf(ids []int) (label int, negated, ok bool) {
	words := make([]string, len(ids))
	for i, id := range ids {
		words[i] = ReviewVocab[id]
	}
	for _, p := range reviewPrefixes[1:] {
		if f := strings.Fields(p); len(words) > len(f) && slices.Equal(words[:len(f)], f) {
			words = words[len(f):]
			break
		}
	}
	var pols []int
	for _, phrase := range splitWords(words, ",") {
		pol, neg, ok := phrasePolarity(phrase)
		if !ok {
			return 0, false, false
		}
		pols = append(pols, pol)
		negated = negated || neg
	}
	if len(pols) == 0 || len(pols) > 2 || (len(pols) == 2 && pols[0] != pols[1]) {
		return 0, false, false
	}
	if pols[0] > 0 {
		return ReviewPositive, negated, true
	}
	return ReviewNegative, negated, true
}

// phrasePolarity is a phrase's polarity by the grammar: its adjective's, flipped by "not".
func phrasePolarity(w []string) (pol int, negated, ok bool) {
	switch {
	case len(w) == 1:
		pol, ok = reviewAdjectives[w[0]]
		return pol, false, ok
	case len(w) == 2 && slices.Contains(reviewIntensifiers, w[0]):
		pol, ok = reviewAdjectives[w[1]]
		return pol, false, ok
	case (len(w) == 2 || len(w) == 4 && w[2] == "at" && w[3] == "all") && w[0] == "not":
		pol, ok = reviewAdjectives[w[1]]
		return -pol, true, ok
	}
	return 0, false, false
}

// splitWords splits words at every sep.
func splitWords(words []string, sep string) [][]string {
	var out [][]string
	start := 0
	for i, w := range words {
		if w == sep {
			out = append(out, words[start:i])
			start = i + 1
		}
	}
	return append(out, words[start:])
}

// MaxReviewWords bounds a typed review: each word is a column of the page's heatmap,
// and the longest generated review has 12.
const MaxReviewWords = 16

// ParseReview reads a typed review: lower-case words of the grammar separated by
// spaces ("," is a word of its own). Its errors are sentences a student can act on;
// a word outside the vocabulary is refused with the nearest known word.
func ParseReview(text string) ([]int, error) {
	words := strings.Fields(strings.ReplaceAll(strings.ToLower(text), ",", " , "))
	if len(words) == 0 {
		return nil, fmt.Errorf("type a review of at least one word, e.g. “not bad at all”")
	}
	if len(words) > MaxReviewWords {
		return nil, fmt.Errorf("the review has %d words; at most %d fit on the page, one column a word", len(words), MaxReviewWords)
	}
	ids := make([]int, len(words))
	for i, w := range words {
		id := slices.Index(ReviewVocab, w)
		if id < 0 {
			return nil, fmt.Errorf("the models know only the words of their reviews; %q is not one of them (closest in spelling: %q; known words: %s and the comma)",
				clipWord(w), NearestReviewWord(w), strings.Join(slices.DeleteFunc(slices.Clone(ReviewVocab), func(v string) bool { return v == "," }), " "))
		}
		ids[i] = id
	}
	return ids, nil
}

// clipWord shortens a refused word to 24 runes, so an error stays short.
func clipWord(w string) string {
	if r := []rune(w); len(r) > 24 {
		return string(r[:24]) + "…"
	}
	return w
}

// NearestReviewWord is the known word closest to w in edit distance (letters
// inserted, deleted or replaced), the first in vocabulary order on a tie.
func NearestReviewWord(w string) string {
	best, bestD := "", -1
	for _, v := range ReviewVocab {
		if d := editDistance([]rune(w), []rune(v)); bestD < 0 || d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
