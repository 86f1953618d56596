package lessons

import (
	"fmt"
	"strconv"
	"strings"

	"unroll/torchload"
)

// What the yours page says about the architecture it found: P and the formula that
// gives it, the module in PyTorch's words, and the table of layers and directions.

// paramCount is P and the formula that gives it, with the model's numbers.
func (y *yoursModel) paramCount() (int, string) {
	a := y.arch
	G := len(map[string][]string{torchload.KindGRU: {"", "", ""}, torchload.KindLSTM: {"", "", "", ""}}[a.Kind])
	if G == 0 {
		G = 1
	}
	D, h := a.Directions(), a.HiddenSize
	b := 0
	if a.Bias {
		b = 2
	}
	total := 0
	var terms []string
	for l := range a.Layers {
		d := a.InputSize
		if l > 0 {
			d = D * h
		}
		total += D * G * h * (d + h + b)
		terms = append(terms, fmt.Sprintf("%d·%d·%d·(%d + %d + %d)", D, G, h, d, h, b))
	}
	if e := a.Embedding; e != nil {
		total += e[0] * e[1]
		terms = append(terms, fmt.Sprintf("%d·%d", e[0], e[1]))
	}
	if hd := a.Head; hd != nil {
		total += hd[0] * (hd[1] + 1)
		terms = append(terms, fmt.Sprintf("%d·(%d + 1)", hd[0], hd[1]))
	}
	return total, strings.Join(terms, " + ") + " = " + strconv.Itoa(total)
}

// kindName is the module in PyTorch's words.
func kindName(k string) string {
	return map[string]string{torchload.KindRNNTanh: "nn.RNN (tanh)", torchload.KindRNNReLU: "nn.RNN (relu)",
		torchload.KindGRU: "nn.GRU (reset-after, PyTorch's form)", torchload.KindLSTM: "nn.LSTM"}[k]
}

// archTable is the architecture found, one row per layer and direction.
func (y *yoursModel) archTable() table {
	a := y.arch
	D, h := a.Directions(), a.HiddenSize
	tab := table{Title: fmt.Sprintf("%s, %d layer(s), %d direction(s), d = %d, h = %d", kindName(a.Kind), a.Layers, D, a.InputSize, h),
		Head: []string{"reads", "gates", "tensors", "numbers"}}
	gates := map[string]string{torchload.KindGRU: "R, Z, H̃", torchload.KindLSTM: "I, F, C̃, O"}[a.Kind]
	if gates == "" {
		gates = "—"
	}
	G := map[string]int{torchload.KindGRU: 3, torchload.KindLSTM: 4}[a.Kind]
	G = max(G, 1)
	b := 0
	if a.Bias {
		b = 2
	}
	if e := a.Embedding; e != nil {
		tab.Rows = append(tab.Rows, tableRow{Label: "embedding", Cells: []tableCell{{Text: "token id"}, {Text: "—"}, {Text: a.EmbeddingName, Sub: fmt.Sprintf("%d × %d", e[0], e[1])}, {Text: strconv.Itoa(e[0] * e[1])}}})
	}
	for l := range a.Layers {
		d := a.InputSize
		if l > 0 {
			d = D * h
		}
		for dir := range D {
			sfx := fmt.Sprintf("_l%d", l)
			label := fmt.Sprintf("layer %d", l+1)
			if D == 2 {
				label += " →"
				if dir == 1 {
					sfx += "_reverse"
					label = fmt.Sprintf("layer %d ←", l+1)
				}
			}
			tab.Rows = append(tab.Rows, tableRow{Label: label, Cells: []tableCell{
				{Text: strconv.Itoa(d) + " numbers"}, {Text: gates},
				{Text: a.Prefix + "weight_ih" + sfx, Sub: fmt.Sprintf("%d × %d", G*h, d)},
				{Text: strconv.Itoa(G * h * (d + h + b))}}})
		}
	}
	if hd := a.Head; hd != nil {
		tab.Rows = append(tab.Rows, tableRow{Label: "head", Cells: []tableCell{{Text: strconv.Itoa(hd[1]) + " numbers"}, {Text: "—"}, {Text: a.HeadName, Sub: fmt.Sprintf("%d × %d", hd[0], hd[1])}, {Text: strconv.Itoa(hd[0] * (hd[1] + 1))}}})
	}
	return tab
}
