/**
 * B1: analyze N resumes (100 KB PDFs) in real n8n, three ways, side by side in one run:
 *   many     our node in batch mode as one node (Analyze Many), default options (Simplify on: summary and result
 *            read for every report, for the flat item a recruiter filters on),
 *   manyApi  the same with Simplify off (the API's batch items, no report read: the work the floor counts),
 *   batch    our node in batch mode (Upload Many → Start Many), default options, and batchApi with Simplify off,
 *   perItem  our node per item (Analyze Resume with Wait for Completion, the node's default options),
 *   http     n8n's HTTP Request nodes only (prepare, PUT, quote, start, Wait/Get Status/If loop), all items at once,
 *   httpLoop the same calls one resume at a time through Loop Over Items (batch size 1),
 * plus `baseline` (Webhook → Read Files only: what n8n spends before any API call).
 * Each run gets a fresh sandbox workspace, so its counters hold exactly that run's calls; afterwards the
 * workspace's reports are listed and every one must be terminal (N reports, N completed).
 */
import type { N8nInstance } from '../../scripts/n8n-host';
import { ensureResumes } from '../lib/files';
import { credentialsFor, publish, runWebhook, webhookPath, type Log } from '../lib/n8n';
import {
	callsByEndpoint,
	counters,
	freshWorkspace,
	totalCalls,
	type BenchSandbox,
	type Workspace,
} from '../lib/sandbox';
import { median } from '../lib/stats';
import { analyzeBatch, analyzeHttpRequest, analyzeMany, analyzePerItem } from '../lib/workflows';
import { atNodeVersion } from '../lib/workflowNodes';
import type { WorkflowJson } from '../../scripts/n8n-host';

export type B1Variant =
	'many' | 'manyApi' | 'batch' | 'batchApi' | 'perItem' | 'http' | 'httpLoop' | 'baseline';

export interface B1Run {
	variant: B1Variant;
	n: number;
	wallMs: number[];
	medianMs: number;
	calls: Record<string, number>;
	totalCalls: number;
	reportsTerminal: number;
	reportsCompleted: number;
	ok: boolean;
	problem?: string;
	/** Last run: time n8n spent in each node (sum over the node's runs) and the execution's own start to stop. */
	nodeMs?: Record<string, number>;
	executionMs?: number;
}

export interface B1Floor {
	n: number;
	calls: number;
	/** The floor: the phases one after another. */
	timeMs: number;
	formula: string;
	/** Stricter: the same calls with the phases overlapped chunk by chunk (critical path). */
	overlappedMs?: number;
	/** The overlapped floor under the node's bounded pipeline (one chunk prepared and quoted ahead). */
	boundedMs?: number;
}

/**
 * The floor: the fewest calls the API allows in batch mode (N PUTs + 3 per chunk of 20: upload batch, batch
 * quote, analysis batch), each phase bound by its dependency chain and the concurrency C:
 *   upload batches one after another (one active batch per kind): B·L
 *   PUTs, C at a time: ⌈N/C⌉·L
 *   batch quotes, C at a time: ⌈B/C⌉·L
 *   analysis batches one after another, each L plus the sandbox's shortest analysis (queued → processing →
 *   outcome = 2 worker steps W): B·(L + 2W)
 */
export function b1Floor(
	n: number,
	latencyMs: number,
	concurrency: number,
	workerDelayMs: number,
): B1Floor {
	const b = Math.ceil(n / 20);
	const timeMs =
		b * latencyMs +
		Math.ceil(n / concurrency) * latencyMs +
		Math.ceil(b / concurrency) * latencyMs +
		b * (latencyMs + 2 * workerDelayMs);
	return {
		n,
		calls: n + 3 * b,
		timeMs,
		formula: `B=${b}: ${b}·${latencyMs} + ${Math.ceil(n / concurrency)}·${latencyMs} + ${Math.ceil(b / concurrency)}·${latencyMs} + ${b}·(${latencyMs} + 2·${workerDelayMs})`,
		overlappedMs: b1OverlappedFloor(n, latencyMs, concurrency, workerDelayMs),
		boundedMs: b1BoundedFloor(n, latencyMs, concurrency, workerDelayMs),
	};
}

