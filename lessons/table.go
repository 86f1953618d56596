package lessons

// table is one table a Table panel draws (static/js/panels/table.js): a title, the
// column headings and rows of cells. Several lessons set one in their meta (mt-data's
// pipeline, beam search's comparison, the embeddings' analogies, …).
type table struct {
	Title string     `json:"title"`
	Head  []string   `json:"head,omitempty"` // column headings, after the row label
	Rows  []tableRow `json:"rows"`
}

// tableRow is one labelled row; Inline rows are text (characters side by side), the
// others are token boxes.
type tableRow struct {
	Label  string      `json:"label"`
	Cells  []tableCell `json:"cells"`
	Inline bool        `json:"inline,omitempty"`
	Mark   string      `json:"mark,omitempty"` // the whole row, e.g. "now"
}

// tableCell is one character, token or number; Mark is how it is highlighted:
// "changed" (normalisation changed it), "inserted" (normalisation added it), "unk",
// "special" (<bos>, <eos>), "pad", "cut" (dropped by truncation), "off" (mask 0),
// "on" (mask 1).
type tableCell struct {
	Text string `json:"text"`
	Sub  string `json:"sub,omitempty"` // a second line: the token of an id
	Mark string `json:"mark,omitempty"`
}
