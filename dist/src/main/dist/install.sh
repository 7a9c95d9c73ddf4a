#!/usr/bin/env bash
# Installs this rdma-flux release: see './install.sh --help'. Run it from the unpacked tarball.
set -euo pipefail

tools=(rdsend rdrecv rdcp rdpipe rdflux)
usage() {
  cat <<USAGE
usage: ./install.sh [--prefix DIR] [--uninstall]

Installs the rdma-flux release this script was unpacked with: copies it to DIR/lib/rdflux,
links the tools (${tools[*]}) into DIR/bin, their man pages into DIR/share/man/man1 and
their bash completion into DIR/share/bash-completion/completions, and records the Java
start-up archive for the copy. Running it again replaces the installation (idempotent).
The release brings its own Java runtime: the host needs no Java.

  --prefix DIR   where to install (default: /usr/local)
  --uninstall    remove DIR/lib/rdflux and the links to it that install.sh made
  -h, --help     this help
USAGE
}

prefix=/usr/local uninstall=
while (($#)); do
  case "$1" in
    --prefix) [[ $# -ge 2 && -n "$2" ]] || { echo "install.sh: --prefix needs a directory" >&2; exit 64; }
              prefix="$2"; shift 2 ;;
    --prefix=?*) prefix="${1#*=}"; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (see './install.sh --help')" >&2; exit 64 ;;
  esac
done

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd -P)"
if [[ -n "$uninstall" ]]; then
  [[ -d "$prefix" ]] || { echo "install.sh: no such directory: $prefix" >&2; exit 66; }
else
  for f in lib/rdma-flux.jar runtime/bin/java bin/rdflux-launch; do
    [[ -e "$here/$f" ]] || { echo "install.sh: $here/$f is missing: run the install.sh of an unpacked release" >&2; exit 66; }
  done
  mkdir -p "$prefix" 2>/dev/null || { echo "install.sh: cannot create $prefix" >&2; exit 73; }
fi
prefix="$(cd "$prefix" && pwd -P)"
dest="$prefix/lib/rdflux"

# A link may replace a link (ours, from an earlier install), never a file someone else put there.
links=()
for t in "${tools[@]}"; do
  links+=("bin/$t:$dest/bin/$t" "share/man/man1/$t.1:$dest/share/man/man1/$t.1"
          "share/bash-completion/completions/$t:$dest/share/bash-completion/completions/$t")
done
if [[ -n "$uninstall" ]]; then
  for l in "${links[@]}"; do   # only the links that lead into this installation
    at="$prefix/${l%%:*}"
    [[ -L "$at" && "$(readlink "$at")" == "${l#*:}" ]] && rm -f "$at"
  done
  rm -rf "$dest"
  echo "removed rdma-flux from $prefix"
  exit 0
fi
for l in "${links[@]}"; do
  at="$prefix/${l%%:*}"
  if [[ -e "$at" && ! -L "$at" ]]; then
    echo "install.sh: $at exists and is not a link: move it away, or choose another --prefix" >&2
    exit 73
  fi
done

# Copied beside the old installation, then swapped in: a failed copy leaves the old one whole.
if [[ "$here" != "$dest" ]]; then
  mkdir -p "$prefix/lib"
  new="$(mktemp -d "$prefix/lib/.rdflux.new.XXXXXX")"
  trap 'rm -rf "$new"' EXIT
  cp -R "$here/." "$new/"
  rm -rf "$dest"
  mv "$new" "$dest"
  trap - EXIT
  chmod 755 "$dest"
fi

for l in "${links[@]}"; do
  at="$prefix/${l%%:*}"
  mkdir -p "$(dirname "$at")"
  ln -sfn "${l#*:}" "$at"
done

# The start-up archive (class data sharing): the classes a transfer loads, parsed and verified
# once here rather than at every start, for the jar where it now lies (lib/make-start-archive).
# Optional: without it the tools start more slowly, on the runtime's own archive of the JDK classes.
rm -f "$dest/lib/rdma-flux.jsa" "$dest/lib/rdma-flux.jsa.for"
"$dest/lib/make-start-archive" \
  || echo "install.sh: no start-up archive recorded: the tools will start more slowly" >&2

echo "installed rdma-flux in $dest"
echo "linked ${tools[*]} into $prefix/bin, with man pages and bash completion"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "note: $prefix/bin is not on PATH" ;;
esac
echo "to uninstall: $dest/install.sh --uninstall --prefix $prefix"
