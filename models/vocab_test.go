package models

import (
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"the cat sat", []string{"the", "cat", "sat"}},
		{"  Go.\tnow\n", []string{"Go.", "now"}},
		{"a\u00a0b", []string{"a", "b"}}, // U+00A0 is white space to unicode.IsSpace
		{"", []string{}},
		{" \t ", []string{}},
	}
	for _, tc := range tests {
		if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) got %q want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeMT(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Go.", "go ."},
		{"Hi!", "hi !"},
		{"I lost.", "i lost ."},
		{"Va !", "va !"},                // already spaced: unchanged apart from case
		{"Va\u202f!", "va !"},           // narrow no-break space, as in the French data
		{"Wow,\u00a0no?", "wow , no ?"}, // no-break space replaced, comma and ? spaced
		{".", "."},                      // a first character gets no space
		{"Stop!!", "stop ! !"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := NormalizeMT(tc.in); got != tc.want {
			t.Errorf("NormalizeMT(%q) got %q want %q", tc.in, got, tc.want)
		}
	}
}

func TestVocabSpecialIDs(t *testing.T) {
	v := NewVocab(nil, 1)
	for id, tok := range []string{UnkToken, PadToken, BosToken, EosToken} {
		if got := v.ID(tok); got != id {
			t.Errorf("ID(%q) got %d want %d", tok, got, id)
		}
		if got := v.Token(id); got != tok {
			t.Errorf("Token(%d) got %q want %q", id, got, tok)
		}
	}
	if v.Len() != 4 {
		t.Errorf("Len got %d want 4", v.Len())
	}
}

func TestVocabOrderAndMinFreq(t *testing.T) {
	corpus := [][]string{
		{"b", "a", "c", "a"},
		{"c", "d", "a", "<eos>"},
		{"e", "b"},
	}
	// counts: a 3, b 2, c 2, <eos> 1, d 1, e 1
	tests := []struct {
		minFreq int
		want    []string
	}{
		{0, []string{UnkToken, PadToken, BosToken, EosToken, "a", "b", "c", "d", "e"}},
		{1, []string{UnkToken, PadToken, BosToken, EosToken, "a", "b", "c", "d", "e"}},
		{2, []string{UnkToken, PadToken, BosToken, EosToken, "a", "b", "c"}},
		{4, []string{UnkToken, PadToken, BosToken, EosToken}},
	}
	for _, tc := range tests {
		v := NewVocab(corpus, tc.minFreq)
		if got := v.List(); !slices.Equal(got, tc.want) {
			t.Errorf("minFreq %d: List got %q want %q", tc.minFreq, got, tc.want)
		}
	}
	v := NewVocab(corpus, 2)
	if got := v.IDs([]string{"a", "d", "zebra", "<eos>"}); !slices.Equal(got, []int{4, UnkID, UnkID, EosID}) {
		t.Errorf("IDs got %v want [4 0 0 3]", got)
	}
	if got := v.Tokens([]int{6, 5, 4, 0}); !slices.Equal(got, []string{"c", "b", "a", UnkToken}) {
		t.Errorf("Tokens got %q want [c b a <unk>]", got)
	}
	wantFreqs := []TokenFreq{{"a", 3}, {"b", 2}, {"c", 2}, {"<eos>", 1}, {"d", 1}, {"e", 1}}
	if got := v.Freqs(); !slices.Equal(got, wantFreqs) {
		t.Errorf("Freqs got %v want %v", got, wantFreqs)
	}
}

func TestVocabDeterministic(t *testing.T) {
	corpus := [][]string{{"x", "y", "z", "w", "v", "u"}, {"u", "v", "w"}}
	first := NewVocab(corpus, 1).List()
	for range 20 { // map iteration order changes between runs; ids must not
		if got := NewVocab(corpus, 1).List(); !slices.Equal(got, first) {
			t.Fatalf("List got %q want %q", got, first)
		}
	}
}

func TestVocabFromList(t *testing.T) {
	v := NewVocab([][]string{{"go", ".", "go"}}, 1)
	back, err := VocabFromList(v.List())
	if err != nil {
		t.Fatalf("VocabFromList: %v", err)
	}
	if !slices.Equal(back.List(), v.List()) || back.ID("go") != v.ID("go") {
		t.Errorf("round trip got %q want %q", back.List(), v.List())
	}
	bad := [][]string{
		{UnkToken, PadToken, BosToken},
		{PadToken, UnkToken, BosToken, EosToken},
		{UnkToken, PadToken, BosToken, EosToken, "a", "a"},
	}
	for _, list := range bad {
		if _, err := VocabFromList(list); err == nil {
			t.Errorf("VocabFromList(%q) got nil error want one", list)
		}
	}
}

func TestVocabTokenPanicsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("Token(99) got no panic want one")
		}
	}()
	NewVocab(nil, 1).Token(99)
}

func TestTruncatePad(t *testing.T) {
	tests := []struct {
		ids       []int
		steps     int
		want      []int
		wantValid int
	}{
		{[]int{7, 8, 9}, 5, []int{7, 8, 9, 1, 1}, 3},
		{[]int{7, 8, 9}, 2, []int{7, 8}, 2},
		{[]int{7, 8, 9}, 3, []int{7, 8, 9}, 3},
		{nil, 3, []int{1, 1, 1}, 0},
		{[]int{7}, 0, []int{}, 0},
		{[]int{7, 1, 9}, 4, []int{7, 1, 9, 1}, 2}, // valid length counts non-pad entries
	}
	for _, tc := range tests {
		got, valid := TruncatePad(tc.ids, tc.steps, PadID)
		if !slices.Equal(got, tc.want) || valid != tc.wantValid {
			t.Errorf("TruncatePad(%v, %d) got %v, %d want %v, %d", tc.ids, tc.steps, got, valid, tc.want, tc.wantValid)
		}
	}
}

func TestVocabBuildArray(t *testing.T) {
	src := [][]string{
		Tokenize(NormalizeMT("Go.")),
		Tokenize(NormalizeMT("I lost.")),
		Tokenize(NormalizeMT("Hi!")),
	}
	v := NewVocab(src, 1)
	// counts: "." 2, then go, hi, i, lost, ! once each (lexicographic: !, go, hi, i, lost)
	wantList := []string{UnkToken, PadToken, BosToken, EosToken, ".", "!", "go", "hi", "i", "lost"}
	if got := v.List(); !slices.Equal(got, wantList) {
		t.Fatalf("List got %q want %q", got, wantList)
	}
	array, valid := v.BuildArray(src, 4)
	want := [][]int{
		{6, 4, EosID, PadID}, // go . <eos> <pad>
		{8, 9, 4, EosID},     // i lost . <eos>
		{7, 5, EosID, PadID}, // hi ! <eos> <pad>
	}
	for i := range want {
		if !slices.Equal(array[i], want[i]) {
			t.Errorf("row %d got %v want %v", i, array[i], want[i])
		}
	}
	if !slices.Equal(valid, []int{3, 4, 3}) {
		t.Errorf("valid lengths got %v want [3 4 3]", valid)
	}
	// truncation can cut the <eos> off
	array, valid = v.BuildArray(src[1:2], 2)
	if !slices.Equal(array[0], []int{8, 9}) || valid[0] != 2 {
		t.Errorf("truncated got %v, %d want [8 9], 2", array[0], valid[0])
	}
}
