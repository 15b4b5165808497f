package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
)

// EvalRow is one strategy at one budget on `agentctx eval`'s page.
// Shares are fractions (0 to 1); a nil share is undefined (no measured
// call had it).
type EvalRow struct {
	Budget   int    `json:"budget"`
	Strategy string `json:"strategy"`
	Default  bool   `json:"default"`
	// TokensSent is the mean request size in tokens; CacheReuse the share
	// of them a prompt cache would serve; CacheAdjusted the tokens priced
	// with cache reads discounted, in uncached-token equivalents.
	TokensSent          float64     `json:"tokens_sent"`
	CacheReuse          float64     `json:"cache_reuse"`
	CacheAdjusted       float64     `json:"cache_adjusted_tokens"`
	Support             *float64    `json:"support"`
	SupportCI           *[2]float64 `json:"support_ci"`
	EditSupport         *float64    `json:"edit_support"`
	Recoverable         *float64    `json:"recoverable"`
	InstructionSurvival *float64    `json:"instruction_survival"`
	Compactions         int         `json:"compactions"`
	SummaryCalls        int         `json:"summary_calls"`
	CallsOverBudget     int         `json:"calls_over_budget"`
}

// EvalPage is what [WriteEval] draws: a title, what was measured, and
// the rows.
type EvalPage struct {
	Title string    `json:"title"`
	Note  string    `json:"note"`
	Rows  []EvalRow `json:"rows"`
}

var evalPage = template.Must(template.New("eval").Parse(evalHTML))

// WriteEval writes p as one self-contained HTML page to w: next-action
// support and edit support against tokens sent, one line per strategy
// through its budgets (uPlot, embedded as in [Write]), and the table of
// every row. The page loads nothing from the network. Errors: w's.
func WriteEval(w io.Writer, p *EvalPage) error {
	var buf bytes.Buffer
	err := evalPage.Execute(&buf, struct {
		Title        string
		UPlotCSS     template.CSS
		UPlotJS      template.JS
		UPlotVersion string
		Page         *EvalPage
	}{p.Title, template.CSS(uplotCSS), template.JS(uplotJS), UPlotVersion, p})
	if err != nil {
		return fmt.Errorf("report: render eval: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

const evalHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<style>{{.UPlotCSS}}</style>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd}
td:first-child,th:first-child,td:nth-child(2),th:nth-child(2){text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:2em}.note{color:#555;max-width:60em}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="note">{{.Page.Note}}</p>
<div class="charts"><div><h2>Next-action support vs tokens sent</h2><div id="support"></div></div>
<div><h2>Edit support vs tokens sent</h2><div id="edits"></div></div></div>
<h2>Table</h2><table id="rows"><thead><tr><th>budget</th><th>strategy</th><th>support</th><th>95% CI</th><th>edits</th>
<th>recoverable</th><th>instructions</th><th>tokens sent</th><th>cache reuse</th><th>cache-adjusted</th><th>compactions</th><th>summaries</th><th>over budget</th></tr></thead><tbody></tbody></table>
<p class="note">Charts: uPlot {{.UPlotVersion}} (MIT), embedded.</p>
<script type="application/json" id="data">{{.Page}}</script>
<script>{{.UPlotJS}}</script>
<script>
(function(){
var page=JSON.parse(document.getElementById("data").textContent);
var rows=page.rows||[];
function pc(x){return x==null?"–":(100*x).toFixed(1)+"%"}
var tb=document.querySelector("#rows tbody");
rows.forEach(function(r){var tr=document.createElement("tr");
[r.budget,r.strategy+(r.default?" (default)":""),pc(r.support),r.support_ci?pc(r.support_ci[0])+"–"+pc(r.support_ci[1]):"–",
pc(r.edit_support),pc(r.recoverable),pc(r.instruction_survival),Math.round(r.tokens_sent),pc(r.cache_reuse),Math.round(r.cache_adjusted_tokens),
r.compactions,r.summary_calls,r.calls_over_budget].forEach(function(v){var td=document.createElement("td");td.textContent=v;tr.appendChild(td)});
tb.appendChild(tr)});
var names=[];rows.forEach(function(r){if(names.indexOf(r.strategy)<0)names.push(r.strategy)});
var xs=[];rows.forEach(function(r){if(xs.indexOf(r.tokens_sent)<0)xs.push(r.tokens_sent)});xs.sort(function(a,b){return a-b});
var colors=["#1f77b4","#ff7f0e","#2ca02c","#d62728","#9467bd","#8c564b","#e377c2","#7f7f7f","#bcbd22","#17becf"];
function chart(el,field){
var data=[xs];var series=[{label:"tokens sent"}];
names.forEach(function(n,i){var ys=xs.map(function(x){var v=null;rows.forEach(function(r){if(r.strategy===n&&r.tokens_sent===x&&r[field]!=null)v=100*r[field]});return v});
data.push(ys);var d=rows.some(function(r){return r.strategy===n&&r.default});
series.push({label:n+(d?" (default)":""),stroke:colors[i%colors.length],width:d?3:1.5,spanGaps:true,points:{show:true,size:7}})});
new uPlot({width:640,height:400,series:series,scales:{x:{time:false}},axes:[{label:"mean tokens sent per call"},{label:"%"}]},data,document.getElementById(el));
}
if(typeof uPlot!=="undefined"&&xs.length>0){chart("support","support");chart("edits","edit_support")}
})();
</script></body></html>
`
