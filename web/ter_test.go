package web

import (
	"math"
	"strings"
	"testing"
)

// TestTERPaperExample is Snover et al. 2006's example through the real route: one
// shift (this week), two substitutions and one deletion, 4 edits over 13 words.
func TestTERPaperExample(t *testing.T) {
	ts := newTestServer(t)
	code, out := post(t, ts, "/api/v1/ter", `{"candidate": "this week the saudis denied information published in the new york times",
		"references": ["saudi arabia denied this week information published in the american new york times"]}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	if out["edits"].(float64) != 4 || out["ref_length"].(float64) != 13 || out["reference"].(float64) != 0 {
		t.Errorf("edits, ref_length, reference = %v %v %v, want 4 13 0", out["edits"], out["ref_length"], out["reference"])
	}
	if got := out["ter"].(float64); math.Abs(got-4.0/13) > 1e-15 {
		t.Errorf("ter = %v, want 4/13", got)
	}
	ops := out["operations"].([]any)
	first := ops[0].(map[string]any)
	if first["op"] != "shift" || first["from"].(float64) != 0 || first["to"].(float64) != 3 || len(first["words"].([]any)) != 2 {
		t.Errorf("first operation %v, want the shift of [this week] from 0 to 3", first)
	}
	for _, op := range ops {
		if len(op.(map[string]any)) != 4 {
			t.Errorf("operation %v: want exactly op, words, from, to", op)
		}
	}
}

// TestTERReferencesAndCorpus: the closest of several references, an empty candidate,
// all empty, and the corpus form.
func TestTERReferencesAndCorpus(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		body          string
		ter, edits    float64
		ref, refLenth float64
	}{
		{`{"candidate": "red red red", "references": ["the quick red fox", "the red red fox"]}`, 2.0 / 4, 2, 1, 4},
		{`{"candidate": "", "references": ["a b c", "a"]}`, 1.0 / 2, 1, 1, 2},
		{`{"candidate": "", "references": [""]}`, 0, 0, 0, 0},
		{`{"candidate": "The cat", "references": ["the cat"]}`, 0.5, 1, 0, 2},
	} {
		code, out := post(t, ts, "/api/v1/ter", tc.body)
		if code != 200 || out["ter"].(float64) != tc.ter || out["edits"].(float64) != tc.edits || out["reference"].(float64) != tc.ref || out["ref_length"].(float64) != tc.refLenth {
			t.Errorf("%s: %d %v, want ter %v edits %v reference %v ref_length %v", tc.body, code, out, tc.ter, tc.edits, tc.ref, tc.refLenth)
		}
	}
	// sacreBLEU's test_ter.py: "d e f g h a b c" against "a b c d e f g h" is one shift, 1/8
	code, out := post(t, ts, "/api/v1/ter", `{"candidates": ["d e f g h a b c", "x"], "references": [["a b c d e f g h"], ["y", "x y z"]]}`)
	if code != 200 {
		t.Fatalf("corpus: %d %v", code, out)
	}
	// 1 edit over 8, then 1 edit over (1 + 3)/2 = 2: 2/10
	if out["edits"].(float64) != 2 || out["ref_length"].(float64) != 10 || out["ter"].(float64) != 0.2 || len(out["sentences"].([]any)) != 2 {
		t.Errorf("corpus: %v, want 2 edits over 10 with 2 sentences", out)
	}
	if _, has := out["operations"]; has {
		t.Errorf("corpus answer has operations at the top: %v", out)
	}
}

func TestTERErrors(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct{ name, body, mention string }{
		{"no candidate", `{"references": ["a"]}`, "candidate"},
		{"no references", `{"candidate": "a"}`, "references"},
		{"empty references", `{"candidate": "a", "references": []}`, "at least one reference"},
		{"both forms", `{"candidate": "a", "candidates": ["a"], "references": ["a"]}`, "not both"},
		{"refs not a list", `{"candidate": "a", "references": "a"}`, "references"},
		{"corpus length", `{"candidates": ["a", "b"], "references": [["a"]]}`, "corpus"},
		{"unknown field", `{"candidate": "a", "references": ["a"], "max_n": 2}`, "max_n"},
		{"too many words", `{"candidate": "` + strings.Repeat("w ", 300) + `", "references": ["a"]}`, "over the limit of 256 words"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := post(t, ts, "/api/v1/ter", tc.body)
			msg, _ := out["error"].(string)
			if code != 400 || !strings.Contains(msg, tc.mention) {
				t.Errorf("got %d %q, want 400 mentioning %q", code, msg, tc.mention)
			}
		})
	}
	code, out := post(t, ts, "/api/v1/ter", `{"candidate": "`+strings.Repeat("word ", 1<<20)+`", "references": ["a"]}`)
	if code != 413 {
		t.Errorf("5 MB candidate: %d %v, want 413", code, out)
	}
}
