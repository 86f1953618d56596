package models

import (
	"math"
	"slices"
)

// BeamDecode is BeamSearch without the hypothesis tree: the same beam of width k
// with the same ranking and ties, returning only Best. It keeps the k best
// expansions of each step by insertion instead of ranking all k·V of them, so it is
// the search for evaluating a model on many sentences; BeamSearch is for showing one.
func BeamDecode[S any](start S, cfg SearchConfig, step StepFunc[S]) Hypothesis {
	cfg.mustValid(true)
	type beam struct {
		tokens []int
		state  S
		cum    float64
	}
	type expansion struct {
		parent, word int
		cum          float64
	}
	best, found := newHypothesis([]int{}, 0, cfg.Alpha, cfg.EOS), false
	consider := func(tokens []int, cum float64) { // finished by step then rank, then capped by rank
		if h := newHypothesis(tokens, cum, cfg.Alpha, cfg.EOS); !found || h.Score > best.Score {
			best, found = h, true
		}
	}
	live := []beam{{tokens: []int{}, state: start}}
	top := make([]expansion, 0, cfg.BeamSize)
	for t := 1; t <= cfg.MaxLen && len(live) > 0; t++ {
		top = top[:0]
		nexts := make([]S, len(live))
		for bi, b := range live {
			logProbs, next := step(b.state, lastToken(b.tokens, cfg.BOS))
			nexts[bi] = next
			for w, lp := range logProbs {
				checkLogProb(lp, w)
				cum := b.cum + lp
				if math.IsInf(lp, -1) || (len(top) == cfg.BeamSize && cum <= top[len(top)-1].cum) {
					continue // probability 0, or not better than the k-th kept (earlier wins ties)
				}
				// insert after every kept expansion with cum ≥ this one (stable order)
				i := len(top)
				for i > 0 && top[i-1].cum < cum {
					i--
				}
				if len(top) < cfg.BeamSize {
					top = append(top, expansion{})
				}
				copy(top[i+1:], top[i:len(top)-1])
				top[i] = expansion{parent: bi, word: w, cum: cum}
			}
		}
		var nextLive []beam
		for _, e := range top {
			tokens := append(slices.Clip(live[e.parent].tokens), e.word)
			if e.word == cfg.EOS {
				consider(tokens, e.cum)
				continue
			}
			nextLive = append(nextLive, beam{tokens: tokens, state: nexts[e.parent], cum: e.cum})
		}
		live = nextLive
	}
	for _, b := range live { // still live after MaxLen steps
		consider(b.tokens, b.cum)
	}
	return best
}

// lastToken is the last token of a prefix, bos for the empty prefix.
func lastToken(tokens []int, bos int) int {
	if len(tokens) == 0 {
		return bos
	}
	return tokens[len(tokens)-1]
}
