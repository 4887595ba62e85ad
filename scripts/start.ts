/**
 * `npm start`, the main job: a real n8n with this package installed from its tarball, wired to the local
 * sandbox (or to RECRUITING_ANALYSIS_BASE_URL with RECRUITING_ANALYSIS_API_KEY), the example workflows imported,
 * the trigger workflows active, sample resumes and an applicants list in the folder n8n reads files from (the folder
 * example points there), and the "analyze one resume" example run once as the editor runs it, up to the recruiter's
 * approval form (scripts/start-kit.ts). The agent example gets a model: a scripted demo model on loopback
 * (scripts/demo-model.ts, not an AI) behind its *OpenAI-compatible model* credential, its chat public and the workflow
 * active. Ctrl-C stops what it started.
 *
 * `npm run start:queue` (`--queue`): the same in n8n's queue mode (scripts/n8n-host/queue.ts): Redis, PostgreSQL,
 * the main, two `n8n worker` and one `n8n webhook` process; the demo runs on a worker and the trigger workflows'
 * webhooks are served by the webhook process.
 *
 * Environment: N8N_PORT (default 5678, or a free port when taken), RA_SANDBOX_PORT (default: a free port),
 * RECRUITING_ANALYSIS_BASE_URL + RECRUITING_ANALYSIS_API_KEY (+ optional RECRUITING_ANALYSIS_WEBHOOK_SECRET).
 */
import { createServer } from 'node:net';
import { join } from 'node:path';

import {
	DEFAULT_OWNER,
	bindWorkflow,
	createUserFolder,
	ensureN8n,
	freePort,
	installCommunityPackage,
	listExamples,
	loadExample,
	nodeError,
	nodeOutput,
	packPackage,
	removePackedPackage,
	startN8n,
	NODE_TYPES,
	type N8nInstance,
	type WorkflowJson,
} from './n8n-host';
import { QueueStack } from './n8n-host/queue';
import type { ChatModelServer } from './chat-model-server';
import { DEMO_MODEL_NOTE, startDemoModel } from './demo-model';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process';
import {
	AGENT_EXAMPLE,
	FOLDER_EXAMPLE,
	MODEL_CREDENTIAL_NAME,
	chatWebhookPath,
	hostedChatUrl,
	makeChatPublic,
	modelCredentialData,
	exampleHints,
	filesEnv,
	filesFolder,
	placeSampleFiles,
	pointFolderExample,
	registerTriggerReceivers,
	runAsEditor,
	waitingForm,
} from './start-kit';

const DEMO_EXAMPLE = 'analyze-one-resume.json';
const QUEUE = process.argv.includes('--queue');
const log = (line: string) => process.stdout.write(`[start] ${line}\n`);

async function portFree(port: number): Promise<boolean> {
	return new Promise((r) => {
		const srv = createServer();
		srv.once('error', () => r(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => r(true)));
	});
}

function ourTriggers(wf: WorkflowJson) {
	return wf.nodes.filter((n) => n.type === NODE_TYPES.trigger || n.type === NODE_TYPES.feed);
}

