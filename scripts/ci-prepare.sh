#!/usr/bin/env bash
# Everything `.ci/run` needs before `npm test` on a fresh machine, beyond `npm ci`:
#   - Debian's Chromium for the editor browser test (playwright-core drives /usr/bin/chromium);
#   - the real n8n 2.41.1 on Node 24 in the cache folder (~3 minutes and 2.6 GB the first time, then reused).
# Idempotent: a machine that already has both spends a few seconds here.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
	echo "[ci-prepare] installing Debian's chromium (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	SUDO=""
	if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq chromium >/dev/null
fi
echo "[ci-prepare] $(chromium --version 2>/dev/null || echo 'chromium: not found')"

if [ ! -d node_modules ]; then
	echo "[ci-prepare] installing the dev dependencies (npm ci)"
	npm ci --no-audit --no-fund
fi

echo "[ci-prepare] making sure the real n8n for the end-to-end tests is installed"
npx tsx scripts/n8n-host/cli.ts ensure >/dev/null
echo "[ci-prepare] ready"