/**
 * A stricter floor than b1Floor's, for a client that overlaps the phases chunk by chunk (as Analyze Many does):
 * the same calls, each taking exactly L, and only the API's own dependencies:
 *   upload batch k is created after batch k − 1 (one active batch per kind; its URLs counted as known at once);
 *   chunk k's PUTs start after its batch exists, C PUTs at a time across all chunks, in chunk order;
 *   chunk k's batch quote after its last PUT;
 *   analysis batch k after its quote and after analysis batch k − 1 has finished (L + 2W).
 * The result is the moment the last analysis batch finishes.
 */
export function b1OverlappedFloor(
	n: number,
	latencyMs: number,
	concurrency: number,
	workerDelayMs: number,
): number {
	return overlappedFloor(n, latencyMs, concurrency, workerDelayMs, false);
}

/**
 * The overlapped floor under the node's bound on the pipeline (at most one chunk prepared and quoted ahead of the
 * stage that submits): chunk k's upload batch is created only once analysis batch k − 2 has finished. Same calls,
 * same dependencies otherwise as b1OverlappedFloor; this is the floor any client keeping that bound can reach.
 */
export function b1BoundedFloor(
	n: number,
	latencyMs: number,
	concurrency: number,
	workerDelayMs: number,
): number {
	return overlappedFloor(n, latencyMs, concurrency, workerDelayMs, true);
}

/** The critical path of both overlapped floors; `bounded` adds the node's gate on each chunk's upload batch. */
function overlappedFloor(
	n: number,
	latencyMs: number,
	concurrency: number,
	workerDelayMs: number,
	bounded: boolean,
): number {
	const b = Math.ceil(n / 20);
	const lanes = Array.from({ length: concurrency }, () => 0);
	const done: number[] = [];
	let lastCreated = 0;
	for (let k = 0; k < b; k++) {
		const gate = bounded && k >= 2 ? done[k - 2] : 0;
		const created = Math.max(lastCreated, gate) + latencyMs;
		lastCreated = created;
		let uploaded = created;
		const files = Math.min(20, n - 20 * k);
		for (let f = 0; f < files; f++) {
			const lane = lanes.indexOf(Math.min(...lanes));
			const end = Math.max(lanes[lane], created) + latencyMs;
			lanes[lane] = end;
			uploaded = Math.max(uploaded, end);
		}
		const quoted = uploaded + latencyMs;
		done.push(Math.max(quoted, k > 0 ? done[k - 1] : 0) + latencyMs + 2 * workerDelayMs);
	}
	return done[b - 1];
}

async function listReportStatuses(sb: BenchSandbox, ws: Workspace): Promise<string[]> {
	const statuses: string[] = [];
	let cursor: string | null = null;
	for (let page = 0; page < 100; page++) {
		const qs = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
		const res = await fetch(`${sb.baseUrl}/api/v1/reports?${qs}`, {
			headers: { authorization: `Bearer ${ws.apiKey}` },
		});
		const body = (await res.json()) as {
			data: { items: Array<{ status: string }>; nextCursor: string | null };
		};
		statuses.push(...body.data.items.map((r) => r.status));
		cursor = body.data.nextCursor;
		if (!cursor) break;
	}
	return statuses;
}

