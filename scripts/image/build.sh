#!/usr/bin/env bash
# Build the service's image where no container registry is reachable, as an operator runs it:
#   bash scripts/image/build.sh [TAG]        (default localhost/saved-query-endpoints:latest)
# Rootful podman (installed with apt when missing), on NODE_IMAGE when given, else a Debian base made
# locally (base-image.sh); the system CA bundle goes in as the build secret `ca`. The build stage's
# image (labelled in the Dockerfile) is removed afterwards, so repeated builds leave nothing behind.
# Sourced (scripts/image-smoke.sh), it only defines build_image.
set -euo pipefail
_image_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$_image_dir/podman-env.sh"
source "$_image_dir/base-image.sh"

build_image() {
  local tag="${1:-localhost/saved-query-endpoints:latest}" node_image ca secret=()
  ensure_podman
  node_image="${NODE_IMAGE:-$(base_image)}"
  ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
  [[ -s "$ca" ]] && secret=(--secret "id=ca,src=$ca")
  echo "image: building $tag on $node_image" >&2
  (cd "$_image_dir/../.." && podman build --quiet --format docker --build-arg "NODE_IMAGE=$node_image" "${secret[@]}" -t "$tag" . >/dev/null)
  podman image prune -f --filter label=saved-query-endpoints.stage=build >/dev/null
  echo "image: $tag, $(( $(podman image inspect "$tag" --format '{{.Size}}') / 1000000 )) MB" >&2
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  build_image "$@"
  rm -rf "$IMAGE_CONF_DIR"
fi
