package zoo

import (
	"strconv"
	"testing"

	"unroll/internal/machine"
)

func TestBucketByLength(t *testing.T) {
	task := DatesTask()
	for _, minPairs := range []int{1, 10, 40, 200} {
		buckets, members := bucketByLength(task, task.Test, minPairs)
		total, last := 0, 0
		for b, bk := range buckets {
			if bk.Lo > bk.Hi || bk.Lo <= last || bk.Pairs != len(members[b]) {
				t.Errorf("min %d: bucket %+v after length %d with %d members is malformed", minPairs, bk, last, len(members[b]))
			}
			if bk.Pairs < minPairs && len(buckets) > 1 {
				t.Errorf("min %d: bucket %s has %d pairs", minPairs, bk.Label(), bk.Pairs)
			}
			for _, i := range members[b] {
				if n := len(task.Tokenize(task.Test[i].En)); n < bk.Lo || n > bk.Hi {
					t.Errorf("min %d: pair of length %d in bucket %s", minPairs, n, bk.Label())
				}
			}
			last = bk.Hi
			total += bk.Pairs
		}
		if total != len(task.Test) {
			t.Errorf("min %d: buckets hold %d pairs want %d", minPairs, total, len(task.Test))
		}
	}
}

// TestScoreByLength: the buckets cover the test split, and their exact-match shares
// add up to the score cmd/train recorded in each checkpoint.
func TestScoreByLength(t *testing.T) {
	scores, err := AttentionLengthScores()
	if err != nil {
		t.Fatal(err)
	}
	for task, names := range LengthModels {
		s := scores[task]
		for k, name := range names {
			_, meta, err := LoadTranslator(name)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := strconv.ParseFloat(meta["test_exact_greedy"], 64)
			var exact float64
			pairs := 0
			for _, b := range s.Buckets {
				exact += b.Exact[k] * float64(b.Pairs)
				pairs += b.Pairs
				if b.BLEU[k] < 0 || b.BLEU[k] > 1 {
					t.Errorf("%s %s: BLEU %v outside [0, 1]", name, b.Label(), b.BLEU[k])
				}
			}
			if got := exact / float64(pairs); !machine.NearRecorded(got, want, machine.RecordedDecimals4) { // cmd/train records 4 decimals
				t.Errorf("%s: exact match over the buckets %.4f want the recorded %.4f", name, got, want)
			}
		}
	}
}

// BenchmarkScoreByLength is the once-per-process cost of the BLEU-by-length bars
// (both tasks, both models, the whole test splits' recorded translations).
func BenchmarkScoreByLength(b *testing.B) {
	for b.Loop() {
		for task := range LengthModels {
			if _, err := scoreByLength(task); err != nil {
				b.Fatal(err)
			}
		}
	}
}
