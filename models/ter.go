package models

import (
	"errors"
	"slices"
)

// Tercom's bounds on a shift (Snover et al. 2006, and the reference implementation,
// tercom), kept so that scores agree with it.
const (
	// TERMaxShiftSize is the longest block of words one shift moves: tercom's
	// MAX_SHIFT_SIZE, 10.
	TERMaxShiftSize = 10
	// TERMaxShiftDist is the farthest a block moves, in words, between where it is and
	// the candidate word aligned to its destination: tercom's MAX_SHIFT_DIST, 50.
	TERMaxShiftDist = 50
	// TERMaxShiftCandidates bounds the candidate shifts whose edit distance one
	// candidate–reference pair tries, over all rounds: sacreBLEU's own bound (1000) on
	// tercom's search, which otherwise grows with the cube of the sentence length on
	// repetitive text. Sentences of tens of words stay far below it.
	TERMaxShiftCandidates = 1000
)

// The kinds of TER operations (TEROp.Op). A shift moves a block of candidate words;
// the others are the word edits of the shifted candidate against the reference, named
// as in WER: "ins" is a candidate word the reference lacks, "del" a reference word the
// candidate lacks.
const (
	TERShift      = "shift"
	TERSubstitute = "sub"
	TERInsert     = "ins"
	TERDelete     = "del"
)

// Errors for bad TER input.
var (
	ErrTERNoReferences = errors.New("models: a candidate needs at least one reference")
	ErrTERCorpusShape  = errors.New("models: the corpus needs one list of references per candidate")
	ErrTEREmptyCorpus  = errors.New("models: the corpus has no candidates")
)

// TEROp is one edit of TER, each costing 1.
//
//   - shift: Words is the block moved; From is the position of its first word in the
//     candidate as it stood before this shift, To its position after the shift. Shifts
//     are listed first, in the order they were made.
//   - sub: Words is [candidate word, reference word]; From is its position in the
//     shifted candidate, To in the reference.
//   - ins: Words is [candidate word], From its position in the shifted candidate, To −1.
//   - del: Words is [reference word], From −1, To its position in the reference.
//
// Block holds, for a shift, the positions of the block's words in the original
// candidate (for drawing; not part of the API's answer).
type TEROp struct {
	Op    string   `json:"op"`
	Words []string `json:"words"`
	From  int      `json:"from"`
	To    int      `json:"to"`
	Block []int    `json:"-"`
}

// TERResult is the translation edit rate of one candidate: TER = Edits / RefLength,
// Edits the fewest edits (shifts, substitutions, insertions, deletions) to the closest
// reference, Reference its index, and RefLength the average length of all references.
type TERResult struct {
	TER        float64 `json:"ter"`
	Edits      int     `json:"edits"`
	RefLength  float64 `json:"ref_length"`
	Reference  int     `json:"reference"`
	Operations []TEROp `json:"operations"`
	// Shifts counts the shift operations.
	Shifts int `json:"-"`
	// Shifted is the candidate after its shifts; Origin[k] is the position in the
	// original candidate of Shifted[k].
	Shifted []string `json:"-"`
	Origin  []int    `json:"-"`
	// Alignment aligns Shifted to the closest reference, matches included (Edit's
	// RefPos and HypPos count in the reference and in Shifted).
	Alignment []Edit `json:"-"`
}

// TERCorpusResult is corpus TER: TER = Σ edits / Σ average reference lengths over the
// sentences, with each sentence's own result.
type TERCorpusResult struct {
	TER       float64     `json:"ter"`
	Edits     int         `json:"edits"`
	RefLength float64     `json:"ref_length"`
	Sentences []TERResult `json:"sentences"`
}

// terRate is edits / refLength, and when there is no reference word to divide by,
// 1 if there are edits and 0 if not (sacreBLEU's convention), so it is always finite.
func terRate(edits int, refLength float64) float64 {
	switch {
	case refLength > 0:
		return float64(edits) / refLength
	case edits > 0:
		return 1
	}
	return 0
}

// SentenceTER is the translation edit rate of Snover et al. 2006 of candidate against
// references, words split by Tokenize and compared case-sensitively; see
// SentenceTERTokens.
func SentenceTER(candidate string, references []string) (TERResult, error) {
	refs := make([][]string, len(references))
	for i, r := range references {
		refs[i] = Tokenize(r)
	}
	return SentenceTERTokens(Tokenize(candidate), refs)
}

// SentenceTERTokens is TER = (fewest edits to the closest reference) / (average
// reference length) of Snover et al. 2006. An edit is the insertion, deletion or
// substitution of one word, or the shift of a contiguous block of words to another
// place in the candidate; each costs 1. The closest reference is the one needing the
// fewest edits (the first on a tie).
//
// Finding the fewest edits with shifts is NP-hard, so shifts are searched greedily as
// the reference implementation, tercom, does (see terAlign): the numbers are tercom's,
// the edit distance between shifts exact. An empty candidate needs one edit per
// reference word, so it scores (reference length) / (average length).
func SentenceTERTokens(candidate []string, references [][]string) (TERResult, error) {
	if len(references) == 0 {
		return TERResult{}, ErrTERNoReferences
	}
	var best TERResult
	total := 0
	for k, ref := range references {
		total += len(ref)
		r := terAlign(candidate, ref)
		if k == 0 || r.Edits < best.Edits {
			best = r
			best.Reference = k
		}
	}
	best.RefLength = float64(total) / float64(len(references))
	best.TER = terRate(best.Edits, best.RefLength)
	return best, nil
}

