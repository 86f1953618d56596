package models

import (
	"fmt"
	"slices"
	"strings"
)

// The four special tokens of the machine-translation pipeline (lecture 004, "Machine
// Translation and Dataset") and their fixed ids in every Vocab.
const (
	UnkToken = "<unk>" // a word outside the vocabulary
	PadToken = "<pad>" // fills a sequence up to the step count
	BosToken = "<bos>" // first decoder input
	EosToken = "<eos>" // end of a sequence

	UnkID = 0
	PadID = 1
	BosID = 2
	EosID = 3
)

// specialTokens lists the special tokens in id order.
var specialTokens = [...]string{UnkToken, PadToken, BosToken, EosToken}

// Tokenize splits s into words at every run of Unicode white space
// (unicode.IsSpace), dropping leading and trailing space. It does not lowercase and
// does not separate punctuation: "Go." is the one token "Go.". Run NormalizeMT
// first for the lecture's machine-translation preprocessing. A blank s gives an
// empty slice.
func Tokenize(s string) []string {
	return strings.Fields(s)
}

// NormalizeMT is the machine-translation preprocessing of lecture 004 (d2l): replace
// the non-breaking spaces U+00A0 and U+202F by a plain space, lowercase, and insert a
// space before each of , . ! ? that is neither the first character nor already
// preceded by a space. "Go." → "go .", "Hi!" → "hi !", "I lost." → "i lost .".
func NormalizeMT(s string) string {
	s = narrowSpaces.Replace(s)
	s = strings.ToLower(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	prev := rune(-1)
	for _, r := range s {
		if strings.ContainsRune(",.!?", r) && prev != -1 && prev != ' ' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// narrowSpaces turns the non-breaking spaces of French typography into plain ones;
// built once, as a Replacer is costly to make and safe for concurrent use.
var narrowSpaces = strings.NewReplacer("\u00a0", " ", "\u202f", " ")

// TokenFreq is one distinct corpus token and how often it occurs.
type TokenFreq struct {
	Token string `json:"token"`
	Count int    `json:"count"`
}

// Vocab maps tokens to ids and back. Ids 0–3 are always <unk>, <pad>, <bos>, <eos>
// (UnkID, PadID, BosID, EosID); corpus tokens follow from id 4 in descending
// frequency, ties in lexicographic (byte) order, so the same corpus always gives the
// same ids. A Vocab is read-only after construction and safe for concurrent use.
type Vocab struct {
	tokens []string       // id → token
	index  map[string]int // token → id
	freqs  []TokenFreq    // every distinct corpus token, most frequent first
}

// NewVocab builds the vocabulary of a tokenised corpus (one []string per sentence).
// A token occurring fewer than minFreq times gets no id of its own and maps to
// <unk>; minFreq ≤ 1 keeps every token. Tokens equal to a special token are counted
// in Freqs but keep their special id.
func NewVocab(sentences [][]string, minFreq int) *Vocab {
	counts := map[string]int{}
	for _, sentence := range sentences {
		for _, tok := range sentence {
			counts[tok]++
		}
	}
	freqs := make([]TokenFreq, 0, len(counts))
	for tok, c := range counts {
		freqs = append(freqs, TokenFreq{Token: tok, Count: c})
	}
	slices.SortFunc(freqs, func(a, b TokenFreq) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Token, b.Token)
	})
	v := &Vocab{index: map[string]int{}, freqs: freqs}
	for _, tok := range specialTokens {
		v.add(tok)
	}
	for _, f := range freqs {
		if f.Count < minFreq {
			break // sorted by count: every later token is rarer
		}
		if _, ok := v.index[f.Token]; !ok {
			v.add(f.Token)
		}
	}
	return v
}

// VocabFromList rebuilds a Vocab from its List (for checkpoints): tokens[i] gets id
// i. The first four entries must be <unk>, <pad>, <bos>, <eos> and no token may
// repeat. Freqs of the result is empty.
func VocabFromList(tokens []string) (*Vocab, error) {
	if len(tokens) < len(specialTokens) {
		return nil, fmt.Errorf("models: vocabulary has %d tokens, want at least the %d special tokens", len(tokens), len(specialTokens))
	}
	v := &Vocab{index: map[string]int{}}
	for i, tok := range tokens {
		if i < len(specialTokens) && tok != specialTokens[i] {
			return nil, fmt.Errorf("models: vocabulary id %d is %q, want %q", i, tok, specialTokens[i])
		}
		if _, dup := v.index[tok]; dup {
			return nil, fmt.Errorf("models: vocabulary repeats token %q", tok)
		}
		v.add(tok)
	}
	return v, nil
}

func (v *Vocab) add(tok string) {
	v.index[tok] = len(v.tokens)
	v.tokens = append(v.tokens, tok)
}

// Len is the vocabulary size, special tokens included.
func (v *Vocab) Len() int { return len(v.tokens) }

// ID is the id of tok, or UnkID when tok has none.
func (v *Vocab) ID(tok string) int {
	if id, ok := v.index[tok]; ok {
		return id
	}
	return UnkID
}

// Token is the token with the given id; an id outside [0, Len()) panics.
func (v *Vocab) Token(id int) string {
	if id < 0 || id >= len(v.tokens) {
		panic(fmt.Sprintf("models: token id %d outside vocabulary [0, %d)", id, len(v.tokens)))
	}
	return v.tokens[id]
}

// IDs maps each token to its id (unknown tokens to UnkID).
func (v *Vocab) IDs(tokens []string) []int {
	ids := make([]int, len(tokens))
	for i, tok := range tokens {
		ids[i] = v.ID(tok)
	}
	return ids
}

// Tokens maps each id back to its token; it panics like Token on a bad id.
func (v *Vocab) Tokens(ids []int) []string {
	toks := make([]string, len(ids))
	for i, id := range ids {
		toks[i] = v.Token(id)
	}
	return toks
}

// List is every token in id order (a copy); VocabFromList(v.List()) rebuilds v.
func (v *Vocab) List() []string { return slices.Clone(v.tokens) }

// Freqs is every distinct token of the building corpus with its count, most
// frequent first (ties lexicographic) — including tokens below minFreq, so a
// frequency plot shows the whole long tail. The slice is a copy.
func (v *Vocab) Freqs() []TokenFreq { return slices.Clone(v.freqs) }

// TruncatePad fits ids to exactly steps entries (lecture 004): a longer sequence is
// cut to its first steps ids, a shorter one is filled with pad. validLen counts the
// entries of out that are not pad — the length a mask or the loss should use.
// A negative steps panics.
func TruncatePad(ids []int, steps, pad int) (out []int, validLen int) {
	if steps < 0 {
		panic(fmt.Sprintf("models: steps is %d, want ≥ 0", steps))
	}
	out = make([]int, steps)
	n := copy(out, ids)
	for i := n; i < steps; i++ {
		out[i] = pad
	}
	for _, id := range out {
		if id != pad {
			validLen++
		}
	}
	return out, validLen
}

// BuildArray turns tokenised sentences into a steps-wide id array the lecture's way
// (d2l build_array_nmt): each sentence becomes its ids followed by <eos>, then
// TruncatePad to steps with <pad>. validLens[i] counts the non-<pad> ids of row i,
// so the <eos> is included unless truncation cut it off.
func (v *Vocab) BuildArray(sentences [][]string, steps int) (array [][]int, validLens []int) {
	array = make([][]int, len(sentences))
	validLens = make([]int, len(sentences))
	for i, sentence := range sentences {
		ids := append(v.IDs(sentence), EosID)
		array[i], validLens[i] = TruncatePad(ids, steps, PadID)
	}
	return array, validLens
}
