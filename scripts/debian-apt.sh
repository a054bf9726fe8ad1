# shellcheck shell=bash
# apt-get for the fetch scripts: installing what a script needs on the host, and downloading
# packages of another Debian suite (trixie, sid) without touching the host's own package lists,
# apt cache or dpkg state. Sourced, not run; the caller defines `say`.

# install_missing <log file> <package>...: apt-get install of the packages not yet installed
# (an apt-get update first only if the install fails, so a host that has them all stays offline).
install_missing() {
  local log=$1; shift
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  say "apt-get install ${missing[*]}"
  mkdir -p "$(dirname "$log")"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > "$log" 2>&1; then
    apt-get update -qq >> "$log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >> "$log" 2>&1 \
      || { tail -n 20 "$log" >&2; say "apt-get install failed (log: $log)"; exit 1; }
  fi
}

# private_apt <suite> <deb|deb-src> <apt dir>: sets PRIVATE_APT to the apt-get options of a
# source list of its own (<apt dir>/<suite>-<type>.list), with its own package lists
# (<apt dir>/lists) and cache (<apt dir>/cache), reading no installed-package state, and runs
# apt-get update through them. The host keeps the lists of its own release.
private_apt() {
  local suite=$1 type=$2 apt_dir=$3
  local list="$apt_dir/$suite-$type.list"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo "$type http://deb.debian.org/debian $suite main" > "$list"
  PRIVATE_APT=(-o "Dir::Etc::sourcelist=$list" -o Dir::Etc::sourceparts=/nonexistent
               -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
               -o Dir::State::status=/dev/null)
  say "apt-get update (private source list $list)"
  apt-get "${PRIVATE_APT[@]}" update > "$apt_dir/update.log" 2>&1 \
    || { tail -n 20 "$apt_dir/update.log" >&2; say "apt-get update failed (log: $apt_dir/update.log)"; exit 1; }
}

# fetch_private_source <suite> <package=version> <apt dir> <download dir>: downloads a Debian
# source package of another suite through private_apt. Files already in <download dir> are
# reused by apt-get.
fetch_private_source() {
  local suite=$1 wanted=$2 apt_dir=$3 download=$4
  private_apt "$suite" deb-src "$apt_dir"
  mkdir -p "$download"
  say "apt-get source --download-only $wanted"
  (cd "$download" && apt-get "${PRIVATE_APT[@]}" source --download-only "$wanted") > "$apt_dir/source.log" 2>&1 \
    || { tail -n 20 "$apt_dir/source.log" >&2; say "apt-get source failed (log: $apt_dir/source.log)"; exit 1; }
}

# fetch_private_binaries <suite> <apt dir> <download dir> <package[=version]>...: downloads
# binary packages (.deb, no dependencies) of another suite through private_apt. <download dir>
# is made readable to apt's own user, which downloads into it.
fetch_private_binaries() {
  local suite=$1 apt_dir=$2 download=$3; shift 3
  private_apt "$suite" deb "$apt_dir"
  mkdir -p "$download" && chmod 777 "$download"
  say "apt-get download $*"
  (cd "$download" && apt-get "${PRIVATE_APT[@]}" download "$@") > "$apt_dir/download.log" 2>&1 \
    || { tail -n 20 "$apt_dir/download.log" >&2; say "apt-get download failed (log: $apt_dir/download.log)"; exit 1; }
}
