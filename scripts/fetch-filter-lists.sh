#!/usr/bin/env bash
# The ad and tracker filter lists `blockAds` uses (EasyList, EasyPrivacy, uBlock's own), taken out
# of Debian's uBlock Origin package (webext-ublock-origin-chromium) into vendor/ rather than
# installed: installed, the package's hook in /etc/chromium.d makes every Chromium on the machine
# load the extension, interact sessions and the test browsers included. Only Debian's archive is
# reached, as for any package. Quick when the lists of the archive's version are there already.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="$here/../vendor/ublock-origin"
pkg=webext-ublock-origin-chromium
if [ "$(id -u)" -eq 0 ]; then apt_get=(apt-get); else apt_get=(sudo apt-get); fi

candidate() { apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
version="$(candidate)"
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  "${apt_get[@]}" update -qq
  version="$(candidate)"
fi
[ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ] && exit 0

echo "Fetching the filter lists of $pkg $version"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# apt downloads as its own user where it can: let it write here.
chmod 777 "$tmp"
(cd "$tmp" && apt-get download -qq "$pkg=$version")
dpkg-deb -x "$tmp"/*.deb "$tmp/root"
rm -rf "$dest.new"
mkdir -p "$dest.new"
cp -r "$tmp/root/usr/share/chromium/extensions/ublock-origin/assets" "$dest.new/assets"
echo "$version" >"$dest.new/VERSION"
rm -rf "$dest"
mv "$dest.new" "$dest"
