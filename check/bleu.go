package check

import (
	"encoding/json"
	"strings"

	"unroll/models"
)

// defaultMaxN is the order used when max_n is left out: BLEU-4, as in the paper.
const defaultMaxN = 4

// BLEURequest is the body of POST /api/v1/bleu, in its sentence form (candidate plus
// a list of references) or its corpus form (candidates plus one list per candidate).
type BLEURequest struct {
	Candidate  *string         `json:"candidate"`
	Candidates []string        `json:"candidates"`
	References json.RawMessage `json:"references"`
	MaxN       *int            `json:"max_n"`
	Weights    string          `json:"weights"`
	Lowercase  bool            `json:"lowercase"`
}

// BLEU validates req and scores it with models.SentenceBLEU or models.CorpusBLEU.
func BLEU(req *BLEURequest) (*models.BLEUResult, error) {
	opts := models.BLEUOptions{MaxN: defaultMaxN, Weights: req.Weights, Lowercase: req.Lowercase}
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
		return nil, errorf(`weights: must be "uniform" (Papineni et al.) or "d2l" (the lecture's eq. 7), got %q`, opts.Weights)
	}
	if len(req.References) == 0 || string(req.References) == "null" {
		return nil, errorf("references: missing; give the reference translation(s)")
	}
	var (
		res models.BLEUResult
		err error
	)
	switch {
	case req.Candidate != nil && req.Candidates != nil:
		return nil, errorf("send either candidate (one sentence) or candidates (a corpus), not both")
	case req.Candidate != nil:
		var refs []string
		if json.Unmarshal(req.References, &refs) != nil {
			return nil, errorf(`references: with "candidate" give a list of sentences, like ["the cat is on the mat"]`)
		}
		res, err = models.SentenceBLEU(*req.Candidate, refs, opts)
	case req.Candidates != nil:
		var refs [][]string
		if json.Unmarshal(req.References, &refs) != nil {
			return nil, errorf(`references: with "candidates" give one list of sentences per candidate, like [["ref 1a", "ref 1b"], ["ref 2"]]`)
		}
		res, err = models.CorpusBLEU(req.Candidates, refs, opts)
	default:
		return nil, errorf("candidate: missing; give the sentence to score (or candidates for a corpus)")
	}
	if err != nil {
		return nil, errorf("%s", strings.TrimPrefix(err.Error(), "models: "))
	}
	return &res, nil
}
