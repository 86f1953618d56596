package web

import (
	"math"
	"strings"
	"testing"
)

// TestBLEULectureExample is lecture 003's "the cat the cat on the mat": p1 = 5/7, p2 = 2/3.
func TestBLEULectureExample(t *testing.T) {
	ts := newTestServer(t)
	code, out := post(t, ts, "/api/v1/bleu", `{"candidate": "the cat the cat on the mat",
		"references": ["the cat is on the mat", "there is a cat on the mat"], "max_n": 2, "weights": "uniform"}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	ps := out["precisions"].([]any)
	for i, want := range [][2]float64{{5, 7}, {4, 6}} {
		p := ps[i].(map[string]any)
		if p["n"].(float64) != float64(i+1) || p["matched"].(float64) != want[0] || p["total"].(float64) != want[1] {
			t.Errorf("precisions[%d] = %v, want n=%d matched=%v total=%v", i, p, i+1, want[0], want[1])
		}
	}
	// r = 7 (the second reference is closest to c = 7), so BP = 1 and BLEU = √(5/7 · 2/3).
	if got, want := out["bleu"].(float64), math.Sqrt(5.0/7*2/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("bleu = %v, want %v", got, want)
	}
	if out["brevity_penalty"].(float64) != 1 || out["candidate_length"].(float64) != 7 || out["ref_length"].(float64) != 7 {
		t.Errorf("bp, c, r = %v %v %v, want 1 7 7", out["brevity_penalty"], out["candidate_length"], out["ref_length"])
	}
	if n := len(out["ngrams"].([]any)); n != 7+6 {
		t.Errorf("got %d n-grams, want 13 (7 unigrams and 6 bigrams)", n)
	}
}

// TestBLEUD2LBrevity is lecture 4.6: label A B C D E F, prediction A B, k = 2: exp(1 − 6/2).
func TestBLEUD2LBrevity(t *testing.T) {
	ts := newTestServer(t)
	code, out := post(t, ts, "/api/v1/bleu", `{"candidate": "A B", "references": ["A B C D E F"], "max_n": 2, "weights": "d2l"}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	if got, want := out["bleu"].(float64), math.Exp(1-6.0/2); math.Abs(got-want) > 1e-12 {
		t.Errorf("bleu = %v, want exp(-2) = %v", got, want)
	}
}

func TestBLEUCorpusAndDefaults(t *testing.T) {
	ts := newTestServer(t)
	code, out := post(t, ts, "/api/v1/bleu", `{"candidates": ["the cat sat on the mat", "a b c d"],
		"references": [["the cat sat on the mat"], ["a b c d", "a b"]]}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	if out["bleu"].(float64) != 1 || len(out["precisions"].([]any)) != 4 {
		t.Errorf("identical corpus: bleu %v with %d precisions, want 1 with the default max_n = 4", out["bleu"], len(out["precisions"].([]any)))
	}
	code, out = post(t, ts, "/api/v1/bleu", `{"candidate": "", "references": ["the cat"]}`)
	if code != 200 || out["bleu"].(float64) != 0 {
		t.Errorf("empty candidate: %d %v, want 200 with bleu 0", code, out)
	}
}

func TestBLEUErrors(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct{ name, body, mention string }{
		{"no candidate", `{"references": ["a"]}`, "candidate"},
		{"no references", `{"candidate": "a"}`, "references"},
		{"both forms", `{"candidate": "a", "candidates": ["a"], "references": ["a"]}`, "not both"},
		{"refs not a list", `{"candidate": "a", "references": "a"}`, "references"},
		{"corpus refs flat", `{"candidates": ["a"], "references": ["a"]}`, "references"},
		{"corpus length", `{"candidates": ["a", "b"], "references": [["a"]]}`, "corpus"},
		{"empty corpus", `{"candidates": [], "references": []}`, "no candidates"},
		{"empty reference list", `{"candidate": "a", "references": []}`, "reference"},
		{"max_n zero", `{"candidate": "a", "references": ["a"], "max_n": 0}`, "max_n"},
		{"max_n huge", `{"candidate": "a", "references": ["a"], "max_n": 99}`, "max_n"},
		{"max_n text", `{"candidate": "a", "references": ["a"], "max_n": "two"}`, "max_n"},
		{"weights", `{"candidate": "a", "references": ["a"], "weights": "geometric"}`, "weights"},
		{"d2l needs one ref", `{"candidate": "a", "references": ["a", "b"], "weights": "d2l"}`, "exactly one"},
		{"unknown field", `{"candidate": "a", "references": ["a"], "smoothing": 1}`, "smoothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := post(t, ts, "/api/v1/bleu", tc.body)
			msg, _ := out["error"].(string)
			if code != 400 || !strings.Contains(msg, tc.mention) {
				t.Errorf("got %d %q, want 400 mentioning %q", code, msg, tc.mention)
			}
		})
	}
	code, out := post(t, ts, "/api/v1/bleu", `{"candidate": "`+strings.Repeat("word ", 1<<20)+`", "references": ["a"]}`)
	if code != 413 {
		t.Errorf("5 MB candidate: %d %v, want 413", code, out)
	}
}
