# Sourced by the image scripts: a podman that works on these CI machines. Rootful podman with runc
# (crun refuses the machines' cgroups) and a private containers.conf without default ulimits or a
# pids limit (root here cannot raise resource limits).
set -euo pipefail

ensure_podman() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v iptables >/dev/null || missing+=(iptables)
  if ((${#missing[@]})); then
    [[ "$(id -u)" -eq 0 ]] || { echo "image: need ${missing[*]} (apt-get install podman runc debootstrap iptables)" >&2; return 1; }
    echo "image: installing ${missing[*]}"
    # With its recommends (the network stack among them), as checked on these machines.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman runc debootstrap iptables >/dev/null \
      || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman runc debootstrap iptables >/dev/null; }
  fi
  IMAGE_CONF_DIR="${IMAGE_CONF_DIR:-$(mktemp -d)}"
  cat >"$IMAGE_CONF_DIR/containers.conf" <<CONF
[containers]
default_ulimits = []
pids_limit = 0

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
  export CONTAINERS_CONF="$IMAGE_CONF_DIR/containers.conf"
}
