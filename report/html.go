package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:generate sh vendor.sh

// The page's parts, embedded: its template, stylesheet and script, and
// the vendored chart library (uPlot, MIT, fetched from npm by vendor.sh).
var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/report.css
	pageCSS string
	//go:embed assets/report.js
	pageJS string
	//go:embed assets/uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uplot/uPlot.min.css
	uplotCSS string
	//go:embed assets/uplot/LICENSE
	uplotLicense string
)

var page = template.Must(template.New("report").Parse(pageHTML))

// pageData is what the template fills the page with.
type pageData struct {
	Title        string
	CSS          template.CSS
	JS           template.JS
	UPlotCSS     template.CSS
	UPlotJS      template.JS
	UPlotVersion string
	UPlotLicense string
	// Report is written as JSON inside a <script type="application/json">
	// by html/template, which escapes it for that context.
	Report *Report
}

// Write writes rep as one self-contained HTML page to w: the data as JSON
// in a script element, the chart library, script and stylesheet inline.
// The page loads nothing from the network. Errors: w's.
func Write(w io.Writer, rep *Report) error {
	var buf bytes.Buffer
	err := page.Execute(&buf, pageData{
		Title: rep.Title, CSS: template.CSS(pageCSS), JS: template.JS(pageJS),
		UPlotCSS: template.CSS(uplotCSS), UPlotJS: template.JS(uplotJS),
		UPlotVersion: UPlotVersion, UPlotLicense: uplotLicense, Report: rep,
	})
	if err != nil {
		return fmt.Errorf("report: render: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
