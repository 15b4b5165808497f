package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

// chromium and browse are sharedtest's, on a page file.
func chromium(t *testing.T) string { return sharedtest.Chromium(t) }

func browse(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	return sharedtest.Browse(t, bin, "file://"+page, args...)
}

var plotRE = regexp.MustCompile(`id="timeline"[^>]*data-plot="(\d+),(\d+),(\d+),(\d+)"|data-plot="(\d+),(\d+),(\d+),(\d+)"[^>]*id="timeline"`)

// TestBrowser renders pages in headless Chromium: the script ran to its
// end, the timeline's plot area holds the drawn series (pixels of the
// prompt line's blue and of the cache shading's green), and there is one
// compaction marker in the DOM per compaction.
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	cases := []struct {
		name string
		rep  func(t *testing.T) *Report
	}{
		{"synthetic", func(t *testing.T) *Report { return syntheticReport(t, 60) }},
		{"thousands of calls", func(t *testing.T) *Report { return syntheticReport(t, 2500) }},
		{"largest file", func(t *testing.T) *Report {
			trs, err := transcript.ReadFile(largest(t), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := FromTrajectory(t.Context(), trs[0], cliOptions())
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "thousands") {
				sharedtest.SkipUnlessLong(t) // the 2,500-call page takes seconds
			}
			rep := tc.rep(t)
			dir := t.TempDir()
			page := filepath.Join(dir, "report.html")
			var buf bytes.Buffer
			if err := Write(&buf, rep); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := string(browse(t, bin, page, "--dump-dom"))
			if !strings.Contains(dom, `data-ready="1"`) {
				t.Fatalf("the page's script did not finish; DOM starts %.300q", dom)
			}
			// The cost card beside the tokens-sent card, when the model has
			// a price (gpt-4o's, the Claude session's).
			if c := rep.Totals.Cost; c != nil && !strings.Contains(dom, ">cost<") {
				t.Errorf("no cost card for a model with a price (cost %+v)", *c)
			}
			if got := strings.Count(dom, `class="cmark"`); got != len(rep.Compactions) {
				t.Errorf("%d compaction markers in the DOM, want %d", got, len(rep.Compactions))
			}
			if got := strings.Count(dom, `class="tmark"`); got != len(rep.Recorded) {
				t.Errorf("%d markers of the transcript's own compactions, want %d", got, len(rep.Recorded))
			}
			// The story: task and outcome shown, one row per call that
			// made tool calls, one per file.
			if rep.Task != "" && strings.Contains(dom, `id="story" class="story" hidden`) {
				t.Error("the task and outcome are hidden")
			}
			rows := 0
			for _, c := range rep.Calls {
				if len(c.Actions) > 0 {
					rows++
				}
			}
			if got := len(callLinkRE.FindAllString(dom, -1)); got != rows {
				t.Errorf("%d calls in the actions table, want %d", got, rows)
			}
			if rep.Totals.PeakUncompacted > 2*max(rep.Budget, rep.Totals.PeakPrompt) && !strings.Contains(dom, "above the chart") {
				t.Error("the history without compaction leaves the chart without saying so")
			}
			m := plotRE.FindStringSubmatch(dom)
			if m == nil {
				t.Fatal("no data-plot on #timeline")
			}
			var box [4]int
			for i := range box {
				s := m[1+i]
				if s == "" {
					s = m[5+i]
				}
				box[i], _ = strconv.Atoi(s)
			}
			shot := filepath.Join(dir, "shot.png")
			browse(t, bin, page, "--screenshot="+shot)
			if os.Getenv("REPORT_SCREENSHOT") != "" {
				keep := filepath.Join(os.Getenv("REPORT_SCREENSHOT"), strings.ReplaceAll(tc.name, " ", "-"))
				_ = os.WriteFile(keep+".png", mustRead(t, shot), 0o644)
				_ = os.WriteFile(keep+".html", buf.Bytes(), 0o644)
			}
			blue, green := plotPixels(t, shot, box)
			t.Logf("plot area %v: %d prompt-line pixels, %d cache-shading pixels", box, blue, green)
			if blue < 200 {
				t.Errorf("%d pixels of the prompt line in the plot area %v, want ≥ 200", blue, box)
			}
			// On the 2,500-call page the prompt line's strokes cover
			// most of the plot (120,000 pixels with L2 keeping three
			// rounds), and about 700 pixels of shading stay visible;
			// none does when the shading is not drawn.
			if rep.Totals.CacheReadTokens > 0 && green < 500 {
				t.Errorf("%d pixels of cache shading in the plot area %v, want ≥ 500", green, box)
			}
		})
	}
}

// callLinkRE is a call's link in the actions table (the script's own
// source, in the DOM too, has no number there).
var callLinkRE = regexp.MustCompile(`<a href="#" data-call="\d+">`)

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// plotPixels counts, in the screenshot's box (left, top, width, height),
// the pixels near the prompt line's blue (#2563eb) and near the cache
// shading's green (rgba(16,185,129,.22) over white).
func plotPixels(t *testing.T, shot string, box [4]int) (blue, green int) {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	r := image.Rect(box[0], box[1], box[0]+box[2], box[1]+box[3]).Intersect(img.Bounds())
	if r.Dx() < 100 || r.Dy() < 100 {
		t.Fatalf("plot area %v within the %v screenshot is too small", r, img.Bounds())
	}
	near := func(c [3]int, want [3]int, tol int) bool {
		for i := range c {
			if d := c[i] - want[i]; d > tol || d < -tol {
				return false
			}
		}
		return true
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			c := [3]int{int(cr >> 8), int(cg >> 8), int(cb >> 8)}
			switch {
			case near(c, [3]int{37, 99, 235}, 40):
				blue++
			case near(c, [3]int{202, 240, 230}, 14):
				green++
			}
		}
	}
	return blue, green
}
