/**
 * Report sections of B5 fair (our trigger and n8n's bare Webhook node under n8n's default and with lazy isolates, the
 * trigger's cost per delivery with the ids it keeps) and of the PostgreSQL remedy's cost (bench/REPORT.md).
 */
import type { BenchResults } from './results';
import { ratio } from './lib/stats';
import type { B5FairReceiver, B5FairSetting } from './suites/b5fair';

const met = (ok: boolean): string => (ok ? '**met**' : '**missed**');

const SETTING: Record<B5FairSetting, string> = {
	default: "n8n's default",
	lazy: '`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`',
};

const RECEIVER: Record<B5FairReceiver, string> = {
	'default:webhook': "n8n's Webhook node, n8n's default",
	'default:trigger': "Recruiting Analysis Trigger, n8n's default",
	'lazy:webhook': "n8n's Webhook node, lazy isolates",
	'lazy:trigger': 'Recruiting Analysis Trigger, lazy isolates',
};

/** The fair B5 rows of the Targets table: the trigger against the bare Webhook node under each setting. */
export function b5FairTargetRows(r: BenchResults): string[] {
	const b = r.b5Fair;
	const out: string[] = [];
	if (b) {
		const ok = Object.values(b.pooled).every((x) => x.ok);
		const why = ' (causes: "Findings", "B5 profile")';
		for (const s of ['lazy', 'default'] as B5FairSetting[]) {
			const m = b.medians[s];
			const rounds = b.rounds.map((x) => x.ratios[s]);
			const p = b.pooled;
			out.push(
				`| B5 fair, ${SETTING[s]}${s === 'lazy' ? ' (what n8n intends as its default)' : ''}: acknowledgement p99 within 1.2× of n8n's bare Webhook node under the same setting, verification and durable dedupe on | ${ratio(m.p99)} (median of ${rounds.length} rounds: ${rounds.map((x) => ratio(x.p99)).join(', ')}); pooled ${p[`${s}:trigger`].p99Ms} ms vs ${p[`${s}:webhook`].p99Ms} ms | ${met(ok && m.p99 <= 1.2)}${m.p99 > 1.2 ? why : ''} |`,
				`| B5 fair, ${SETTING[s]}: throughput at least 0.9× of n8n's bare Webhook node | ${ratio(m.throughput)} (${rounds.map((x) => ratio(x.throughput)).join(', ')}); pooled ${p[`${s}:trigger`].deliveriesPerSecond}/s vs ${p[`${s}:webhook`].deliveriesPerSecond}/s | ${met(ok && m.throughput >= 0.9)}${m.throughput < 0.9 ? why : ''} |`,
			);
		}
		const at = (n: number) => b.idsCost.runs.filter((x) => x.idsBefore === n);
		const p50 = (n: number) => median(at(n).map((x) => x.p50Ms));
		if (at(1000).length && at(10_000).length)
			out.push(
				`| B5 the trigger's acknowledgement, one at a time, at 1,000 ids kept and at its cap (10,000): shown, not judged (it grows) | p50 ${p50(1000)} ms and ${p50(10_000)} ms (+${Math.round((p50(10_000) - p50(1000)) * 10) / 10} ms) | ${b.idsCost.runs.every((x) => x.ok) ? 'grows with the ids kept' : '**problem**'} |`,
			);
	}
	const ids = r.b5Ids;
	if (ids)
		for (const x of ids.summary)
			out.push(
				`| B5 ids: the trigger's acknowledgement ${x.concurrency === 1 ? 'one at a time' : `${x.concurrency} at a time`} at 1,000 and at 10,000 ids kept, one run, medians of ${ids.rounds} rounds: shown, not judged (it grows) | p50 ${x.p50Ms[1000]} and ${x.p50Ms[10_000]} ms (${ratio(x.p50Ratio)}); p99 ${x.p99Ms[1000]} and ${x.p99Ms[10_000]} ms (${ratio(x.p99Ratio)}) | ${ids.runs.every((y) => y.ok) ? 'grows with the ids kept' : '**problem**'} |`,
			);
	const pg = r.b5Pg;
	if (pg && pg.runs.length >= 2) {
		const [small, big] = [pg.runs[0], pg.runs[pg.runs.length - 1]];
		const worst = Math.max(big.newMs, big.copyMs);
		out.push(
			`| B5 remedy: the PostgreSQL step's cost per delivery with 1,000 rows and with 30 days at 10 events a second: shown, not judged | new id ${small.newMs} ms → ${big.newMs} ms (${ratio(big.newMs / small.newMs)}), copy ${small.copyMs} ms → ${big.copyMs} ms (${ratio(big.copyMs / small.copyMs)}) at ${big.rows.toLocaleString('en-US')} rows | ${worst < 1 ? 'under 1 ms at 30 days: one B-tree lookup, logarithmic in the rows' : '**over 1 ms**'} |`,
		);
	}
	return out;
}

