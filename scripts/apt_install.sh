#!/usr/bin/env bash
# apt_install.sh PACKAGE...: installs Debian packages (as root, or through sudo), refreshing the
# package lists first unless KAZEIA_APT_UPDATED=1 says they were just refreshed: CI's .ci/run
# does so once for the whole run, where setup.sh and fetch-ggml.sh each did it again (10-30 s
# each on a fresh machine; docs/reliability.md, "CI time").
set -euo pipefail
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
[ "${KAZEIA_APT_UPDATED:-}" = 1 ] || $SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "$@"
