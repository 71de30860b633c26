#!/usr/bin/env bash
# svc CI scan: fetch the scanner from the service, scan the full history, report, and fail the job
# exactly when the scan fails. One script for both platforms (SVC_PLATFORM=a for GitHub Actions,
# b for GitLab CI); the GitLab template embeds it (npm run build:integrations).
#
# Inputs (environment): SVC_API_KEY (required), SVC_BASE_URL (required), SVC_NO_VERIFY (true/false),
# SVC_SARIF (a path, or empty for none), SVC_PLATFORM (a|b), SVC_CACHE (the incremental-scan cache
# file the platform's cache keeps between runs, or empty for a full scan every time). GitHub reads its identity token
# from ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN (permissions: id-token: write); GitLab from SVC_ID_TOKEN
# (id_tokens with aud svc). Without a token, the repository is self-reported (paid plans only).
set -uo pipefail

platform="${SVC_PLATFORM:-a}"
work="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/svc-$$"
mkdir -p "$work"

say() { # level message: an annotation on GitHub, a plain line on B
  if [ "$platform" = a ]; then echo "::$1::svc: $2"; else echo "svc: $1: $2"; fi
}
die() { say error "$1"; exit "${2:-2}"; }

[ -n "${SVC_API_KEY:-}" ] || die "no API key: set the api-key input (GitHub) or SVC_API_KEY (GitLab) from a secret"
# A template served by the service itself names the service in SVC_DEFAULT_BASE_URL; the user's own wins.
SVC_BASE_URL="${SVC_BASE_URL:-${SVC_DEFAULT_BASE_URL:-}}"
[ -n "${SVC_BASE_URL:-}" ] || die "no service URL: set base-url (GitHub) or SVC_BASE_URL (GitLab)"
base="${SVC_BASE_URL%/}"
command -v curl >/dev/null || die "curl is required on the runner"
command -v git >/dev/null || die "git is required on the runner"

# 1. Who is asking: an identity token proves the repository; without one, self-report it.
token_header=()
query=""
if [ "$platform" = a ]; then
  if [ -n "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ] && [ -n "${ACTIONS_ID_TOKEN_REQUEST_TOKEN:-}" ]; then
    answer=$(curl -sS --fail --max-time 30 -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" \
      "${ACTIONS_ID_TOKEN_REQUEST_URL}&audience=svc") || die "could not get an identity token from the runner"
    id_token=$(printf '%s' "$answer" | sed -n 's/.*"value"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
    [ -n "$id_token" ] || die "the runner's identity token answer had no value"
    token_header=(-H "X-CodeHostA-OIDC: $id_token")
  else
    say warning "no identity token (add 'permissions: id-token: write' to the job); reporting repo=${GITHUB_REPOSITORY:-?}, which needs a paid plan"
    query="?repo=${GITHUB_REPOSITORY:-}"
  fi
else
  if [ -n "${SVC_ID_TOKEN:-}" ]; then
    token_header=(-H "X-CodeHostB-OIDC: $SVC_ID_TOKEN")
  else
    say warning "no identity token (add id_tokens: SVC_ID_TOKEN: aud: svc); reporting codehostb_project=${CI_PROJECT_PATH:-?}, which needs a paid plan"
    query="?codehostb_project=${CI_PROJECT_PATH:-}"
  fi
fi

# 2. Download the scanner, and refuse a download that is not complete and intact. In xz where the
#    runner can undo it (29 MB on the wire instead of 44 MB gzipped): curl does not decode xz itself.
scanner="$work/svc-linux-x64"
if command -v xz >/dev/null; then
  encoding=(-H "Accept-Encoding: xz, gzip;q=0.5")
else
  encoding=(--compressed)
fi
answer=$(curl -sS "${encoding[@]}" --max-time 600 -o "$scanner" -D "$work/headers" -w '%{http_code} %{size_download}' \
  -H "Authorization: Bearer $SVC_API_KEY" "${token_header[@]}" "$base/api/action/binary$query") ||
  die "could not reach $base ($answer)"
status=${answer%% *}
wire=$(awk -v b="${answer##* }" 'BEGIN { printf "%.1f MB", b / 1e6 }')
header() { sed -n "s/^$1:[[:space:]]*//Ip" "$work/headers" | tr -d '\r' | tail -n 1; }
# Asked for by hand, an encoding is undone by hand (curl --compressed undoes gzip itself).
if [ "$status" = 200 ] && [ "${encoding[0]}" != --compressed ]; then
  case "$(header Content-Encoding)" in
    xz) decoder=(xz -d -c) ;;
    gzip) decoder=(gzip -d -c) ;;
    *) decoder=() ;;
  esac
  if [ ${#decoder[@]} -gt 0 ]; then
    "${decoder[@]}" <"$scanner" >"$scanner.decoded" || die "the download does not decompress"
    mv "$scanner.decoded" "$scanner"
  fi
fi
if [ "$status" != 200 ]; then
  message=$(sed -n 's/.*"error"[[:space:]]*:[[:space:]]*"\(.*\)".*/\1/p' "$scanner" | head -c 500)
  case "$status" in
    401) die "the service refused the API key or the identity token (401): ${message}" ;;
    402) die "a private repository needs a paid plan (402): ${message}" ;;
    429) die "too many runs (429): ${message}; retry after $(header Retry-After) seconds" ;;
    503) die "the service has no scanner to hand out yet (503): ${message}" ;;
    400) die "the request was refused (400): ${message}" ;;
    *) die "unexpected answer from $base/api/action/binary ($status): ${message}" ;;
  esac
