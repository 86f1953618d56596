package models

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// editCodes writes an alignment compactly: = match, S substitute, D delete, I insert.
func editCodes(edits []Edit) string {
	codes := map[EditKind]string{EditMatch: "=", EditSubstitute: "S", EditDelete: "D", EditInsert: "I"}
	var b strings.Builder
	for _, e := range edits {
		b.WriteString(codes[e.Kind])
	}
	return b.String()
}

func TestWERHandWorked(t *testing.T) {
	tests := []struct {
		ref, hyp   string
		wantCodes  string
		s, d, i, c int
		wantRate   float64
	}{
		{"the cat sat on the mat", "the cat sit on mat", "==S=D=", 1, 1, 0, 4, 2.0 / 6},
		{"a b c", "x a b c", "I===", 0, 0, 1, 3, 1.0 / 3},
		{"a b c d", "a c d e", "=D==I", 0, 1, 1, 3, 2.0 / 4},
		{"jimmy visits africa in september", "jimmy visited africa last september", "=S=S=", 2, 0, 0, 3, 2.0 / 5},
		{"a b c", "a b c", "===", 0, 0, 0, 3, 0},
		{"a b c", "", "DDD", 0, 3, 0, 0, 1},
		// ties: the backtrace from the end prefers substitution, so "b a" is two substitutions
		// rather than a deletion and an insertion, and "a b"→"c" substitutes the later word
		{"a b", "b a", "SS", 2, 0, 0, 0, 1},
		{"a b", "c", "DS", 1, 1, 0, 0, 1},
		// insertions can push WER above 1
		{"a", "x y z", "IIS", 1, 0, 2, 0, 3},
		// empty reference: divide by 1, so WER is the number of inserted words
		{"", "a b", "II", 0, 0, 2, 0, 2},
		{"", "", "", 0, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		res := WER(tc.ref, tc.hyp)
		if got := editCodes(res.Edits); got != tc.wantCodes {
			t.Errorf("WER(%q, %q) edits got %s want %s", tc.ref, tc.hyp, got, tc.wantCodes)
		}
		if res.Substitutions != tc.s || res.Deletions != tc.d || res.Insertions != tc.i || res.Correct != tc.c {
			t.Errorf("WER(%q, %q) S D I C got %d %d %d %d want %d %d %d %d", tc.ref, tc.hyp,
				res.Substitutions, res.Deletions, res.Insertions, res.Correct, tc.s, tc.d, tc.i, tc.c)
		}
		if !closeTo(res.Rate, tc.wantRate, 1e-15) {
			t.Errorf("WER(%q, %q) rate got %v want %v", tc.ref, tc.hyp, res.Rate, tc.wantRate)
		}
	}
}

func TestWEREditPositions(t *testing.T) {
	res := WER("the cat sat on the mat", "the cat sit on mat")
	want := []Edit{
		{EditMatch, 0, 0, "the", "the"},
		{EditMatch, 1, 1, "cat", "cat"},
		{EditSubstitute, 2, 2, "sat", "sit"},
		{EditMatch, 3, 3, "on", "on"},
		{EditDelete, 4, -1, "the", ""},
		{EditMatch, 5, 4, "mat", "mat"},
	}
	if !slices.Equal(res.Edits, want) {
		t.Errorf("edits got %+v want %+v", res.Edits, want)
	}
}

// editDistance is the word Levenshtein distance by memoised recursion, written
// independently of WERTokens' table.
func editDistance(a, b []string) int {
	memo := map[[2]int]int{}
	var rec func(i, j int) int
	rec = func(i, j int) int {
		if i == len(a) {
			return len(b) - j
		}
		if j == len(b) {
			return len(a) - i
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		v := 1 + min(rec(i+1, j), rec(i, j+1), rec(i+1, j+1))
		if a[i] == b[j] {
			v = min(v, rec(i+1, j+1))
		}
		memo[[2]int{i, j}] = v
		return v
	}
	return rec(0, 0)
}

func TestWERProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	words := []string{"a", "b", "c", "d"}
	sentence := func() []string {
		s := make([]string, rng.IntN(9))
		for i := range s {
			s[i] = words[rng.IntN(len(words))]
		}
		return s
	}
	for trial := range 500 {
		ref, hyp := sentence(), sentence()
		res := WERTokens(ref, hyp)
		errs := res.Substitutions + res.Deletions + res.Insertions
		if want := editDistance(ref, hyp); errs != want {
			t.Fatalf("trial %d %q→%q: S+D+I got %d want %d", trial, ref, hyp, errs, want)
		}
		if res.N != len(ref) || res.Substitutions+res.Deletions+res.Correct != len(ref) ||
			res.Substitutions+res.Insertions+res.Correct != len(hyp) {
			t.Fatalf("trial %d: counts %+v do not add up to N=%d, M=%d", trial, res, len(ref), len(hyp))
		}
		if want := float64(errs) / float64(max(len(ref), 1)); res.Rate != want {
			t.Fatalf("trial %d: rate got %v want %v", trial, res.Rate, want)
		}
		// replaying the edits gives back both sentences, positions in order
		var gotRef, gotHyp []string
		for _, e := range res.Edits {
			if e.RefPos >= 0 {
				if e.RefPos != len(gotRef) || ref[e.RefPos] != e.RefWord {
					t.Fatalf("trial %d: edit %+v out of order", trial, e)
				}
				gotRef = append(gotRef, e.RefWord)
			}
			if e.HypPos >= 0 {
				if e.HypPos != len(gotHyp) || hyp[e.HypPos] != e.HypWord {
					t.Fatalf("trial %d: edit %+v out of order", trial, e)
				}
				gotHyp = append(gotHyp, e.HypWord)
			}
			if (e.Kind == EditMatch) != (e.RefPos >= 0 && e.HypPos >= 0 && e.RefWord == e.HypWord) {
				t.Fatalf("trial %d: edit %+v mislabelled", trial, e)
			}
		}
		if !slices.Equal(gotRef, ref) || !slices.Equal(gotHyp, hyp) {
			t.Fatalf("trial %d: replay got %q, %q want %q, %q", trial, gotRef, gotHyp, ref, hyp)
		}
	}
}
