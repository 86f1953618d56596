// Package docs holds the test that keeps the repository's documents honest: every file
// or folder that README.md and docs/*.md name exists.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, from this package's folder.
var root = filepath.Join("..", "..")

// named finds what a document names: `code spans` and the targets of [links](…).
var named = regexp.MustCompile("`([^`\\s]+)`|\\]\\(([^)\\s]+)\\)")

// pathLike is a name that looks like a path of the repository: a folder of ours, or a
// file with a known ending.
var pathLike = regexp.MustCompile(`^(\.ci|cmd|data|docs|figures|internal|lessons|models|sim|static|templates|web|zoo|check|bench)/|\.(go|md|js|css|templ|golden)$`)

// elsewhere are names the documents use for files that are not the repository's, each
// with its reason.
var elsewhere = map[string]string{
	"lessons/skip.go":                         "docs/lessons.md's worked example adds it",
	"lessons/testdata/gru-skip-frames.golden": "docs/lessons.md's worked example adds it",
	"gru-skip-after-training-frames.golden":   "docs/lessons.md's worked example adds it",
	"math/exp_asm.go":                         "Go's standard library",
	"math/log_asm.go":                         "Go's standard library",
	"web/testdata/screenshots/":               "the browser tests make it; it is not committed",
}

// TestDocsNameFilesThatExist: README.md and docs/*.md name only files and folders that
// the repository has (patterns with *, {…} or <…> and names inside URLs are skipped).
func TestDocsNameFilesThatExist(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			name, link := m[1], m[2]
			if link != "" {
				name = link
			}
			name, _, _ = strings.Cut(name, "#")
			if name == "" || strings.Contains(name, "://") || strings.ContainsAny(name, "*{<…$") || !pathLike.MatchString(name) {
				continue
			}
			name = strings.TrimSuffix(strings.TrimPrefix(name, "./"), ":")
			if _, ok := elsewhere[name]; ok {
				continue
			}
			candidates := []string{filepath.Join(root, filepath.FromSlash(name))}
			if link != "" || filepath.Dir(doc) != root { // a link, or a name in docs/, may be relative to its document
				candidates = append(candidates, filepath.Join(filepath.Dir(doc), filepath.FromSlash(name)))
			}
			found := false
			for _, c := range candidates {
				if _, err := os.Stat(c); err == nil {
					found = true
				}
			}
			if !found {
				rel, _ := filepath.Rel(root, doc)
				t.Errorf("%s names %s, which the repository does not have", filepath.ToSlash(rel), name)
			}
		}
	}
}
