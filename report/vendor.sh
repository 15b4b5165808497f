#!/bin/sh
# vendor.sh fetches uPlot from the npm registry with `npm pack` (run by
# `go generate ./report`), checks the tarball against its pinned sha256,
# and copies the minified browser build, its stylesheet and its LICENSE
# into assets/uplot, where package report embeds them. The pins below and
# those in uplot.go (checked by TestVendoredUPlot) change together.
set -eu
VERSION=1.6.32
TARBALL_SHA256=4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$VERSION" >/dev/null)
tgz="$tmp/uplot-$VERSION.tgz"
got=$(sha256sum "$tgz" | cut -d' ' -f1)
if [ "$got" != "$TARBALL_SHA256" ]; then
	echo "vendor.sh: uplot-$VERSION.tgz has sha256 $got, want $TARBALL_SHA256" >&2
	exit 1
fi
tar -xzf "$tgz" -C "$tmp" package/dist/uPlot.iife.min.js package/dist/uPlot.min.css package/LICENSE
dst="$here/assets/uplot"
mkdir -p "$dst"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$dst/"
echo "$VERSION" > "$dst/VERSION"
