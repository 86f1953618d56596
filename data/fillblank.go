package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// blankToken is the token that marks the word to fill in ("i am ___ hungry").
const blankToken = "___"

// BlankAnswers are the words the fill-in-the-blank task chooses from (the classes ŷ
// ranges over), in the order of the output layer's units.
var BlankAnswers = []string{"very", "not", "happy", "sad"}

// blankPrefixes are the left contexts: none of them says anything about the answer.
var blankPrefixes = []string{
	"i am", "you are", "we are", "she is", "he is", "they are", "today i am", "my dog is",
}

// blankSuffix is one right context and the answer it decides.
type blankSuffix struct {
	words  string
	answer int // index into BlankAnswers
}

// blankSuffixes are the right contexts. Several start alike ("hungry …", "to see you …")
// and are told apart only further on, so a model must read past the next word.
var blankSuffixes = []blankSuffix{
	{"hungry and i can eat half a pig .", 0},
	{"hungry , i could eat a horse .", 0},
	{"tired and i could sleep all day .", 0},
	{"sleepy and i can not keep my eyes open .", 0},
	{"hungry because i just ate .", 1},
	{"hungry , i had a big lunch .", 1},
	{"tired because i slept well .", 1},
	{"sleepy at all .", 1},
	{".", 2},
	{"today .", 2},
	{"to see you .", 2},
	{"and i cry .", 3},
	{"to see you go .", 3},
	{"because my dog is ill .", 3},
}

// heldOut reports whether the sentence prefix i + blank + suffix j is kept out of
// training: about a quarter of the pairs, so the recorded accuracy is measured on
// sentences neither model has seen (every prefix and suffix is seen in other pairs).
func heldOut(i, j int) bool { return (7*i+j)%4 == 0 }

// BlankVocab lists every word the task's sentences use, the blank first; a word's
// index is its position in the one-hot input X_t.
var BlankVocab = func() []string {
	seen := map[string]bool{}
	var words []string
	add := func(s string) {
		for _, w := range strings.Fields(s) {
			if !seen[w] && w != blankToken {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	for _, p := range blankPrefixes {
		add(p)
	}
	for _, s := range blankSuffixes {
		add(s.words)
	}
	slices.Sort(words)
	return append([]string{blankToken}, words...)
}()

// BlankSentence is one generated sentence: its word ids, the position of the blank
// (0-based) and the answer's index in BlankAnswers.
type BlankSentence struct {
	IDs    []int
	Blank  int
	Answer int
}

// blankSentence builds prefix i + blank + suffix j.
func blankSentence(i, j int) BlankSentence {
	ids, err := ParseBlank(blankPrefixes[i] + " " + blankToken + " " + blankSuffixes[j].words)
	if err != nil {
		panic("data: a generated sentence does not parse: " + err.Error())
	}
	return BlankSentence{IDs: ids, Blank: len(strings.Fields(blankPrefixes[i])), Answer: blankSuffixes[j].answer}
}

// DrawBlankSentence draws a training sentence: an answer uniformly, then one of its
// right contexts and a left context, skipping the held-out pairs.
func DrawBlankSentence(rng *rand.Rand) BlankSentence {
	for {
		a := rng.IntN(len(BlankAnswers))
		var js []int
		for j, s := range blankSuffixes {
			if s.answer == a {
				js = append(js, j)
			}
		}
		i, j := rng.IntN(len(blankPrefixes)), js[rng.IntN(len(js))]
		if !heldOut(i, j) {
			return blankSentence(i, j)
		}
	}
}

// BlankEvalSet is every held-out sentence: each needs its right context, because
// the left context is the same for every answer.
func BlankEvalSet() []BlankSentence {
	var out []BlankSentence
	for i := range blankPrefixes {
		for j := range blankSuffixes {
			if heldOut(i, j) {
				out = append(out, blankSentence(i, j))
			}
		}
	}
	return out
}

// BlankAnswerOf is the answer the task's grammar gives a typed sentence (the words
// after the blank decide it), or −1 when the sentence is not one the task generates.
func BlankAnswerOf(ids []int, blank int) int {
	var right []string
	for _, id := range ids[blank+1:] {
		right = append(right, BlankVocab[id])
	}
	s := strings.Join(right, " ")
	for _, suf := range blankSuffixes {
		if suf.words == s {
			return suf.answer
		}
	}
	return -1
}

// maxBlankWords bounds a typed sentence so its columns fit the page.
const maxBlankWords = 20

// ParseBlank reads a typed sentence of the task's words (lower case, separated by
// spaces; "." and "," are words of their own) with exactly one blank ___. Its
// errors are sentences a student can act on.
func ParseBlank(text string) ([]int, error) {
	text = strings.ToLower(text)
	text = strings.NewReplacer(".", " . ", ",", " , ").Replace(text)
	words := strings.Fields(text)
	var ids []int
	blanks := 0
	for _, w := range words {
		if strings.Trim(w, "_") == "" { // any run of underscores is the blank
			w = blankToken
			blanks++
		}
		id := slices.Index(BlankVocab, w)
		if id < 0 {
			return nil, fmt.Errorf("the model knows only the words of its training sentences; %q is not one of them (known words: %s)", w, strings.Join(BlankVocab[1:], " "))
		}
		ids = append(ids, id)
	}
	switch {
	case blanks != 1:
		return nil, fmt.Errorf("the sentence needs exactly one blank ___ to fill in, got %d", blanks)
	case len(ids) > maxBlankWords:
		return nil, fmt.Errorf("the sentence has %d words; at most %d fit on the page", len(ids), maxBlankWords)
	}
	return ids, nil
}
