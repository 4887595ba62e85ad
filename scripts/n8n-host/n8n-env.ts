/**
 * The environment every n8n process gets.
 */
import { join } from 'node:path';
import { nodeEnv } from './node-runtime';
import { cacheDir, type N8nHost } from './paths';

/** Environment of every n8n process: loopback only, nothing that dials out. */
export function n8nEnv(
	host: N8nHost,
	o: { userFolder: string; port: number; brokerPort: number; env?: NodeJS.ProcessEnv },
): NodeJS.ProcessEnv {
	return nodeEnv(host, {
		N8N_USER_FOLDER: o.userFolder,
		N8N_PORT: String(o.port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${o.port}/`,
		N8N_WEBHOOK_URL: `http://127.0.0.1:${o.port}/`,
		N8N_RUNNERS_BROKER_PORT: String(o.brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
		N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		// n8n 2.x's MCP registry module fetches a server list from n8n's API at start: nothing may dial out.
		// (n8n 1.x has no such module and refuses to start when asked to disable an unknown one.)
		...(host.line === '2' ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		// n8n 1.x's own npm calls stay offline, as nothing may dial out (its `npm outdated` on every listing of
		// community packages gets a cleaned environment: community-package.ts writes an .npmrc for that one).
		...(host.line === '1' ? { npm_config_offline: 'true' } : {}),
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_GIT_NODE_DISABLE_BARE_REPOS: 'true',
		DB_SQLITE_POOL_SIZE: '2',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		NO_COLOR: '1',
		// Node keeps the code it compiled for n8n's modules here and reuses it on the next start (its compile cache,
		// keyed by Node version and source): a start then takes about a sixth less CPU. Nothing of n8n's changes.
		NODE_COMPILE_CACHE: join(cacheDir(), 'node-compile-cache'),
		...(o.env ?? {}),
	});
}
