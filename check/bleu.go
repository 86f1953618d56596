package check

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"unroll/models"
)

// defaultMaxN is the order used when max_n is left out: BLEU-4, as in the paper.
const defaultMaxN = 4

// Limits of POST /api/v1/bleu, from docs/api.md. Over one the answer is a 400 naming the field
// and the limit. Within them the work and the answer are bounded: the n-gram listing of
// the sentence form has at most max_n × MaxSentenceWords entries, each with at most
// models.MaxNGramRefSpans spans of at most max_n positions, and its words come from at
// most MaxSentenceBytes of candidate text (2.3 MB of JSON at worst); the corpus form
// lists no n-grams. max_n itself is limited by models.MaxBLEUOrder (8).
const (
	// MaxSentenceWords bounds the words of the candidate and of each reference: the
	// lectures and the bleu lesson use sentences of tens of words, and the n-gram listing
	// grows with max_n × this.
	MaxSentenceWords = 256
	// MaxSentenceBytes bounds the text of each sentence (16 bytes a word at
	// MaxSentenceWords): every n-gram in the listing repeats its n words, so the listing's
	// words grow with max_n(max_n+1)/2 × this, whatever the word count.
	MaxSentenceBytes = 4096
	// MaxReferences bounds the references of one candidate: test sets have one to four
	// (NIST's have four); the counting work grows with this × the words.
	MaxReferences = 16
	// MaxCorpusSentences bounds the corpus form: the held-out splits Unroll scores have
	// 398 and 600 sentences.
	MaxCorpusSentences = 1000
	// MaxCorpusWords bounds the words of a corpus request, candidates and references
	// together (1000 sentences of 50 words with one reference each): it keeps one request
	// to a fraction of a second of one core.
	MaxCorpusWords = 100_000
)

// BLEURequest is the body of POST /api/v1/bleu, in its sentence form (candidate plus
// a list of references) or its corpus form (candidates plus one list per candidate).
type BLEURequest struct {
	Candidate  *string         `json:"candidate"`
	Candidates []string        `json:"candidates"`
	References json.RawMessage `json:"references"`
	MaxN       *int            `json:"max_n"`
	Weights    string          `json:"weights"`
	Lowercase  bool            `json:"lowercase"`
	Smoothing  string          `json:"smoothing"` // "none" (or absent), "effective-order", "epsilon", "add-one"
	W          []float64       `json:"w"`         // the general weights w_1 … w_N of "uniform"; absent: 1/N
}

// BLEU validates req and scores it with models.SentenceBLEU or models.CorpusBLEU. The
// limits are checked on the raw strings, before anything is split into words.
func BLEU(req *BLEURequest) (*models.BLEUResult, error) {
	opts := models.BLEUOptions{MaxN: defaultMaxN, Weights: req.Weights, Lowercase: req.Lowercase, Smoothing: req.Smoothing, W: req.W}
	if req.MaxN != nil {
		opts.MaxN = *req.MaxN
	}
	if opts.Weights == "" {
		opts.Weights = models.WeightsUniform
	}
	if opts.MaxN < 1 || opts.MaxN > models.MaxBLEUOrder {
		return nil, errorf("max_n: must be between 1 and %d, got %d", models.MaxBLEUOrder, opts.MaxN)
	}
	if opts.Weights != models.WeightsUniform && opts.Weights != models.WeightsD2L {
		return nil, errorf(`weights: must be "uniform" (Papineni et al.) or "d2l" (the lecture's eq. 7), got %.40q`, opts.Weights)
	}
	switch opts.Smoothing {
	case "", models.SmoothNone, models.SmoothEffectiveOrder, models.SmoothEpsilon, models.SmoothAddOne:
	default:
		return nil, errorf(`smoothing: must be "none" (the paper), "effective-order", "epsilon" (NLTK method1) or "add-one" (NLTK method2), got %.40q`, opts.Smoothing)
	}
	if opts.W != nil && len(opts.W) != opts.MaxN {
		return nil, errorf("w: give one weight per order n = 1 … %d (max_n), got %d", opts.MaxN, len(opts.W))
	}
	p, err := readPairs(req.Candidate, req.Candidates, req.References, nil)
	if err != nil {
		return nil, err
	}
	var res models.BLEUResult
	if p.corpus {
		res, err = models.CorpusBLEU(p.candidates, p.references, opts)
	} else {
		res, err = models.SentenceBLEU(p.candidates[0], p.references[0], opts)
	}
	if err != nil {
		return nil, errorf("%s", strings.TrimPrefix(err.Error(), "models: "))
	}
	return &res, nil
}

