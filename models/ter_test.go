package models

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTERHandWorked holds cases worked by hand (each comment gives the edits).
func TestTERHandWorked(t *testing.T) {
	tests := []struct {
		name, cand string
		refs       []string
		edits      int
		refLength  float64
		reference  int
		shifts     int
	}{
		// one shift of "the cat" to the front makes them equal: 1 edit, where WER needs 4
		{"shift a block", "sat on the mat the cat", []string{"the cat sat on the mat"}, 1, 6, 0, 1},
		{"identical", "a b c", []string{"a b c"}, 0, 3, 0, 0},
		// a substitution (c→x) and an insertion (y): no shift can help
		{"no shift helps", "a b x y", []string{"a b c"}, 2, 3, 0, 0},
		// "b a": Levenshtein 2 (two substitutions); moving "a" to the front: 1
		{"swap", "b a c d", []string{"a b c d"}, 1, 4, 0, 1},
		// closest reference: 3 edits to the first (red→the, red→quick, fox missing), 2 to the
		// second (red→the, fox missing); average length (4 + 4)/2
		{"closest reference", "red red red", []string{"the quick red fox", "the red red fox"}, 2, 4, 1, 0},
		// an empty candidate needs one insertion per reference word of the closest (shortest) reference
		{"empty candidate", "", []string{"a b c", "a"}, 1, 2, 1, 0},
		{"all empty", "", []string{""}, 0, 0, 0, 0},
		// case-sensitive: "The" and "the" differ
		{"case", "The cat", []string{"the cat"}, 1, 2, 0, 0},
		// two blocks out of place: one shift (of either block) puts them in order
		{"two blocks swapped", "c d a b", []string{"a b c d"}, 1, 4, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := SentenceTER(tc.cand, tc.refs)
			if err != nil {
				t.Fatal(err)
			}
			if res.Edits != tc.edits || res.RefLength != tc.refLength || res.Reference != tc.reference || res.Shifts != tc.shifts {
				t.Errorf("edits, ref length, reference, shifts got %d %v %d %d want %d %v %d %d (ops %+v)",
					res.Edits, res.RefLength, res.Reference, res.Shifts, tc.edits, tc.refLength, tc.reference, tc.shifts, res.Operations)
			}
			if want := terRate(tc.edits, tc.refLength); res.TER != want {
				t.Errorf("TER got %v want %v", res.TER, want)
			}
			if len(res.Operations) != res.Edits {
				t.Errorf("%d operations for %d edits", len(res.Operations), res.Edits)
			}
		})
	}
}

// TestTEROperations spells out the operations of a shift and a substitution.
func TestTEROperations(t *testing.T) {
	// "sat" moves from the end to after "dog" (Levenshtein alone: a missing and an extra
	// "sat", 2 edits), then "dog" is substituted for "cat".
	res, err := SentenceTER("the dog on the mat sat", []string{"the cat sat on the mat"})
	if err != nil {
		t.Fatal(err)
	}
	want := []TEROp{
		{Op: TERShift, Words: []string{"sat"}, From: 5, To: 2, Block: []int{5}},
		{Op: TERSubstitute, Words: []string{"dog", "cat"}, From: 1, To: 1},
	}
	if len(res.Operations) != len(want) {
		t.Fatalf("operations got %+v want %+v", res.Operations, want)
	}
	for i, op := range res.Operations {
		w := want[i]
		if op.Op != w.Op || !slices.Equal(op.Words, w.Words) || op.From != w.From || op.To != w.To || !slices.Equal(op.Block, w.Block) {
			t.Errorf("operation %d got %+v want %+v", i, op, w)
		}
	}
	if got := strings.Join(res.Shifted, " "); got != "the dog sat on the mat" {
		t.Errorf("shifted candidate got %q", got)
	}
	if !slices.Equal(res.Origin, []int{0, 1, 5, 2, 3, 4}) {
		t.Errorf("origin got %v", res.Origin)
	}
	if res.Edits != 2 || res.TER != 2.0/6 {
		t.Errorf("edits %d TER %v, want 2 and 2/6", res.Edits, res.TER)
	}
}

