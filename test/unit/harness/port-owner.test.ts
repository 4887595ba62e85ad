/**
 * The tests' n8n is ready only when it is the process answering on its port: a free port handed out can be taken by
 * another n8n first, which then answers the readiness check (scripts/n8n-host/start.ts, process.ts listensOn).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';

import { listensOn } from '../../../scripts/n8n-host/process';

let server: Server | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
	child?.kill('SIGKILL');
	if (server) await new Promise((r) => server!.close(r));
	server = child = undefined;
});

async function listenHere(): Promise<number> {
	server = createServer();
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const address = server.address();
	if (!address || typeof address === 'string') throw new Error('no port');
	return address.port;
}

it('names the process listening on a port as its owner', async () => {
	const port = await listenHere();
	expect(listensOn(process.pid, port)).toBe(true);
});

it('does not take a process for the owner of a port another process listens on', async () => {
	const port = await listenHere();
	child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
	await once(child, 'spawn');
	expect(listensOn(child.pid!, port)).toBe(false);
});

it('does not take a process for the owner of a port nobody listens on', async () => {
	const port = await listenHere();
	await new Promise((r) => server!.close(r));
	server = undefined;
	expect(listensOn(process.pid, port)).toBe(false);
});