// pairs are a scoring request's candidates with their references: one sentence
// (candidates[0] with references[0]) or, when corpus, a corpus.
type pairs struct {
	corpus     bool
	candidates []string
	references [][]string
}

// readPairs reads a BLEU or TER request's candidate or candidates with their
// references and checks the limits the metrics share; each, if not nil, checks one
// candidate with its references (refsField in messages) further. A corpus whose
// lists differ in length is returned unchecked: models names the mismatch.
func readPairs(candidate *string, candidates []string, references json.RawMessage, each func(cand string, refs []string, refsField string) error) (pairs, error) {
	if len(references) == 0 || string(references) == "null" {
		return pairs{}, errorf("references: missing; give the reference translation(s)")
	}
	switch {
	case candidate != nil && candidates != nil:
		return pairs{}, errorf("send either candidate (one sentence) or candidates (a corpus), not both")
	case candidate != nil:
		var refs []string
		if json.Unmarshal(references, &refs) != nil {
			return pairs{}, errorf(`references: with "candidate" give a list of sentences, like ["the cat is on the mat"]`)
		}
		if err := sentenceLimits(*candidate, refs, "candidate", "references", nil); err != nil {
			return pairs{}, err
		}
		if each != nil {
			if err := each(*candidate, refs, "references"); err != nil {
				return pairs{}, err
			}
		}
		return pairs{candidates: []string{*candidate}, references: [][]string{refs}}, nil
	case candidates != nil:
		if n := len(candidates); n > MaxCorpusSentences {
			return pairs{}, errorf("candidates: %d sentences is over the limit of %d", n, MaxCorpusSentences)
		}
		var refs [][]string
		if json.Unmarshal(references, &refs) != nil {
			return pairs{}, errorf(`references: with "candidates" give one list of sentences per candidate, like [["ref 1a", "ref 1b"], ["ref 2"]]`)
		}
		if len(refs) == len(candidates) {
			words := 0
			for i, c := range candidates {
				if err := sentenceLimits(c, refs[i], fmtIndex("candidates", i), fmtIndex("references", i), &words); err != nil {
					return pairs{}, err
				}
				if each != nil {
					if err := each(c, refs[i], fmtIndex("references", i)); err != nil {
						return pairs{}, err
					}
				}
			}
		}
		return pairs{corpus: true, candidates: candidates, references: refs}, nil
	}
	return pairs{}, errorf("candidate: missing; give the sentence to score (or candidates for a corpus)")
}

// sentenceLimits checks one candidate and its references against the limits; in the
// corpus form it adds their words to *total and checks MaxCorpusWords too.
func sentenceLimits(cand string, refs []string, candField, refsField string, total *int) error {
	if len(refs) > MaxReferences {
		return errorf("%s: %d references is over the limit of %d", refsField, len(refs), MaxReferences)
	}
	words := 0
	check := func(field, s string) error {
		n := countWords(s) // no allocation, and at most the 4 MB of the body
		if n > MaxSentenceWords {
			return errorf("%s: %d words is over the limit of %d words per sentence", field, n, MaxSentenceWords)
		}
		if len(s) > MaxSentenceBytes {
			return errorf("%s: %d bytes is over the limit of %d bytes per sentence", field, len(s), MaxSentenceBytes)
		}
		words += n
		return nil
	}
	if err := check(candField, cand); err != nil {
		return err
	}
	for j, r := range refs {
		if err := check(fmtIndex(refsField, j), r); err != nil {
			return err
		}
	}
	if total != nil {
		*total += words
		if *total > MaxCorpusWords {
			return errorf("%s: the corpus has %d words up to here (candidates and references), over the limit of %d words per request", candField, *total, MaxCorpusWords)
		}
	}
	return nil
}

// countWords is len(models.Tokenize(s)) (strings.Fields: words between Unicode white
// space) without building the words.
func countWords(s string) int {
	n, inWord := 0, false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if unicode.IsSpace(r) {
			inWord = false
		} else if !inWord {
			inWord = true
			n++
		}
	}
	return n
}

// fmtIndex names element i of a list field, like references[2].
func fmtIndex(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }
