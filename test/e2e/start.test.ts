/**
 * `npm start`, the main job, as a newcomer runs it: it must bring up n8n with our nodes, run the demo and
 * print its score, and on Ctrl-C (SIGINT) stop n8n and the sandbox it started.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { REPO_ROOT, freePort, settlesWithin } from '../../scripts/n8n-host';

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

test('npm start prints the editor URL, the login and the demo score, and Ctrl-C stops everything it started', async () => {
	const port = await freePort();
	const child = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), [join(REPO_ROOT, 'scripts', 'start.ts')], {
		cwd: REPO_ROOT,
		env: { ...process.env, N8N_PORT: String(port), NODE_ENV: '' },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const lines: string[] = [];
	const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
	const ready = new Promise<void>((resolveReady, reject) => {
		createInterface({ input: child.stdout! }).on('line', (line) => {
			lines.push(line);
			if (line.includes('press Ctrl-C')) resolveReady();
		});
		child.stderr!.on('data', (c: Buffer) => lines.push(c.toString()));
		void exited.then((code) => reject(new Error(`npm start exited (${code}) early:\n${lines.join('\n')}`)));
	});
	try {
		await ready;
		const out = lines.join('\n');
		expect(out).toContain(`n8n editor: http://127.0.0.1:${port}/`);
		expect(out).toMatch(/login: +owner@example\.com \/ \S+/);
		expect(out).toMatch(/report rpt_\w+: status completed, score 8 of 10/);
		expect(out).toMatch(/interview int_\w+ invited/);
		expect(out).toMatch(/report-result-to-ats\.json: active; the sandbox delivers report\.result_ready/);
		// The processes it started: n8n (on our port) and the sandbox.
		const health = await fetch(`http://127.0.0.1:${port}/healthz`);
		expect(health.status).toBe(200);
		const sandboxUrl = /sandbox on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
		expect((await fetch(`${sandboxUrl}/_sandbox/health`)).status).toBe(200);

		child.kill('SIGINT');
		expect(await settlesWithin(exited, 40_000)).toBe(true);
		expect(lines.join('\n')).toContain('[start] stopped');
		await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
		await expect(fetch(`${sandboxUrl}/_sandbox/health`)).rejects.toThrow();
	} finally {
		if (child.pid && alive(child.pid)) child.kill('SIGKILL');
	}
}, 480_000);