// CorpusTER scores each candidate against its references (SentenceTER) and divides
// the summed edits by the summed average reference lengths.
func CorpusTER(candidates []string, references [][]string) (TERCorpusResult, error) {
	if len(candidates) == 0 {
		return TERCorpusResult{}, ErrTEREmptyCorpus
	}
	if len(references) != len(candidates) {
		return TERCorpusResult{}, ErrTERCorpusShape
	}
	res := TERCorpusResult{Sentences: make([]TERResult, len(candidates))}
	for i, c := range candidates {
		s, err := SentenceTER(c, references[i])
		if err != nil {
			return TERCorpusResult{}, err
		}
		res.Sentences[i] = s
		res.Edits += s.Edits
		res.RefLength += s.RefLength
	}
	res.TER = terRate(res.Edits, res.RefLength)
	return res, nil
}

// terAlign finds tercom's edits of hyp against one reference, greedily:
//
//  1. Align hyp to ref with the fewest substitutions, insertions and deletions
//     (wordDistances; ties broken as tercom's do: a match or substitution, then a
//     candidate word left over, then a reference word missing).
//  2. Gather the candidate shifts as tercom does: a block hyp[s:s+L] with 1 ≤ L ≤
//     TERMaxShiftSize that equals ref[r:r+L] somewhere, where some word of the block is
//     an error in the alignment and some word of ref[r:r+L] is too, and the block is not
//     already aligned there (the candidate word aligned to ref[r] lies outside the
//     block, at most TERMaxShiftDist words away). Its destinations put the block after
//     the candidate word aligned to ref[r+o] for o = 0 … L−1 (or at the front when r =
//     0), skipping repeats.
//  3. Try each and keep the one that lowers the edit distance most; ties go to the
//     longest block, then the earliest block, then the earliest reference position
//     (tercom's order of trying, keeping only a strictly better one).
//  4. If it lowers the edit distance at all, make it (one edit) and go back to 1; else
//     stop. A shift that saves just one word edit leaves the total unchanged, and
//     tercom takes it, since it may open the way to better ones.
//
// Unlike tercom, the edit distance is exact rather than beam-searched, and at most
// TERMaxShiftCandidates shifts are tried in all (as sacreBLEU bounds it).
func terAlign(hyp, ref []string) TERResult {
	// the search compares word ids, not strings
	ids := map[string]int{}
	id := func(ws []string) []int {
		out := make([]int, len(ws))
		for i, w := range ws {
			if _, ok := ids[w]; !ok {
				ids[w] = len(ids)
			}
			out[i] = ids[w]
		}
		return out
	}
	refIDs := id(ref)
	cur, origin := id(hyp), make([]int, len(hyp))
	for i := range origin {
		origin[i] = i
	}
	words := func(positions []int) []string {
		out := make([]string, len(positions))
		for k, o := range positions {
			out[k] = hyp[o]
		}
		return out
	}
	var ops []TEROp
	budget := TERMaxShiftCandidates
	d := wordDistances(refIDs, cur)
	for len(ref) > 0 && budget > 0 {
		s, ok := bestShift(cur, refIDs, d, alignWords(d, refIDs, cur, ref, words(origin), EditInsert), &budget)
		if !ok {
			break
		}
		shifted, to := performShift(cur, s.start, s.length, s.after)
		moved, _ := performShift(origin, s.start, s.length, s.after)
		block := slices.Clone(moved[to : to+s.length])
		ops = append(ops, TEROp{Op: TERShift, Words: words(block), From: s.start, To: to, Block: block})
		cur, origin = shifted, moved
		d = wordDistances(refIDs, cur)
	}
	res := TERResult{Shifts: len(ops), Shifted: words(origin), Origin: origin}
	res.Alignment = alignWords(d, refIDs, cur, ref, res.Shifted, EditInsert)
	for _, e := range res.Alignment {
		switch e.Kind {
		case EditSubstitute:
			ops = append(ops, TEROp{Op: TERSubstitute, Words: []string{e.HypWord, e.RefWord}, From: e.HypPos, To: e.RefPos})
		case EditInsert:
			ops = append(ops, TEROp{Op: TERInsert, Words: []string{e.HypWord}, From: e.HypPos, To: -1})
		case EditDelete:
			ops = append(ops, TEROp{Op: TERDelete, Words: []string{e.RefWord}, From: -1, To: e.RefPos})
		}
	}
	res.Operations = ops
	res.Edits = len(ops)
	if res.Operations == nil {
		res.Operations = []TEROp{}
	}
	return res
}

// shift is one candidate shift: hyp[start:start+length] moved to after the word at
// position after of the unshifted candidate (−1: to the front), as tercom writes it.
type shift struct {
	start, length, after int
	saves                int // how much it lowers the edit distance
}

