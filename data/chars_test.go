package data

import (
	"regexp"
	"strings"
	"testing"
)

// TestCharCorpus: the language model's text is deterministic in its seed, about
// charCorpusChars long, of lowercase letters, space, comma, full stop and newline, every
// line a run of whole sentences; and "sea" occurs only as the word, so architecture C's
// question "does the text mention the sea?" is not answered by a word like "seal".
func TestCharCorpus(t *testing.T) {
	if again := generateCharCorpus(charCorpusSeed, charCorpusChars); again != CharCorpus {
		t.Fatal("the corpus is not deterministic in its seed")
	}
	if n := len(CharCorpus); n < charCorpusChars || n > charCorpusChars+200 {
		t.Errorf("corpus of %d characters want %d and at most one sentence more", n, charCorpusChars)
	}
	if bad := regexp.MustCompile(`[^a-z ,.\n]`).FindString(CharCorpus); bad != "" {
		t.Errorf("the corpus has %q", bad)
	}
	for i, line := range strings.Split(strings.TrimSuffix(CharCorpus, "\n"), "\n") {
		if !strings.HasSuffix(line, ".") || strings.HasPrefix(line, " ") {
			t.Fatalf("line %d %q is not whole sentences", i+1, line)
		}
	}
	for _, m := range regexp.MustCompile(`.?sea.?`).FindAllString(CharCorpus, -1) {
		if !regexp.MustCompile(`^[ \n]?sea[ .,]$`).MatchString(m) {
			t.Errorf("%q: sea inside another word", m)
		}
	}
	if other := generateCharCorpus(charCorpusSeed+1, 2000); strings.HasPrefix(CharCorpus, other[:200]) {
		t.Errorf("another seed writes the same text")
	}
}
