package lessons

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"unroll/models"
)

// The toy distribution's text form, which the beam-search page keeps in its URL:
//
//	<bos>: 0.5 0.18 0.16 0.14 0.02; jane: 0.05 0.3 0.4 0.2 0.05; *: 0.2 0.2 0.2 0.2 0.2
//
// Entries are separated by ";". Each entry is a prefix y_<t, a colon, then
// P(y_t = w | y_<t) for every word w in the order of the word list with <eos> last.
// The prefix is toy words separated by spaces; "<bos>" alone is the empty prefix of
// the first step, and "*" is the table of every prefix not listed. A probability is a
// decimal (0.4, .4) or a fraction (2/5).
const (
	toyStart   = models.BosToken // the prefix of the first step
	toyOther   = "*"             // every prefix without an entry of its own
	toyMaxWord = 20              // characters per toy word: a node of the tree still fits it
	// toyMaxWords bounds the words before <eos>: a table row of probabilities still fits
	// the panel, and exhaustive search stays possible for a few steps.
	toyMaxWords = 6
	// toySumTolerance is how far a table may sum from 1: numbers typed to a few
	// decimals add up to 1 within rounding (models.ToyDistribution checks the same).
	toySumTolerance = 1e-9
)

// parseToyWords reads the toy vocabulary: 1 to toyMaxWords distinct words before
// <eos>, which the page adds as the last word.
func parseToyWords(s string) ([]string, error) {
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > toyMaxWords {
		return nil, fmt.Errorf("toy words: type 1 to %d words separated by spaces (got %d); <eos> is added as the last word", toyMaxWords, len(words))
	}
	for i, w := range words {
		switch {
		case w == models.EosToken || w == models.BosToken || w == toyOther:
			return nil, fmt.Errorf("toy words: %q is reserved; the page adds <eos> itself", w)
		case strings.ContainsAny(w, ":;"):
			return nil, fmt.Errorf("toy words: %q contains : or ;, which separate the tables", w)
		case len([]rune(w)) > toyMaxWord:
			return nil, fmt.Errorf("toy words: %q is longer than %d characters", w, toyMaxWord)
		case slices.Index(words, w) < i:
			return nil, fmt.Errorf("toy words: %q appears twice", w)
		}
	}
	return append(words, models.EosToken), nil
}

// parseProbability reads one probability: a decimal or a fraction a/b.
func parseProbability(s string) (float64, error) {
	num, den, frac := strings.Cut(s, "/")
	p, err := strconv.ParseFloat(num, 64)
	if err == nil && frac {
		var d float64
		if d, err = strconv.ParseFloat(den, 64); err == nil {
			if d == 0 {
				return 0, fmt.Errorf("%q divides by zero", s)
			}
			p /= d
		}
	}
	if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if p < 0 || p > 1 {
		return 0, fmt.Errorf("%s is not a probability between 0 and 1", s)
	}
	return p, nil
}

// parseToy reads the tables (the text form above) over words (ending in <eos>) into a
// validated ToyDistribution. A missing "*" entry makes every unlisted prefix uniform,
// but tables without any entry are refused: an emptied field is far more likely a
// slip than a wish for the uniform distribution, which "*" states explicitly.
// Errors name the field and the entry, in words a student can act on.
func parseToy(words []string, tables string) (*models.ToyDistribution, error) {
	d := &models.ToyDistribution{Words: words, EOS: len(words) - 1, Tables: map[string][]float64{}}
	order := strings.Join(words, " ")
	if strings.Trim(tables, " \t\n;") == "" {
		uniform := strings.TrimSpace(strings.Repeat(" 1/"+strconv.Itoa(len(words)), len(words)))
		return nil, fmt.Errorf("toy tables: there are no entries; write at least one, such as \"<bos>: %s\" (every word equally likely), one per prefix, separated by ;", uniform)
	}
	n := 0
	for entry := range strings.SplitSeq(tables, ";") {
		if strings.TrimSpace(entry) == "" {
			continue // a trailing or doubled ;
		}
		n++
		head, body, ok := strings.Cut(entry, ":")
		prefix := strings.Join(strings.Fields(head), " ")
		name := fmt.Sprintf("toy tables, entry %d (%q)", n, prefix)
		if !ok {
			return nil, fmt.Errorf("toy tables, entry %d: write the prefix, a colon, then the probabilities, as in \"jane: 0.1 0.3 0.4 0.1 0.1\"", n)
		}
		switch {
		case prefix == toyStart:
			prefix = ""
		case strings.HasPrefix(prefix, toyStart+" "):
			prefix = strings.TrimPrefix(prefix, toyStart+" ")
		case prefix == "":
			return nil, fmt.Errorf("%s: the prefix is empty; write <bos> for the first step or * for every other prefix", name)
		}
		if prefix != toyOther {
			for _, w := range strings.Fields(prefix) {
				switch i := slices.Index(words, w); {
				case i < 0:
					return nil, fmt.Errorf("%s: %q is not a toy word (%s)", name, w, order)
				case i == d.EOS:
					return nil, fmt.Errorf("%s: a prefix cannot contain <eos>, which ends the sentence", name)
				}
			}
		}
		fields := strings.Fields(body)
		if len(fields) != len(words) {
			return nil, fmt.Errorf("%s: %d probabilities, want %d, one per word in the order %s", name, len(fields), len(words), order)
		}
		probs := make([]float64, len(fields))
		var sum float64
		for i, f := range fields {
			p, err := parseProbability(f)
			if err != nil {
				return nil, fmt.Errorf("%s: the probability of %q: %v", name, words[i], err)
			}
			probs[i], sum = p, sum+p
		}
		if math.Abs(sum-1) > toySumTolerance {
			return nil, fmt.Errorf("%s: the probabilities sum to %s, want 1", name, strconv.FormatFloat(sum, 'g', sumDigits(sum), 64))
		}
		if prefix == toyOther {
			if d.Default != nil {
				return nil, fmt.Errorf("%s: * is listed twice", name)
			}
			d.Default = probs
			continue
		}
		if _, dup := d.Tables[prefix]; dup {
			return nil, fmt.Errorf("%s: this prefix is listed twice", name)
		}
		d.Tables[prefix] = probs
	}
	if d.Default == nil {
		d.Default = make([]float64, len(words))
		for i := range d.Default {
			d.Default[i] = 1 / float64(len(words))
		}
	}
	if err := d.Validate(); err != nil { // the checks above should have caught everything
		return nil, fmt.Errorf("toy tables: %s", strings.TrimPrefix(err.Error(), "models: "))
	}
	return d, nil
}

// formatToy writes d's tables in the text form: <bos> first, then the prefixes in
// sorted order, then *.
func formatToy(d *models.ToyDistribution) string {
	entry := func(prefix string, probs []float64) string {
		nums := make([]string, len(probs))
		for i, p := range probs {
			nums[i] = strconv.FormatFloat(p, 'g', -1, 64)
		}
		return prefix + ": " + strings.Join(nums, " ")
	}
	var entries []string
	if t, ok := d.Tables[""]; ok {
		entries = append(entries, entry(toyStart, t))
	}
	for _, prefix := range slices.Sorted(maps.Keys(d.Tables)) {
		if prefix != "" {
			entries = append(entries, entry(prefix, d.Tables[prefix]))
		}
	}
	entries = append(entries, entry(toyOther, d.Default))
	return strings.Join(entries, "; ")
}

// sumDigits is how many digits show a wrong sum as different from 1: 6 usually, more
// when it misses by rounding.
func sumDigits(sum float64) int {
	if math.Abs(sum-1) < 1e-5 {
		return 15
	}
	return 6
}
