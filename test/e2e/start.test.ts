/**
 * `npm start`, the main job, as a newcomer runs it: it must bring up n8n with our nodes, put the folder example's
 * files where its n8n reads files, run the demo up to the recruiter's approval form and print its score (the
 * invitation goes out once the form is answered), serve the agent example's demo model and its public chat, say what
 * the PostgreSQL example needs, and on Ctrl-C (SIGINT) stop n8n, the sandbox and the demo model it started. `npm run start:queue` likewise
 * in queue mode: every process it lists (Redis, PostgreSQL, main, workers, webhook process) is gone after Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { REPO_ROOT, delay, freePort, settlesWithin } from '../../scripts/n8n-host';
import { APPROVE, SAMPLE_APPLICANTS, answerForm } from '../../scripts/start-kit';

/** The approval form npm start printed: answering it sends the demo's invitation, as a recruiter would. */
async function approveDemo(
	out: string,
	sandboxUrl: string,
): Promise<Array<{ to: string; interviewId: string }>> {
	const url = /approve \(or not\) in this form: (\S+)/.exec(out)![1];
	const workspace = /sandbox on http:\S+ \(workspace (\S+)\)/.exec(out)![1];
	const mail = async () =>
		(
			(await (await fetch(`${sandboxUrl}/_sandbox/workspaces/${workspace}/mail`)).json()) as {
				items: Array<{ to: string; interviewId: string }>;
			}
		).items;
	expect(await mail()).toEqual([]);
	await answerForm({ node: 'Recruiter Approves', url }, [APPROVE]);
	for (let i = 0; i < 60 && (await mail()).length === 0; i++) await delay(500);
	return await mail();
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Runs scripts/start.ts until it says "press Ctrl-C"; returns its output so far and the child. */
async function launch(
	args: string[],
	port: number,
): Promise<{ child: ChildProcess; lines: string[]; exited: Promise<number | null> }> {
	const child = spawn(
		join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
		[join(REPO_ROOT, 'scripts', 'start.ts'), ...args],
		{
			cwd: REPO_ROOT,
			env: { ...process.env, N8N_PORT: String(port), NODE_ENV: '' },
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	const lines: string[] = [];
	const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
	const ready = new Promise<void>((resolveReady, reject) => {
		createInterface({ input: child.stdout! }).on('line', (line) => {
			lines.push(line);
			if (line.includes('press Ctrl-C')) resolveReady();
		});
		child.stderr!.on('data', (c: Buffer) => lines.push(c.toString()));
		void exited.then((code) =>
			reject(new Error(`npm start exited (${code}) early:\n${lines.join('\n')}`)),
		);
	});
	try {
		await ready;
	} catch (error) {
		if (child.pid && alive(child.pid)) child.kill('SIGKILL');
		throw error;
	}
	return { child, lines, exited };
}

test('npm start prints the editor URL, the login and the demo score, and Ctrl-C stops everything it started', async () => {
	const port = await freePort();
	const { child, lines, exited } = await launch([], port);
	try {
		const out = lines.join('\n');
		expect(out).toContain(`n8n editor: http://127.0.0.1:${port}/`);
		expect(out).toMatch(/login: +owner@example\.com \/ \S+/);
		expect(out).toMatch(/report rpt_\w+: status completed, score 8 of 10/);
		expect(out).toContain(
			'the score clears the threshold: the invitation email waits for your approval',
		);
		expect(out).toMatch(
			/report-result-to-ats\.json: active; the sandbox delivers report\.result_ready/,
		);
		// The folder example's files, where its n8n reads files.
		const resumes = /shortlist-folder-of-resumes\.json reads (\S+)\)/.exec(out)![1];
		expect(readFileSync(join(resumes, 'applicants.csv'), 'utf8').trim().split('\n')).toHaveLength(
			SAMPLE_APPLICANTS.length + 1,
		);
		for (const a of SAMPLE_APPLICANTS) expect(existsSync(join(resumes, a.fileName))).toBe(true);
		// The agent example: the demo model answers, the chat's page is served, and the console says it is a script.
		const demoModel =
			/demo model \(npm start demo model: scripted, not an AI\) on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(
				out,
			)![1];
		expect((await fetch(`${demoModel}/models`)).status).toBe(200);
		const chatUrl = /agent-chat-with-review\.json: active; its chat: (\S+)/.exec(out)![1];
		expect(chatUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/webhook/[\\w-]+/chat$`));
		expect((await fetch(chatUrl)).status).toBe(200);
		expect(out).toContain(`open its chat: ${chatUrl}`);
		expect(out).toContain('a script, not an AI');
		expect(out).toContain(
			'not runnable as started: it needs a PostgreSQL server and a Postgres credential',
		);
		// The processes it started: n8n (on our port) and the sandbox.
		const health = await fetch(`http://127.0.0.1:${port}/healthz`);
		expect(health.status).toBe(200);
		const sandboxUrl = /sandbox on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
		expect((await fetch(`${sandboxUrl}/_sandbox/health`)).status).toBe(200);
		expect((await approveDemo(out, sandboxUrl)).map((m) => m.to)).toEqual([
			'ada.example@example.com',
		]);

		child.kill('SIGINT');
		expect(await settlesWithin(exited, 40_000)).toBe(true);
		expect(lines.join('\n')).toContain('[start] stopped');
		await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
		await expect(fetch(`${sandboxUrl}/_sandbox/health`)).rejects.toThrow();
		await expect(fetch(`${demoModel}/models`)).rejects.toThrow();
	} finally {
		if (child.pid && alive(child.pid)) child.kill('SIGKILL');
	}
}, 480_000);

test('npm run start:queue lists each process with its port and log, runs the demo on a worker, and Ctrl-C leaves nothing running', async () => {
	const port = await freePort();
	const { child, lines, exited } = await launch(['--queue'], port);
	try {
		const out = lines.join('\n');
		expect(out).toContain(`n8n editor: http://127.0.0.1:${port}/`);
		expect(out).toMatch(/login: +owner@example\.com \/ \S+/);
		expect(out).toMatch(/report rpt_\w+: status completed, score 8 of 10/);
		expect(out).toMatch(/worker-\d ran it \(execution \d+\)/);
		expect(out).toContain(
			'the score clears the threshold: the invitation email waits for your approval',
		);
		// Each process: name, loopback port, pid, log file.
		const listed = [
			...out.matchAll(
				/^\[start\] +(redis|postgres|main|worker-\d|webhook-\d) +127\.0\.0\.1:(\d+).*? pid (\d+) +log (\S+)$/gm,
			),
		].map((m) => ({
			name: m[1],
			port: Number(m[2]),
			pid: Number(m[3]),
		}));
		expect(listed.map((p) => p.name).sort()).toEqual([
			'main',
			'postgres',
			'redis',
			'webhook-1',
			'worker-1',
			'worker-2',
		]);
		expect(new Set(listed.map((p) => p.port)).size).toBe(listed.length);
		for (const p of listed) expect(alive(p.pid)).toBe(true);
		expect(out).toMatch(
			/report-result-to-ats\.json: active; the sandbox delivers report\.result_ready to http:\/\/127\.0\.0\.1:(\d+)\/webhook\//,
		);
		const webhookPort = Number(
			/the sandbox delivers report\.result_ready to http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1],
		);
		expect(webhookPort).toBe(listed.find((p) => p.name === 'webhook-1')!.port);
		const sandboxUrl = /sandbox on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
		expect((await approveDemo(out, sandboxUrl)).map((m) => m.to)).toEqual([
			'ada.example@example.com',
		]);

		child.kill('SIGINT');
		expect(await settlesWithin(exited, 90_000)).toBe(true);
		expect(lines.join('\n')).toContain('[start] stopped');
		for (const p of listed)
			expect({ name: p.name, alive: alive(p.pid) }).toEqual({ name: p.name, alive: false });
		await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
		await expect(fetch(`${sandboxUrl}/_sandbox/health`)).rejects.toThrow();
	} finally {
		if (child.pid && alive(child.pid)) child.kill('SIGKILL');
	}
}, 600_000);
