/**
 * The B5 profile's reading of a V8 CPU profile (bench/lib/cpuprofile.ts): samples inside the window only, each
 * sample in the first category its stack matches, our package told apart from n8n's cache folder of the same name,
 * and time in n8n's expression isolates named after the first caller outside the expression code.
 */
import { analyzeWindow, type CpuProfile } from '../../../bench/lib/cpuprofile';

const N8N = '/root/.cache/n8n-nodes-recruiting-analysis/n8n-host/node_modules';
const OURS = '/u/.n8n/nodes/node_modules/n8n-nodes-recruiting-analysis/dist/nodes/Trigger.node.js';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

/** A tree: root → (idle) | ourWebhook → verify | executeWebhook → createBridge (isolate) | getDecrypted. */
function profile(samples: number[], deltasUs: number[]): CpuProfile {
	return {
		startTime: 1_000,
		endTime: 1_000 + deltasUs.reduce((a, b) => a + b, 0),
		nodes: [
			{ id: 1, callFrame: frame('(root)'), children: [2, 3, 5, 7] },
			{ id: 2, callFrame: frame('(idle)') },
			{ id: 3, callFrame: frame('webhook', OURS), children: [4] },
			{ id: 4, callFrame: frame('verifyWebhook', OURS) },
			{
				id: 5,
				callFrame: frame('executeWebhook', `${N8N}/n8n/dist/webhooks/live-webhooks.js`),
				children: [6],
			},
			{
				id: 6,
				callFrame: frame(
					'IsolatedVmBridge',
					`${N8N}/@n8n/expression-runtime/dist/cjs/bridge/isolated-vm-bridge.js`,
				),
			},
			{ id: 7, callFrame: frame('getDecrypted', `${N8N}/n8n/dist/credentials-helper.js`) },
		],
		samples,
		timeDeltas: deltasUs,
	};
}

describe('the B5 profile reading', () => {
	it('sorts each sample of the window into its category and leaves idle out of the busy time', () => {
		// Samples at 2000, 3000, 4000, 5000, 6000 µs (each stands for the 1 ms until the next).
		const p = profile([2, 4, 6, 7, 4, 4], [1000, 1000, 1000, 1000, 1000, 1000]);
		const w = analyzeWindow(p, 2_000, 6_000);
		const ms = Object.fromEntries(w.byCategory.map((c) => [c.name, c.ms]));
		expect(ms.idle).toBe(1);
		expect(ms["our trigger's own code (verify, dedupe, parse)"]).toBe(2);
		expect(ms["n8n's expression isolates (isolated-vm: acquire, create, run, release)"]).toBe(1);
		expect(ms['credentials (read, decrypt)']).toBe(1);
		expect(w.busyMs).toBe(4);
		expect(w.isolateCallers).toEqual([
			{ fn: `executeWebhook (n8n/dist/webhooks/live-webhooks.js:1)`, ms: 1 },
		]);
	});

	it('does not count n8n code as ours because n8n lives in a folder named after the package', () => {
		const p = profile([5, 5], [1000, 1000]);
		const w = analyzeWindow(p, 0, 10_000);
		expect(w.byCategory.map((c) => c.name)).toEqual([
			"n8n's webhook path (lookup, workflow load, response)",
		]);
	});

	it('takes no sample outside the window', () => {
		const p = profile([4, 4, 4], [1000, 1000, 1000]);
		expect(analyzeWindow(p, 10_000, 20_000).busyMs).toBe(0);
	});
});
