// Package report turns a replayed trajectory or a stored session into one
// self-contained HTML page that shows what happened to its context window
// (`agentctx report`, and the service's GET /v1/sessions/{id}/report).
//
// # Data
//
// [FromTrajectory] replays a trajectory ([replay.Run] with Steps) and
// observes each model call's request: its size against the budget and
// against the history without compaction, the part a warm prompt cache
// would serve, the prompt by category ([Categories], summing to its size)
// and the compactions that preceded it ([compact.Record]). [FromSession]
// does the same for a stored session, replaying its history
// ([session.History]) under the configuration it recorded.
//
// # Page
//
// [Write] renders a [Report] with html/template: the report as JSON in a
// <script type="application/json"> element (escaped by html/template for
// that context), the page's script and stylesheet and the chart library,
// uPlot ([UPlotVersion], MIT), all inline from files embedded with embed.
// The page loads nothing from the network. uPlot is vendored from the npm
// registry by vendor.sh (`go generate ./report`), which checks the
// tarball's sha256; a test checks the vendored files' sha256.
package report
