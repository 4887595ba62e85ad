/**
 * A real n8n for a test file (the run's shared one of its line, or one of its own: see bootRealN8n), our tarball
 * installed as a community package, the sandbox as a child process of the file's own, the owner account and the
 * file's two credentials. A SQLite n8n starts on an empty database n8n has already migrated
 * (scripts/n8n-host/database-template.ts). The n8n line (2.x or 1.x) is the
 * jest project's (test/n8n-lines.js). With `queue`, n8n (2.x) runs in queue mode (scripts/n8n-host/queue.ts):
 * Redis, PostgreSQL, the main, workers and webhook processes.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

import {
	bindWorkflow,
	createUserFolder,
	seedUserFolder,
	installCommunityPackage,
	loadExample,
	N8N_LINES,
	NODE_TYPES,
	PACKAGE,
	parseN8nLine,
	startN8n,
	uniqueSuffix,
	type N8nInstance,
	type N8nLine,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import { QueueStack, type QueueStackOptions } from '../../scripts/n8n-host/queue';
import { startSandboxProcess, type SandboxProcess } from '../../scripts/sandbox-process';
import { acquireShared, releaseShared, sharingEnabled } from './shared-n8n';

export { NODE_TYPES };

/** How often the feed trigger polls in the real-n8n tests (FEED_POLL_TIMES). */
export const POLLS_PER_MINUTE = 4;

/**
 * The feed trigger's Poll Times in the real-n8n tests: four schedules a minute, at seconds 0, 15, 30 and 45. n8n
 * refuses a single schedule more often than once a minute, not several schedules (a recruiter can add them in the
 * editor), so a case that waits for the next poll waits about 15 s instead of a minute. The trigger's code is the
 * same at every interval; the shipped examples keep *Every Minute*.
 */
export const FEED_POLL_TIMES = {
	item: Array.from({ length: POLLS_PER_MINUTE }, (_, i) => ({
		mode: 'custom',
		cronExpression: `${(i * 60) / POLLS_PER_MINUTE} * * * * *`,
	})),
};

/** The n8n line this test file runs on: its jest project's RA_N8N_LINE global (2 when run outside a project). */
export function n8nLineUnderTest(): N8nLine {
	return parseN8nLine(String((globalThis as { RA_N8N_LINE?: unknown }).RA_N8N_LINE ?? '2'));
}

/** `n8n 2.41.1` or `n8n 1.123.81`: the n8n this test file runs on, for test titles and reports. */
export function n8nUnderTest(): string {
	return `n8n ${N8N_LINES[n8nLineUnderTest()].version}`;
}

export interface RealN8n {
	/** The n8n line and version running. */
	line: N8nLine;
	/** The instance with the editor and REST API (in queue mode: the main). */
	n8n: N8nInstance;
	/** Queue mode only: every process of the stack. */
	stack?: QueueStack;
	/** Where production webhooks are served (in queue mode: the first webhook process). */
	webhookBaseUrl: string;
	sandbox: SandboxProcess;
	userFolder: string;
	packageDir: string;
	credentials: Record<string, { id: string; name: string }>;
	/** Imports an example (credentials bound, webhook ids made unique) and returns its id and bound JSON. */
	importExample(
		file: string,
		edit?: (wf: WorkflowJson) => void,
	): Promise<{ id: string; wf: WorkflowJson }>;
	close(): Promise<void>;
}

const log = (line: string) => process.stderr.write(`[e2e] ${line}\n`);

/**
 * `homeInUserFolder`: n8n (and `n8n execute`) run with HOME set to the run's user folder, so the folder n8n 2.x
 * allows files to be read from by default, `~/.n8n-files`, is the run's own and goes with it.
 *
 * Without `queue` or `own`, the n8n is the run's shared one for this line and boot setting (test/e2e/shared-n8n.ts:
 * the line, `homeInUserFolder` and the n8n settings in the environment: bootSetting()), booted by the first file that asks; the file still gets a
 * sandbox process, credentials and workflows of its own, and `close()` stops its sandbox and deactivates the
 * workflows it made, leaving n8n running for the next file. `own: true` (or RA_SHARE_N8N=0) boots an n8n for the
 * file alone: a file that kills, restarts or reconfigures its n8n asks for that.
 */
