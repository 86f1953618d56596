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
	if len(req.References) == 0 || string(req.References) == "null" {
		return nil, errorf("references: missing; give the reference translation(s)")
	}
	switch {
	case req.Candidate != nil && req.Candidates != nil:
		return nil, errorf("send either candidate (one sentence) or candidates (a corpus), not both")
	case req.Candidate != nil:
		var refs []string
		if json.Unmarshal(req.References, &refs) != nil {
			return nil, errorf(`references: with "candidate" give a list of sentences, like ["the cat is on the mat"]`)
		}
		if err := sentenceLimits(*req.Candidate, refs, "candidate", "references", nil); err != nil {
			return nil, err
		}
		cells := 0
		if err := terCells(*req.Candidate, refs, "references", &cells); err != nil {
			return nil, err
		}
		res, err := models.SentenceTER(*req.Candidate, refs)
		if err != nil {
			return nil, errorf("references: %s", strings.TrimPrefix(err.Error(), "models: "))
		}
		return &res, nil
	case req.Candidates != nil:
		if n := len(req.Candidates); n > MaxCorpusSentences {
			return nil, errorf("candidates: %d sentences is over the limit of %d", n, MaxCorpusSentences)
		}
		var refs [][]string
		if json.Unmarshal(req.References, &refs) != nil {
			return nil, errorf(`references: with "candidates" give one list of sentences per candidate, like [["ref 1a", "ref 1b"], ["ref 2"]]`)
		}
		if len(refs) == len(req.Candidates) { // else models names the mismatch
			words, cells := 0, 0
			for i, c := range req.Candidates {
				if err := sentenceLimits(c, refs[i], fmtIndex("candidates", i), fmtIndex("references", i), &words); err != nil {
					return nil, err
				}
				if err := terCells(c, refs[i], fmtIndex("references", i), &cells); err != nil {
					return nil, err
				}
			}
		}
		res, err := models.CorpusTER(req.Candidates, refs)
		if err != nil {
			return nil, errorf("%s", strings.TrimPrefix(err.Error(), "models: "))
		}
		return &res, nil
	}
	return nil, errorf("candidate: missing; give the sentence to score (or candidates for a corpus)")
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