// TestTERPublished checks published examples.
func TestTERPublished(t *testing.T) {
	// Snover et al. 2006, the paper's example (section 3): one shift (THIS WEEK), two
	// substitutions (THE SAUDIS for SAUDI ARABIA) and one deletion (AMERICAN), 4 edits over
	// 13 reference words, "TER = 4/13 = 0.31". The same pair and 4/13 (0.308) are the
	// expected values of facebookresearch/vizseq tests/scorers/test_ter.py and of pyter's
	// README (aflc/pyter).
	res, err := SentenceTER("THIS WEEK THE SAUDIS denied information published in the new york times",
		[]string{"SAUDI ARABIA denied THIS WEEK information published in the AMERICAN new york times"})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, op := range res.Operations {
		kinds[op.Op]++
	}
	if res.Edits != 4 || res.RefLength != 13 || kinds[TERShift] != 1 || kinds[TERSubstitute] != 2 || kinds[TERDelete] != 1 {
		t.Errorf("Snover et al.'s example: %d edits over %v words (%v), want 4 over 13: 1 shift, 2 sub, 1 del", res.Edits, res.RefLength, kinds)
	}
	if res.Operations[0].Op != TERShift || strings.Join(res.Operations[0].Words, " ") != "THIS WEEK" {
		t.Errorf("the shift got %+v, want THIS WEEK", res.Operations[0])
	}

	// sacreBLEU's test/test_ter.py (mjpost/sacrebleu), test_cases, corpus TER × 100 within
	// 1e-3: perfect match 0, no overlap 1, empty hypothesis against "a" 1, and
	// "d e f g h a b c" against "a b c d e f g h", "a single shift fixes MT": 1/8.
	for _, tc := range []struct {
		cand, ref string
		want      float64
	}{
		{"aaaa bbbb cccc dddd", "aaaa bbbb cccc dddd", 0},
		{"dddd eeee ffff", "aaaa bbbb cccc", 1},
		{"", "a", 1},
		{"d e f g h a b c", "a b c d e f g h", 1.0 / 8},
	} {
		res, err := CorpusTER([]string{tc.cand}, [][]string{{tc.ref}})
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(res.TER, tc.want, 1e-12) {
			t.Errorf("sacreBLEU case %q vs %q: TER got %v want %v", tc.cand, tc.ref, res.TER, tc.want)
		}
	}

	// sacreBLEU's realistic case "from WMT dev data (2019)", five German sentences, expected
	// corpus TER 0.136 (13.6 within 1e-3). sacreBLEU lowercases by default; these
	// sentences score the same case-sensitively.
	hyps := []string{
		`wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .`,
		`wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "`,
		`klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie Werte für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " ein .`,
		`Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .`,
		`wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "`,
	}
	refs := [][]string{
		{`wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit die Darstellung des Bildes in einer anderen Größe beibehalten wird .`},
		{`wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "`},
		{`klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " niedrigere Werte ein .`},
		{`Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , das sich über die Bühne bewegt .`},
		{`wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "`},
	}
	corpus, err := CorpusTER(hyps, refs)
	if err != nil {
		t.Fatal(err)
	}
	if !closeTo(100*corpus.TER, 13.6, 1e-3) {
		t.Errorf("sacreBLEU's WMT example: TER got %v (%d edits over %v words) want 0.136", corpus.TER, corpus.Edits, corpus.RefLength)
	}
}

