package lessons

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"unroll/data"
	"unroll/models"
	"unroll/zoo"
)

// The attention page reads a typed source: a date for the date task, an English
// sentence for the corpus. This file turns it into source ids with a message a
// student can act on, and finds the correct output when the page can know it.

// attentionSource is a typed source read for one translator: its ids and tokens, the
// correct outputs when known, and notes for the page.
type attentionSource struct {
	ids    []int
	tokens []string
	refs   []string // correct outputs: the ISO date, or the corpus's French sentences
	notes  map[string]string
}

// readSource checks a typed source against tr's task and vocabulary. Errors are for
// the student: an empty or too long source, a character the date model never saw,
// or a sentence with no word of the corpus.
func readSource(tr *zoo.Translator, text string) (attentionSource, error) {
	if tr.Task.Name == "dates" { // Source speaks of sentences and words; a date has characters
		switch n := len(tr.Task.Tokenize(text)); {
		case n == 0:
			return attentionSource{}, fmt.Errorf("the date is empty: type a date, such as 22 November 2026 or 22/11/26")
		case n > tr.Task.MaxSource:
			return attentionSource{}, fmt.Errorf("the date has %d characters; at most %d fit", n, tr.Task.MaxSource)
		}
	}
	ids, tokens, err := tr.Source(text)
	if err != nil {
		return attentionSource{}, err
	}
	src := attentionSource{ids: ids, tokens: tokens, notes: map[string]string{}}
	var unknown []string // each unknown token once
	known := 0
	for i, id := range ids {
		switch {
		case id != models.UnkID:
			known++
		case !slices.Contains(unknown, tokens[i]):
			unknown = append(unknown, tokens[i])
		}
	}
	if tr.Task.Name == "dates" {
		if len(unknown) > 0 {
			return attentionSource{}, fmt.Errorf("the date model never saw %s; a date is written with letters, digits, spaces and the signs / . , -",
				quoteList(unknown))
		}
		if iso, form, ok := data.RecogniseDate(text); ok {
			src.refs = []string{iso}
			src.notes["date_form"] = fmt.Sprintf("%q (one of the %d trained forms)", form, len(data.DateFormats()))
		} else {
			src.notes["date_form"] = fmt.Sprintf("not one of the %d trained forms of a date between %d and %d (or the weekday does not match); the model translates it anyway",
				len(data.DateFormats()), data.DateFirst.Year(), data.DateLast.Year())
		}
		return src, nil
	}
	if known == 0 {
		what := "none of the words " + quoteList(unknown) + " is"
		if len(unknown) == 1 {
			what = fmt.Sprintf("the word %q is not", unknown[0])
		}
		return attentionSource{}, fmt.Errorf("%s in the corpus's English vocabulary; try a sentence such as \"they are watching .\"", what)
	}
	if len(unknown) > 0 {
		src.notes["unknown_words"] = quoteList(unknown) + " (read as <unk>)"
	}
	src.refs, src.notes["in_corpus"] = corpusReferences(tokens)
	return src, nil
}

// corpusIndex maps an English sentence's tokens (joined by spaces) to its French
// sentences in the corpus, per split (0 test, 1 train); built once.
var corpusIndex = sync.OnceValue(func() map[string][2][]string {
	task := zoo.CorpusTask()
	index := map[string][2][]string{}
	for split, pairs := range [][]data.Pair{task.Test, task.Train} {
		for _, p := range pairs {
			key := strings.Join(task.Tokenize(p.En), " ")
			refs := index[key]
			if fr := task.Join(task.Tokenize(p.Fr)); !slices.Contains(refs[split], fr) {
				refs[split] = append(refs[split], fr)
			}
			index[key] = refs
		}
	}
	return index
})

// corpusReferences are the French sentences paired with the English tokens in the
// corpus, and where the pair is: the test split, the training split or neither.
func corpusReferences(tokens []string) ([]string, string) {
	refs := corpusIndex()[strings.Join(tokens, " ")]
	switch {
	case len(refs[0]) > 0:
		return refs[0], "yes, in the held-out test split (never trained on)"
	case len(refs[1]) > 0:
		return refs[1], "yes, in the training split (the model has seen it)"
	}
	return nil, "no: a new sentence, so there is no reference to compare with"
}

// quoteList writes tokens as "a", "b" and "c".
func quoteList(tokens []string) string {
	q := make([]string, len(tokens))
	for i, t := range tokens {
		q[i] = fmt.Sprintf("%q", t)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
