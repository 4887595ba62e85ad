/**
 * One running n8n per n8n line and boot setting, shared by the real-n8n test files of a jest run (test/e2e/helpers.ts
 * `bootRealN8n` leases it). A boot costs half a minute to a minute and most suites only need an n8n with the package
 * installed: each lease gets its own sandbox process (its own workspace, key, clock, faults and mail sink), its own
 * two credentials and its own workflows, and its workflows are deactivated when it ends, so the files stay as
 * independent as with an n8n each. What a lease cannot share (queue mode, a kill or a restart, a setting at boot)
 * boots its own n8n.
 *
 * Jest gives every test file its own module registry, so this module's variables are not shared between files; the
 * registry lives on the real `node:child_process` module object, which jest hands unchanged to every file and to the
 * global setup and teardown of the same process (the real-n8n configurations run their files in band, maxWorkers 1).
 * The global teardowns (test/faults/global-teardown.ts, test/e2e/global-teardown.ts) stop what is left.
 */
import childProcess from 'node:child_process';

import type { N8nInstance } from '../../scripts/n8n-host';

/** A shared n8n of one line and boot setting. */
export interface SharedN8n {
	key: string;
	n8n: N8nInstance;
	userFolder: string;
	packageDir: string;
	/** Leases not yet closed. */
	leases: number;
	/** Leases so far (names the lease's sandbox log). */
	served: number;
}

interface Registry {
	entries: Map<string, SharedN8n>;
	/** Boots under way, so two leases asked at once boot once. */
	booting: Map<string, Promise<SharedN8n>>;
}

const REGISTRY = Symbol.for('n8n-nodes-recruiting-analysis.shared-n8n');

function registry(): Registry {
	const holder = childProcess as unknown as Record<symbol, Registry | undefined>;
	holder[REGISTRY] ??= { entries: new Map(), booting: new Map() };
	return holder[REGISTRY]!;
}

/** Whether sharing is on (RA_SHARE_N8N=0 gives every file an n8n of its own, as before). */
export function sharingEnabled(): boolean {
	return process.env.RA_SHARE_N8N !== '0';
}

const alive = (n8n: N8nInstance) => n8n.child.exitCode === null && n8n.child.signalCode === null;

/**
 * The running shared n8n for `key`, booted with `boot` when there is none (or the one there was has exited: a test
 * that killed it gets a fresh one for the next file). Idle shared n8n of other keys are stopped first, so at most
 * one shared n8n per jest process sits idle (the real-n8n sequencer, test/real-n8n-sequencer.js, runs the files of
 * one key together).
 */
export async function acquireShared(
	key: string,
	boot: () => Promise<Omit<SharedN8n, 'key' | 'leases' | 'served'>>,
): Promise<SharedN8n> {
	const reg = registry();
	const current = reg.entries.get(key);
	if (current && alive(current.n8n)) {
		current.leases++;
		current.served++;
		return current;
	}
	if (current) reg.entries.delete(key);
	let pending = reg.booting.get(key);
	if (!pending) {
		for (const [other, entry] of [...reg.entries]) {
			if (other !== key && entry.leases === 0) {
				reg.entries.delete(other);
				await entry.n8n.stop();
			}
		}
		pending = boot().then((b) => {
			const entry: SharedN8n = { ...b, key, leases: 0, served: 0 };
			reg.entries.set(key, entry);
			return entry;
		});
		reg.booting.set(key, pending);
		pending.then(
			() => reg.booting.delete(key),
			() => reg.booting.delete(key),
		);
	}
	const entry = await pending;
	entry.leases++;
	entry.served++;
	return entry;
}

/** Ends a lease: the n8n keeps running for the next file. */
export function releaseShared(entry: SharedN8n): void {
	entry.leases = Math.max(0, entry.leases - 1);
}

/** Stops every shared n8n of this process (the global teardowns). Returns how many were stopped. */
export async function stopAllShared(): Promise<number> {
	const reg = registry();
	await Promise.allSettled([...reg.booting.values()]);
	const entries = [...reg.entries.values()];
	reg.entries.clear();
	await Promise.all(entries.map((e) => e.n8n.stop()));
	return entries.length;
}
