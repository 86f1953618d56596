package lessons

import (
	"fmt"
	"math"
	"strings"
)

// sentence writes ids as words.
func (m *beamModel) sentence(ids []int) string {
	if len(ids) == 0 {
		return "(empty)"
	}
	ws := make([]string, len(ids))
	for i, id := range ids {
		ws[i] = m.words[id]
	}
	return strings.Join(ws, " ")
}

// probText writes P = e^logP: a plain number for the toy's sizes, e-notation below 0.001.
func probText(logP float64) string {
	p := math.Exp(logP)
	if p == 0 {
		return "0"
	}
	if p >= 1e-3 {
		return fmt.Sprintf("%.4g", p)
	}
	return fmt.Sprintf("%.3g", p)
}

// beamNum writes a number for the panels, 4 significant digits; −Inf (a
// sequence of probability 0) is written out.
func beamNum(v float64) string {
	if math.IsInf(v, -1) {
		return "−∞"
	}
	return fmt.Sprintf("%.4g", v)
}

// sentenceOrEmpty writes ids as words, "" for none.
func (m *beamModel) sentenceOrEmpty(ids []int) string {
	if len(ids) == 0 {
		return ""
	}
	return m.sentence(ids)
}