// TestTERProperties checks, on random sentences over a small vocabulary (so words
// repeat and shifts pay), what must hold whatever the search finds: the edits are at
// most the Levenshtein distance (shifting is optional), the shifts applied in order turn
// the candidate into Shifted, Origin maps it back, and the word edits are exactly the
// Levenshtein distance of Shifted to the reference.
func TestTERProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	vocab := strings.Fields("a b c d e f")
	sentence := func() []string {
		w := make([]string, rng.IntN(14))
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return w
	}
	for trial := range 400 {
		cand, ref := sentence(), sentence()
		res, err := SentenceTERTokens(cand, [][]string{ref})
		if err != nil {
			t.Fatal(err)
		}
		lev := wordDistances(ref, cand)[len(ref)][len(cand)]
		if res.Edits > lev || res.Edits < 0 {
			t.Fatalf("trial %d %v vs %v: %d edits, Levenshtein %d", trial, cand, ref, res.Edits, lev)
		}
		cur := slices.Clone(cand)
		for _, op := range res.Operations[:res.Shifts] {
			if op.Op != TERShift || !slices.Equal(cur[op.From:op.From+len(op.Words)], op.Words) {
				t.Fatalf("trial %d: shift %+v does not match %v", trial, op, cur)
			}
			var to int
			cur, to = performShift(cur, op.From, len(op.Words), afterFor(op.From, len(op.Words), op.To))
			if to != op.To || !slices.Equal(cur[to:to+len(op.Words)], op.Words) {
				t.Fatalf("trial %d: shift %+v lands at %d in %v", trial, op, to, cur)
			}
		}
		if !slices.Equal(cur, res.Shifted) {
			t.Fatalf("trial %d: shifts give %v, Shifted is %v", trial, cur, res.Shifted)
		}
		for k, o := range res.Origin {
			if cand[o] != res.Shifted[k] {
				t.Fatalf("trial %d: Origin %v does not map %v back to %v", trial, res.Origin, res.Shifted, cand)
			}
		}
		words := res.Edits - res.Shifts
		if d := wordDistances(ref, res.Shifted)[len(ref)][len(res.Shifted)]; words != d {
			t.Fatalf("trial %d: %d word edits, Levenshtein of the shifted candidate %d", trial, words, d)
		}
	}
}

// afterFor is the tercom destination ("after word k") that puts a block of length
// starting at from at position to.
func afterFor(from, length, to int) int {
	if to < from {
		return to - 1
	}
	return to + length - 1
}

func TestTERErrors(t *testing.T) {
	if _, err := SentenceTER("a", nil); err != ErrTERNoReferences {
		t.Errorf("no references: got %v", err)
	}
	if _, err := CorpusTER(nil, nil); err != ErrTEREmptyCorpus {
		t.Errorf("empty corpus: got %v", err)
	}
	if _, err := CorpusTER([]string{"a", "b"}, [][]string{{"a"}}); err != ErrTERCorpusShape {
		t.Errorf("corpus shape: got %v", err)
	}
}

func TestTERCorpusSums(t *testing.T) {
	res, err := CorpusTER([]string{"sat on the mat the cat", "a b"}, [][]string{{"the cat sat on the mat"}, {"a c", "a b c d"}})
	if err != nil {
		t.Fatal(err)
	}
	// sentence 1: 1 edit over 6; sentence 2: 1 edit (b→c, or c d missing: 2) over (2+4)/2 = 3
	if res.Edits != 2 || res.RefLength != 9 || !closeTo(res.TER, 2.0/9, 1e-15) || len(res.Sentences) != 2 {
		t.Errorf("corpus got %d edits over %v = %v with %d sentences, want 2 over 9", res.Edits, res.RefLength, res.TER, len(res.Sentences))
	}
}

// BenchmarkTERWorst is the largest sentence form the API accepts, repetitive so that
// the shift search is widest: 256 words against 256 words.
func BenchmarkTERWorst(b *testing.B) {
	cand := strings.Fields(strings.Repeat("a b a c ", 64))
	ref := strings.Fields(strings.Repeat("c a b a ", 64))
	for b.Loop() {
		terAlign(cand, ref)
	}
}

// BenchmarkTERCorpusSentence is one 50-word sentence of a corpus request, on a
// three-word vocabulary.
func BenchmarkTERCorpusSentence(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	words := func(n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = string(rune('a' + rng.IntN(3)))
		}
		return w
	}
	cand, ref := words(50), words(50)
	for b.Loop() {
		terAlign(cand, ref)
	}
}

func BenchmarkTERRandom256(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	words := func(n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = string(rune('a' + rng.IntN(3)))
		}
		return w
	}
	cand, ref := words(256), words(256)
	for b.Loop() {
		terAlign(cand, ref)
	}
}
