/**
 * The CLI: `npm run sandbox -- --port 0` prints one JSON object as its first stdout line (a seeded
 * workspace whose key has every scope), then logs requests; `--data` keeps state across restarts.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../helpers/sandbox';

const ROOT = join(__dirname, '..', '..');

interface Started {
	child: ChildProcessWithoutNullStreams;
	info: {
		baseUrl: string;
		apiKey: string;
		webhookSecret: string;
		jobDescriptionId: string;
		workspaceId: string;
	};
	lines: string[];
}

function startCli(args: string[]): Promise<Started> {
	// As `npm run sandbox` runs it (package.json): one process, which the signals below reach.
	const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', ...args], {
		cwd: ROOT,
	});
	const lines: string[] = [];
	let buffer = '';
	return new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error('CLI did not print its first line in time')),
			20_000,
		);
		child.stdout.on('data', (chunk: Buffer) => {
			buffer += chunk.toString();
			let nl = buffer.indexOf('\n');
			while (nl >= 0) {
				lines.push(buffer.slice(0, nl));
				buffer = buffer.slice(nl + 1);
				if (lines.length === 1) {
					clearTimeout(timer);
					resolve({ child, info: JSON.parse(lines[0]), lines });
				}
				nl = buffer.indexOf('\n');
			}
		});
		child.on('exit', (code) => reject(new Error(`CLI exited early with ${code}`)));
	});
}

/** Stops the CLI with SIGTERM; resolves with how it exited (`0` when it closed cleanly, its last write done). */
function stop(s: Started): Promise<string> {
	return new Promise((resolve) => {
		s.child.once('exit', (code, signal) => resolve(String(code ?? signal)));
		s.child.kill('SIGTERM');
	});
}

test('prints the seeded workspace as its first line, serves the API on loopback and logs requests', async () => {
	const s = await startCli(['--port', '0']);
	try {
		expect(Object.keys(s.info).sort()).toEqual([
			'apiKey',
			'baseUrl',
			'jobDescriptionId',
			'webhookSecret',
			'workspaceId',
		]);
		expect(s.info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(s.info.apiKey).toMatch(/^svc_test_/);
		expect(s.info.webhookSecret).toMatch(/^whsec_/);
		const job = await api(
			{ baseUrl: s.info.baseUrl, seed: s.info },
			'GET',
			`/api/v1/job-descriptions/${s.info.jobDescriptionId}`,
		);
		expect(job.status).toBe(200);
		expect(job.body.data.status).toBe('ACTIVE');
		for (const path of ['/api/v1/reports', '/api/v1/interviews', '/api/v1/events']) {
			expect((await api({ baseUrl: s.info.baseUrl, seed: s.info }, 'GET', path)).status).toBe(200);
		}
		await new Promise((r) => setTimeout(r, 200));
		expect(s.lines.slice(1).some((l) => l.includes('GET /api/v1/job-descriptions/'))).toBe(true);
	} finally {
		await stop(s);
	}
}, 60_000);

test('--data keeps the state (and the seeded workspace) across restarts', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'ra-sandbox-'));
	const file = join(dir, 'state.json');
	try {
		const a = await startCli(['--port', '0', '--data', file, '--quiet']);
		const sb = { baseUrl: a.info.baseUrl, seed: a.info };
		const prep = await api(sb, 'POST', '/api/v1/uploads', {
			idempotencyKey: 'persist-1',
			body: {
				fileName: 'a.pdf',
				fileSize: 100,
				mimeType: 'application/pdf',
				jobDescription: { kind: 'existing', id: a.info.jobDescriptionId },
			},
		});
		expect(prep.status).toBe(201);
		// Straight after the write, before the half-second save: what it wrote is kept by the save on SIGTERM.
		expect(await stop(a)).toBe('0');
		const b = await startCli(['--port', '0', '--data', file, '--quiet']);
		try {
			expect(b.info.workspaceId).toBe(a.info.workspaceId);
			const sb2 = { baseUrl: b.info.baseUrl, seed: b.info };
			expect((await api(sb2, 'GET', `/api/v1/reports/${prep.body.data.reportId}`)).status).toBe(
				200,
			);
			const replay = await api(sb2, 'POST', '/api/v1/uploads', {
				idempotencyKey: 'persist-1',
				body: {
					fileName: 'a.pdf',
					fileSize: 100,
					mimeType: 'application/pdf',
					jobDescription: { kind: 'existing', id: a.info.jobDescriptionId },
				},
			});
			expect(replay.body.data.reportId).toBe(prep.body.data.reportId);
		} finally {
			await stop(b);
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}, 60_000);

