package models

import "slices"

// EditKind names one step of a word alignment.
type EditKind string

// The four alignment steps that turn the reference into the hypothesis.
const (
	EditMatch      EditKind = "match"      // the words agree (C, a correct word)
	EditSubstitute EditKind = "substitute" // a reference word replaced (S)
	EditDelete     EditKind = "delete"     // a reference word missing from the hypothesis (D)
	EditInsert     EditKind = "insert"     // a hypothesis word with no reference word (I)
)

// Edit is one aligned pair. RefPos and HypPos are 0-based word positions, −1 (and
// the word "") on the side a deletion or insertion lacks.
type Edit struct {
	Kind    EditKind `json:"kind"`
	RefPos  int      `json:"ref_pos"`
	HypPos  int      `json:"hyp_pos"`
	RefWord string   `json:"ref_word"`
	HypWord string   `json:"hyp_word"`
}

// WERResult is a word error rate with the alignment behind it (lecture 002,
// appendix): N = S + D + C reference words, and Rate = (S + D + I) / N.
type WERResult struct {
	Edits         []Edit  `json:"edits"`
	Substitutions int     `json:"substitutions"` // S
	Deletions     int     `json:"deletions"`     // D
	Insertions    int     `json:"insertions"`    // I
	Correct       int     `json:"correct"`       // C
	N             int     `json:"n"`             // reference words
	Rate          float64 `json:"wer"`
}

// WER aligns the words of hypothesis to those of reference (split by Tokenize) and
// returns the word error rate; see WERTokens.
func WER(reference, hypothesis string) WERResult {
	return WERTokens(Tokenize(reference), Tokenize(hypothesis))
}

// WERTokens is the word error rate WER = (S + D + I) / N of hyp against ref, from a
// Levenshtein alignment on words in which substitution, deletion and insertion each
// cost 1, so S + D + I is the word edit distance.
//
// Ties between minimum-cost alignments are broken deterministically: tracing back
// from the ends of both sentences, a match is taken whenever the words agree, else a
// substitution, else a deletion, else an insertion, if that step lies on a
// minimum-cost path. Edits are listed in sentence order.
//
// An empty reference (N = 0) divides by 1 instead: Rate = I, the number of
// hypothesis words, which is 0 when both are empty. This keeps the rate finite and
// still counts every inserted word as one error.
func WERTokens(ref, hyp []string) WERResult {
	res := WERResult{N: len(ref), Edits: alignWords(wordDistances(ref, hyp), ref, hyp, ref, hyp, EditDelete)}
	for _, e := range res.Edits {
		switch e.Kind {
		case EditMatch:
			res.Correct++
		case EditSubstitute:
			res.Substitutions++
		case EditDelete:
			res.Deletions++
		default:
			res.Insertions++
		}
	}
	res.Rate = float64(res.Substitutions+res.Deletions+res.Insertions) / float64(max(len(ref), 1))
	return res
}

// wordDistances is the Levenshtein table on words: d[i][j] is the edit distance between
// ref[:i] and hyp[:j], substitution, deletion and insertion each costing 1. WER and TER
// both align with it.
func wordDistances[W comparable](ref, hyp []W) [][]int {
	n, m := len(ref), len(hyp)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := range m + 1 {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			sub := d[i-1][j-1]
			if ref[i-1] != hyp[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	return d
}

// alignWords traces a minimum-cost alignment back through d (wordDistances of ref and
// hyp, words or their ids; refWords and hypWords are the words) from the ends of both sentences: a match is taken whenever the words agree, else
// a substitution, else the gap named by prefer (EditDelete or EditInsert), else the
// other gap, if that step lies on a minimum-cost path. Edits are listed in sentence order.
func alignWords[W comparable](d [][]int, ref, hyp []W, refWords, hypWords []string, prefer EditKind) []Edit {
	var back []Edit
	for i, j := len(ref), len(hyp); i > 0 || j > 0; {
		canDelete := i > 0 && d[i][j] == d[i-1][j]+1
		canInsert := j > 0 && d[i][j] == d[i][j-1]+1
		switch {
		case i > 0 && j > 0 && ref[i-1] == hyp[j-1] && d[i][j] == d[i-1][j-1]:
			i, j = i-1, j-1
			back = append(back, Edit{EditMatch, i, j, refWords[i], hypWords[j]})
		case i > 0 && j > 0 && d[i][j] == d[i-1][j-1]+1:
			i, j = i-1, j-1
			back = append(back, Edit{EditSubstitute, i, j, refWords[i], hypWords[j]})
		case canDelete && (prefer == EditDelete || !canInsert):
			i--
			back = append(back, Edit{EditDelete, i, -1, refWords[i], ""})
		default:
			j--
			back = append(back, Edit{EditInsert, -1, j, "", hypWords[j]})
		}
	}
	slices.Reverse(back)
	return back
}
