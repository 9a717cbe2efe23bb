#!/usr/bin/env bash
# Prepares a fresh Debian/Ubuntu machine for `npm start` and `npm test`:
#   1. npm packages from the lockfile (native addons build against Node's headers in /usr);
#   2. Debian's Chromium for the browser tests, when missing;
#   3. PostgreSQL on 127.0.0.1:5432 and NATS with JetStream on 127.0.0.1:4222 for the integration
#      tests, each installed (Debian's `postgresql` and `nats-server` packages) and started only when
#      nothing answers on its port. A service that already answers is left exactly as it is;
#   4. the programs in bin/ (the CLI bundle in dist/) and the read model's Prisma clients
#      (generated/, when missing or older than prisma/schema.prisma).
#
# For PostgreSQL it starts, the script makes the setup the tests expect: the cluster listens on
# 127.0.0.1 only, connections from 127.0.0.1 are trusted (no password: a test and development
# machine's setting; any local user can then connect as any database role), and a database `test`
# exists, owned by a role named after the user running the script.
#
# Options:
#   --dry-run             print every command that would change the machine, run none of them
#   --services-only       only step 3
#   --assume-unreachable  with --dry-run: plan as if neither service answered (shows the install
#                         and start commands on a machine where both already run)
set -euo pipefail
cd "$(dirname "$0")/.."
export npm_config_nodedir="${npm_config_nodedir:-/usr}" NEXT_TELEMETRY_DISABLED=1

DRY_RUN=0
SERVICES_ONLY=0
ASSUME_UNREACHABLE=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --services-only) SERVICES_ONLY=1 ;;
    --assume-unreachable) ASSUME_UNREACHABLE=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup.sh: unknown option $arg (accepted: --dry-run, --services-only, --assume-unreachable, --help)" >&2
      exit 2
      ;;
  esac
done
if [ "$ASSUME_UNREACHABLE" = "1" ] && [ "$DRY_RUN" = "0" ]; then
  echo "setup.sh: --assume-unreachable only plans (use it with --dry-run); it never acts on running services" >&2
  exit 2
fi
# The ports the tests use (server/stream/testing/services.ts).
PG_PORT=5432
NATS_PORT=4222

say() { echo "setup: $*" >&2; }
# What a step achieved, or (under --dry-run) would achieve.
done_say() { if [ "$DRY_RUN" = "1" ]; then say "(dry run) then: $*"; else say "$*"; fi; }

# Root runs commands directly; anyone else through sudo (asked once, by sudo itself).
if [ "$(id -u)" = "0" ]; then SUDO=(); else SUDO=(sudo); fi

# Runs a command that changes the machine, or only prints it under --dry-run.
act() {
  if [ "$DRY_RUN" = "1" ]; then
    echo "would run: $*"
  else
    "$@"
  fi
}

# Like act, as root.
act_root() {
  if [ "${#SUDO[@]}" -gt 0 ] && [ "$DRY_RUN" = "0" ] && ! command -v sudo >/dev/null 2>&1; then
    say "this step needs root: run as root, or install sudo; the command is: $*"
    exit 1
  fi
  act "${SUDO[@]}" "$@"
}

