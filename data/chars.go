package data

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// The character-level language model's text: sentences about a harbour town by the
// sea (boats, birds, weather, people at work), drawn from a small grammar with many
// words and several sentence shapes. It is large and varied enough that a model of
// a few thousand parameters cannot learn it by heart (the text the model reads is
// about 20 times its 3006 parameters), so its prediction for the next character
// stays uncertain and the sampling temperature changes what it writes. Every letter
// a–z occurs, so any lowercase word can be typed as a prompt.
const (
	charCorpusSeed  = 1986 // the year of Rumelhart, Hinton and Williams' backpropagation paper
	charCorpusChars = 60000
	charLineWords   = 14 // a newline ends the sentence that passes this many words on a line
)

// The grammar's word lists.
var (
	charSubjects = []string{"the sea", "the old boat", "a small boat", "the fisher", "my brother", "the girl", "a grey cat",
		"the dog", "a white bird", "the gulls", "the captain", "her uncle", "the baker", "two boys", "the quiet fox",
		"the wind", "the tide", "a young otter", "the crew", "our neighbour", "the jolly cook", "a lazy crab"}
	charVerbs = []string{"watched", "followed", "painted", "found", "carried", "liked", "heard", "missed", "fixed",
		"pulled", "visited", "loved", "counted", "passed", "chased", "sold", "mended", "kept", "saw", "joined"}
	charObjects = []string{"the harbour", "a red kite", "the long rope", "the lighthouse", "a box of fish", "the nets",
		"the blue door", "a jar of jam", "the market", "the zebra crossing", "the wet sand", "the island",
		"a heavy chest", "the morning ferry", "the sea wall", "an empty shell", "the village", "a quick wave"}
	charPlaces = []string{"by the sea", "on the quay", "near the jetty", "at the beach", "in the bay", "under the cliff",
		"across the water", "along the shore", "behind the church", "in the cold fog", "on the pier", "past the rocks"}
	charTimes = []string{"at dawn", "every morning", "at night", "in winter", "after lunch", "on sunday", "before the storm",
		"in the summer", "at low tide", "all day", "once a week", "that evening"}
	charAdjectives = []string{"calm", "grey", "wide", "deep", "bright", "cold", "quiet", "rough", "warm", "dark",
		"blue", "green", "wild", "still", "huge", "lovely", "frozen", "hazy"}
	charThings = []string{"the sea", "the sky", "the water", "the harbour", "the beach", "the wind", "the night",
		"the morning", "the fog", "the sand", "the town", "the river"}
	charWeather = []string{"it rained", "the sun came out", "snow fell", "the wind grew strong", "the fog lifted",
		"a storm came in", "the sky cleared", "the waves grew big"}
	charLinks = []string{"and", "but", "so", "while", "because"}
)

// charSentence draws one sentence (lowercase, ending in a full stop) from the grammar.
func charSentence(rng *rand.Rand) string {
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	clause := func() string {
		switch rng.IntN(6) {
		case 0:
			return pick(charSubjects) + " " + pick(charVerbs) + " " + pick(charObjects)
		case 1:
			return pick(charSubjects) + " " + pick(charVerbs) + " " + pick(charObjects) + " " + pick(charPlaces)
		case 2:
			return pick(charThings) + " was " + pick(charAdjectives)
		case 3:
			return pick(charThings) + " is " + pick(charAdjectives) + " and " + pick(charAdjectives)
		case 4:
			return pick(charWeather)
		default:
			return pick(charSubjects) + " " + pick(charVerbs) + " " + pick(charObjects) + " " + pick(charTimes)
		}
	}
	s := clause()
	switch rng.IntN(5) {
	case 0:
		s = pick(charTimes) + ", " + s
	case 1, 2:
		s += " " + pick(charLinks) + " " + clause()
	case 3:
		s += ", " + clause()
	}
	return s + "."
}

// generateCharCorpus writes sentences from a PCG generator seeded by seed until the
// text has at least n characters, a space between sentences and a newline after the
// sentence that passes charLineWords words on its line; the text ends in a newline.
func generateCharCorpus(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 0xc4a5))
	var b strings.Builder
	words := 0
	for b.Len() < n {
		s := charSentence(rng)
		if words > 0 {
			b.WriteString(" ")
		}
		b.WriteString(s)
		if words += strings.Count(s, " ") + 1; words >= charLineWords {
			b.WriteString("\n")
			words = 0
		}
	}
	if words > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// CharCorpus is the text the character-level language model learns,
// generateCharCorpus(charCorpusSeed, charCorpusChars).
var CharCorpus = generateCharCorpus(charCorpusSeed, charCorpusChars)

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
