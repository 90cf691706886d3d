#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing: LibreOffice (recalculates
# the Excel reports), poppler (reads the PDF reports), Chromium and its driver (admin browser
# test), and WeasyPrint's pango libraries. Needs root for apt-get; otherwise says what to install.
set -euo pipefail

packages=(libreoffice-calc poppler-utils chromium chromium-driver libpango-1.0-0 libpangoft2-1.0-0
          libharfbuzz-subset0 fonts-dejavu-core)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "Missing Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]}..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
