package lessons

import (
	"slices"
	"strings"

	"unroll/models"
)

// UnkShare is the fraction of corpus tokens that a vocabulary maps to <unk>:
// Σ_{w: count(w) < min_freq} count(w) / Σ_w count(w).
func UnkShare(v *models.Vocab, sentences [][]string) float64 {
	var unk, all int
	for _, s := range sentences {
		for _, tok := range s {
			all++
			if v.ID(tok) == models.UnkID {
				unk++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(unk) / float64(all)
}

// mtRawForm rebuilds how a corpus sentence (stored normalised) looks in a raw
// translation file like the lecture's fra.txt: a capital first letter, punctuation
// attached to the word before it, and in French a narrow no-break space (U+202F)
// before ! and ?. NormalizeMT undoes all of it.
func mtRawForm(s string, french bool) string {
	toks := strings.Fields(s)
	var b strings.Builder
	for i, tok := range toks {
		if i > 0 {
			switch {
			case strings.Contains(",.!?", tok) && french && (tok == "!" || tok == "?"):
				b.WriteRune('\u202f')
			case strings.Contains(",.!?", tok) && len(tok) == 1:
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(tok)
	}
	r := []rune(b.String())
	if len(r) > 0 {
		r[0] = []rune(strings.ToUpper(string(r[0])))[0]
	}
	return string(r)
}

// MTSide is one sentence of a pair followed through the pipeline.
type MTSide struct {
	Raw, Normal string
	Tokens      []string
	IDs         []int // Tokens' ids, <unk> for tokens below the cut
	Padded      []int // IDs + <eos>, truncated or padded to num_steps
	ValidLen    int   // L = min(len(IDs)+1, num_steps): the non-<pad> entries
	// Missing: the student typed the other sentence of the pair and not this one
	// yet (or only spaces). The page follows the typed side alone and says so.
	Missing bool
}

// mtSide follows raw through the pipeline; text without a token is a Missing side.
func mtSide(raw string, v *models.Vocab, steps int) MTSide {
	s := MTSide{Raw: raw, Normal: models.NormalizeMT(raw)}
	s.Tokens = models.Tokenize(s.Normal)
	if len(s.Tokens) == 0 {
		return MTSide{Missing: true}
	}
	s.IDs = v.IDs(s.Tokens)
	s.Padded, s.ValidLen = models.TruncatePad(append(slices.Clone(s.IDs), models.EosID), steps, models.PadID)
	return s
}

// DecoderInput is the decoder's input under teacher forcing (section 4.6): <bos>
// followed by the labels shifted right by one, (<bos>, y_1, …, y_{T−1}).
func DecoderInput(labels []int) []int {
	if len(labels) == 0 {
		return nil
	}
	return append([]int{models.BosID}, labels[:len(labels)-1]...)
}

// Mask is the valid-length mask m_t = 1 for t ≤ L, 0 for t > L, over steps entries.
func Mask(validLen, steps int) []int {
	m := make([]int, steps)
	for t := range min(validLen, steps) {
		m[t] = 1
	}
	return m
}

// countID is how many times id occurs in ids.
func countID(ids []int, id int) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

// mtCounts are a vocabulary's token counts in rank order.
func mtCounts(v *models.Vocab) []float64 {
	fs := v.Freqs()
	out := make([]float64, len(fs))
	for i, f := range fs {
		out[i] = float64(f.Count)
	}
	slices.SortFunc(out, func(a, b float64) int { return int(b - a) })
	return out
}

// mtKept is how many corpus tokens reach the cut: the rank of the last word with an id.
func mtKept(counts []float64, minFreq int) int {
	n := 0
	for _, c := range counts {
		if c >= float64(minFreq) {
			n++
		}
	}
	return n
}
