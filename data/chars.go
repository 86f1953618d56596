package data

import (
	"slices"
	"sort"
)

// CharCorpus is the small text the character-level language model learns: short,
// repetitive sentences, so that a model of a few thousand parameters trained for
// seconds produces recognisable words.
const CharCorpus = `the sea is calm and the sky is grey. the boat is small and the sea is wide.
the cat sat on the mat and the dog sat on the log. the sun is warm and the wind is cold.
a bird sang in the tree and the tree stood by the sea. the sea is deep and the night is long.
the boat came home at night. the cat saw the boat and the dog saw the cat.
the wind is cold on the sea. the sun came up and the sky was blue. the bird sang and the sea was calm.
a small boat on a wide sea, a small bird in a tall tree, a grey cat on a warm mat.
the dog ran to the sea and the cat ran to the tree. the night was long and the sea was deep.
`

// CharVocab lists the characters of CharCorpus in sorted order (the newline is "\n").
var CharVocab = func() []string {
	seen := map[rune]bool{}
	for _, r := range CharCorpus {
		seen[r] = true
	}
	var out []string
	for r := range seen {
		out = append(out, string(r))
	}
	sort.Strings(out)
	return out
}()

// CharID is the index of the character s in CharVocab, or −1.
func CharID(s string) int { return slices.Index(CharVocab, s) }

// CharCorpusIDs is CharCorpus as token ids (indices into CharVocab).
var CharCorpusIDs = func() []int {
	var ids []int
	for _, r := range CharCorpus {
		ids = append(ids, CharID(string(r)))
	}
	return ids
}()
