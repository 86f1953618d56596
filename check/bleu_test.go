package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"unroll/internal/machine"
	"unroll/models"
)

func words(n int, w string) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }

func ptr[T any](v T) *T { return &v }

func rawJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBLEULimits: each limit admits a request at it and refuses one over it with a
// message naming the field and the limit.
func TestBLEULimits(t *testing.T) {
	atLimit := words(MaxSentenceWords, "a")
	corpus := func(n int, cand string, refs ...string) *BLEURequest {
		lists := make([][]string, n)
		for i := range lists {
			lists[i] = refs
		}
		return &BLEURequest{Candidates: slices.Repeat([]string{cand}, n), References: rawJSON(t, lists)}
	}
	for _, tc := range []struct {
		name string
		req  *BLEURequest
		want string // "" for a 200
	}{
		{"words at the limit", &BLEURequest{Candidate: ptr(atLimit), References: rawJSON(t, []string{atLimit}), MaxN: ptr(8)}, ""},
		{"candidate words", &BLEURequest{Candidate: ptr(words(500000, "a")), References: rawJSON(t, []string{"a"}), MaxN: ptr(8)},
			"candidate: 500000 words is over the limit of 256 words per sentence"},
		{"reference words", &BLEURequest{Candidate: ptr("a"), References: rawJSON(t, []string{"a", words(257, "a")})},
			"references[1]: 257 words is over the limit of 256 words per sentence"},
		{"bytes at the limit", &BLEURequest{Candidate: ptr(strings.Repeat("é", MaxSentenceBytes/2)), References: rawJSON(t, []string{"a"})}, ""},
		{"candidate bytes", &BLEURequest{Candidate: ptr(strings.Repeat("x", MaxSentenceBytes+1)), References: rawJSON(t, []string{"a"})},
			"candidate: 4097 bytes is over the limit of 4096 bytes per sentence"},
		{"references at the limit", &BLEURequest{Candidate: ptr("a b"), References: rawJSON(t, slices.Repeat([]string{"a b"}, MaxReferences))}, ""},
		{"references", &BLEURequest{Candidate: ptr(words(400, "a")), References: rawJSON(t, slices.Repeat([]string{words(400, "a")}, 2000))},
			"references: 2000 references is over the limit of 16"},
		{"max_n", &BLEURequest{Candidate: ptr("a"), References: rawJSON(t, []string{"a"}), MaxN: ptr(9)}, "max_n: must be between 1 and 8, got 9"},
		{"corpus at the limit", corpus(MaxCorpusSentences, "a b c", "a b c"), ""},
		{"corpus sentences", corpus(MaxCorpusSentences+1, "a", "a"), "candidates: 1001 sentences is over the limit of 1000"},
		{"corpus references", corpus(3, "a", slices.Repeat([]string{"a"}, 17)...), "references[0]: 17 references is over the limit of 16"},
		{"corpus sentence words", corpus(3, words(300, "a"), "a"), "candidates[0]: 300 words is over the limit of 256 words per sentence"},
		{"corpus reference words", corpus(3, "a", "a", words(300, "a")), "references[0][1]: 300 words is over the limit of 256 words per sentence"},
		{"corpus words", corpus(500, words(200, "a"), "a"),
			fmt.Sprintf("candidates[497]: the corpus has 100098 words up to here (candidates and references), over the limit of %d words per request", MaxCorpusWords)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := BLEU(tc.req)
			var bad *Error
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want a score", err)
			case tc.want != "" && (!errors.As(err, &bad) || bad.Msg != tc.want):
				t.Errorf("got %v, want *Error %q", err, tc.want)
			case tc.want == "" && res == nil:
				t.Error("no result")
			}
		})
	}
}

