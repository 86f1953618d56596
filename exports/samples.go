package exports

import (
	"fmt"
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// samplesCurvePoints is how many points of the held-out BLEU curve the figure's table
// lists at most: evenly spaced, the last always in (a slide's row of numbers).
const samplesCurvePoints = 10

// sample is one sample translation (samples.js's {source, output, reference}).
type sample struct {
	Source    string `json:"source"`
	Output    string `json:"output"`
	Reference string `json:"reference"`
}

// samplesFigure draws what a translator's samples panel shows from the static meta
// (samples.js without a training run): held-out BLEU against the training step
// ("bleu_curve", [step, bleu] pairs, as a table of its points) and the sample
// translations ("samples"), each output marked right where it equals its reference.
// The live values of a training run arrive in its progress messages (Panel.Train),
// which a View does not hold: an export shows the model the view was built with.
func samplesFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var curve [][2]float64
	var samples []sample
	staticOf(v, p, "bleu_curve", &curve)
	staticOf(v, p, "samples", &samples)
	if len(curve) == 0 && len(samples) == 0 {
		return figures.Figure{}, errNoData(p, "no scores yet (the scores of a training run come with its progress messages, which an export does not replay)")
	}
	f := figures.Figure{Title: Text(p.Title)}
	if len(curve) > 0 {
		last := curve[len(curve)-1]
		t := figures.Table{Title: fmt.Sprintf("held-out BLEU %s after %s training steps", fmtValue(last[1]), fmtValue(last[0]))}
		row := figures.Row{Label: "BLEU"}
		n := min(len(curve), samplesCurvePoints)
		for i := range n {
			pt := curve[(len(curve)-1)*i/max(1, n-1)]
			if n == 1 {
				pt = last
			}
			t.Head = append(t.Head, "step "+strconv.FormatFloat(pt[0], 'f', -1, 64))
			row.Cells = append(row.Cells, figures.Cell{Text: fmtValue(pt[1])})
		}
		t.Rows = []figures.Row{row}
		f.Tables = append(f.Tables, t)
	}
	if len(samples) > 0 {
		t := figures.Table{Title: "sample translations", Head: []string{"English", "model", "reference"}}
		var right, wrong bool
		for i, s := range samples {
			out := figures.Cell{Text: s.Output}
			if out.Text == "" {
				out.Text = "(nothing)"
			}
			if s.Output == s.Reference {
				out.Mark, right = figures.Match, true
			} else {
				out.Mark, wrong = figures.Wrong, true
			}
			t.Rows = append(t.Rows, figures.Row{Label: strconv.Itoa(i + 1), Cells: []figures.Cell{{Text: s.Source}, out, {Text: s.Reference}}})
		}
		if right {
			t.Key = append(t.Key, figures.KeyEntry{Mark: figures.Match, Text: "the output equals the reference"})
		}
		if wrong {
			t.Key = append(t.Key, figures.KeyEntry{Mark: figures.Wrong, Text: "it differs"})
		}
		f.Tables = append(f.Tables, t)
	}
	return f, nil
}

// bleuCurveFigure is the held-out BLEU a translator's samples panel draws against the
// training step (the static "bleu_curve", [step, BLEU] pairs, the first at step 0),
// on the page's fixed axis 0 … 1.
func bleuCurveFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var curve [][2]float64
	staticOf(v, p, "bleu_curve", &curve)
	if len(curve) == 0 {
		return figures.Figure{}, errNoData(p, "no held-out BLEU yet")
	}
	s := figures.Series{Label: "held-out BLEU"}
	for _, pt := range curve {
		s.X, s.Y = append(s.X, pt[0]), append(s.Y, pt[1])
	}
	return figures.Figure{Title: Text(p.Title), XLabel: "training step", YLabel: "corpus BLEU", YScale: []float64{0, 1}, Series: []figures.Series{s}}, nil
}

// bleuCurveCSV is the held-out BLEU curve's numbers: BLEU at each training step scored.
func bleuCurveCSV(v View, p lessons.Panel) []byte {
	var curve [][2]float64
	staticOf(v, p, "bleu_curve", &curve)
	steps, bleu := make([]float64, len(curve)), make([]float64, len(curve))
	for i, pt := range curve {
		steps[i], bleu[i] = pt[0], pt[1]
	}
	return trainingCSV("BLEU", steps, bleu)
}
