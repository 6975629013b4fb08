#!/usr/bin/env bash
# Build the container image and smoke-test it as an operator would: run it with a published
# loopback port, wait for /health, call a stored query with the token it prints, check 401 without
# one and /ready, stop it with SIGTERM (exit 0 within the drain), remove it. Prints the image size,
# the time from `run` to the first answered query, and how long the whole run took.
# Builds with scripts/image/build.sh, the script the README gives operators without a registry
# (rootful podman; NODE_IMAGE overrides the base image, otherwise one is made locally).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/image/build.sh

started=$SECONDS
tag="localhost/saved-query-endpoints:smoke"
name="endpoints-smoke-$$"
ensure_podman
volume="$name-data"
cleanup() {
  podman rm -f "$name" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
  rm -rf "$IMAGE_CONF_DIR"
}
trap cleanup EXIT
fail() { echo "image: FAILED: $*" >&2; podman logs "$name" 2>&1 | tail -n 30 >&2 || true; exit 1; }

build_image "$tag"
dangling=$(podman images --quiet --filter label=saved-query-endpoints.stage=build | wc -l)
[[ "$dangling" == 0 ]] || fail "the build left $dangling build-stage image(s) behind"
size=$(podman image inspect "$tag" --format '{{.Size}}')
healthcheck=$(podman image inspect "$tag" --format '{{json .Config.Healthcheck}}')
[[ "$healthcheck" == *"/health"* ]] || fail "the image has no HEALTHCHECK on /health ($healthcheck)"
user=$(podman image inspect "$tag" --format '{{.Config.User}}')
[[ -n "$user" && "$user" != "root" && "$user" != 0* ]] || fail "the image runs as root (User: '$user')"

# The maintenance commands run from the image too (no dev tools in it): seed its data volume.
seeded=$(podman run --rm --health-interval=disable -v "$volume:/data" "$tag" seed --rows 500 2>&1) || fail "seed in the image: $seeded"
[[ "$seeded" == *"Done: "*" rows in "* ]] || fail "seed in the image printed: $seeded"

run_at=$(date +%s.%N)
# The image's HEALTHCHECK is run by hand below: podman's timer for it needs systemd.
podman run -d --name "$name" --health-interval=disable -v "$volume:/data" -p 127.0.0.1::4000 "$tag" >/dev/null
port=$(podman port "$name" 4000/tcp | sed 's/.*://')
base="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  curl -fsS "$base/health" >/dev/null 2>&1 && break
  podman inspect "$name" --format '{{.State.Running}}' | grep -q true || fail "the container exited"
  sleep 0.5
done
curl -fsS "$base/health" >/dev/null || fail "/health did not answer within 60 s"
token=$(podman logs "$name" 2>/dev/null | sed -n 's/^access token (generated for this run[^:]*: //p' | head -n 1)
[[ -n "$token" ]] || fail "no generated access token in the container's output"
body=$(curl -fsS -H "X-API-KEY: $token" "$base/api/endpoints/query/logs.all?project=default") || fail "logs.all with the printed token"
answered_at=$(date +%s.%N)
[[ "$body" == '{"result":[{"id":'* ]] || fail "logs.all answered without rows: ${body:0:200}"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/endpoints/query/logs.all?project=default")
[[ "$code" == 401 ]] || fail "without a token: $code, expected 401"
curl -fsS "$base/ready" | grep -q '"ready"' || fail "/ready is not ready"
podman healthcheck run "$name" >/dev/null || fail "the image's HEALTHCHECK reports unhealthy"
usage=$(curl -fsS -H "X-API-KEY: $token" "$base/api/endpoints/query/usage.api-counts?interval=daily&project=default") || fail "usage.api-counts"
[[ "$usage" == '{"result":[{"timestamp":'* ]] || fail "usage.api-counts answered without rows: ${usage:0:200}"
csv=$(curl -fsS -H "X-API-KEY: $token" -H 'Accept: text/csv' "$base/api/endpoints/query/usage.api-counts?interval=daily&project=default") || fail "usage.api-counts as CSV"
[[ "$csv" == timestamp,total_rest_requests,* ]] || fail "CSV without its header row: ${csv:0:200}"
curl -fsS "$base/" | grep -q '<title>Saved-query endpoints</title>' || fail "the explorer page (GET /) is not served"
curl -fsS -o /dev/null "$base/explorer/explorer.js" || fail "the explorer's script is not served"

stop_at=$SECONDS
podman stop --time 15 "$name" >/dev/null
exit_code=$(podman inspect "$name" --format '{{.State.ExitCode}}')
[[ "$exit_code" == 0 ]] || fail "SIGTERM ended the service with exit code $exit_code, expected 0"
podman logs "$name" 2>&1 | grep -q '"msg":"shut down"' || fail "no 'shut down' line after SIGTERM"

printf 'image: OK: %s, %s MB; first answer %.1f s after run; stopped in %d s; whole run %d s\n' \
  "$tag" "$((size / 1000000))" "$(echo "$answered_at - $run_at" | bc)" "$((SECONDS - stop_at))" "$((SECONDS - started))"
