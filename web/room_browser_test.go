package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"unroll/lessons"
)

// lanServer starts the real server listening beyond loopback, as `unroll -addr :0`
// would, so that a room's join panel offers a LAN address and its QR code; it returns
// the server's address on 127.0.0.1 (http://127.0.0.1:PORT).
func lanServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Listen: ln.Addr(), Hosts: Hosts(ln.Addr(), nil)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewUnstartedServer(s)
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return fmt.Sprintf("http://127.0.0.1:%d", ln.Addr().(*net.TCPAddr).Port)
}

// TestBrowserRoom: an instructor's tab and two followers' tabs (one a 360 px phone) in
// real Chromium. The instructor starts a room from a lesson page (the join panel
// offers the LAN address, since the tab uses 127.0.0.1); the followers open the join
// URL and follow the steps and the training; the instructor sees them counted; one
// explores on its own (the trained model, its own steps) and comes back; a follower's
// key press is refused; the instructor's view reaches the followers; and when the
// instructor opens another lesson, the followers follow.
func TestBrowserRoom(t *testing.T) {
	ctx := startBrowser(t)
	local := lanServer(t)
	lesson, next := lessons.Catalog()[0], lessons.Catalog()[1]

	shot := func(ctx context.Context, name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Errorf("screenshot %s: %v", name, err)
			return
		}
		if err := os.MkdirAll(screenshotDir, 0o755); err == nil {
			_ = os.WriteFile(filepath.Join(screenshotDir, name), png, 0o644)
		}
	}
	click := func(ctx context.Context, testid string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=`+testid+`]`))); err != nil {
			t.Fatalf("clicking %s: %v", testid, err)
		}
	}
	text := func(ctx context.Context, testid string) string {
		return evalJS[string](t, ctx, `document.querySelector('[data-testid=`+testid+`]').textContent`)
	}
	const trainedFact = `document.querySelector('[data-testid=facts-model]').textContent.includes("trained from scratch for 5 steps")`
	const live = `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`

	// The instructor: a lesson page, trained a little, then "Teach this live".
	lead := ctx
	leadErrs := watchConsole(lead)
	if err := chromedp.Do(lead, chromedp.Navigate(local+"/lessons/"+lesson.Slug)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(lead, chromedp.Poll[chromedp.Void](live, chromedp.WithPollingTimeout(browserWait))); err != nil {
		t.Fatalf("the instructor's page is not live: %v; console: %v", err, leadErrs.list())
	}
	if err := chromedp.Do(lead, chromedp.SetValue(chromedp.CSS(`[data-testid=train-steps]`), "5"), chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, lead, "the trained model", trainedFact)
	click(lead, "room-start")
	waitForJS(t, lead, "the join panel", `document.body.dataset.roomPanel === "open" && document.querySelector('[data-testid=room-code]').textContent.length === 6 && document.querySelector('[data-testid=room-qr]').naturalWidth > 0`)
	code := text(lead, "room-code")
	joinURL := evalJS[string](t, lead, `document.querySelector('[data-testid=room-url]').href`)
	if strings.Contains(joinURL, "127.0.0.1") || strings.Contains(joinURL, "localhost") || !strings.HasSuffix(joinURL, "/join/"+code) {
		t.Fatalf("the join URL %s is a loopback address, or not the code's", joinURL)
	}
	t.Logf("room %s, join URL %s", code, joinURL)
	// The instructor's run is still the trained one (the room took the page's run over).
	waitForJS(t, lead, "the instructor's run in the room", live+` && `+trainedFact)

	// Two followers: a laptop and a phone.
	var tabs [2]context.Context
	var errs [2]*consoleErrors
	for i := range tabs {
		tab, cancel := chromedp.NewContext(lead)
		t.Cleanup(cancel)
		tabs[i] = tab
		errs[i] = watchConsole(tab)
		if i == 1 {
			if err := chromedp.Do(tab, chromedp.EmulateViewport(360, 740)); err != nil {
				t.Fatal(err)
			}
		}
		if err := chromedp.Do(tab, chromedp.Navigate(joinURL)); err != nil {
			t.Fatal(err)
		}
		waitForJS(t, tab, "following", live+` && document.body.dataset.room === "follower" && `+trainedFact)
	}
	waitForJS(t, lead, "two following", `document.querySelector('[data-testid=room]').dataset.following === "2"`)

	// The instructor steps; the followers follow.
	for want := 1; want <= 3; want++ {
		click(lead, "step-forward")
		waitForJS(t, lead, fmt.Sprintf("step %d", want), fmt.Sprintf(`%s === %d`, stepReadJS, want))
	}
	for i, tab := range tabs {
		waitForJS(t, tab, fmt.Sprintf("follower %d at step 3", i), stepReadJS+` === 3 && `+drawnStepJS)
	}
	shot(lead, "room-instructor.png")
	shot(tabs[0], "room-follower.png")
	shot(tabs[1], "room-follower-360.png")
	if phone, err := chromedp.Run(tabs[1], chromedp.CaptureScreenshot()); err == nil { // what the phone shows first
		_ = os.WriteFile(filepath.Join(screenshotDir, "room-follower-360-screen.png"), phone, 0o644)
	}

	// A follower's key press is refused, and nothing moves.
	if err := chromedp.Do(tabs[1], chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, tabs[1], "the refusal", `document.querySelector('[data-testid=error]').textContent.includes("Explore on my own")`)
	if s := evalJS[int](t, lead, stepReadJS); s != 3 {
		t.Errorf("after a follower's key press the instructor is at step %d, want 3", s)
	}

	// The instructor's view (presenter mode, the spotlight) reaches the followers.
	spot := lesson.Panels[len(lesson.Panels)-1].ID
	click(lead, "present")
	evalJS[chromedp.Void](t, lead, `document.querySelector('.spot-toggle[data-spot="`+spot+`"]').click()`)
	waitForJS(t, lead, "the instructor presenting", `document.querySelector('#lesson').classList.contains("present") && document.querySelector('#lesson').dataset.spot === "`+spot+`"`)
	for i, tab := range tabs {
		waitForJS(t, tab, fmt.Sprintf("follower %d presenting", i), `document.querySelector('#lesson').classList.contains("present") && document.querySelector('#lesson').dataset.spot === "`+spot+`"`)
	}
	shot(lead, "room-instructor-present.png")
	if phone, err := chromedp.Run(tabs[1], chromedp.CaptureScreenshot()); err == nil {
		_ = os.WriteFile(filepath.Join(screenshotDir, "room-follower-360-present.png"), phone, 0o644)
	}
	late, cancelLate := chromedp.NewContext(lead) // a late joiner opens on the instructor's view
	if err := chromedp.Do(late, chromedp.Navigate(joinURL)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, late, "the late joiner presenting", live+` && document.querySelector('#lesson').classList.contains("present") && `+stepReadJS+` === 3`)
	cancelLate()
	click(lead, "present")
	evalJS[chromedp.Void](t, lead, `document.querySelector('.spot-toggle[data-spot="`+spot+`"]').click()`)
	for i, tab := range tabs {
		waitForJS(t, tab, fmt.Sprintf("follower %d back from presenting", i), `!document.querySelector('#lesson').classList.contains("present") && document.querySelector('#lesson').dataset.spot === ""`)
	}

	// Explore on my own: the same trained model at the same step, copied (its first
	// and only message is the trained snapshot, seq 1: nothing was trained again), in a
	// URL that shares it; then its own steps.
	click(tabs[0], "room-explore")
	waitForJS(t, tabs[0], "the fork", live+` && location.pathname === "/lessons/`+lesson.Slug+`" && document.body.dataset.room === "explorer" && `+trainedFact+` && `+stepReadJS+` === 3`)
	if seq := evalJS[string](t, tabs[0], `document.body.dataset.seq`); seq != "1" {
		t.Errorf("the explorer's page shows the trained model at seq %s, want 1: the room's run copied, not trained again", seq)
	}
	if q := evalJS[string](t, tabs[0], `location.search`); !strings.Contains(q, "trained=5") || !strings.Contains(q, "step=3") || strings.Contains(q, "fork=") {
		t.Errorf("the explorer's URL is %s, want the room's state (trained=5, step=3) to share, without the fork", q)
	}
	if st := evalJS[string](t, tabs[0], `sessionStorage.getItem("unroll.room")`); st != `{"code":"`+code+`","role":"explorer"}` {
		t.Errorf("the explorer's tab stores %s, want the room's code and its role, the fork done", st)
	}
	waitForJS(t, lead, "one exploring", `document.querySelector('[data-testid=room]').dataset.exploring === "1" && document.querySelector('[data-testid=room]').dataset.following === "1"`)
	click(tabs[0], "step-forward")
	waitForJS(t, tabs[0], "the explorer's own step", stepReadJS+` === 4`)
	shot(tabs[0], "room-explorer.png")
	if s := evalJS[int](t, lead, stepReadJS); s != 3 {
		t.Errorf("the explorer's step moved the instructor to %d", s)
	}
	if s := evalJS[int](t, tabs[1], stepReadJS); s != 3 {
		t.Errorf("the explorer's step moved the other follower to %d", s)
	}
	click(tabs[0], "room-back")
	waitForJS(t, tabs[0], "back in the class", live+` && document.body.dataset.room === "follower" && `+stepReadJS+` === 3`)
	waitForJS(t, lead, "two following again", `document.querySelector('[data-testid=room]').dataset.following === "2" && document.querySelector('[data-testid=room]').dataset.exploring === "0"`)

	// The instructor opens another lesson; the class follows.
	click(lead, "nav-"+next.Slug)
	waitForJS(t, lead, "the next lesson", live+` && document.querySelector('#lesson').dataset.slug === "`+next.Slug+`" && document.body.dataset.room === "lead"`)
	for i, tab := range tabs {
		waitForJS(t, tab, fmt.Sprintf("follower %d on the next lesson", i), live+` && document.querySelector('#lesson').dataset.slug === "`+next.Slug+`" && location.pathname === "/rooms/`+code+`"`)
	}
	click(lead, "step-forward")
	for i, tab := range tabs {
		waitForJS(t, tab, fmt.Sprintf("follower %d steps on the next lesson", i), stepReadJS+` === 1`)
	}
	shot(tabs[1], "room-follower-360-next.png")

	// The instructor ends the class: the followers are told, and stop reconnecting.
	click(lead, "room-show")
	click(lead, "room-end")
	waitForJS(t, lead, "the class ended", `document.querySelector('[data-testid=room]').dataset.ended !== undefined && sessionStorage.getItem("unroll.room") === null`)
	for i, tab := range tabs {
		waitForJS(t, tab, fmt.Sprintf("follower %d told the class ended", i), `document.querySelector('[data-testid=room-banner]').dataset.instructor === "ended" && document.querySelector('[data-testid=room-banner-text]').textContent.includes("The instructor has ended the class")`)
	}
	if phone, err := chromedp.Run(tabs[1], chromedp.CaptureScreenshot()); err == nil {
		_ = os.WriteFile(filepath.Join(screenshotDir, "room-follower-360-ended.png"), phone, 0o644)
	}

	for _, e := range append(append(leadErrs.list(), errs[0].list()...), errs[1].list()...) {
		if !strings.Contains(e, "WebSocket") {
			t.Errorf("console error: %s", e)
		}
	}
}
