package lessons

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"unroll/data"
)

// The attention page's evidence for the bottleneck (lecture 002: a fixed-length
// context "may be a bottleneck … for long sequences"): BLEU on the held-out split,
// bucketed by source length, for the bundled model without attention and with it.

// minBucketPairs is the fewest test pairs a length bucket holds: enough that one
// sentence more or less does not swing its BLEU.
const minBucketPairs = 40

// lengthBucket is the test pairs whose source has Lo … Hi tokens.
type lengthBucket struct {
	Lo, Hi int
	Pairs  int
	// BLEU and Exact are corpus BLEU (uniform, N = 4) and the exact-match share, index
	// 0 without attention and 1 with it.
	BLEU, Exact [2]float64
}

// Label is the bucket's lengths, "7" or "9–12".
func (b lengthBucket) Label() string {
	if b.Lo == b.Hi {
		return fmt.Sprint(b.Lo)
	}
	return fmt.Sprintf("%d–%d", b.Lo, b.Hi)
}

// lengthScores is one task's buckets.
type lengthScores struct {
	Task    string
	Buckets []lengthBucket
}

// lengthModels are the bundled translators compared, without then with attention.
var lengthModels = map[string][2]string{
	"dates":  {"seq2seq-dates", "attention-dates"},
	"corpus": {"seq2seq-corpus", "attention-corpus"},
}

// bucketByLength groups pairs by source length in tokens into buckets of consecutive
// lengths, each with at least minPairs pairs (the last takes any remainder). It
// returns the buckets (scores unset) and, per bucket, the indices of its pairs.
func bucketByLength(task *TranslationTask, pairs []data.Pair, minPairs int) ([]lengthBucket, [][]int) {
	byLen := map[int][]int{}
	for i, p := range pairs {
		n := len(task.Tokenize(p.En))
		byLen[n] = append(byLen[n], i)
	}
	lens := make([]int, 0, len(byLen))
	for n := range byLen {
		lens = append(lens, n)
	}
	slices.Sort(lens)
	var buckets []lengthBucket
	var members [][]int
	open := false
	for _, n := range lens {
		if !open {
			buckets = append(buckets, lengthBucket{Lo: n})
			members = append(members, nil)
			open = true
		}
		last := len(buckets) - 1
		buckets[last].Hi = n
		members[last] = append(members[last], byLen[n]...)
		buckets[last].Pairs = len(members[last])
		open = buckets[last].Pairs < minPairs
	}
	if k := len(buckets); k > 1 && buckets[k-1].Pairs < minPairs { // too few at the end: join the previous bucket
		buckets[k-2].Hi = buckets[k-1].Hi
		members[k-2] = append(members[k-2], members[k-1]...)
		buckets[k-2].Pairs = len(members[k-2])
		buckets, members = buckets[:k-1], members[:k-1]
	}
	return buckets, members
}

// scoreByLength scores every length bucket of the task's test split with both
// bundled models' recorded greedy translations (RecordedTranslations).
func scoreByLength(taskName string) (lengthScores, error) {
	names := lengthModels[taskName]
	spec, _ := FindTranslatorSpec(names[0])
	task := spec.Task()
	var outputs [2][]string
	for i, name := range names {
		rec, err := RecordedTranslations(name)
		if err != nil {
			return lengthScores{}, err
		}
		outputs[i] = rec.Greedy
	}

	buckets, members := bucketByLength(task, task.Test, minBucketPairs)
	for b, idx := range members {
		pairs := make([]data.Pair, len(idx))
		for k, i := range idx {
			pairs[k] = task.Test[i]
		}
		for m := range names {
			cands := make([]string, len(idx))
			for k, i := range idx {
				cands[k] = outputs[m][i]
			}
			score := task.Score(cands, pairs)
			buckets[b].BLEU[m], buckets[b].Exact[m] = score.BLEU, score.Exact
		}
	}
	return lengthScores{Task: taskName, Buckets: buckets}, nil
}

// attentionLengthScores is scoreByLength for both tasks, once per process.
var attentionLengthScores = sync.OnceValues(func() (map[string]lengthScores, error) {
	out := map[string]lengthScores{}
	for task := range lengthModels {
		s, err := scoreByLength(task)
		if err != nil {
			return nil, err
		}
		out[task] = s
	}
	return out, nil
})

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
