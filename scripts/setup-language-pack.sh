#!/usr/bin/env bash
# Fetches VS Code's Simplified Chinese translations for the e2e check of the zh-cn UI
# (test/e2e/zh-cn.e2e.mjs): the npm package @codingame/monaco-vscode-language-pack-zh-hans,
# unpacked without its dependencies (only its translation files are read) into the test cache.
# Idempotent. Cache: ${DSH_BRIDGE_CACHE:-~/.cache/dsh-bridge}/language-pack-zh-hans/package
set -euo pipefail
PACKAGE="@codingame/monaco-vscode-language-pack-zh-hans@25.1.2"
CACHE="${DSH_BRIDGE_CACHE:-$HOME/.cache/dsh-bridge}"
DIR="$CACHE/language-pack-zh-hans"
if [ -f "$DIR/package/package.json" ] && grep -q '"version": "25.1.2"' "$DIR/package/package.json"; then
  echo "==> zh-hans language pack up to date" >&2
  exit 0
fi
echo "==> fetching $PACKAGE" >&2
rm -rf "$DIR" && mkdir -p "$DIR"
tarball="$(cd "$DIR" && npm pack "$PACKAGE" --silent)"
tar -xzf "$DIR/$tarball" -C "$DIR"
rm -f "$DIR/$tarball"
