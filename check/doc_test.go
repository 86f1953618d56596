package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"unroll/models"
)

// TestAPIDocLimits: docs/api.md states every limit with the value of its constant.
func TestAPIDocLimits(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ") // line breaks as spaces
	for _, want := range []string{
		"d, h ≤ 256 and T ≤ 512",
		"at most 787,968 numbers",
		"strings and numbers at most 1,024 bytes",
		"`max_n` ≤ 8",
		"at most 256 words and 4,096 bytes",
		"at most 16 references per candidate",
		"at most 1,000 candidates and 100,000 words",
		"`refs` lists its place in at most 16 references",
		"over every candidate–reference pair at most 1,100,000",
		"at most 10 words", "moving at most 50 words", "at most 1,000 shifts are tried",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/api.md does not say %q", want)
		}
	}
	if MaxSize != 256 || MaxSteps != 512 || MaxCellNumbers != 787_968 || maxTokenBytes != 1024 || models.MaxBLEUOrder != 8 ||
		MaxSentenceWords != 256 || MaxSentenceBytes != 4096 || MaxReferences != 16 || MaxCorpusSentences != 1000 ||
		MaxCorpusWords != 100_000 || models.MaxNGramRefSpans != 16 || MaxTERCells != 1_100_000 ||
		models.TERMaxShiftSize != 10 || models.TERMaxShiftDist != 50 || models.TERMaxShiftCandidates != 1000 {
		t.Error("a limit changed: update docs/api.md and this test")
	}
	if MaxReferences > models.MaxNGramRefSpans {
		t.Error("MaxReferences is over models.MaxNGramRefSpans: the API's n-gram listing would be cut; docs/api.md says it is not")
	}
}