fi
expected=$(header X-Svc-Sha256)
actual=$(sha256sum "$scanner" | cut -d' ' -f1)
[ -n "$expected" ] || die "the download carries no X-Svc-Sha256 digest; not running it"
[ "$expected" = "$actual" ] || die "the download is incomplete or corrupt (sha256 $actual, expected $expected); not running it"
chmod +x "$scanner"
"$scanner" --version >/dev/null || die "the downloaded scanner does not start on this runner"
remaining=$(header X-Svc-CI-Runs-Remaining)
echo "svc: scanner $("$scanner" --version) fetched ($wire, $(header Content-Encoding | grep . || echo identity))${remaining:+; $remaining CI runs left this month}"

# 3. A shallow clone hides history: say so, with the fix.
if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
  if [ "$platform" = a ]; then
    say warning "shallow clone: only part of the history is scanned. Use actions/checkout with 'fetch-depth: 0'"
  else
    say warning "shallow clone: only part of the history is scanned. Set 'GIT_DEPTH: 0' for the job"
  fi
fi

# 4. Scan once; write every report from that one scan.
args=(scan .)
if [ "$platform" = a ]; then
  args+=(--format markdown --output "$work/report.md")
else
  args+=(--format markdown --output "svc-report.md" --format gitlab --output "gl-secret-detection-report.json")
fi
[ -z "${SVC_SARIF:-}" ] || args+=(--format sarif --output "$SVC_SARIF")
[ "${SVC_NO_VERIFY:-false}" != true ] || args+=(--no-verify)
if [ -n "${SVC_CACHE:-}" ]; then
  # Commit ids only (never a secret); the scanner ignores, with a warning, a damaged or foreign one.
  mkdir -p "$(dirname "$SVC_CACHE")"
  args+=(--cache "$SVC_CACHE")
fi
# The text report goes to the job log: as the last --format, without an --output, it takes stdout.
args+=(--format text)
"$scanner" "${args[@]}"
code=$?
if [ "$platform" = a ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$work/report.md" ]; then
  cat "$work/report.md" >>"$GITHUB_STEP_SUMMARY"
fi

case "$code" in
  0) exit 0 ;;
  1) say error "secrets found in code: the scan failed (see the report)"; exit 1 ;;
  3) say warning "the scan is incomplete: some commits could not be read (see the report)"; exit 0 ;;
  *) die "the scanner stopped with an error (exit $code)" "$code" ;;
esac
