/**
 * B4: webhook verification cost per event — our verifier (nodes/RecruitingAnalysis/webhook/verify.ts) against the
 * `standardwebhooks` package, on the same signed payloads (1 KB and 64 KB), in this process. Samples alternate
 * between the two (so drift in the machine's load hits both), each sample bounded in time and count; the median
 * of the samples is reported. The package is called with `jsonParse: false` so both do the same work
 * (check headers, timestamp and signature; our verifier never parses the body).
 */
import { randomUUID } from 'node:crypto';

import { Webhook } from 'standardwebhooks';

import { verifyWebhook } from '../../nodes/RecruitingAnalysis/webhook/verify';
import type { Log } from '../lib/n8n';
import { median } from '../lib/stats';

export interface B4Result {
	payloadBytes: number;
	oursNsPerEvent: number;
	packageNsPerEvent: number;
	samples: number;
	/** package time ÷ our time: above 1 means ours is faster. */
	speedup: number;
}

function payloadOf(bytes: number): Buffer {
	const base = {
		id: randomUUID(),
		type: 'report.completed',
		schemaVersion: 1,
		occurredAt: new Date().toISOString(),
		data: { reportId: 'rpt_0123', attemptId: 'att_0123', status: 'completed', code: null, pad: '' },
	};
	const empty = Buffer.byteLength(JSON.stringify(base));
	base.data.pad = 'x'.repeat(Math.max(0, bytes - empty));
	const buf = Buffer.from(JSON.stringify(base));
	if (buf.length !== bytes) throw new Error(`payload is ${buf.length} bytes, wanted ${bytes}`);
	return buf;
}

/** ns per call of `fn`, over as many calls as fit in `budgetMs` (at most `maxCalls`). */
function sample(fn: () => void, budgetMs: number, maxCalls: number): number {
	const end = performance.now() + budgetMs;
	let calls = 0;
	const t0 = process.hrtime.bigint();
	while (calls < maxCalls && (calls % 64 !== 0 || performance.now() < end)) {
		fn();
		calls++;
	}
	return Number(process.hrtime.bigint() - t0) / calls;
}

export function runB4(o: { log: Log; samples?: number; budgetMs?: number }): B4Result[] {
	const secret = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7)).toString('base64')}`;
	const wh = new Webhook(secret);
	const samples = o.samples ?? 9;
	const budgetMs = o.budgetMs ?? 250;
	const results: B4Result[] = [];
	for (const bytes of [1024, 64 * 1024]) {
		const body = payloadOf(bytes);
		const id = `msg_${randomUUID()}`;
		const ts = new Date();
		const headers = {
			'webhook-id': id,
			'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
			'webhook-signature': wh.sign(id, ts, body.toString('utf8')),
		};
		// Both must accept the same delivery (and ours must refuse a tampered one) before anything is timed.
		const ours = () => {
			const r = verifyWebhook({ rawBody: body, headers, secrets: [secret], now: Date.now() });
			if (!r.ok) throw new Error(`our verifier refused: ${r.reason}`);
		};
		const pkg = () => {
			wh.verify(body, headers, { jsonParse: false });
		};
		ours();
		pkg();
		const tampered = Buffer.from(body);
		tampered[tampered.length - 3] ^= 1;
		if (verifyWebhook({ rawBody: tampered, headers, secrets: [secret], now: Date.now() }).ok)
			throw new Error('tampered body accepted');
		for (let i = 0; i < 200; i++) {
			ours();
			pkg();
		}
		const oursNs: number[] = [];
		const pkgNs: number[] = [];
		for (let s = 0; s < samples; s++) {
			if (s % 2 === 0) {
				oursNs.push(sample(ours, budgetMs, 500_000));
				pkgNs.push(sample(pkg, budgetMs, 500_000));
			} else {
				pkgNs.push(sample(pkg, budgetMs, 500_000));
				oursNs.push(sample(ours, budgetMs, 500_000));
			}
		}
		const result: B4Result = {
			payloadBytes: bytes,
			oursNsPerEvent: Math.round(median(oursNs)),
			packageNsPerEvent: Math.round(median(pkgNs)),
			samples,
			speedup: median(pkgNs) / median(oursNs),
		};
		o.log(
			`B4 ${bytes} B: ours ${result.oursNsPerEvent} ns, standardwebhooks ${result.packageNsPerEvent} ns (${result.speedup.toFixed(2)}×)`,
		);
		results.push(result);
	}
	return results;
}
