# shellcheck shell=bash
# Shared by the fetch-*-source.sh scripts: installing build dependencies and committing an
# unpacked server source as a scratch fork's `base` commit. Sourced, not run.

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

# Fixed author, committer and dates: the base commit gets the same SHA on every machine, so a
# rebuilt repository still hits the build cache.
export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@localhost
export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@localhost
export GIT_AUTHOR_DATE='2025-01-01T00:00:00Z' GIT_COMMITTER_DATE='2025-01-01T00:00:00Z'

# commit_base <unpacked tree> <fork> <message>: makes <tree> (without Debian's packaging and
# quilt state) a git repository whose one commit is tagged `base`, and moves it to <fork>.
commit_base() {
  local tree=$1 fork=$2 message=$3
  rm -rf "$tree/.pc" "$tree/debian" "$tree/.perfgate-unpacked"
  git -C "$tree" init -q -b main
  git -C "$tree" config core.autocrlf false
  # The tarball's own .gitignore files would hide sources; the fork tracks every file.
  git -C "$tree" add -f -A 2>/dev/null
  git -C "$tree" commit -q -m "$message"
  git -C "$tree" tag base
  rm -rf "$fork"
  mv "$tree" "$fork"
}

# fetch_private_source <suite> <package=version> <apt dir> <download dir>: downloads a Debian
# source package of another suite (sid, trixie) through a source list of its own
# (<apt dir>/<suite>-src.list and <apt dir>/lists), so the host's own package lists stay those
# of its release. Files already in <download dir> are reused by apt-get.
fetch_private_source() {
  local suite=$1 wanted=$2 apt_dir=$3 download=$4
  mkdir -p "$apt_dir/lists/partial" "$download"
  echo "deb-src http://deb.debian.org/debian $suite main" > "$apt_dir/$suite-src.list"
  local private=(-o "Dir::Etc::sourcelist=$apt_dir/$suite-src.list" -o Dir::Etc::sourceparts=/nonexistent
                 -o "Dir::State::Lists=$apt_dir/lists")
  say "apt-get source --download-only $wanted (private source list $apt_dir/$suite-src.list)"
  apt-get "${private[@]}" update > "$apt_dir/update.log" 2>&1 \
    || { tail -n 20 "$apt_dir/update.log" >&2; say "apt-get update failed (log: $apt_dir/update.log)"; exit 1; }
  (cd "$download" && apt-get "${private[@]}" source --download-only "$wanted") > "$apt_dir/source.log" 2>&1 \
    || { tail -n 20 "$apt_dir/source.log" >&2; say "apt-get source failed (log: $apt_dir/source.log)"; exit 1; }
}
