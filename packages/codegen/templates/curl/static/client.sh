#!/bin/sh
@@HEADER@@
# curl client for @@TITLE@@: subscribe over Server-Sent Events (resumes after a
# reconnect with Last-Event-ID), publish over HTTP. Needs only sh and curl.
#
#   export SLUICE_TOKEN='<your app token>'        # required, never stored in this file
#   export SLUICE_GATEWAY_URL=<url>[,<url>...]  # optional, default @@GATEWAY_URL@@
#   sh client.sh help
#
# Output: one JSON line per message on stdout; status and errors on stderr.
# Several gateway URLs (nodes of one cluster, separated by commas): subscribe
# puts them in a random order of its own, starts at the first and moves to the
# next after every lost connection (so the clients of a node that stops spread
# over all the others).
# Exit codes (the same in every generated client): 0 done, 1 error, 2 usage,
# 3 no token or token refused, 4 token expired, 5 token revoked, 6 no gateway reachable.

set -u

DEFAULT_GATEWAY_URL='@@GATEWAY_URL@@'
# A random order of its own: starts spread over the nodes, and so do the moves
# away from a node that stops (a random sort key per URL; awk's srand seeds
# from the clock and the process id mixed in below).
GATEWAY_URLS=$(printf '%s' "${SLUICE_GATEWAY_URL:-$DEFAULT_GATEWAY_URL}" | tr ',' '\n' | grep . |
  awk -v seed="$$" 'BEGIN { srand(); srand(srand() + seed) } { printf "%.9f %s\n", rand(), $0 }' | sort -n | cut -d' ' -f2- | tr '\n' ' ')
GATEWAY_COUNT=$(printf '%s\n' $GATEWAY_URLS | grep -c .)
GATEWAY_INDEX=0
CR=$(printf '\r')

# use_gateway I: GATEWAY_URL becomes the I-th (0-based) node of the list.
use_gateway() {
  GATEWAY_URL=$(printf '%s\n' $GATEWAY_URLS | sed -n "$(($1 + 1))p")
  GATEWAY_URL=${GATEWAY_URL%/}
}
use_gateway "$GATEWAY_INDEX"
next_gateway() {
  GATEWAY_INDEX=$(((GATEWAY_INDEX + 1) % GATEWAY_COUNT))
  use_gateway "$GATEWAY_INDEX"
}

note() { printf 'sluice: %s\n' "$*" >&2; }
die() { note "$*"; exit 1; }
# end CODE: the one line and exit code for a token the gateway refused, revoked or saw expire.
end_token() {
  case $1 in
    4009) note "token revoked (4009): mint a new token in the portal"; exit 5 ;;
    4008) note "token expired (4008): mint a new token in the portal"; exit 4 ;;
    *) note "token refused (${1:-4001}): check SLUICE_TOKEN or mint a new token in the portal"; exit 3 ;;
  esac
}

need_token() {
  [ -n "${SLUICE_TOKEN:-}" ] || { note "no token: set SLUICE_TOKEN to an app token from the portal"; exit 3; }
  case $SLUICE_TOKEN in *[!A-Za-z0-9._-]*) die "SLUICE_TOKEN does not look like a JWT" ;; esac
}

need_path() {
  case ${1:-} in
    /?*/?*) ;;
    *) die "expected an endpoint path such as @@EXAMPLE_PATH@@, got '${1:-}'" ;;
  esac
}

# curl reads the Authorization header from a config on stdin, so the token
# never appears in the process list.
auth_config() { printf 'header = "Authorization: Bearer %s"\n' "$SLUICE_TOKEN"; }

json_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

# Percent-decodes a path segment list (the record key as Kafka sees it).
percent_decode() {
  printf '%s' "$1" | LC_ALL=C awk '
    BEGIN { for (i = 1; i < 256; i++) hex[sprintf("%02X", i)] = i }
    { s = $0; out = ""
      while ((p = index(s, "%")) > 0) {
        h = toupper(substr(s, p + 1, 2))
        if (h in hex) { out = out substr(s, 1, p - 1) sprintf("%c", hex[h]); s = substr(s, p + 3) }
        else { out = out substr(s, 1, p); s = substr(s, p + 1) }
      }
      printf "%s", out s }'
}