export async function bootRealN8n(
	label: string,
	opts: {
		queue?: Omit<QueueStackOptions, 'userFolder' | 'log'>;
		homeInUserFolder?: boolean;
		own?: boolean;
	} = {},
): Promise<RealN8n> {
	const tarball = process.env.RA_E2E_TARBALL;
	if (!tarball)
		throw new Error('RA_E2E_TARBALL is not set: run these tests through `npm run test:e2e`');
	if (!opts.queue && !opts.own && sharingEnabled()) return leaseSharedN8n(label, tarball, opts);
	const line = n8nLineUnderTest();
	const userFolder = createUserFolder(`${label}-n8n${line}`);
	const { packageDir } = await installCommunityPackage(tarball, userFolder, { log, line });
	// Queue mode keeps its database in PostgreSQL; a SQLite n8n starts on an empty database already migrated.
	if (!opts.queue) await seedUserFolder(userFolder, line, log);
	const sandbox = await startSandboxProcess({ logFile: join(userFolder, 'sandbox.log'), log });
	let n8n: N8nInstance;
	let stack: QueueStack | undefined;
	try {
		if (opts.queue) {
			stack = await QueueStack.start({ ...opts.queue, userFolder, log });
			n8n = stack.main.instance;
		} else {
			n8n = await startN8n({
				userFolder,
				log,
				line,
				env: opts.homeInUserFolder ? homeEnv(userFolder, line) : undefined,
			});
		}
	} catch (error) {
		await sandbox.stop();
		throw error;
	}
	const close = async () => {
		await (stack ? stack.stop() : n8n.stop());
		await sandbox.stop();
	};
	try {
		await n8n.setupOwner();
		// The record goes into n8n's SQLite database; in queue mode (PostgreSQL) n8n loads the package from nodes/.
		if (!stack) await n8n.recordCommunityPackage(PACKAGE);
		const credentials = await createCredentials(n8n, sandbox);
		return {
			line,
			// In queue mode the main may be restarted: always hand out the current one.
			get n8n() {
				return stack ? stack.main.instance : n8n;
			},
			stack,
			webhookBaseUrl: stack ? stack.webhookBaseUrl : n8n.baseUrl,
			sandbox,
			userFolder,
			packageDir,
			credentials,
			async importExample(file, edit) {
				const wf = bindWorkflow(loadExample(file), credentials, { webhookSuffix: uniqueSuffix() });
				edit?.(wf);
				const created = await (stack ? stack.main.instance : n8n).createWorkflow(wf);
				return { id: created.id, wf };
			},
			close,
		};
	} catch (error) {
		await close();
		throw error;
	}
}

/** The two credentials of a file, pointing at its own sandbox. */
async function createCredentials(
	n8n: N8nInstance,
	sandbox: SandboxProcess,
): Promise<RealN8n['credentials']> {
	return {
		recruitingAnalysisApi: await n8n.createCredential({
			name: 'Recruiting Analysis sandbox',
			type: 'recruitingAnalysisApi',
			data: { environment: 'sandbox', baseUrl: sandbox.baseUrl, apiKey: sandbox.seed.apiKey },
		}),
		recruitingAnalysisSigningSecretApi: await n8n.createCredential({
			name: 'Recruiting Analysis signing secret',
			type: 'recruitingAnalysisSigningSecretApi',
			data: { secret: sandbox.seed.webhookSecret },
		}),
	};
}

/** A lease on the shared n8n of this line and boot setting (see bootRealN8n). */
async function leaseSharedN8n(
	label: string,
	tarball: string,
	opts: { homeInUserFolder?: boolean },
): Promise<RealN8n> {
	const line = n8nLineUnderTest();
	const setting = bootSetting(opts);
	const shared = await acquireShared(`n8n${line}-${setting}`, async () => {
		const userFolder = createUserFolder(`shared-${setting}-n8n${line}`);
		const { packageDir } = await installCommunityPackage(tarball, userFolder, { log, line });
		await seedUserFolder(userFolder, line, log);
		const n8n = await startN8n({
			userFolder,
			log,
			line,
			env: opts.homeInUserFolder ? homeEnv(userFolder, line) : undefined,
		});
		try {
			await n8n.setupOwner();
			await n8n.recordCommunityPackage(PACKAGE);
		} catch (error) {
			await n8n.stop();
			throw error;
		}
		return { n8n, userFolder, packageDir };
	});
	const { n8n, userFolder, packageDir } = shared;
	log(`${label}: sharing the n8n ${line}.x of ${userFolder} (file ${shared.served} on it)`);
	let sandbox: SandboxProcess | undefined;
	try {
		sandbox = await startSandboxProcess({
			logFile: join(userFolder, `sandbox-${shared.served}-${label}.log`),
			log,
		});
		// The workflows there before this file: close() deactivates only the ones it made.
		const before = new Set((await listWorkflows(n8n)).map((w) => w.id));
		const credentials = await createCredentials(n8n, sandbox);
		const ownSandbox = sandbox;
		let closed = false;
		return {
			line,
			n8n,
			webhookBaseUrl: n8n.baseUrl,
			sandbox: ownSandbox,
			userFolder,
			packageDir,
			credentials,
			async importExample(file, edit) {
				const wf = bindWorkflow(loadExample(file), credentials, { webhookSuffix: uniqueSuffix() });
				edit?.(wf);
				const created = await n8n.createWorkflow(wf);
				return { id: created.id, wf };
			},
			async close() {
				if (closed) return;
				closed = true;
				try {
					if (n8n.child.exitCode === null && n8n.child.signalCode === null) {
						for (const w of await listWorkflows(n8n)) {
							if (!before.has(w.id) && (w.active || w.activeVersionId))
								await n8n.deactivateWorkflow(w.id);
						}
					}
				} finally {
					releaseShared(shared);
					await ownSandbox.stop();
				}
			},
		};
	} catch (error) {
		releaseShared(shared);
		await sandbox?.stop();
		throw error;
	}
}