# Whether something accepts TCP connections on 127.0.0.1:$1.
reachable() {
  [ "$ASSUME_UNREACHABLE" = "1" ] && return 1
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# Waits up to 30 s for 127.0.0.1:$1 ($2 names the service).
wait_reachable() {
  [ "$DRY_RUN" = "1" ] && return 0
  for _ in $(seq 1 60); do
    reachable "$1" && return 0
    sleep 0.5
  done
  say "$2 did not start answering on 127.0.0.1:$1 within 30 s"
  return 1
}

APT_UPDATED=0
apt_install() {
  if [ "$APT_UPDATED" = "0" ]; then
    act_root apt-get update -qq
    APT_UPDATED=1
  fi
  act_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# ---- 1, 2: packages and the browser
if [ "$SERVICES_ONLY" = "0" ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    act npm ci --no-audit --no-fund
  fi
  if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = "0" ] || [ "$DRY_RUN" = "1" ]; then
      apt_install chromium
    else
      say "Chromium is missing: run 'sudo apt-get install -y chromium' for the browser tests"
    fi
  fi
fi

# ---- 3a: PostgreSQL
setup_postgres() {
  if reachable "$PG_PORT"; then
    say "PostgreSQL: already answering on 127.0.0.1:$PG_PORT, left as it is"
    return 0
  fi
  say "PostgreSQL: nothing answers on 127.0.0.1:$PG_PORT; installing and starting it"
  if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
    apt_install postgresql
  fi
  # The newest installed major version (Debian's postgresql package pulls exactly one).
  local ver
  ver="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)"
  if [ -z "$ver" ]; then
    ver="$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -1)"
    [ -n "$ver" ] || ver="VERSION"
  fi
  if [ ! -f "/etc/postgresql/$ver/main/postgresql.conf" ]; then
    act_root pg_createcluster "$ver" main
  fi
  act_root pg_conftool "$ver" main set listen_addresses 127.0.0.1
  act_root pg_conftool "$ver" main set port "$PG_PORT"
  local hba="/etc/postgresql/$ver/main/pg_hba.conf"
  if [ "$DRY_RUN" = "1" ] || ! "${SUDO[@]}" grep -q 'heimdall setup.sh' "$hba" 2>/dev/null; then
    # Prepended: pg_hba.conf is read top-down and the first matching line wins.
    act_root sed -i "1i # heimdall setup.sh: the tests connect over 127.0.0.1 without a password\\nhost all all 127.0.0.1/32 trust" "$hba"
  fi
  if [ -d /run/systemd/system ]; then
    act_root systemctl restart "postgresql@$ver-main"
  else
    # No systemd (a container): start the cluster directly, as pg_ctlcluster would under init.
    act_root pg_ctlcluster --skip-systemctl-redirect "$ver" main restart
  fi
  wait_reachable "$PG_PORT" PostgreSQL
  local me
  me="$(id -un)"
  local psql=(runuser -u postgres -- psql -p "$PG_PORT" -v ON_ERROR_STOP=1 -qtA)
  if [ "$DRY_RUN" = "1" ] || [ -z "$("${SUDO[@]}" "${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname = '$me'")" ]; then
    act_root "${psql[@]}" -c "CREATE ROLE \"$me\" LOGIN CREATEDB"
  fi
  if [ "$DRY_RUN" = "1" ] || [ -z "$("${SUDO[@]}" "${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'test'")" ]; then
    act_root "${psql[@]}" -c "CREATE DATABASE test OWNER \"$me\""
  fi
  done_say "PostgreSQL $ver: running on 127.0.0.1:$PG_PORT (database test, role $me, trust from 127.0.0.1)"
}

# ---- 3b: NATS with JetStream
setup_nats() {
  if reachable "$NATS_PORT"; then
    # A NATS server says in its first line (INFO {...}) whether JetStream is on.
    local info
    info="$(timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$NATS_PORT; IFS= read -r -t 2 line <&3; printf '%s' \"\$line\"" 2>/dev/null || true)"
    if [[ "$info" == INFO* ]] && [[ "$info" != *'"jetstream":true'* ]]; then
      say "NATS: a server answers on 127.0.0.1:$NATS_PORT without JetStream; left as it is, but the wire tests need it restarted with -js"
    else
      say "NATS: already answering on 127.0.0.1:$NATS_PORT$([[ "$info" == *'"jetstream":true'* ]] && echo ' with JetStream'), left as it is"
    fi
    return 0
  fi
  say "NATS: nothing answers on 127.0.0.1:$NATS_PORT; installing and starting nats-server with JetStream"
  local bin
  bin="$(command -v nats-server || true)"
  [ -n "$bin" ] || { [ -x /usr/sbin/nats-server ] && bin=/usr/sbin/nats-server; } || true
  if [ -z "$bin" ]; then
    apt_install nats-server
    bin="$(command -v nats-server || echo /usr/sbin/nats-server)"
  fi
  if [ -d /run/systemd/system ] && [ -f /lib/systemd/system/nats-server.service ]; then
    # Debian's unit runs `nats-server -c /etc/nats-server.conf` as user nats, and its package
    # starts it on install, without JetStream: turn JetStream on in that file and restart.
    local conf=/etc/nats-server.conf
    if [ "$DRY_RUN" = "1" ] || ! grep -q 'heimdall setup.sh' "$conf" 2>/dev/null; then
      act_root sh -c "printf '\n# heimdall setup.sh: JetStream for the wire tests\njetstream { store_dir: /var/lib/nats-server }\n' >> $conf"
    fi
    act_root sed -i -e "s/^host: .*/host: 127.0.0.1/" -e "s/^port: .*/port: $NATS_PORT/" "$conf"
    act_root install -d -o nats -g nats /var/lib/nats-server
    act_root systemctl enable nats-server
    act_root systemctl restart nats-server
  else
    # No systemd (a container): run it in the background, detached from this shell.
    act_root mkdir -p /var/lib/nats-server
    act_root start-stop-daemon --start --oknodo --background --exec "$bin" -- -a 127.0.0.1 -p "$NATS_PORT" -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  fi
  wait_reachable "$NATS_PORT" NATS
  done_say "NATS: running on 127.0.0.1:$NATS_PORT with JetStream (store /var/lib/nats-server, log /var/log/nats-server.log)"
}

setup_postgres
setup_nats

# ---- 4: what the checkout's programs load (the npm package ships these built)
if [ "$SERVICES_ONLY" = "0" ]; then
  act node scripts/build-cli.mjs
  if [ ! -f generated/prisma/sqlite.mjs ] || [ prisma/schema.prisma -nt generated/prisma/sqlite.mjs ] || [ prisma/generate.mjs -nt generated/prisma/sqlite.mjs ]; then
    act node prisma/generate.mjs
  fi
fi
