package lessons

import (
	"fmt"
	"math"

	"unroll/zoo"
)

// lengthScores is one task's BLEU by source length (zoo.LengthScores), with the
// attention page's ways of writing it.
type lengthScores struct{ zoo.LengthScores }

// attentionLengthScores is zoo.AttentionLengthScores for the attention page.
func attentionLengthScores() (map[string]lengthScores, error) {
	all, err := zoo.AttentionLengthScores()
	if err != nil {
		return nil, err
	}
	out := make(map[string]lengthScores, len(all))
	for task, s := range all {
		out[task] = lengthScores{s}
	}
	return out, nil
}

// bleuRange writes the lowest and highest BLEU of model k (0 without attention, 1 with)
// over the buckets: "0.848–0.905", or one number when they agree to 3 decimals.
func (s lengthScores) bleuRange(k int) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range s.Buckets {
		lo, hi = min(lo, b.BLEU[k]), max(hi, b.BLEU[k])
	}
	if fmt.Sprintf("%.3f", lo) == fmt.Sprintf("%.3f", hi) {
		return fmt.Sprintf("%.3f", lo)
	}
	return fmt.Sprintf("%.3f–%.3f", lo, hi)
}

// span is the source lengths the buckets cover, "3–8".
func (s lengthScores) span() string {
	return fmt.Sprintf("%d–%d", s.Buckets[0].Lo, s.Buckets[len(s.Buckets)-1].Hi)
}

// trend is the first and last bucket's BLEU of both models, for the page's facts.
func (s lengthScores) trend() string {
	first, last := s.Buckets[0], s.Buckets[len(s.Buckets)-1]
	return fmt.Sprintf("without attention %.3f (%s) → %.3f (%s); with attention %.3f → %.3f",
		first.BLEU[0], first.Label(), last.BLEU[0], last.Label(), first.BLEU[1], last.BLEU[1])
}
