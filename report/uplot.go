package report

// UPlotVersion is the version of the chart library the page embeds,
// uPlot (https://github.com/leeoniya/uPlot, MIT), vendored from npm by
// vendor.sh (`go generate ./report`).
const UPlotVersion = "1.6.32"

// The sha256 of the vendored files (TestVendoredUPlot): change them with
// the version in vendor.sh.
const (
	uplotJSSHA256      = "19c8d4c6ad88929a79f4ae49d6f7161566dfd0ba3d15cc495e974f787eb78f1f"
	uplotCSSSHA256     = "df630c6a8d6f8eeaff264b50f73ce5b114f646ffd9a0bb74f049b0a00135fa04"
	uplotLicenseSHA256 = "8f989229699b4fe2f1a0432d0e9edc338a8a911e250e2d1b01ecd770a5f5b1bd"
)
