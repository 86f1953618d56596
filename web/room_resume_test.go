package web

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestRoomInfo: GET /api/v1/rooms/{code} gives the instructor's browser (its cookie)
// what POST /api/v1/rooms gave it — the code, the room's lesson now, the join links —
// so that a new tab can offer "Resume your class" and show the join panel; another
// browser gets 403, and a wrong code 404.
func TestRoomInfo(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	ask := func(code string, cookie *http.Cookie) (int, roomCreated, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/rooms/"+code, nil)
		if cookie != nil {
			req.AddCookie(cookie)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var out roomCreated
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(body, &out); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
		return resp.StatusCode, out, resp.Header
	}
	status, got, h := ask(created.Code, secret)
	if status != http.StatusOK || got.Code != created.Code || got.Lesson != "tiny" || len(got.Join) != len(created.Join) || got.Join[0] != created.Join[0] {
		t.Errorf("the instructor's browser got %d %+v, want 200 and %+v", status, got, created)
	}
	if cc := h.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if status, _, _ := ask(created.Code, nil); status != http.StatusForbidden {
		t.Errorf("a browser without the secret got %d, want 403", status)
	}
	if status, _, _ := ask(created.Code, &http.Cookie{Name: secret.Name, Value: "not the secret"}); status != http.StatusForbidden {
		t.Errorf("a wrong secret got %d, want 403", status)
	}
	if status, _, _ := ask("ZZZZZZ", secret); status != http.StatusNotFound {
		t.Errorf("a wrong code got %d, want 404", status)
	}
}