export async function runB1Once(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	variant: B1Variant;
	n: number;
	filesRoot: string;
	concurrency: number;
	log: Log;
	/** Workspace settings instead of B1's (limits raised so that no variant is throttled). */
	workspace?: Record<string, unknown>;
	/** Option Concurrency of the per-item workflow (absent: the node's default). */
	perItemConcurrency?: number;
	/** A name for the log line and the webhook path (B6). */
	label?: string;
	/** Told the run's fresh workspace (B7 reads its counters and allowance afterwards). */
	onWorkspace?: (workspaceId: string) => void;
	/** Our node's version in the workflow (an earlier build's, for Before and after; absent: today's). */
	nodeVersion?: number;
}): Promise<{
	wallMs: number;
	calls: Record<string, number>;
	terminal: number;
	completed: number;
	problem?: string;
	nodeMs: Record<string, number>;
	executionMs?: number;
}> {
	const { n8n, sb, variant, n } = o;
	const glob = ensureResumes(`${o.filesRoot}/b1-n${n}`, n, 100 * 1024);
	// Limits the spec leaves unstated, raised for every variant alike so that none is throttled by them.
	const ws = await freshWorkspace(
		sb,
		o.workspace ?? { pendingUploadLimit: 10_000, activeAnalysisLimit: 10_000 },
	);
	o.onWorkspace?.(ws.workspaceId);
	const creds = await credentialsFor(n8n, sb.baseUrl, ws);
	const label = o.label ?? 'B1';
	const path = webhookPath(
		`${label.toLowerCase()}-${variant}-${n}${o.perItemConcurrency ? `-c${o.perItemConcurrency}` : ''}`,
	);
	const common = { path, glob, jobId: ws.jobDescriptionId, creds };
	let wf: WorkflowJson;
	if (variant === 'many') wf = analyzeMany(common);
	else if (variant === 'manyApi') wf = analyzeMany({ ...common, simplify: false });
	else if (variant === 'batch') wf = analyzeBatch(common);
	else if (variant === 'batchApi') wf = analyzeBatch({ ...common, simplify: false });
	else if (variant === 'perItem')
		wf = analyzePerItem({ ...common, concurrency: o.perItemConcurrency });
	else if (variant === 'http') wf = analyzeHttpRequest({ ...common, baseUrl: sb.baseUrl });
	else if (variant === 'httpLoop')
		wf = analyzeHttpRequest({ ...common, baseUrl: sb.baseUrl, loop: true });
	else wf = { ...analyzeBatch(common), name: `bench B1 baseline ${path}` };
	if (variant === 'baseline') {
		wf.nodes = wf.nodes.filter((node) => node.name === 'Webhook' || node.name === 'Read Resumes');
		wf.connections = { Webhook: wf.connections.Webhook };
	}
	if (o.nodeVersion !== undefined) wf = atNodeVersion(wf, o.nodeVersion);
	const id = await publish(n8n, wf);
	const before = await counters(sb, ws.workspaceId);
	const run = await runWebhook(n8n, path, 30 * 60_000);
	const after = await counters(sb, ws.workspaceId);
	await n8n.deactivateWorkflow(id);
	const calls = callsByEndpoint(after, before);
	let problem: string | undefined;
	if (run.status !== 200) problem = `webhook answered ${run.status}: ${run.body.slice(0, 300)}`;
	const statuses = variant === 'baseline' ? [] : await listReportStatuses(sb, ws);
	const terminal = statuses.filter((s) =>
		['completed', 'requires_action', 'failed'].includes(s),
	).length;
	const completed = statuses.filter((s) => s === 'completed').length;
	if (!problem && variant !== 'baseline' && (statuses.length !== n || completed !== n)) {
		problem = `${statuses.length} reports, ${completed} completed (wanted ${n})`;
	}
	const { nodeMs, executionMs } = await nodeTimings(n8n, id);
	o.log(
		`${label} ${variant}${o.perItemConcurrency ? ` C=${o.perItemConcurrency}` : ''} N=${n}: ${Math.round(run.ms)} ms, ${totalCalls(calls)} calls${problem ? `, PROBLEM: ${problem}` : ''}`,
	);
	return { wallMs: run.ms, calls, terminal, completed, problem, nodeMs, executionMs };
}

