/**
 * The signing secrets kept between deliveries (nodes/RecruitingAnalysis/webhook/secrets.ts): reused while recent,
 * read again when old or when a delivery's signature matches none of them, one read at a time per scope.
 */
import { randomUUID } from 'node:crypto';

import {
	currentSecrets,
	recheckSecrets,
	SECRET_REUSE_MS,
	secretProblem,
	secretsFrom,
} from '../../../nodes/RecruitingAnalysis/webhook/secrets';

/** A credential whose reads can be held open and counted. */
function credential(initial: string[]) {
	let secrets = initial;
	let reads = 0;
	const held: Array<() => void> = [];
	let hold = false;
	return {
		load: async () => {
			reads += 1;
			const value = secrets;
			if (hold) await new Promise<void>((resolve) => held.push(resolve));
			return value;
		},
		edit: (next: string[]) => {
			secrets = next;
		},
		holdReads: (on: boolean) => {
			hold = on;
		},
		release: () => {
			for (const resolve of held.splice(0)) resolve();
		},
		reads: () => reads,
	};
}

describe('kept signing secrets', () => {
	it('are read once and reused while younger than the reuse time, then read again', async () => {
		const scope = randomUUID();
		const cred = credential(['whsec_a']);
		let clock = 1_000_000;
		const now = () => clock;
		expect((await currentSecrets(scope, cred.load, now)).secrets).toEqual(['whsec_a']);
		cred.edit(['whsec_b']);
		clock += SECRET_REUSE_MS - 1;
		expect((await currentSecrets(scope, cred.load, now)).secrets).toEqual(['whsec_a']);
		expect(cred.reads()).toBe(1);
		clock += 1;
		expect((await currentSecrets(scope, cred.load, now)).secrets).toEqual(['whsec_b']);
		expect(cred.reads()).toBe(2);
	});

	it('are kept per scope: another node or credential reads its own', async () => {
		const one = credential(['whsec_one']);
		const two = credential(['whsec_two']);
		expect((await currentSecrets(randomUUID(), one.load)).secrets).toEqual(['whsec_one']);
		expect((await currentSecrets(randomUUID(), two.load)).secrets).toEqual(['whsec_two']);
	});

	it('deliveries that arrive together share one read', async () => {
		const scope = randomUUID();
		const cred = credential(['whsec_a']);
		cred.holdReads(true);
		const all = Promise.all([1, 2, 3, 4, 5].map(() => currentSecrets(scope, cred.load)));
		await new Promise((resolve) => setImmediate(resolve));
		cred.release();
		const results = await all;
		expect(results.map((r) => r.secrets)).toEqual(Array(5).fill(['whsec_a']));
		expect(cred.reads()).toBe(1);
	});

	it('a recheck uses a read that started after the delivery arrived, even while kept secrets are recent', async () => {
		const scope = randomUUID();
		const cred = credential(['whsec_old']);
		let clock = 5_000;
		const now = () => clock;
		await currentSecrets(scope, cred.load, now);
		cred.edit(['whsec_new']);
		clock += 10;
		expect(await recheckSecrets(scope, cred.load, clock, now)).toEqual(['whsec_new']);
		// The recheck's read is kept for the deliveries after it.
		expect((await currentSecrets(scope, cred.load, now)).secrets).toEqual(['whsec_new']);
		expect(cred.reads()).toBe(2);
	});

	it('rechecks that arrive during an older read wait for one read after it, which all of them share', async () => {
		const scope = randomUUID();
		const cred = credential(['whsec_old']);
		let clock = 10_000;
		const now = () => clock;
		cred.holdReads(true);
		const older = currentSecrets(scope, cred.load, now); // started before the edit
		await new Promise((resolve) => setImmediate(resolve));
		clock += 5;
		cred.edit(['whsec_new']);
		clock += 5;
		const rechecks = [1, 2, 3].map(() => recheckSecrets(scope, cred.load, clock, now));
		clock += 5;
		cred.release(); // the older read ends with the old secret
		expect((await older).secrets).toEqual(['whsec_old']);
		await new Promise((resolve) => setImmediate(resolve));
		cred.release(); // the one read after it
		expect(await Promise.all(rechecks)).toEqual([['whsec_new'], ['whsec_new'], ['whsec_new']]);
		expect(cred.reads()).toBe(2);
	});

	it('a failed read keeps nothing: the next delivery reads again', async () => {
		const scope = randomUUID();
		let fail = true;
		let reads = 0;
		const load = async () => {
			reads += 1;
			if (fail) throw new Error('credential unavailable');
			return ['whsec_a'];
		};
		await expect(currentSecrets(scope, load)).rejects.toThrow('credential unavailable');
		fail = false;
		expect((await currentSecrets(scope, load)).secrets).toEqual(['whsec_a']);
		expect(reads).toBe(2);
	});
});