function median(values: number[]): number {
	const s = [...values].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid] : Math.round(((s[mid - 1] + s[mid]) / 2) * 10) / 10;
}

function sourceLine(
	source: { command: string; startedAt?: string; gitCommit?: string } | undefined,
) {
	return source
		? `Measured by \`${source.command}\`${source.startedAt ? `, started ${source.startedAt}` : ''}${source.gitCommit ? ` on ${source.gitCommit.slice(0, 7)}` : ''}. `
		: '';
}

export function b5FairSection(r: BenchResults): string[] {
	const out: string[] = [];
	const b = r.b5Fair;
	if (b) {
		out.push(
			"## B5 fair: our trigger against n8n's bare Webhook node, with and without lazy isolates",
			'',
		);
		out.push(
			sourceLine(b.source) +
				`Two n8n processes of the same build, both running throughout: one with n8n's default, one with \`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true\` (n8n then opens an expression isolate only when an expression is evaluated). In each round the four receivers get the same load in turn (${b.deliveries} signed deliveries, 10 % redeliveries, ${b.concurrency} at a time), in an order that rotates: our trigger (version 2, verification and the durable dedupe on) and n8n's Webhook node with fixed parameters (n8n skips its isolate for it under both settings). The targets use the medians of the per-round ratios; the pooled rows are below.`,
			'',
			'| Round (order) | ' +
				(Object.keys(RECEIVER) as B5FairReceiver[])
					.map((k) => `${RECEIVER[k]}: p99, throughput`)
					.join(' | ') +
				' | Trigger ÷ Webhook node, default | Trigger ÷ Webhook node, lazy |',
			'|---|---|---|---|---|---|---|',
		);
		b.rounds.forEach((round, i) => {
			const cell = (k: B5FairReceiver) =>
				`${round.results[k].p99Ms} ms, ${round.results[k].deliveriesPerSecond}/s`;
			out.push(
				`| ${i + 1} (${round.order.join(', ')}) | ${(Object.keys(RECEIVER) as B5FairReceiver[]).map(cell).join(' | ')} | ${ratio(round.ratios.default.p99)}, ${ratio(round.ratios.default.throughput)} | ${ratio(round.ratios.lazy.p99)}, ${ratio(round.ratios.lazy.throughput)} |`,
			);
		});
		out.push(
			'',
			'| Receiver | Deliveries (distinct) | Executions (wanted) | HTTP statuses | p50 ack | p99 ack | Throughput | OK |',
			'|---|---|---|---|---|---|---|---|',
		);
		for (const k of Object.keys(RECEIVER) as B5FairReceiver[]) {
			const x = b.pooled[k];
			const wanted = k.endsWith('trigger') ? x.distinctEvents : x.deliveries;
			out.push(
				`| ${RECEIVER[k]} | ${x.deliveries} (${x.distinctEvents}) | ${x.executions} (${wanted}) | ${Object.entries(
					x.statuses,
				)
					.map(([c, n]) => `${c}: ${n}`)
					.join(
						', ',
					)} | ${x.p50Ms} ms | ${x.p99Ms} ms | ${x.deliveriesPerSecond}/s | ${x.ok ? 'yes' : `no: ${x.problem}`} |`,
			);
		}
		out.push(
			'',
			'### The acknowledgement with the ids the trigger keeps',
			'',
			`One delivery at a time (100 deliveries, 90 distinct events) to a trigger with *Remembered Event IDs* at 10,000 whose static data already held 1,000 ids, or its cap of 10,000 (filled in n8n's SQLite database before the workflow was published; the ids stored afterwards are checked), under ${SETTING[b.idsCost.setting]}, the sizes alternating.`,
			'',
			'| Ids kept before | Ids stored after | p50 ack | p99 ack | OK |',
			'|---|---|---|---|---|',
			...b.idsCost.runs.map(
				(x) =>
					`| ${x.idsBefore.toLocaleString('en-US')} | ${x.idsAfter.toLocaleString('en-US')} | ${x.p50Ms} ms | ${x.p99Ms} ms | ${x.ok ? 'yes' : `no: ${x.problem}`} |`,
			),
			'',
		);
	}
	out.push(...b5IdsSection(r));
	const pg = r.b5Pg;
	if (pg) {
		out.push("## B5 remedy: the PostgreSQL step's cost per delivery", '');
		out.push(
			sourceLine(pg.source) +
				`The table and the statement of examples/webhook-each-event-once-postgres.json in PostgreSQL ${pg.postgres} (a private server, ${pg.serverSettings}), run by pgbench: one client, prepared statements, ${pg.runs[0]?.transactions ?? '?'} statements per run, each kind twice and the faster kept. "New id" inserts an id never seen and returns the event; "copy" repeats a stored id and returns no row. The table was filled with generate_series in PostgreSQL (ids \`evt_<md5(i)>\`, seen over the last 30 days), its two indexes built after the fill: ${pg.fillSeconds} s, ${pg.totalMb.toLocaleString('en-US')} MB with its indexes.`,
			'',
			'| Rows in the table | New id | Copy |',
			'|---|---|---|',
			...pg.runs.map(
				(x) => `| ${x.rows.toLocaleString('en-US')} | ${x.newMs} ms | ${x.copyMs} ms |`,
			),
			'',
		);
	}
	return out;
}

