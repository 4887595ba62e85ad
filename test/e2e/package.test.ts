/**
 * The package as users get it: the packed tarball installed into a real n8n (2.41.1 and 1.123.81, one jest project
 * each) the way n8n installs a community package. Checks that n8n loads every node and credential from it, that its
 * imports resolve inside that install, what n8n's own credential test reports, and how errors look in a real
 * execution (bad API key, Continue On Fail).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { nodeError, nodeOutput } from '../../scripts/n8n-host';
import { NODE_TYPES, actionWorkflow, bootRealN8n, n8nUnderTest, type RealN8n } from './helpers';

let env: RealN8n;

beforeAll(async () => {
	env = await bootRealN8n('e2e-package');
}, 300_000);

afterAll(async () => {
	await env?.close();
});

describe('the package installed from its tarball', () => {
	test('ships only dist and its manifest, with no runtime dependencies to install', () => {
		const manifest = JSON.parse(
			readFileSync(join(env.packageDir, 'package.json'), 'utf8'),
		) as Record<string, unknown>;
		expect(manifest.name).toBe('n8n-nodes-recruiting-analysis');
		expect(manifest.dependencies ?? {}).toEqual({});
		const top = readdirSync(env.packageDir).sort();
		expect(top).toContain('dist');
		expect(
			top.filter(
				(f) =>
					![
						'dist',
						'index.js',
						'package.json',
						'README.md',
						'LICENSE',
						'LICENSE.md',
						'node_modules',
					].includes(f),
			),
		).toEqual([]);
		// Nothing was installed next to it: zod and n8n-workflow must come from n8n itself.
		expect(existsSync(join(env.packageDir, 'node_modules', 'zod'))).toBe(false);
		const n8nManifest = manifest.n8n as { nodes: string[]; credentials: string[] };
		for (const file of [...n8nManifest.nodes, ...n8nManifest.credentials]) {
			expect(existsSync(join(env.packageDir, file))).toBe(true);
		}
	});

	test('n8n knows all three nodes and both credentials under the community package name', async () => {
		const nodes = await env.n8n.nodeTypes();
		const ours = nodes
			.filter((n) => n.name.startsWith('n8n-nodes-recruiting-analysis.'))
			.map((n) => n.name);
		// n8n adds a Tool variant of the action node because it is usableAsTool.
		expect([...new Set(ours)].sort()).toEqual(
			[NODE_TYPES.action, `${NODE_TYPES.action}Tool`, NODE_TYPES.feed, NODE_TYPES.trigger].sort(),
		);
		const credentials = (await env.n8n.credentialTypes()).map((c) => c.name);
		expect(credentials).toEqual(
			expect.arrayContaining(['recruitingAnalysisApi', 'recruitingAnalysisSigningSecretApi']),
		);
		const log = readFileSync(env.n8n.logFile, 'utf8');
		expect(log).not.toMatch(/Failed to load package "?n8n-nodes-recruiting-analysis/i);
		expect(log).not.toMatch(
			/n8n-nodes-recruiting-analysis[^\n]*(Cannot find module|MODULE_NOT_FOUND)/,
		);
	});

	test('n8n lists it as an installed community package whose nodes all loaded', async () => {
		const packages = await env.n8n.rest<
			Array<{
				packageName: string;
				installedVersion: string;
				failedLoading?: boolean;
				installedNodes: Array<{ type: string }>;
			}>
		>('GET', '/community-packages');
		const ours = packages.find((p) => p.packageName === 'n8n-nodes-recruiting-analysis');
		expect(ours).toBeDefined();
		// n8n 2.x says false for a package whose nodes all loaded; n8n 1.x sets the flag only when one failed.
		expect(ours!.failedLoading).toBe(env.line === '1' ? undefined : false);
		expect(ours!.installedNodes.map((n) => n.type).sort()).toEqual(
			[NODE_TYPES.action, NODE_TYPES.feed, NODE_TYPES.trigger].sort(),
		);
	});

	test('every import resolves in the community install: a read runs through validation and transport', async () => {
		const wf = actionWorkflow(
			'list job descriptions',
			{ resource: 'jobDescription', operation: 'getMany', returnAll: true },
			env.credentials.recruitingAnalysisApi,
		);
		const { id } = await env.n8n.createWorkflow(wf);
		const execution = await env.n8n.runManually(id);
		// The node's error and n8n's last log lines go into the comparison, so a failure says what happened.
		const outcome = {
			status: execution.status,
			error: nodeError(execution.data, 'Recruiting Analysis')?.message,
			log: execution.status === 'success' ? '' : env.n8n.logTail(20),
		};
		expect(outcome).toEqual({ status: 'success', error: undefined, log: '' });
		const items = nodeOutput(execution.data, 'Recruiting Analysis');
		expect(items.map((i) => i.id)).toContain(env.sandbox.seed.jobDescriptionId);
	});
});

describe(`n8n's own credential test (Test button, ${n8nUnderTest()})`, () => {
	/** POST /rest/credentials/test on a saved credential of the API credential type, as the editor does. */
	async function credentialTest(
		data: Record<string, unknown>,
	): Promise<{ status: string; message: string }> {
		const name = `credential test ${Math.random().toString(16).slice(2, 8)}`;
		const saved = await env.n8n.createCredential({ name, type: 'recruitingAnalysisApi', data });
		return env.n8n.rest('POST', '/credentials/test', {
			credentials: { id: saved.id, name, type: 'recruitingAnalysisApi', data },
		});
	}
	const apiKey = () => env.sandbox.seed.apiKey;

	test('a good key at the sandbox passes', async () => {
		const result = await credentialTest({
			environment: 'custom',
			baseUrl: env.sandbox.baseUrl,
			apiKey: apiKey(),
		});
		expect(result).toEqual({ status: 'OK', message: expect.any(String) });
	});

	// The test is the nodes' own function (methods/credentialTest.ts), the same on both lines: a list read that
	// answers 404 means the base URL is wrong (an earlier version took every 404 for a passed scope check).
	test('a base URL where the API answers 404 NOT_FOUND fails, naming the 404', async () => {
		const result = await credentialTest({
			environment: 'custom',
			baseUrl: `${env.sandbox.baseUrl}/not-the-api`,
			apiKey: apiKey(),
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/answered 404, but not like the Recruiting Analysis API\. Check the environment and the base URL/,
		);
	});

	test('an address that answers, but not like the API (here n8n itself), fails instead of passing', async () => {
		const result = await credentialTest({
			environment: 'custom',
			baseUrl: env.n8n.baseUrl,
			apiKey: apiKey(),
		});
		expect(result.status).toBe('Error');
	});
});