describe('secrets of a signing secret credential', () => {
	it('lists the current secret first, then the previous one, trimmed, without empty ones', () => {
		expect(secretsFrom({ secret: ' whsec_a ', previousSecret: 'whsec_b' })).toEqual([
			'whsec_a',
			'whsec_b',
		]);
		expect(secretsFrom({ secret: 'whsec_a', previousSecret: '  ' })).toEqual(['whsec_a']);
		expect(secretsFrom(undefined)).toEqual([]);
	});

	it('names what makes a credential unusable', () => {
		expect(secretProblem({ secret: '' })).toBe('No signing secret is configured');
		expect(secretProblem({ secret: 'whsec_short' })).toMatch(/signing secret is not whsec_/);
		expect(
			secretProblem({
				secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
				previousSecret: 'nope',
			}),
		).toMatch(/previous signing secret/);
		expect(
			secretProblem({ secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` }),
		).toBeUndefined();
	});
});

describe('kept signing secrets, in time', () => {
	it('are reused for 30 seconds after the read started, so an edit takes effect within that time', async () => {
		const scope = randomUUID();
		const cred = credential(['whsec_a']);
		let clock = 2_000_000;
		const now = () => clock;
		await currentSecrets(scope, cred.load, now);
		cred.edit(['whsec_b']);
		clock += 29_999;
		expect(await currentSecrets(scope, cred.load, now)).toEqual({
			secrets: ['whsec_a'],
			readAt: 2_000_000,
		});
		clock += 1;
		expect(await currentSecrets(scope, cred.load, now)).toEqual({
			secrets: ['whsec_b'],
			readAt: 2_030_000,
		});
	});

	it('a recheck arriving when a read has just started shares that read', async () => {
		const scope = randomUUID();
		const cred = credential(['whsec_a']);
		const clock = 3_000_000;
		cred.holdReads(true);
		const first = currentSecrets(scope, cred.load, () => clock);
		await new Promise((resolve) => setImmediate(resolve));
		const recheck = recheckSecrets(scope, cred.load, clock, () => clock);
		cred.release();
		expect(await recheck).toEqual(['whsec_a']);
		expect((await first).secrets).toEqual(['whsec_a']);
		expect(cred.reads()).toBe(1);
	});

	it('a recheck whose read fails forgets the kept secrets: the next delivery reads again', async () => {
		const scope = randomUUID();
		let fail = false;
		let reads = 0;
		const load = async () => {
			reads += 1;
			if (fail) throw new Error('credential unavailable');
			return ['whsec_a'];
		};
		const clock = 4_000_000;
		await currentSecrets(scope, load, () => clock);
		fail = true;
		await expect(recheckSecrets(scope, load, clock, () => clock)).rejects.toThrow(
			'credential unavailable',
		);
		fail = false;
		expect((await currentSecrets(scope, load, () => clock)).secrets).toEqual(['whsec_a']);
		expect(reads).toBe(3);
	});
});

describe('what makes a signing secret credential unusable, in the words the node logs', () => {
	const valid = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;

	it('each problem in full; blanks around a secret do not count', () => {
		expect(secretProblem(undefined)).toBe('No signing secret is configured');
		expect(secretProblem({ secret: '   ' })).toBe('No signing secret is configured');
		expect(secretProblem({ secret: 'whsec_short' })).toBe(
			'The signing secret is not whsec_ followed by base64 of at least 16 bytes',
		);
		expect(secretProblem({ secret: valid, previousSecret: 'nope' })).toBe(
			'The previous signing secret is not whsec_ followed by base64 of at least 16 bytes',
		);
		expect(secretProblem({ secret: ` ${valid}\n`, previousSecret: `  ${valid} ` })).toBeUndefined();
		expect(secretProblem({ secret: valid, previousSecret: '  ' })).toBeUndefined();
		expect(secretProblem({ secret: valid, previousSecret: 7 })).toBeUndefined();
		expect(secretsFrom({ secret: valid, previousSecret: 7 })).toEqual([valid]);
	});
});
