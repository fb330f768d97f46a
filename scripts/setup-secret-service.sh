#!/usr/bin/env bash
# A Secret Service for the keychain tests (test/unit/core/node/keychain*.test.ts): Debian's
# gnome-keyring (the daemon), dbus-daemon (dbus-run-session starts a private session bus per test
# run) and libsecret-tools (secret-tool, which the tests use to look into the keychain from outside).
# apt, only when missing; idempotent. The tests skip with a reason where these are absent.
set -euo pipefail
PKGS=(gnome-keyring dbus-daemon libsecret-tools)
[ "$(uname -s)" = Linux ] || exit 0
command -v dpkg-query >/dev/null || { echo "    no dpkg: install a Secret Service daemon yourself (gnome-keyring)"; exit 0; }
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "not root and no sudo: install ${missing[*]} yourself" >&2; exit 1; }
  SUDO="sudo -n"
fi
echo "    Secret Service for the keychain tests: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null 2>&1 || { echo "apt-get update failed" >&2; exit 1; }
$SUDO apt-get install -y --no-install-recommends "${missing[@]}" </dev/null >/dev/null 2>&1 \
  || { echo "apt-get install ${missing[*]} failed" >&2; exit 1; }