test('an analysis in flight when the sandbox stops completes after a restart from the same data file', async () => {
	const { startSandbox } = await import('../../sandbox/src');
	const { makePdf } = await import('../fixtures/resumes');
	const dir = mkdtempSync(join(tmpdir(), 'ra-sandbox-'));
	const dataFile = join(dir, 'state.json');
	try {
		const a = await startSandbox({ port: 0, dataFile, workerDelayMs: 60_000 });
		const pdf = makePdf({ candidate: 'Restart Person' });
		const prep = await api(a, 'POST', '/api/v1/uploads', {
			idempotencyKey: 'restart-1',
			body: {
				fileName: 'a.pdf',
				fileSize: pdf.length,
				mimeType: 'application/pdf',
				jobDescription: { kind: 'existing', id: a.seed.jobDescriptionId },
			},
		});
		await fetch(prep.body.data.upload.url, {
			method: 'PUT',
			headers: { 'content-type': 'application/pdf' },
			body: pdf,
		});
		const fp = (
			await api(a, 'POST', '/api/v1/analysis-quotes', {
				body: { reportId: prep.body.data.reportId },
			})
		).body.data.fingerprint;
		const started = await api(a, 'POST', '/api/v1/analyses', {
			idempotencyKey: 'restart-2',
			body: { reportId: prep.body.data.reportId, quoteFingerprint: fp },
		});
		expect(started.status).toBe(202);
		await a.close();
		const b = await startSandbox({ port: 0, dataFile, workerDelayMs: 10 });
		try {
			const { waitFor } = await import('../helpers/sandbox');
			const status = await waitFor(async () => {
				const s = await api(b, 'GET', `/api/v1/reports/${prep.body.data.reportId}/status`);
				return s.body.data.status === 'completed' ? s.body.data : undefined;
			});
			expect(status.attemptId).toBe(started.body.data.attemptId);
		} finally {
			await b.close();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('--profile strict and the limit flags set the limits of every new workspace (the seeded one included)', async () => {
	const s = await startCli([
		'--port',
		'0',
		'--quiet',
		'--profile',
		'strict',
		'--pending-upload-limit',
		'7',
		'--receipt-lifetime-ms',
		'3600000',
	]);
	try {
		const limits = (await (await fetch(`${s.info.baseUrl}/_sandbox/limits`)).json()) as {
			limits: Record<string, number>;
		};
		expect(limits).toEqual({
			profile: 'strict',
			limits: {
				activeAnalysisLimit: 10,
				pendingUploadLimit: 7,
				batchCapacity: 5,
				admissionDeadlineMs: 60_000,
				quoteMaxAgeMs: 600_000,
				receiptLifetimeMs: 3_600_000,
			},
		});
		const patch = async (wid: string) =>
			await (
				await fetch(`${s.info.baseUrl}/_sandbox/workspaces/${wid}`, {
					method: 'PATCH',
					headers: { 'content-type': 'application/json' },
					body: '{}',
				})
			).json();
		expect(await patch(s.info.workspaceId)).toMatchObject(limits.limits);
		const other = (await (
			await fetch(`${s.info.baseUrl}/_sandbox/workspaces`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{"batchCapacity":2}',
			})
		).json()) as { workspaceId: string };
		expect(await patch(other.workspaceId)).toMatchObject({ ...limits.limits, batchCapacity: 2 });
	} finally {
		await stop(s);
	}
}, 60_000);

test('a data file of an older sandbox, whose receipts are kept per operation, still replays them and binds their keys to the workspace', async () => {
	const { startSandbox } = await import('../../sandbox/src');
	const { readFileSync, writeFileSync } = await import('node:fs');
	const dir = mkdtempSync(join(tmpdir(), 'ra-sandbox-'));
	const dataFile = join(dir, 'state.json');
	const body = (id: string) => ({
		fileName: 'a.pdf',
		fileSize: 100,
		mimeType: 'application/pdf',
		jobDescription: { kind: 'existing', id },
	});
	try {
		const a = await startSandbox({ port: 0, dataFile });
		const prep = await api(a, 'POST', '/api/v1/uploads', {
			idempotencyKey: 'older-1',
			body: body(a.seed.jobDescriptionId),
		});
		expect(prep.status).toBe(201);
		await a.close();
		// Rewritten as an older sandbox saved it: `${workspace}|${operation}|${key}`, no operation in the receipt.
		const state = JSON.parse(readFileSync(dataFile, 'utf8')) as {
			receipts: Record<string, { operation?: string }>;
		};
		const [[id, receipt]] = Object.entries(state.receipts);
		const { operation: _operation, ...older } = receipt;
		state.receipts = { [id.replace('|', '|POST /api/v1/uploads|')]: older };
		writeFileSync(dataFile, JSON.stringify(state));
		const b = await startSandbox({ port: 0, dataFile });
		try {
			const replay = await api(b, 'POST', '/api/v1/uploads', {
				idempotencyKey: 'older-1',
				body: body(b.seed.jobDescriptionId),
			});
			expect(replay.status).toBe(201);
			expect(replay.body.data.reportId).toBe(prep.body.data.reportId);
			const batch = await api(b, 'POST', '/api/v1/upload-batches', {
				idempotencyKey: 'older-1',
				body: {
					jobDescription: { kind: 'existing', id: b.seed.jobDescriptionId },
					items: [
						{
							itemKey: 'a',
							input: { fileName: 'a.pdf', fileSize: 100, mimeType: 'application/pdf' },
						},
					],
				},
			});
			expect(batch.status).toBe(409);
			expect(batch.body.error.reason).toBe('IDEMPOTENCY_KEY_REUSED');
		} finally {
			await b.close();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('--host 0.0.0.0 with --public-url: reachable on a non-loopback address (as from a container), and the printed base URL and signed upload URLs use the public address', async () => {
	const { networkInterfaces } = await import('node:os');
	const { freePort } = await import('../../scripts/n8n-host');
	const { makePdf } = await import('../fixtures/resumes');
	const external = Object.values(networkInterfaces())
		.flat()
		.find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
	// A machine without any network interface but loopback has no address a container could use.
	expect(external).toEqual(expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/));
	const port = await freePort();
	const publicUrl = `http://${external}:${port}`;
	const s = await startCli([
		'--port',
		String(port),
		'--host',
		'0.0.0.0',
		'--public-url',
		`${publicUrl}/`,
		'--quiet',
	]);
	try {
		expect(s.info.baseUrl).toBe(publicUrl);
		const sb = { baseUrl: publicUrl, seed: s.info };
		const pdf = makePdf({ candidate: 'Container Person' });
		const prep = await api(sb, 'POST', '/api/v1/uploads', {
			idempotencyKey: 'container-1',
			body: {
				fileName: 'c.pdf',
				fileSize: pdf.length,
				mimeType: 'application/pdf',
				jobDescription: { kind: 'existing', id: s.info.jobDescriptionId },
			},
		});
		expect(prep.status).toBe(201);
		const uploadUrl = String(prep.body.data.upload.url);
		expect(uploadUrl.startsWith(`${publicUrl}/_storage/`)).toBe(true);
		const put = await fetch(uploadUrl, {
			method: 'PUT',
			headers: { 'content-type': 'application/pdf' },
			body: pdf,
		});
		expect(put.status).toBeLessThan(300);
	} finally {
		await stop(s);
	}
}, 60_000);