// bestShift is step 2 and 3 of terAlign: the best shift of cur against ref, given the
// distance table d of cur and its alignment; ok is false when no shift lowers the edit
// distance. budget counts down the shifts tried.
func bestShift(cur, ref []int, d [][]int, align []Edit, budget *int) (best shift, ok bool) {
	herr := make([]bool, len(cur))
	rerr := make([]bool, len(ref))
	ralign := make([]int, len(ref)) // the candidate word aligned to each reference word (for a missing one, the word before it)
	hpos := -1
	for _, e := range align {
		switch e.Kind {
		case EditMatch, EditSubstitute:
			hpos++
			herr[hpos] = e.Kind == EditSubstitute
			rerr[e.RefPos] = e.Kind == EditSubstitute
			ralign[e.RefPos] = hpos
		case EditInsert:
			hpos++
			herr[hpos] = true
		case EditDelete:
			rerr[e.RefPos] = true
			ralign[e.RefPos] = hpos
		}
	}
	// candidates by block length, each in tercom's order: block start, reference
	// position, destination
	byLength := make([][]shift, TERMaxShiftSize+1)
	for start := range cur {
		anyHerr := false
		for length := 1; length <= TERMaxShiftSize && start+length <= len(cur); length++ {
			anyHerr = anyHerr || herr[start+length-1]
			end := start + length - 1
			found := false
			seen := map[int]bool{}
			for r := 0; r+length <= len(ref); r++ {
				if !slices.Equal(cur[start:end+1], ref[r:r+length]) {
					continue
				}
				a := ralign[r]
				if a >= start && a <= end || a-start > TERMaxShiftDist || start-a > TERMaxShiftDist {
					continue
				}
				found = true
				if !anyHerr || !slices.Contains(rerr[r:r+length], true) {
					continue
				}
				for o := -1; o < length; o++ {
					after := -1
					switch {
					case o == -1 && r != 0:
						continue
					case o >= 0:
						after = ralign[r+o]
						if after == start || o > 0 && after == ralign[r] {
							continue
						}
					}
					if after == start-1 { // the block is already there: no move (tercom tries it in vain)
						continue
					}
					if !seen[after] {
						seen[after] = true
						byLength[length] = append(byLength[length], shift{start: start, length: length, after: after})
					}
				}
			}
			if !found { // no longer block from here can match either
				break
			}
		}
	}
	before := d[len(ref)][len(cur)]
	for length := TERMaxShiftSize; length >= 1; length-- {
		if ok && best.saves >= 2*length { // moving L words changes the distance by at most 2L
			break
		}
		for _, s := range byLength[length] {
			if *budget <= 0 {
				return best, ok
			}
			*budget--
			shifted, _ := performShift(cur, s.start, s.length, s.after)
			first := min(s.start, s.after+1) // shifted agrees with cur before here
			s.saves = before - distanceFrom(d, ref, shifted, first)
			if s.saves > 0 && (!ok || s.saves > best.saves) {
				best, ok = s, true
			}
		}
	}
	return best, ok
}

// performShift moves words[start:start+length] to after words[after] (after = −1: to
// the front), as tercom's PerformShift does, and returns the new order and the
// block's new position. When after lies inside the block, the block moves right by
// after − start words.
func performShift[T any](words []T, start, length, after int) ([]T, int) {
	end := start + length - 1
	out := make([]T, 0, len(words))
	block := words[start : end+1]
	switch {
	case after < start: // includes −1
		out = append(out, words[:after+1]...)
		out = append(out, block...)
		out = append(out, words[after+1:start]...)
		out = append(out, words[end+1:]...)
		return out, after + 1
	case after > end:
		out = append(out, words[:start]...)
		out = append(out, words[end+1:after+1]...)
		out = append(out, block...)
		out = append(out, words[after+1:]...)
		return out, after - length + 1
	default: // inside the block
		mid := min(end+(after-start), len(words)-1)
		out = append(out, words[:start]...)
		out = append(out, words[end+1:mid+1]...)
		out = append(out, block...)
		out = append(out, words[mid+1:]...)
		return out, start + (mid - end)
	}
}

// distanceFrom is the edit distance between ref and hyp, given d, the distance table
// of ref and a candidate that agrees with hyp on its first `first` words: the columns
// up to first are d's, the rest are computed.
func distanceFrom(d [][]int, ref, hyp []int, first int) int {
	n := len(ref)
	prev := make([]int, n+1)
	next := make([]int, n+1)
	for i := range prev {
		prev[i] = d[i][first]
	}
	ref = ref[:n]
	for j := first + 1; j <= len(hyp); j++ {
		w := hyp[j-1]
		p, q := prev[:n+1], next[:n+1]
		left := j // q[i-1], carried in a register
		q[0] = left
		for i, r := range ref {
			sub := p[i]
			if r != w {
				sub++
			}
			left = min(sub, p[i+1]+1, left+1)
			q[i+1] = left
		}
		prev, next = next, prev
	}
	return prev[n]
}