/** Per-node time of the workflow's latest execution, from n8n's own run data (startTime, executionTime). */
async function nodeTimings(
	n8n: N8nInstance,
	workflowId: string,
): Promise<{ nodeMs: Record<string, number>; executionMs?: number }> {
	const nodeMs: Record<string, number> = {};
	try {
		const [latest] = await n8n.listExecutions(workflowId);
		if (!latest) return { nodeMs };
		const detail = await n8n.getExecution(latest.id);
		for (const [node, runs] of Object.entries(detail.data.resultData.runData)) {
			nodeMs[node] = (runs as Array<{ executionTime?: number }>).reduce(
				(a, r) => a + (r.executionTime ?? 0),
				0,
			);
		}
		const executionMs = latest.stoppedAt
			? Date.parse(latest.stoppedAt) - Date.parse(latest.startedAt)
			: undefined;
		return { nodeMs, executionMs };
	} catch {
		return { nodeMs };
	}
}

export async function runB1(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	sizes: number[];
	repeats: (n: number) => number;
	/** Largest N for the one-at-a-time HTTP Request workflow. */
	loopMaxN: number;
	filesRoot: string;
	concurrency: number;
	log: Log;
	/** Only these variants (all when absent), for quick iterations. */
	variants?: B1Variant[];
}): Promise<B1Run[]> {
	const results: B1Run[] = [];
	// Warm-up (not recorded): n8n's first executions after a start are slower (module loading, caches).
	await runB1Once({ ...o, variant: 'baseline', n: o.sizes[0] });
	await runB1Once({ ...o, variant: 'batch', n: o.sizes[0] });
	await runB1Once({ ...o, variant: 'many', n: o.sizes[0] });
	const variants = (
		['baseline', 'many', 'manyApi', 'batch', 'batchApi', 'perItem', 'http'] as B1Variant[]
	).filter((v) => !o.variants || o.variants.includes(v));
	for (const n of o.sizes) {
		const acc = new Map<B1Variant, B1Run>();
		for (const v of [...variants, 'httpLoop' as const]) {
			acc.set(v, {
				variant: v,
				n,
				wallMs: [],
				medianMs: NaN,
				calls: {},
				totalCalls: 0,
				reportsTerminal: 0,
				reportsCompleted: 0,
				ok: true,
			});
		}
		const reps = o.repeats(n);
		for (let r = 0; r < reps; r++) {
			// Rotate the order each repetition so that drift in the machine's load does not favour one variant.
			const order = variants.map((_, i) => variants[(i + r) % variants.length]);
			for (const v of order) {
				const once = await runB1Once({ ...o, variant: v, n });
				const entry = acc.get(v)!;
				entry.wallMs.push(Math.round(once.wallMs));
				entry.calls = once.calls;
				entry.totalCalls = totalCalls(once.calls);
				entry.reportsTerminal = once.terminal;
				entry.reportsCompleted = once.completed;
				entry.nodeMs = once.nodeMs;
				entry.executionMs = once.executionMs;
				if (once.problem) {
					entry.ok = false;
					entry.problem = once.problem;
				}
			}
		}
		// One resume at a time takes about N × (4 calls + a poll); run once, and only up to loopMaxN.
		if (n <= o.loopMaxN && (!o.variants || o.variants.includes('httpLoop'))) {
			const once = await runB1Once({ ...o, variant: 'httpLoop', n });
			const entry = acc.get('httpLoop')!;
			Object.assign(entry, {
				wallMs: [Math.round(once.wallMs)],
				calls: once.calls,
				totalCalls: totalCalls(once.calls),
				reportsTerminal: once.terminal,
				reportsCompleted: once.completed,
				nodeMs: once.nodeMs,
				executionMs: once.executionMs,
				ok: !once.problem,
				problem: once.problem,
			});
		}
		for (const entry of acc.values()) {
			if (entry.wallMs.length === 0) continue;
			entry.medianMs = median(entry.wallMs);
			results.push(entry);
		}
	}
	return results;
}
