package exports

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"unroll/lessons"
)

// axisColumn names a dimension in a CSV header by what it counts.
var axisColumn = map[lessons.Axis]string{
	lessons.Units: "unit", lessons.Layers: "layer", lessons.Time: "t", lessons.Vocabulary: "token",
	lessons.Classes: "class", lessons.Positions: "position", lessons.Batch: "example",
	lessons.TrainSteps: "training step", lessons.Points: "point", lessons.Coords: "coordinate",
	lessons.Ranks: "rank", lessons.Scalar: "", lessons.Items: "item",
}

// CSV is the numbers behind panel p in view v, one row per value: the symbol (the
// lecture's, as TeX), the scrubber step and the time step t it belongs to (empty for
// a static array), its index along each dimension (1-based, in columns named by what
// the dimension counts: unit, layer, position …) and the value. A scene panel's image
// is its cells instead (sceneCSV).
func CSV(v View, p lessons.Panel) []byte {
	if e, ok := extraOf(v.Lesson, p); ok {
		return e.csv(v)
	}
	if p.Kind == lessons.Scene {
		return sceneCSV(v, p) // a picture of words, not of arrays
	}
	type row struct {
		symbol, step, t string
		index           []string
		value           float64
	}
	var rows []row
	var dims []string // the header's index columns, widest array first
	for _, name := range p.Arrays {
		decl, _ := v.Lesson.ArrayNamed(name)
		symbol := strings.TrimSpace(strings.NewReplacer(`\(`, "", `\)`, "").Replace(v.label(name)))
		if len(decl.Axes) > len(dims) {
			dims = dims[:0]
			for _, a := range decl.Axes {
				dims = append(dims, orDefault(axisColumn[a], "index"))
			}
		}
		add := func(step, t string, shape []int, data []float64) {
			for i, x := range data {
				idx := make([]string, 0, 2)
				if len(shape) == 2 {
					idx = append(idx, strconv.Itoa(i/shape[1]+1), strconv.Itoa(i%shape[1]+1))
				} else {
					idx = append(idx, strconv.Itoa(i+1))
				}
				rows = append(rows, row{symbol, step, t, idx, x})
			}
		}
		found := false
		for s := 1; s <= v.Step(); s++ {
			if a, ok := v.At(name, s); ok {
				t := ""
				if tt := v.TimeOf(name, s); tt > 0 {
					t = strconv.Itoa(tt)
				}
				add(strconv.Itoa(s), t, a.Shape, a.Data)
				found = true
			}
		}
		if !found {
			if a, ok := v.StaticArray(name); ok {
				add("", "", a.Shape, a.Data)
			}
		}
	}
	width := len(dims)
	for _, r := range rows {
		width = max(width, len(r.index))
	}
	for len(dims) < width {
		if width == 1 {
			dims = append(dims, "index")
		} else {
			dims = append(dims, "index "+strconv.Itoa(len(dims)+1))
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(append(append([]string{"symbol", "step", "t"}, dims...), "value"))
	for _, r := range rows {
		rec := append([]string{r.symbol, r.step, r.t}, r.index...)
		for len(rec) < 3+width {
			rec = append(rec, "")
		}
		_ = w.Write(append(rec, strconv.FormatFloat(r.value, 'g', -1, 64)))
	}
	w.Flush()
	return buf.Bytes()
}

// lossCSV is the training loss panel's numbers: L at each training step.
func lossCSV(v View) []byte {
	steps := make([]float64, len(v.Loss))
	for i := range steps {
		steps[i] = float64(i + 1)
	}
	return trainingCSV("L", steps, v.Loss)
}

// trainingCSV is a curve against training steps as CSV: symbol, training step, value.
func trainingCSV(symbol string, steps, values []float64) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"symbol", "training step", "value"})
	for i, x := range values {
		_ = w.Write([]string{symbol, strconv.FormatFloat(steps[i], 'f', -1, 64), strconv.FormatFloat(x, 'g', -1, 64)})
	}
	w.Flush()
	return buf.Bytes()
}