# Percent-encodes a parameter value, segment by segment (a key may contain "/").
percent_encode() {
  printf '%s' "$1" | LC_ALL=C awk '
    BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
    { s = $0; out = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c ~ /[A-Za-z0-9._~\/-]/) out = out c
        else out = out sprintf("%%%02X", ord[c])
      }
      printf "%s", out }'
}

# Full-jitter backoff: a random delay up to min(30, 2^attempt) seconds.
backoff() {
  cap=1; i=0
  while [ "$i" -lt "$1" ] && [ "$cap" -lt 30 ]; do cap=$((cap * 2)); i=$((i + 1)); done
  [ "$cap" -gt 30 ] && cap=30
  sleep "$(awk -v cap="$cap" 'BEGIN { srand(); printf "%.2f", 0.2 + rand() * cap }')"
}

# The content type the endpoint expects (from the API document).
content_type_of() {
  case $1 in
@@CONTENT_TYPES@@
    *) echo 'application/json' ;;
  esac
}

# subscribe PATH: prints {"subscribed":PATH} once the gateway accepted the
# subscription, then one JSON line per message until killed. Reconnects with
# backoff and resumes after the last message received (Last-Event-ID) or, before
# any, after the start position the stream opened with.
subscribe() {
  need_path "${1:-}"
  need_token
  sub_path=$1
  key_json=$(json_string "$(percent_decode "${sub_path#/*/}")")
  tmp=$(mktemp -d) || die "mktemp failed"
  fifo=$tmp/stream
  mkfifo "$fifo" || die "mkfifo failed"
  curl_pid=
  trap 'cleanup' EXIT
  trap 'cleanup; trap - EXIT; exit 130' INT
  trap 'cleanup; trap - EXIT; exit 143' TERM
  last_id=
  subscribed= # when the gateway first accepted the subscription (epoch seconds)
  attempt=0
  unreachable=0 # first attempts in a row that reached no node
  while :; do
    set -- -sS -N -i -K - -H 'Accept: text/event-stream'
    query=
    if [ -n "$last_id" ]; then
      set -- "$@" -H "Last-Event-ID: $last_id"
    elif [ -n "$subscribed" ]; then
      # Nothing received and no start position (a gateway that sends none):
      # continue from when the first subscription started (whole seconds, so
      # at worst a message from just before it shows up).
      query="?from=${subscribed}000"
    fi
    auth_config | curl "$@" "$GATEWAY_URL/sse$sub_path$query" >"$fifo" &
    curl_pid=$!
    read_stream <"$fifo"
    rc=$?
    kill "$curl_pid" 2>/dev/null
    wait "$curl_pid" 2>/dev/null
    curl_pid=
    [ "$rc" -eq 2 ] && exit 1
    if [ -z "$subscribed" ] && [ "$rc" -eq 3 ]; then
      unreachable=$((unreachable + 1))
      [ "$unreachable" -ge "$GATEWAY_COUNT" ] && { note "no gateway reachable ($GATEWAY_URLS)"; exit 6; }
    fi
    attempt=$((attempt + 1))
    lost=$GATEWAY_URL
    next_gateway
    note "connection to $lost lost, reconnecting to $GATEWAY_URL (attempt $attempt)"
    backoff "$attempt"
  done
}

cleanup() {
  [ -n "${curl_pid:-}" ] && kill "$curl_pid" 2>/dev/null
  [ -n "${tmp:-}" ] && rm -rf "$tmp"
}

# Reads one HTTP response (curl -i) from stdin. Returns 1 to retry, 2 to give up,
# 3 to retry after no response at all.
read_stream() {
  IFS= read -r status || return 3
  code=$(printf '%s' "${status%"$CR"}" | cut -d' ' -f2)
  while IFS= read -r line; do
    [ -z "${line%"$CR"}" ] && break
  done
  if [ "$code" != 200 ]; then
    body=$(cat)
    case $code in 401) end_token "$(printf '%s' "$body" | sed -n 's/.*"code":\([0-9]*\).*/\1/p')" ;; esac
    note "subscribe $sub_path: HTTP $code $body"
    case $code in 5* | 429) return 1 ;; *) return 2 ;; esac
  fi
  if [ -z "$subscribed" ]; then
    subscribed=$(($(date +%s) - 1))
    printf '{"subscribed":%s}\n' "$(json_string "$sub_path")"
  else
    note "resubscribed to $sub_path${last_id:+, resuming after $last_id}"
  fi
  attempt=0
  event=message
  data=
  id=
  while IFS= read -r line; do
    line=${line%"$CR"}
    case $line in
      '')
        dispatch || return 2
        event=message
        data=
        id=
        ;;
      :*) ;;
      id:*) id=${line#id:} id=${id# } ;;
      event:*) event=${line#event:} event=${event# } ;;
      data:*) line=${line#data:} data=$data${line# } ;;
    esac
  done
  return 1
}

