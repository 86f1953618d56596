package check

import (
	"encoding/json"
	"strings"

	"unroll/models"
)

// Limits of POST /api/v1/ter, from docs/api.md: those of BLEU (MaxSentenceWords,
// MaxSentenceBytes, MaxReferences, MaxCorpusSentences, MaxCorpusWords), and one more
// for the shift search, whose work grows with the product of the lengths.
const (
	// MaxTERCells bounds Σ (candidate words + 1)(reference words + 1) over every
	// candidate–reference pair of a request: the greedy shift search tries at most
	// models.TERMaxShiftCandidates (1000) shifts per pair, each an edit distance over
	// that many cells, so a request costs at most about a second of one core
	// (BenchmarkTERWorstRequest, the sentence form at its limits on a three-word
	// vocabulary: 1.2 s of CPU, about 1.1 ns a cell). The sentence form at its word and
	// reference limits (16 × 257² = 1,056,784) fits, and so does a corpus of 1,000
	// sentences of 32 words with one reference each (1,089,000).
	MaxTERCells = 1_100_000
)

// TERRequest is the body of POST /api/v1/ter, in its sentence form (candidate plus a
// list of references) or its corpus form (candidates plus one list per candidate).
type TERRequest struct {
	Candidate  *string         `json:"candidate"`
	Candidates []string        `json:"candidates"`
	References json.RawMessage `json:"references"`
}

// TER validates req and scores it with models.SentenceTER or models.CorpusTER, the
// answer a *models.TERResult or a *models.TERCorpusResult. The limits are checked on
// the raw strings, before anything is split into words.
func TER(req *TERRequest) (any, error) {
	cells := 0
	p, err := readPairs(req.Candidate, req.Candidates, req.References, func(cand string, refs []string, field string) error {
		return terCells(cand, refs, field, &cells)
	})
	if err != nil {
		return nil, err
	}
	if !p.corpus {
		res, err := models.SentenceTER(p.candidates[0], p.references[0])
		if err != nil {
			return nil, errorf("references: %s", strings.TrimPrefix(err.Error(), "models: "))
		}
		return &res, nil
	}
	res, err := models.CorpusTER(p.candidates, p.references)
	if err != nil {
		return nil, errorf("%s", strings.TrimPrefix(err.Error(), "models: "))
	}
	return &res, nil
}

// terCells adds the cells of cand's edit distances to each of refs to *total and
// checks MaxTERCells; every reference must have a sentence (an empty list has no
// closest reference).
func terCells(cand string, refs []string, refsField string, total *int) error {
	if len(refs) == 0 {
		return errorf("%s: give at least one reference", refsField)
	}
	c := countWords(cand)
	for _, r := range refs {
		*total += (c + 1) * (countWords(r) + 1)
	}
	if *total > MaxTERCells {
		return errorf("%s: the candidates and references up to here need %d cells of edit distance, over the limit of %d per request (the sum of (candidate words + 1) × (reference words + 1) over every pair): send fewer or shorter sentences", refsField, *total, MaxTERCells)
	}
	return nil
}