/** B5 ids: the acknowledgement at 1,000 and at 10,000 ids kept, side by side in one run (bench/suites/b5ids.ts). */
function b5IdsSection(r: BenchResults): string[] {
	const b = r.b5Ids;
	if (!b) return [];
	const at = (c: number) => (c === 1 ? 'one at a time' : `${c} at a time`);
	return [
		"## B5 ids: the trigger's acknowledgement at 1,000 and at 10,000 ids kept, side by side",
		'',
		sourceLine(b.source) +
			(b.source?.load
				? `Load average at its start ${b.source.load.join(' ')} on ${r.machine.nproc} cores. `
				: '') +
			`One n8n with \`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true\`, SQLite. In each of ${b.rounds} rounds, a fresh workflow per size and load, *Remembered Event IDs* at ${b.capacity.toLocaleString('en-US')}, its static data filled with 1,000 or 10,000 ids before it was published (the ids stored afterwards are checked); ${b.runs[0]?.deliveries ?? '?'} signed deliveries per load (a tenth of them redeliveries), one at a time and 10 at a time, the sizes' order alternating between rounds. Medians over the rounds; the ratio is the median of the per-round ratios 10,000 ÷ 1,000.`,
		'',
		'| Load | p50 at 1,000 ids | p50 at 10,000 ids | p50 ratio | p99 at 1,000 ids | p99 at 10,000 ids | p99 ratio |',
		'|---|---|---|---|---|---|---|',
		...b.summary.map(
			(x) =>
				`| ${at(x.concurrency)} | ${x.p50Ms[1000]} ms | ${x.p50Ms[10_000]} ms | ${ratio(x.p50Ratio)} | ${x.p99Ms[1000]} ms | ${x.p99Ms[10_000]} ms | ${ratio(x.p99Ratio)} |`,
		),
		'',
		'| Round | Load | Ids kept before | Ids stored after | p50 ack | p99 ack | OK |',
		'|---|---|---|---|---|---|---|',
		...b.runs.map(
			(x) =>
				`| ${x.round} | ${at(x.concurrency)} | ${x.idsBefore.toLocaleString('en-US')} | ${x.idsAfter.toLocaleString('en-US')} | ${x.p50Ms} ms | ${x.p99Ms} ms | ${x.ok ? 'yes' : `no: ${x.problem}`} |`,
		),
		'',
	];
}