async function main(): Promise<void> {
	let n8n: N8nInstance | undefined;
	let stack: QueueStack | undefined;
	let sandbox: SandboxProcess | undefined;
	let demoModel: ChatModelServer | undefined;
	let stopping = false;
	const stopAll = async (code: number) => {
		if (stopping) return;
		stopping = true;
		log(
			`stopping ${stack ? 'the n8n processes, PostgreSQL and Redis' : 'n8n'}${sandbox ? ' and the sandbox' : ''} …`,
		);
		await (stack ? stack.stop() : n8n?.stop())?.catch(() => undefined);
		await sandbox?.stop().catch(() => undefined);
		await demoModel?.close().catch(() => undefined);
		log('stopped');
		process.exit(code);
	};
	process.on('SIGINT', () => void stopAll(0));
	process.on('SIGTERM', () => void stopAll(0));

	try {
		if (QUEUE) log('queue mode: Redis, PostgreSQL, the main, two workers and a webhook process');
		log('1/8 making sure n8n 2.41.1 and Node 24 are installed (cached after the first run) …');
		await ensureN8n(log);

		log('2/8 building and packing the package …');
		const packed = await packPackage({ log });

		const userFolder = createUserFolder(QUEUE ? 'start-queue' : 'start');
		log(
			`3/8 installing ${packed.name}@${packed.version} as a community package into ${join(userFolder, '.n8n', 'nodes')}`,
		);
		await installCommunityPackage(packed.tarball, userFolder, { log });
		removePackedPackage(packed.tarball); // installed; its temporary ra-pack-* folder is no longer needed
		// The folder n8n may read files from (what ~/.n8n-files is to an installed n8n), with the folder example's files.
		const filesDir = filesFolder(userFolder);
		const resumesDir = placeSampleFiles(filesDir);

		const externalUrl = process.env.RECRUITING_ANALYSIS_BASE_URL;
		const externalKey = process.env.RECRUITING_ANALYSIS_API_KEY;
		const external = Boolean(externalUrl && externalKey);
		let api: { baseUrl: string; apiKey: string; webhookSecret?: string; workspaceId?: string };
		if (external) {
			log(
				`4/8 using the deployment at ${externalUrl} (RECRUITING_ANALYSIS_BASE_URL); the sandbox is not started`,
			);
			api = {
				baseUrl: externalUrl!,
				apiKey: externalKey!,
				webhookSecret: process.env.RECRUITING_ANALYSIS_WEBHOOK_SECRET,
			};
		} else {
			log('4/8 starting the local sandbox …');
			sandbox = await startSandboxProcess({
				port: process.env.RA_SANDBOX_PORT ? Number(process.env.RA_SANDBOX_PORT) : 0,
				logFile: join(userFolder, 'sandbox.log'),
				log,
			});
			api = sandbox.seed;
			log(`sandbox on ${sandbox.baseUrl} (workspace ${sandbox.seed.workspaceId})`);
		}

		log(QUEUE ? '5/8 starting Redis, PostgreSQL and n8n in queue mode …' : '5/8 starting n8n …');
		const wanted = process.env.N8N_PORT ? Number(process.env.N8N_PORT) : 5678;
		const port = (await portFree(wanted)) ? wanted : await freePort();
		if (port !== wanted) log(`port ${wanted} is taken; using ${port}`);
		if (QUEUE) {
			stack = await QueueStack.start({ userFolder, mainPort: port, log, env: filesEnv(filesDir) });
			n8n = stack.main.instance;
		} else {
			n8n = await startN8n({ userFolder, port, log, env: filesEnv(filesDir) });
		}
		const owner = await n8n.setupOwner(DEFAULT_OWNER);
		// The record lives in n8n's SQLite database; in queue mode (PostgreSQL) loading from nodes/ is enough.
		if (!stack) await n8n.recordCommunityPackage(packed.name);
		// Production webhooks: served by the webhook process in queue mode.
		const webhookHost = stack ? stack.webhooks[0].instance : n8n;

		log('6/8 creating credentials and importing the example workflows …');
		const apiCredential = await n8n.createCredential({
			name: external ? 'Recruiting Analysis account' : 'Recruiting Analysis sandbox',
			type: 'recruitingAnalysisApi',
			data: external
				? { environment: 'custom', baseUrl: api.baseUrl, apiKey: api.apiKey }
				: { environment: 'sandbox', baseUrl: api.baseUrl, apiKey: api.apiKey },
		});
		const credentials: Record<string, { id: string; name: string }> = {
			recruitingAnalysisApi: apiCredential,
		};
		// The agent example's model: the demo model on loopback, until the credential is pointed at a real one.
		demoModel = await startDemoModel();
		credentials.openAiApi = await n8n.createCredential({
			name: MODEL_CREDENTIAL_NAME,
			type: 'openAiApi',
			data: modelCredentialData(demoModel.baseUrl),
		});
		log(`   demo model ${DEMO_MODEL_NOTE} on ${demoModel.baseUrl} for ${AGENT_EXAMPLE}`);
		if (api.webhookSecret) {
			credentials.recruitingAnalysisSigningSecretApi = await n8n.createCredential({
				name: 'Recruiting Analysis signing secret',
				type: 'recruitingAnalysisSigningSecretApi',
				data: { secret: api.webhookSecret },
			});
		}
		const imported: Array<{ file: string; id: string; wf: WorkflowJson }> = [];
		for (const file of listExamples()) {
			const wf = bindWorkflow(loadExample(file), credentials);
			if (file === FOLDER_EXAMPLE) pointFolderExample(wf, filesDir);
			if (file === AGENT_EXAMPLE) makeChatPublic(wf);
			const created = await n8n.createWorkflow(wf);
			imported.push({ file, id: created.id, wf });
			log(`   imported ${file} -> ${n8n.baseUrl}/workflow/${created.id}`);
		}

		log('7/8 activating the trigger workflows …');
		let agentChatUrl: string | undefined;
		for (const { file, id, wf } of imported) {
			if (file === AGENT_EXAMPLE) {
				try {
					await n8n.activateWorkflow(id);
					await webhookHost.waitForWebhook(chatWebhookPath(wf), 30_000, 'GET');
					agentChatUrl = hostedChatUrl(webhookHost.baseUrl, wf);
					log(`   ${file}: active; its chat: ${agentChatUrl}`);
				} catch (error) {
					agentChatUrl = undefined;
					log(`   ${file}: activation failed: ${(error as Error).message}`);
				}
				continue;
			}
			const triggers = ourTriggers(wf);
			if (triggers.length === 0) continue;
			const needsSecret = triggers.some((t) => t.type.endsWith('.recruitingAnalysisTrigger'));
			if (needsSecret && !credentials.recruitingAnalysisSigningSecretApi) {
				log(
					`   ${file}: not activated (set RECRUITING_ANALYSIS_WEBHOOK_SECRET to verify this deployment's webhooks)`,
				);
				continue;
			}
			try {
				await n8n.activateWorkflow(id);
			} catch (error) {
				log(`   ${file}: activation failed: ${(error as Error).message}`);
				continue;
			}
			for (const t of triggers) {
				if (typeof t.webhookId !== 'string') {
					log(`   ${file}: active (polls the event feed)`);
					continue;
				}
				const url = `${webhookHost.baseUrl}/webhook/${t.webhookId}/webhook`;
				await webhookHost.waitForWebhook(`${t.webhookId}/webhook`, 30_000, 'POST');
				if (sandbox) {
					// The test URL is the main's (the editor's) in queue mode too.
					const registered = await registerTriggerReceivers(sandbox, t, {
						webhookBase: webhookHost.baseUrl,
						editorBase: n8n.baseUrl,
					});
					log(
						`   ${file}: active; the sandbox delivers ${registered.events?.join(', ') || 'all events'} to ${url} and to the test URL ${registered.testUrl}`,
					);
				} else {
					log(
						`   ${file}: active; register ${url} as a webhook endpoint in the Recruiting Analysis application (and ${n8n.baseUrl}/webhook-test/${t.webhookId}/webhook to see events in the editor)`,
					);
				}
			}
		}

		log('');
		log(`n8n editor: ${n8n.baseUrl}/`);
		log(`login:      ${owner.email} / ${owner.password}`);
		log(
			`files:      ${filesDir} (n8n reads and writes files only here; ${FOLDER_EXAMPLE} reads ${resumesDir})`,
		);
		if (stack) {
			log('processes:');
			log(
				`   redis      127.0.0.1:${stack.redis.port}  pid ${stack.redis.pid}  log ${stack.redis.logFile}`,
			);
			log(
				`   postgres   127.0.0.1:${stack.postgres.port}  pid ${stack.postgres.pid}  log ${stack.postgres.logFile}`,
			);
			for (const p of stack.processes) {
				const what = p.role === 'worker' ? 'health' : p.role === 'main' ? 'editor' : 'webhooks';
				log(
					`   ${p.name.padEnd(10)} 127.0.0.1:${p.instance.port} (${what}), task broker ${p.instance.brokerPort}  pid ${p.instance.child.pid}  log ${p.instance.logFile}`,
				);
			}
		}
		log('');
		log('run each example from the editor (open it, then):');
		const names = Object.fromEntries(imported.map((i) => [i.file, i.wf.name]));
		const hintContext = {
			n8nBaseUrl: n8n.baseUrl,
			resumesDir,
			sandbox: sandbox
				? { baseUrl: sandbox.baseUrl, workspaceId: sandbox.seed.workspaceId }
				: undefined,
			names,
			agent:
				agentChatUrl && demoModel
					? { demoModelUrl: demoModel.baseUrl, chatUrl: agentChatUrl }
					: undefined,
		};
		for (const { file, id } of imported) {
			log(`   ${file} (${n8n.baseUrl}/workflow/${id}):`);
			for (const line of exampleHints(file, hintContext)) log(`      ${line}`);
		}
		log('');

		const demo = imported.find((i) => i.file === DEMO_EXAMPLE);
		if (demo) {
			log(
				`8/8 running "${demo.wf.name}" once, as the editor runs it${stack ? ' (on a worker)' : ''} …`,
			);
			const execution = await runAsEditor(n8n, demo.id, 'Run Example', 360_000);
			const analyzed = nodeOutput(execution.data, 'Analyze Resume');
			const item = analyzed[0] as
				| {
						reportId?: string;
						status?: string;
						score?: number | null;
						candidateName?: string | null;
				  }
				| undefined;
			const form = waitingForm(execution, n8n.baseUrl);
			if (!item || !(execution.status === 'success' || form)) {
				const err = nodeError(execution.data, 'Analyze Resume') ?? execution.data.resultData.error;
				log(
					`the demo run failed: ${err?.message ?? `no output (${execution.status})`}${err?.description ? ` (${err.description})` : ''}`,
				);
			} else {
				log(
					`${item.candidateName ? `${item.candidateName}, ` : ''}report ${item.reportId}: status ${item.status}, score ${item.score ?? 'null (not scored)'} of 10`,
				);
				if (form) {
					log('the score clears the threshold: the invitation email waits for your approval');
					log(`approve (or not) in this form: ${form.url}`);
				} else {
					log('below the threshold: not invited');
				}
				const worker = stack?.whoRan(execution.id);
				if (worker) log(`${worker} ran it (execution ${execution.id})`);
				log(
					`see the execution in the editor: ${n8n.baseUrl}/workflow/${demo.id}/executions/${execution.id}`,
				);
			}
		}
		log('');
		const what = stack ? 'n8n (main, workers, webhook process), PostgreSQL, Redis' : 'n8n';
		log(
			sandbox
				? `${what} and the sandbox keep running; press Ctrl-C to stop them.`
				: `${what} keep${stack ? '' : 's'} running; press Ctrl-C to stop.`,
		);
		await n8n.exited;
		if (!stopping) {
			log(`n8n exited on its own; its log: ${n8n.logFile}`);
			await stopAll(1);
		}
	} catch (error) {
		log(`failed: ${(error as Error).stack ?? String(error)}`);
		await stopAll(1);
	}
}

void main();