/**
 * What an n8n is booted with, beyond its line: HOME in its folder or not, and the n8n settings the file's environment
 * holds (every n8n process gets the calling process's environment: scripts/n8n-host/node-runtime.ts), such as
 * security.test.ts's N8N_LOG_LEVEL=debug. Files with the same setting share an n8n; the name goes into its folder's.
 */
function bootSetting(opts: { homeInUserFolder?: boolean }): string {
	const settings = Object.entries(process.env)
		.filter(([name]) => N8N_SETTING.test(name) && name !== 'N8N_LOG_LEVEL')
		.sort(([a], [b]) => a.localeCompare(b));
	const others = settings.length
		? `-${createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 8)}`
		: '';
	return `${opts.homeInUserFolder ? 'home' : 'default'}-${process.env.N8N_LOG_LEVEL ?? 'info'}${others}`;
}

/** Names of environment variables n8n reads its settings from. */
const N8N_SETTING =
	/^(N8N_|EXECUTIONS_|DB_|QUEUE_|GENERIC_TIMEZONE$|TZ$|NODE_FUNCTION_ALLOW_|WEBHOOK_URL$|CREDENTIALS_|ENDPOINTS_|WORKFLOWS_|OFFLOAD_|EXTERNAL_|NODES_|CODE_ENABLE_|LOG_|SKIP_|VUE_APP_)/;

/** Every workflow of the n8n (1.x answers the list bare, 2.x with a count beside it). */
async function listWorkflows(
	n8n: N8nInstance,
): Promise<Array<{ id: string; active?: boolean; activeVersionId?: string | null }>> {
	type Row = { id: string; active?: boolean; activeVersionId?: string | null };
	const answer = await n8n.rest<Row[] | { data: Row[] }>('GET', '/workflows');
	return Array.isArray(answer) ? answer : answer.data;
}

/**
 * HOME in the run's folder. n8n 2.x reads and writes files only in `~/.n8n-files` by default; n8n 1.x restricts
 * nothing unless N8N_RESTRICT_FILE_ACCESS_TO is set (then only there, with the same refusal): on 1.x it is set to
 * that folder, which is what a 1.x user sets to get 2.x's default (docs/compatibility.md).
 */
function homeEnv(userFolder: string, line: N8nLine): NodeJS.ProcessEnv {
	return {
		HOME: userFolder,
		...(line === '1' ? { N8N_RESTRICT_FILE_ACCESS_TO: join(userFolder, '.n8n-files') } : {}),
	};
}

/** The production webhook path of a workflow's Recruiting Analysis Trigger. */
export function triggerPath(wf: WorkflowJson): string {
	const node = wf.nodes.find((n) => n.type === NODE_TYPES.trigger);
	if (!node || typeof node.webhookId !== 'string')
		throw new Error(`${wf.name} has no Recruiting Analysis Trigger`);
	return `${node.webhookId}/webhook`;
}

/** A one-node workflow (manual trigger + our action node) for focused checks. */
export function actionWorkflow(
	name: string,
	parameters: Record<string, unknown>,
	credential: { id: string; name: string },
	extra: { onError?: string; items?: Array<Record<string, unknown>> } = {},
): WorkflowJson {
	const nodes: WorkflowJson['nodes'] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
	];
	if (extra.items) {
		nodes.push({
			name: 'Items',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [200, 0],
			parameters: { jsCode: `return ${JSON.stringify(extra.items.map((json) => ({ json })))};` },
		});
	}
	nodes.push({
		name: 'Recruiting Analysis',
		type: NODE_TYPES.action,
		typeVersion: 1,
		position: [400, 0],
		parameters,
		credentials: { recruitingAnalysisApi: credential },
		...(extra.onError ? { onError: extra.onError } : {}),
	});
	const connections: Record<string, unknown> = {
		Start: {
			main: [[{ node: extra.items ? 'Items' : 'Recruiting Analysis', type: 'main', index: 0 }]],
		},
	};
	if (extra.items)
		connections.Items = { main: [[{ node: 'Recruiting Analysis', type: 'main', index: 0 }]] };
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}