// TestCountWords: countWords counts what models.Tokenize splits.
func TestCountWords(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a  b\tc\nd\r\ve\ff ", "a\u00a0b\u2003c\u0085d\u3000e", "\xff \xfe\xfd x", "é à", "a\u200bb"} {
		if got, want := countWords(s), len(models.Tokenize(s)); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestBLEUAnswerBounded: the largest legal sentence-form answers, worst cases for the
// n-gram listing, stay under 4 MB and take well under a second; the largest legal
// corpus lists no n-grams.
func TestBLEUAnswerBounded(t *testing.T) {
	long := strings.Repeat("<", 15) // escaped as \u003c: 6 bytes of JSON per byte of word
	for _, tc := range []struct {
		name string
		req  *BLEURequest
	}{
		{"same word everywhere", &BLEURequest{Candidate: ptr(words(MaxSentenceWords, "a")), MaxN: ptr(models.MaxBLEUOrder),
			References: rawJSON(t, slices.Repeat([]string{words(MaxSentenceWords, "a")}, MaxReferences))}},
		{"long escaped words", &BLEURequest{Candidate: ptr(words(MaxSentenceWords, long)), MaxN: ptr(models.MaxBLEUOrder),
			References: rawJSON(t, slices.Repeat([]string{words(MaxSentenceWords, long)}, MaxReferences))}},
	} {
		start := time.Now()
		res, err := BLEU(tc.req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		took := time.Since(start)
		t.Logf("%s: %d n-grams, %d bytes of JSON, %v", tc.name, len(res.NGrams), len(b), took)
		slow := took > 2*time.Second
		if machine.Emulated() {
			t.Logf("%s: time not judged under emulation (%s=1): qemu is ~5× slower; judge speed on real hardware", tc.name, machine.EmulatedEnv)
			slow = false
		}
		if len(b) > 4<<20 || slow {
			t.Errorf("%s: %d bytes in %v, want under 4 MiB and 2 s", tc.name, len(b), took)
		}
	}

	// corpus: 22 sentences of 256 words, each against 16 references of 256 words (MaxCorpusWords)
	n := MaxCorpusWords / (MaxSentenceWords * (1 + MaxReferences))
	refs := slices.Repeat([][]string{slices.Repeat([]string{words(MaxSentenceWords, "a")}, MaxReferences)}, n)
	start := time.Now()
	res, err := BLEU(&BLEURequest{Candidates: slices.Repeat([]string{words(MaxSentenceWords, "a")}, n), References: rawJSON(t, refs), MaxN: ptr(8)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	t.Logf("corpus of %d sentences × 17 × 256 words: %d bytes of JSON, %v", n, len(b), time.Since(start))
	for i, s := range res.Sentences {
		if len(s.NGrams) != 0 {
			t.Fatalf("sentences[%d] lists %d n-grams, want none in the corpus form", i, len(s.NGrams))
		}
	}
	if len(b) > 1<<20 {
		t.Errorf("corpus answer of %d bytes, want under 1 MiB", len(b))
	}
}

func BenchmarkBLEULargestCorpus(b *testing.B) {
	// 1000 sentences of 50 words with one reference each: MaxCorpusWords
	sent := func(i int) string {
		ws := make([]string, 50)
		for j := range ws {
			ws[j] = fmt.Sprintf("w%d", (i*7+j*13)%97)
		}
		return strings.Join(ws, " ")
	}
	var cands []string
	var refs [][]string
	for i := range MaxCorpusSentences {
		cands = append(cands, sent(i))
		refs = append(refs, []string{sent(i + 1)})
	}
	req := &BLEURequest{Candidates: cands, References: rawJSON(b, refs), MaxN: ptr(8)}
	for b.Loop() {
		if _, err := BLEU(req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBLEUSmoothingAndWeights: the API takes smoothing and general weights w_n, and
// names the field of a bad one.
func TestBLEUSmoothingAndWeights(t *testing.T) {
	cand := "the cat"
	req := &BLEURequest{Candidate: &cand, References: json.RawMessage(`["the cat"]`), Smoothing: "effective-order"}
	res, err := BLEU(req)
	if err != nil || res.BLEU != 1 {
		t.Fatalf("effective order: %v, %v; want BLEU 1 for a perfect two-word match", res, err)
	}
	n := 2
	req = &BLEURequest{Candidate: &cand, References: json.RawMessage(`["the cat"]`), MaxN: &n, W: []float64{1, 0}}
	if res, err := BLEU(req); err != nil || res.BLEU != 1 {
		t.Errorf("w = [1, 0]: %v, %v", res, err)
	}
	for _, bad := range []*BLEURequest{
		{Candidate: &cand, References: json.RawMessage(`["the cat"]`), Smoothing: "laplace"},
		{Candidate: &cand, References: json.RawMessage(`["the cat"]`), W: []float64{1}},
		{Candidate: &cand, References: json.RawMessage(`["the cat"]`), W: []float64{0.5, 0.5, 0.5, 0.5}},
	} {
		if _, err := BLEU(bad); err == nil || !(strings.HasPrefix(err.Error(), "smoothing:") || strings.HasPrefix(err.Error(), "w:") || strings.Contains(err.Error(), "weights w_n")) {
			t.Errorf("%+v: got %v, want an error naming the field", bad, err)
		}
	}
}