describe('errors in a real execution', () => {
	test('a bad API key gives a clear error naming the 401 and the fix, without the key', async () => {
		const badKey = 'svc_test_this-key-does-not-exist-0000000000';
		const credential = await env.n8n.createCredential({
			name: 'Recruiting Analysis wrong key',
			type: 'recruitingAnalysisApi',
			data: { environment: 'sandbox', baseUrl: env.sandbox.baseUrl, apiKey: badKey },
		});
		const { id } = await env.n8n.createWorkflow(
			actionWorkflow(
				'bad key',
				{
					resource: 'jobDescription',
					operation: 'get',
					jobDescriptionId: env.sandbox.seed.jobDescriptionId,
				},
				credential,
			),
		);
		const execution = await env.n8n.runManually(id);
		expect(execution.status).toBe('error');
		const error = nodeError(execution.data, 'Recruiting Analysis');
		expect(error).toBeDefined();
		const text = `${error!.message} ${error!.description ?? ''}`;
		expect(text).toMatch(/401|unauthori[sz]ed/i);
		expect(text).toMatch(/API key/i);
		expect(JSON.stringify(execution.data)).not.toContain(badKey);
		// The n8n that ran it logged the failed execution without the key.
		expect(readFileSync(env.n8n.logFile, 'utf8')).not.toContain(badKey);
	});

	test('Continue On Fail turns a failing item into an error item and keeps the others', async () => {
		const { id } = await env.n8n.createWorkflow(
			actionWorkflow(
				'continue on fail',
				{
					resource: 'jobDescription',
					operation: 'get',
					jobDescriptionId: '={{ $json.jobDescriptionId }}',
				},
				env.credentials.recruitingAnalysisApi,
				{
					onError: 'continueRegularOutput',
					items: [
						{ jobDescriptionId: env.sandbox.seed.jobDescriptionId },
						{ jobDescriptionId: 'jd_does_not_exist' },
					],
				},
			),
		);
		const execution = await env.n8n.runManually(id);
		expect(execution.status).toBe('success');
		const items = nodeOutput(execution.data, 'Recruiting Analysis');
		expect(items).toHaveLength(2);
		expect(items[0].id).toBe(env.sandbox.seed.jobDescriptionId);
		expect(items[0].error).toBeUndefined();
		expect(items[1].error).toBeDefined();
		expect(JSON.stringify(items[1])).toMatch(/404|NOT_FOUND|not found/i);
	});

	test('without Continue On Fail the same failing item stops the execution with the API error', async () => {
		const { id } = await env.n8n.createWorkflow(
			actionWorkflow(
				'stop on fail',
				{ resource: 'jobDescription', operation: 'get', jobDescriptionId: 'jd_does_not_exist' },
				env.credentials.recruitingAnalysisApi,
			),
		);
		const execution = await env.n8n.runManually(id);
		expect(execution.status).toBe('error');
		const error = nodeError(execution.data, 'Recruiting Analysis');
		expect(`${error?.message} ${error?.description ?? ''}`).toMatch(/404|NOT_FOUND|not found/i);
	});

	test('a run that would pass its Spending Limit charges exactly up to it, and the items past it say what was spent', async () => {
		const { makePdf } = await import('../fixtures/resumes');
		const files = ['Limit One', 'Limit Two', 'Limit Three'].map((candidate, i) => ({
			json: { candidate },
			binary: {
				data: {
					data: makePdf({ candidate }).toString('base64'),
					mimeType: 'application/pdf',
					fileName: `limit-${i}.pdf`,
				},
			},
		}));
		const wf = actionWorkflow(
			'spending limit',
			{
				resource: 'analysis',
				operation: 'analyzeResume',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: env.sandbox.seed.jobDescriptionId,
				waitForCompletion: false,
				// The sandbox prices an analysis at 1 credit: two of the three fit.
				spendingLimit: 2,
				options: { concurrency: 1 },
			},
			env.credentials.recruitingAnalysisApi,
			{ onError: 'continueRegularOutput' },
		);
		// A Code node hands the three resumes over as binary data, as a Read Files node would.
		wf.nodes.splice(1, 0, {
			name: 'Items',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [200, 0],
			parameters: { jsCode: `return ${JSON.stringify(files)};` },
		});
		wf.connections = {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Recruiting Analysis', type: 'main', index: 0 }]] },
		};
		const counters = async () =>
			(await (
				await fetch(
					`${env.sandbox.baseUrl}/_sandbox/workspaces/${env.sandbox.seed.workspaceId}/counters`,
				)
			).json()) as { attemptsCreated: number };
		const before = await counters();
		const { id } = await env.n8n.createWorkflow(wf);
		const execution = await env.n8n.runManually(id);
		expect(execution.status).toBe('success');
		const items = nodeOutput(execution.data, 'Recruiting Analysis');
		expect(items).toHaveLength(3);
		expect((await counters()).attemptsCreated - before.attemptsCreated).toBe(2);
		expect(items.filter((item) => item.creditsUsed === 1)).toHaveLength(2);
		const refused = items.filter((item) => item.error !== undefined);
		expect(refused).toHaveLength(1);
		expect(JSON.stringify(refused[0])).toContain('Spending Limit of 2 credits reached');
		expect(JSON.stringify(refused[0])).toContain('and 2 were already spent');
	});
});
