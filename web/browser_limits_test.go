package web

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserServerFull: a page that arrives when the server's memory budget is full is
// told so, keeps trying, and goes live by itself once there is room; the Train control
// offers only the lesson's cap on training.
func TestBrowserServerFull(t *testing.T) {
	ctx := startBrowser(t)
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.memory.mu.Lock()
	s.memory.limit = 0 // full
	s.memory.mu.Unlock()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(srv.URL+"/lessons/seq2seq")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the page to say the server is full", `document.querySelector('[data-testid=conn]').textContent.startsWith("the server is full; trying again in")`)
	if err := os.MkdirAll(screenshotDir, 0o755); err == nil {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(screenshotDir, "server-full-360.png"), png, 0o644)
		}
	}
	s.memory.mu.Lock()
	s.memory.limit = maxSessionBytes
	s.memory.mu.Unlock()
	waitForJS(t, ctx, "the page to go live once there is room", `document.body.dataset.stream === "live" && document.querySelector('[data-testid=conn]').dataset.state === "live"`)
	l, _ := s.lesson("seq2seq")
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=train-steps]').max`); got != strconv.Itoa(l.MaxTrained) {
		t.Errorf("the Train control offers up to %s steps, want the lesson's cap %d", got, l.MaxTrained)
	}
}
