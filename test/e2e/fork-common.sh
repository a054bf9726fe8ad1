# shellcheck shell=bash
# Shared by the fetch-*-source.sh scripts: installing build dependencies and committing an
# unpacked server source as a scratch fork's `base` commit. Sourced, not run.

# install_missing and fetch_private_source: the apt-get steps every fetch script shares.
# shellcheck source=scripts/debian-apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/debian-apt.sh"

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
