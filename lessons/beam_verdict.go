package lessons

import (
	"fmt"
	"math"
	"slices"

	"unroll/models"
)

// bestFinished is the finished hypothesis (ending in <eos>) of highest score that the
// beam found, and whether there is one: ŷ may be a capped one, cut off at T_max.
func (m *beamModel) bestFinished() (models.Hypothesis, bool) {
	var best models.Hypothesis
	found := false
	for _, h := range m.res.Finished { // by step then rank: ties go to the earlier, as BeamSearch's
		if !found || h.Score > best.Score {
			best, found = h, true
		}
	}
	return best, found
}

// verdict is the lecture's error analysis on the beam's ŷ and the reference y*,
// comparing the quantity the search maximises: log P(y|x)/T^α (α = 0: P(y|x) itself).
// It compares like with like: y* is a finished sentence (it ends in <eos>), so ŷ is
// the best finished hypothesis of the beam, not one cut off at T_max, whose
// probability is that of a prefix and so larger than that of any sentence it begins.
// When the beam finished none within T_max there is nothing to compare, and it says so.
func (m *beamModel) verdict() string {
	if m.ref == nil {
		return "type a reference y* to ask whether the search or the model is at fault"
	}
	yHat, ok := m.bestFinished()
	if !ok {
		return fmt.Sprintf("no comparison: no hypothesis of the beam finished (said <eos>) within Tₘₐₓ = %d, and an unfinished prefix such as %q is at least as probable as any sentence it begins, so comparing it with the finished y* would blame the model unfairly; raise Tₘₐₓ",
			m.cfg.MaxLen, m.sentence(m.res.Best.Tokens))
	}
	which := ""
	if !m.res.Best.Finished {
		which = fmt.Sprintf(" (ŷ is the best finished hypothesis, %q; the beam's best, %q, was cut off at Tₘₐₓ = %d)", m.sentence(yHat.Tokens), m.sentence(m.res.Best.Tokens), m.cfg.MaxLen)
	}
	if slices.Equal(yHat.Tokens, m.ref) {
		return "ŷ = y*: the beam found the reference, so there is nothing to blame" + which
	}
	if math.IsInf(m.refLogP, -1) {
		return "P(y*|x) = 0: the model rules the reference out, so the model is at fault" + which
	}
	refScore := models.LengthNormalized(m.refLogP, len(m.ref), m.cfg.Alpha)
	what, a, b := "P", probText(m.refLogP), probText(yHat.LogProb)
	if m.cfg.Alpha != 0 {
		what, a, b = fmt.Sprintf("score (α = %g)", m.cfg.Alpha), beamNum(refScore), beamNum(yHat.Score)
	}
	if refScore > yHat.Score {
		if len(m.ref) > m.cfg.MaxLen {
			return fmt.Sprintf("%s(y*|x) = %s > %s(ŷ|x) = %s: the model prefers y*, but y* has %d tokens, more than Tₘₐₓ = %d, so no search here can return it: the length cap is at fault, not the beam width: raise Tₘₐₓ%s",
				what, a, what, b, len(m.ref), m.cfg.MaxLen, which)
		}
		return fmt.Sprintf("%s(y*|x) = %s > %s(ŷ|x) = %s: the model prefers y* but the beam missed it, so the search is at fault: widen the beam%s", what, a, what, b, which)
	}
	return fmt.Sprintf("%s(y*|x) = %s ≤ %s(ŷ|x) = %s: the search found what the model prefers, so the model is at fault: more data, regularisation or a better architecture%s", what, a, what, b, which)
}
