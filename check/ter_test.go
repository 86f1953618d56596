package check

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"unroll/models"
)

// TestTERLimits: each limit admits a request at it and refuses one over it with a
// message naming the field and the limit.
func TestTERLimits(t *testing.T) {
	atLimit := words(MaxSentenceWords, "a")
	corpus := func(n int, cand string, refs ...string) *TERRequest {
		lists := make([][]string, n)
		for i := range lists {
			lists[i] = refs
		}
		return &TERRequest{Candidates: slices.Repeat([]string{cand}, n), References: rawJSON(t, lists)}
	}
	for _, tc := range []struct {
		name string
		req  *TERRequest
		want string // "" for a 200
	}{
		{"sentence at every limit", &TERRequest{Candidate: ptr(atLimit), References: rawJSON(t, slices.Repeat([]string{atLimit}, MaxReferences))}, ""},
		{"candidate words", &TERRequest{Candidate: ptr(words(300, "a")), References: rawJSON(t, []string{"a"})},
			"candidate: 300 words is over the limit of 256 words per sentence"},
		{"reference bytes", &TERRequest{Candidate: ptr("a"), References: rawJSON(t, []string{strings.Repeat("x", MaxSentenceBytes+1)})},
			"references[0]: 4097 bytes is over the limit of 4096 bytes per sentence"},
		{"references", &TERRequest{Candidate: ptr("a"), References: rawJSON(t, slices.Repeat([]string{"a"}, 17))},
			"references: 17 references is over the limit of 16"},
		{"no reference", &TERRequest{Candidate: ptr("a"), References: rawJSON(t, []string{})}, "references: give at least one reference"},
		{"corpus at the cell limit", corpus(1000, words(32, "a"), words(32, "b")), ""},
		{"corpus cells", corpus(1000, words(40, "a"), words(40, "b")),
			"over the limit of 1100000 per request"},
		{"corpus sentences", corpus(MaxCorpusSentences+1, "a", "a"), "candidates: 1001 sentences is over the limit of 1000"},
		{"corpus empty reference list", corpus(2, "a"), "references[0]: give at least one reference"},
		{"corpus shape", &TERRequest{Candidates: []string{"a", "b"}, References: rawJSON(t, [][]string{{"a"}})}, "one list of references per candidate"},
		{"corpus empty", &TERRequest{Candidates: []string{}, References: rawJSON(t, [][]string{})}, "no candidates"},
		{"both forms", &TERRequest{Candidate: ptr("a"), Candidates: []string{"a"}, References: rawJSON(t, []string{"a"})}, "not both"},
		{"no candidate", &TERRequest{References: rawJSON(t, []string{"a"})}, "candidate: missing"},
		{"no references", &TERRequest{Candidate: ptr("a")}, "references: missing"},
		{"flat references for a corpus", &TERRequest{Candidates: []string{"a"}, References: rawJSON(t, []string{"a"})}, `with "candidates" give one list`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TER(tc.req)
			var bad *Error
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want an answer", err)
			case tc.want != "" && (!errors.As(err, &bad) || !strings.Contains(bad.Msg, tc.want)):
				t.Fatalf("got %v, want a check.Error containing %q", err, tc.want)
			}
		})
	}
}

// TestTERAnswers: the two forms answer with the models' results.
func TestTERAnswers(t *testing.T) {
	res, err := TER(&TERRequest{Candidate: ptr("sat on the mat the cat"), References: rawJSON(t, []string{"a b", "the cat sat on the mat"})})
	if err != nil {
		t.Fatal(err)
	}
	s := res.(*models.TERResult)
	if s.Edits != 1 || s.Reference != 1 || s.RefLength != 4 || s.TER != 0.25 {
		t.Errorf("sentence: %d edits to reference %d over %v = %v, want 1 to 1 over 4 = 0.25", s.Edits, s.Reference, s.RefLength, s.TER)
	}
	b, _ := json.Marshal(res)
	for _, key := range []string{`"ter":0.25`, `"edits":1`, `"ref_length":4`, `"reference":1`, `"operations":[{"op":"shift","words":["the","cat"],"from":4,"to":0}]`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("the answer %s lacks %s", b, key)
		}
	}
	res, err = TER(&TERRequest{Candidates: []string{"a b", ""}, References: rawJSON(t, [][]string{{"a c"}, {"x y"}})})
	if err != nil {
		t.Fatal(err)
	}
	c := res.(*models.TERCorpusResult)
	if c.Edits != 3 || c.RefLength != 4 || c.TER != 0.75 || len(c.Sentences) != 2 {
		t.Errorf("corpus: %d edits over %v = %v, want 3 over 4 = 0.75", c.Edits, c.RefLength, c.TER)
	}
}

// BenchmarkTERWorstRequest is the sentence form at its limits on a three-word
// vocabulary, where the shift search is widest: 256 words against 16 references of 256
// (MaxTERCells says a request stays near a second of one core).
func BenchmarkTERWorstRequest(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	sentence := func() string {
		w := make([]string, MaxSentenceWords)
		for i := range w {
			w[i] = string(rune('a' + rng.IntN(3)))
		}
		return strings.Join(w, " ")
	}
	refs := make([]string, MaxReferences)
	for i := range refs {
		refs[i] = sentence()
	}
	req := &TERRequest{Candidate: ptr(sentence()), References: rawJSON(b, refs)}
	for b.Loop() {
		if _, err := TER(req); err != nil {
			b.Fatal(err)
		}
	}
}
