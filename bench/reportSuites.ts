/**
 * The report sections of B2 to B5 (memory, feed drain, verification cost, webhook throughput), rendered from a
 * bench run's results (bench/report.ts puts them in order).
 */
import { ms, ratio } from './lib/stats';
import type { BenchResults } from './results';
import type { B2Result } from './suites/b2';
import type { B5Result } from './suites/b5';

export function suiteSections(r: BenchResults): string[] {
	const out: string[] = [];
	const m = r.machine;
	if (r.b2) {
		const B2_MODE_LABELS: Record<B2Result['mode'], string> = {
			filesystem: '`filesystem` (n8n 2.x default), regular mode',
			default: '`default` (in memory), regular mode',
			'queue-database': '`database`, queue mode (the worker measured)',
		};
		out.push('## B2: memory, 10 MB files through Upload Resume', '');
		out.push(
			'Peak RSS growth of the n8n main process (community nodes run there): the kernel high-water mark (VmHWM, reset through `/proc/<pid>/clear_refs` right before the run) minus VmRSS just before; a 20 ms VmRSS sampler as a cross-check. Workflow: Webhook → Read/Write Files (reads the folder) → Upload Resume.',
			'',
		);
		out.push(
			'| Binary mode | Files | RSS before | Peak | Growth | Growth (sampler) | of which: Read/Write Files, then Upload Resume (sampler) | Wall time | Files stored | OK |',
			'|---|---|---|---|---|---|---|---|---|---|',
		);
		for (const b of r.b2) {
			out.push(
				`| ${B2_MODE_LABELS[b.mode]} | ${b.files} × 10 MB | ${b.rssBeforeMb} MB | ${b.peakMb} MB | **${b.growthMb} MB** | ${b.sampledPeakGrowthMb} MB | ${b.uploadGrowthMb === undefined ? 'n/a' : `${b.readFilesGrowthMb} MB, ${b.uploadGrowthMb} MB`} | ${ms(b.wallMs)} | ${b.storagePuts} | ${b.ok ? 'yes' : `no: ${b.problem}`} |`,
			);
		}
		out.push('');
	}

	if (r.b3) {
		const b = r.b3;
		out.push('## B3: feed drain, 10,000 retained events', '');
		out.push(`Floor: ${b.floorRequests} requests at limit 100.`, '');
		out.push('| Reader | Requests | Time | Events out (distinct) | OK |', '|---|---|---|---|---|');
		out.push(
			`| Event → Get Many (Return All), one execution | ${b.getMany.requests} | ${ms(b.getMany.wallMs)} round trip (server: first to last page ${ms(b.getMany.serverSpanMs)}) | ${b.getMany.eventsOut} (${b.getMany.distinct}) | ${b.getMany.ok ? 'yes' : `no: ${b.getMany.problem}`} |`,
		);
		out.push(
			`| Feed trigger, 5,000 per poll, ${b.trigger.polls} polls | ${b.trigger.requests} | ${ms(b.trigger.activeMs)} inside the polls (${b.trigger.pollSpansMs.map((x) => ms(x)).join(' + ')}); ${ms(b.trigger.wallMs)} from activation until the last poll's execution was recorded (n8n schedules polls at most once a minute after the activation poll, so this part depends on when it runs the next one) | ${b.trigger.eventsOut} (${b.trigger.distinct}) | ${b.trigger.ok ? 'yes' : `no: ${b.trigger.problem}`} |`,
		);
		out.push(
			'',
			`Median time between consecutive pages: Get Many ${b.getMany.medianPageGapMs ?? 'n/a'} ms, feed trigger ${b.trigger.medianPageGapMs ?? 'n/a'} ms (inside a poll). Both go through the same transport code; the sandbox's log shows each answer under 1 ms.`,
			'',
		);
	}

	if (r.b4) {
		out.push('## B4: webhook verification cost per event', '');
		out.push(
			'In the benchmark process (Node ' +
				m.benchNode +
				'), same signed payloads for both; median of ' +
				(r.b4[0]?.samples ?? '?') +
				' alternating samples of ≤ 250 ms. `standardwebhooks` called with `jsonParse: false` (same work: headers, timestamp, signature).',
			'',
		);
		out.push('| Payload | Ours | `standardwebhooks` | Package ÷ ours |', '|---|---|---|---|');
		for (const b of r.b4)
			out.push(
				`| ${b.payloadBytes / 1024} KB | ${(b.oursNsPerEvent / 1000).toFixed(1)} µs | ${(b.packageNsPerEvent / 1000).toFixed(1)} µs | ${ratio(b.speedup)} |`,
			);
		out.push('');
	}

	if (r.b5) {
		const b = r.b5.trigger;
		out.push('## B5: webhook throughput in real n8n', '');
		const rounds = r.b5.rounds ?? [];
		out.push(
			`${rounds.length > 1 ? `${rounds.length} rounds; in each, ` : ''}${rounds[0]?.trigger.deliveries ?? b.deliveries} signed deliveries (${rounds[0]?.trigger.distinctEvents ?? b.distinctEvents} distinct events + ${rounds[0]?.trigger.redeliveries ?? b.redeliveries} redeliveries of already acknowledged events, same id and body, fresh timestamp and signature) ` +
				`to the published Recruiting Analysis Trigger (newest version, as a user adds it), ${b.concurrency} at a time. Acknowledgement latency is the sender's round trip. ` +
				"For comparison, the same load on n8n's own Webhook node (answers at once, no verification, no dedupe: every delivery is an execution) " +
				'and on the same Webhook node with one option written as an expression (`={{ false }}`): n8n then takes an expression isolate for each request, as it does for every trigger that is not its own Webhook node with static parameters, community triggers included. ' +
				'The receivers take turns within each round, in an order that rotates from round to round; the rows below pool the rounds, the targets use the median of the per-round ratios. ' +
				'Last, our trigger again one delivery at a time.',
			'',
		);
		if (rounds.length) {
			out.push(
				'| Round (order) | Trigger p99 | Webhook node p99 | Webhook node with an expression p99 | Trigger throughput | Webhook node | With an expression | Trigger ÷ Webhook node: p99, throughput | Trigger ÷ with an expression: p99, throughput |',
				'|---|---|---|---|---|---|---|---|---|',
			);
			rounds.forEach((x, i) =>
				out.push(
					`| ${i + 1} (${x.order.map((o) => ({ trigger: 'trigger', n8nWebhook: 'Webhook', n8nWebhookIsolate: 'expression' })[o]).join(', ')}) | ${x.trigger.p99Ms} ms | ${x.n8nWebhook.p99Ms} ms | ${x.n8nWebhookIsolate.p99Ms} ms | ${x.trigger.deliveriesPerSecond}/s | ${x.n8nWebhook.deliveriesPerSecond}/s | ${x.n8nWebhookIsolate.deliveriesPerSecond}/s | ${ratio(x.p99Ratio)}, ${ratio(x.throughputRatio)} | ${ratio(x.trigger.p99Ms / x.n8nWebhookIsolate.p99Ms)}, ${ratio(x.trigger.deliveriesPerSecond / x.n8nWebhookIsolate.deliveriesPerSecond)} |`,
				),
			);
			out.push('');
		}
		out.push(
			'| Receiver | Deliveries (distinct) | Concurrency | Executions | HTTP statuses | p50 ack | p99 ack | max | Throughput | OK |',
			'|---|---|---|---|---|---|---|---|---|---|',
		);
		const row = (name: string, x: B5Result, wanted: string) =>
			out.push(
				`| ${name} | ${x.deliveries} (${x.distinctEvents}) | ${x.concurrency} | ${x.executions} (wanted ${wanted}) | ${Object.entries(
					x.statuses,
				)
					.map(([k, v]) => `${k}: ${v}`)
					.join(
						', ',
					)} | ${x.p50Ms} ms | ${x.p99Ms} ms | ${x.maxMs} ms | ${x.deliveriesPerSecond}/s | ${x.ok ? 'yes' : `no: ${x.problem}`} |`,
			);
		row('Recruiting Analysis Trigger', b, String(b.distinctEvents));
		row("n8n's Webhook node (baseline)", r.b5.n8nWebhook, String(r.b5.n8nWebhook.deliveries));
		if (r.b5.n8nWebhookIsolate)
			row(
				"n8n's Webhook node with an expression (n8n's isolate, as for any community trigger)",
				r.b5.n8nWebhookIsolate,
				String(r.b5.n8nWebhookIsolate.deliveries),
			);
		row(
			'Recruiting Analysis Trigger, one at a time',
			r.b5.triggerSequential,
			String(r.b5.triggerSequential.distinctEvents),
		);
		out.push(
			'',
			`Event ids held by the trigger's dedupe memory (workflow static data, read from n8n after the deliveries): ${r.b5.trigger.storedSeenIds ?? 'n/a'} after the concurrent runs (summed over the rounds, one workflow per round), ${r.b5.triggerSequential.storedSeenIds ?? 'n/a'} after the one-at-a-time run.`,
			'',
		);
		const slowest = (x: B5Result) =>
			(x.slowest ?? [])
				.map(
					(d) =>
						`#${d.position} at ${(d.sentAtMs / 1000).toFixed(1)} s: ${d.ms} ms${d.redelivery ? ' (redelivery)' : ''}`,
				)
				.join('; ');
		out.push(
			`Slowest acknowledgements (position in the send order, when sent, round trip): our trigger ${slowest(b) || 'n/a'}; n8n's Webhook node ${slowest(r.b5.n8nWebhook) || 'n/a'}.`,
			'',
		);
	}
	return out;
}