# Handles one complete event. Returns non-zero when the stream must not resume.
dispatch() {
  # An event without data but with an id (the stream's opening block) sets the
  # position to resume from, as in EventSource: where delivery starts.
  if [ -z "$data" ]; then
    [ -n "$id" ] && last_id=$id
    return 0
  fi
  case $event in
    message)
      # {"endpoint":…,"epoch":…,"partition":…,"seq":…,"ts":…,"data":…} plus the record key.
      printf '{"key":%s,%s\n' "$key_json" "${data#\{}"
      [ -n "$id" ] && last_id=$id
      ;;
    gap) note "gap (messages that will not arrive): $data" ;;
    closing | unsubscribed)
      case $data in *'"code":4009'*) end_token 4009 ;; *'"code":4008'*) end_token 4008 ;; esac
      note "$event: $data"
      case $data in *'"code":1012'* | *'"code":4029'*) return 0 ;; esac
      return 1
      ;;
    *) note "$event: $data" ;;
  esac
  return 0
}

# publish PATH JSON: prints the acknowledgement {"endpoint","epoch","partition","seq"}.
publish() {
  need_path "${1:-}"
  [ $# -ge 2 ] || die "usage: publish PATH PAYLOAD"
  need_token
  pub_path=$1
  payload=$2
  ctype=$(content_type_of "$pub_path")
  attempt=0
  while :; do
    out=$(auth_config | curl -sS -K - -X POST -H "Content-Type: $ctype" --data-raw "$payload" -w '\n%{http_code}' "$GATEWAY_URL/pub$pub_path")
    rc=$?
    code=${out##*"
"}
    body=${out%"
"*}
    if [ "$rc" -eq 0 ] && [ "$code" = 200 ]; then
      printf '%s\n' "$body"
      return 0
    fi
    # Retry only when nothing can have been written: no connection, or a node still starting (503),
    # on the next node of the list.
    if { [ "$rc" -eq 6 ] || [ "$rc" -eq 7 ] || [ "$code" = 503 ]; } && [ "$attempt" -lt 5 ]; then
      attempt=$((attempt + 1))
      next_gateway
      note "publish $pub_path: gateway unavailable, retrying on $GATEWAY_URL (attempt $attempt)"
      backoff "$attempt"
      continue
    fi
    if [ "$rc" -eq 6 ] || [ "$rc" -eq 7 ]; then note "no gateway reachable ($GATEWAY_URLS)"; exit 6; fi
    [ "$rc" -ne 0 ] && die "publish $pub_path: curl failed (exit $rc)"
    die "publish $pub_path: HTTP $code $body"
  done
}

usage() {
  cat <<'USAGE'
Usage: sh client.sh COMMAND [ARGS]

  subscribe PATH             print messages of an endpoint as JSON lines (until killed)
  publish PATH JSON          publish one message, print the acknowledgement
@@USAGE@@

Environment: SLUICE_TOKEN (required), SLUICE_GATEWAY_URL (optional; nodes separated by commas)
USAGE
}

command -v curl >/dev/null 2>&1 || die "curl is required"
cmd=${1:-help}
[ $# -gt 0 ] && shift
case $cmd in
  subscribe) subscribe "$@" ;;
  publish) publish "$@" ;;
@@COMMANDS@@
  help | -h | --help) usage ;;
  *) usage >&2; exit 2 ;;
esac
