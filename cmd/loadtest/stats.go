package main

import (
	"math"
	"slices"
	"time"
)

// Delays are kept in a histogram rather than one by one, so that a long run with many
// clients holds a fixed amount of memory: buckets 1 % wide from 1 µs up, which is
// what a p99 against a 100 ms target needs.
const (
	bucketGrowth = 1.01 // each bucket is 1 % wider than the one before
	buckets      = 2100 // 1.01^2100 µs ≈ 20 min: longer than any run (maxDuration)
)

// histogram counts durations in buckets of bucketGrowth: bucket i holds
// [1.01^i, 1.01^(i+1)) µs, bucket 0 everything under 1.01 µs. It also keeps the
// exact largest. The zero value is empty.
type histogram struct {
	counts [buckets]uint32
	n      int
	max    time.Duration
}

var logGrowth = math.Log(bucketGrowth)

func (h *histogram) add(d time.Duration) {
	i := 0
	if us := float64(d) / float64(time.Microsecond); us >= bucketGrowth {
		i = min(buckets-1, int(math.Log(us)/logGrowth))
	}
	h.counts[i]++
	h.n++
	h.max = max(h.max, d)
}

// merge adds o's counts to h.
func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile is the q-quantile (0 < q ≤ 1), rounded up to its bucket's upper edge (at
// most 1 % high) and never above the largest duration seen; 0 when empty.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(h.n)))
	seen := 0
	for i, c := range h.counts {
		seen += int(c)
		if seen >= rank {
			upper := time.Duration(math.Pow(bucketGrowth, float64(i+1)) * float64(time.Microsecond))
			return min(upper, h.max)
		}
	}
	return h.max
}

// spread is the minimum, median and maximum of xs (zeros when empty).
func spread(xs []int) (lo, mid, hi int) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[0], s[len(s)/2], s[len(s)-1]
}

// ms is d in milliseconds, for the report.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
