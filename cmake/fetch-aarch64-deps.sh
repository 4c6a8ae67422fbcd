#!/usr/bin/env bash
# Unpacks Debian's arm64 development packages that the aarch64 cross build's tests link against
# (GoogleTest; PCRE2, the pre-tokenizer tests' oracle) into one folder, the KAZEIA_AARCH64_DEPS
# root of cmake/aarch64-linux-gnu.toolchain.cmake.
#
# apt runs with its own state, cache and source list under that folder (APT::Architecture=arm64),
# so the host's package lists, dpkg database and architecture list are not touched; only
# `apt-get download` is used (nothing is installed). The suite is the host's Debian release.
#
# usage: cmake/fetch-aarch64-deps.sh DEST      (skips the download when DEST/.complete exists)
set -euo pipefail

dest=$(realpath -m "${1:?usage: $0 DEST}")
[[ -f $dest/.complete ]] && exit 0
packages=(libpcre2-dev libpcre2-8-0 libgtest-dev libgmock-dev)

. /etc/os-release
suite=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
apt_dir=$dest/.apt
mkdir -p "$apt_dir"/{lists/partial,archives/partial,debs,empty.d}
: > "$apt_dir/status"
cat > "$apt_dir/sources.list" <<LIST
deb [arch=arm64 signed-by=$keyring] http://deb.debian.org/debian $suite main
deb [arch=arm64 signed-by=$keyring] http://deb.debian.org/debian $suite-updates main
deb [arch=arm64 signed-by=$keyring] http://deb.debian.org/debian-security $suite-security main
LIST

apt_opts=(
  -o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir"
  -o "Dir::Cache::archives=$apt_dir/archives" -o "Dir::Etc::SourceList=$apt_dir/sources.list"
  -o "Dir::Etc::SourceParts=$apt_dir/empty.d" -o "Dir::Etc::Preferences=$apt_dir/empty.d/none"
  -o "Dir::Etc::PreferencesParts=$apt_dir/empty.d"
  -o APT::Architecture=arm64 -o APT::Architectures=arm64
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq
)
apt-get "${apt_opts[@]}" update
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}")
for deb in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dest"; done
touch "$dest/.complete"
echo "aarch64 dependencies in $dest: ${packages[*]}"
