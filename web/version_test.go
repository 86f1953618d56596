package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestVersionRoute: GET /api/v1/version names the build given in Options and what it
// runs on; without a stamp it says "dev" and "unknown"; other methods get a JSON 405.
func TestVersionRoute(t *testing.T) {
	for _, tc := range []struct {
		name            string
		opts            Options
		version, commit string
	}{
		{"stamped", Options{Version: "v1.2.3", Commit: "abc1234-dirty"}, "v1.2.3", "abc1234-dirty"},
		{"not stamped", Options{}, "dev", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			ts := newHTTPTestServer(t, s)
			code, header, body := fetch(t, "GET", ts.URL+"/api/v1/version", nil)
			if code != http.StatusOK || header.Get("Content-Type") != "application/json" {
				t.Fatalf("GET /api/v1/version = %d %q %s, want 200 application/json", code, header.Get("Content-Type"), body)
			}
			var got map[string]string
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("the answer is not a JSON object of strings: %v\n%s", err, body)
			}
			want := map[string]string{"version": tc.version, "commit": tc.commit,
				"go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH}
			if len(got) != len(want) {
				t.Errorf("got keys %v, want exactly %v", got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: got %q want %q", k, got[k], v)
				}
			}
			code, _, body = fetch(t, "POST", ts.URL+"/api/v1/version", nil)
			if code != http.StatusMethodNotAllowed || !strings.Contains(body, "use GET") {
				t.Errorf("POST /api/v1/version = %d %s, want 405 with a JSON error", code, body)
			}
		})
	}
}
