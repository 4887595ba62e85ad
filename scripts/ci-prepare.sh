#!/usr/bin/env bash
# Everything `.ci/run` needs before `npm test` on a fresh machine, beyond `npm ci`:
#   - Debian's Chromium headless shell for the editor browser tests (playwright-core drives
#     /usr/bin/chromium-headless-shell);
#   - Debian's redis-server and postgresql for the queue-mode tests;
#   - the real n8n 2.41.1 on Node 24 and n8n 1.123.81 on Node 22 in the cache folder (the first time about
#     3 + 5 minutes and 2.6 + 1.8 GB, then reused; RA_N8N_VERSIONS=2 or 1 installs one).
# Idempotent: a machine that already has both spends a few seconds here.
set -euo pipefail
cd "$(dirname "$0")/.."

# apt_get_install PKG: install a Debian package with apt-get when it is missing (apt-get update once, before the first).
updated=""
apt_get_install() {
	local pkg="$1"
	dpkg -s "$pkg" >/dev/null 2>&1 && return 0
	echo "[ci-prepare] installing Debian's $pkg (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	local sudo=""
	if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
	if [ -z "$updated" ]; then $sudo apt-get update -qq; updated=1; fi
	$sudo apt-get install -y -qq "$pkg" >/dev/null
}

# Chromium's headless shell for the editor browser tests.
apt_get_install chromium-headless-shell
echo "[ci-prepare] $(chromium-headless-shell --version 2>/dev/null || echo 'chromium-headless-shell: not found')"

# Redis and PostgreSQL for the queue-mode tests (test/e2e/queue.test.ts, npm run start:queue); the scripts start
# private servers themselves, the packages' own services are not needed.
apt_get_install redis-server
apt_get_install postgresql
echo "[ci-prepare] $(redis-server --version | cut -d' ' -f1-3), PostgreSQL $(ls /usr/lib/postgresql 2>/dev/null | tr '\n' ' ')"

if [ ! -d node_modules ]; then
	echo "[ci-prepare] installing the dev dependencies (npm ci)"
	npm ci --no-audit --no-fund
fi

echo "[ci-prepare] making sure the real n8n versions for the end-to-end tests are installed"
npx tsx scripts/n8n-host/cli.ts ensure >/dev/null
echo "[ci-prepare] ready"
