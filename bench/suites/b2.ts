/**
 * B2: memory. F files of 10 MB (10,485,760 bytes, the API's maximum) through Upload Resume in real n8n:
 * Read/Write Files → Upload Resume (prepare + PUT to the signed URL). The figure is the peak RSS growth of the
 * n8n main process (where community nodes run): the kernel's high-water mark (VmHWM, reset through
 * /proc/<pid>/clear_refs just before the run) minus the resident set just before the run; a 20 ms sampler of
 * VmRSS backs it up. Run once in filesystem binary mode (n8n 2.x's default) and once in the in-memory
 * `default` mode on a second n8n start, and in queue mode (`queue-database`): the webhook reaches an `n8n webhook`
 * process, one `n8n worker` runs the workflow with binary data in PostgreSQL, and the figure is that worker's.
 */
import type { N8nInstance } from '../../scripts/n8n-host';
import { ensureResumes } from '../lib/files';
import {
	credentialsFor,
	n8nPid,
	procMemory,
	publish,
	resetPeak,
	runWebhook,
	webhookPath,
	type Log,
} from '../lib/n8n';
import { callsByEndpoint, counters, freshWorkspace, type BenchSandbox } from '../lib/sandbox';
import { uploadResumes } from '../lib/workflows';
import { delay } from '../../scripts/n8n-host';

export type B2Mode = 'filesystem' | 'default' | 'queue-database';

export interface B2Result {
	mode: B2Mode;
	files: number;
	fileBytes: number;
	rssBeforeMb: number;
	peakMb: number;
	growthMb: number;
	sampledPeakGrowthMb: number;
	/** Sampled peak growth while Read/Write Files stored the files, and from the start of Upload Resume on. */
	readFilesGrowthMb?: number;
	uploadGrowthMb?: number;
	hwmReset: boolean;
	wallMs: number;
	storagePuts: number;
	calls: Record<string, number>;
	ok: boolean;
	problem?: string;
}

const MB = 2 ** 20;

/** When a node of the workflow's latest execution started (n8n's run data), if recorded. */
async function nodeStartTime(
	n8n: N8nInstance,
	workflowId: string,
	node: string,
): Promise<number | undefined> {
	const [latest] = await n8n.listExecutions(workflowId);
	if (!latest) return undefined;
	const run = await n8n.getExecution(latest.id);
	return (run.data.resultData.runData[node]?.[0] as { startTime?: number } | undefined)?.startTime;
}

export async function runB2(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	files: number;
	filesRoot: string;
	mode: B2Mode;
	log: Log;
	/** Queue mode: the process whose memory is measured (the worker) and the one serving the webhook. */
	measured?: N8nInstance;
	webhookServer?: N8nInstance;
}): Promise<B2Result> {
	const fileBytes = 10 * MB;
	const glob = ensureResumes(`${o.filesRoot}/b2-${o.files}x10mb`, o.files, fileBytes);
	const ws = await freshWorkspace(o.sb, { pendingUploadLimit: 10_000 });
	const creds = await credentialsFor(o.n8n, o.sb.baseUrl, ws);
	// Published first, then two seconds for n8n to settle before the baseline is read.
	const path = webhookPath(`b2-${o.mode}`);
	const id = await publish(o.n8n, uploadResumes({ path, glob, jobId: ws.jobDescriptionId, creds }));
	await delay(2000);
	const pid = n8nPid(o.measured ?? o.n8n);
	const before = procMemory(pid);
	const hwmReset = resetPeak(pid);
	let sampledPeak = before.rss;
	let sampling = true;
	// Samples with their time, to split the peak at the moment Upload Resume started (after Read/Write Files).
	const samples: Array<[number, number]> = [];
	const sampler = (async () => {
		while (sampling) {
			try {
				const rss = procMemory(pid).rss;
				sampledPeak = Math.max(sampledPeak, rss);
				samples.push([Date.now(), rss]);
			} catch {
				return;
			}
			await delay(20);
		}
	})();
	const c0 = await counters(o.sb, ws.workspaceId);
	let run: { ms: number; status: number; body: string };
	try {
		run = await runWebhook(o.webhookServer ?? o.n8n, path, 15 * 60_000);
	} finally {
		sampling = false;
		await sampler;
	}
	const after = procMemory(pid);
	const c1 = await counters(o.sb, ws.workspaceId);
	const uploadStart = await nodeStartTime(o.n8n, id, 'Upload Resume');
	const phasePeak = (from: number, to: number) =>
		Math.max(before.rss, ...samples.filter(([t]) => t >= from && t < to).map(([, rss]) => rss));
	await o.n8n.deactivateWorkflow(id);
	const peak = hwmReset ? after.hwm : sampledPeak;
	const storagePuts = c1.storagePuts - c0.storagePuts;
	let problem: string | undefined;
	if (run.status !== 200) problem = `webhook answered ${run.status}: ${run.body.slice(0, 300)}`;
	else if (storagePuts !== o.files) problem = `${storagePuts} files stored, wanted ${o.files}`;
	const result: B2Result = {
		mode: o.mode,
		files: o.files,
		fileBytes,
		rssBeforeMb: Math.round(before.rss / MB),
		peakMb: Math.round(peak / MB),
		growthMb: Math.round((peak - before.rss) / MB),
		sampledPeakGrowthMb: Math.round((sampledPeak - before.rss) / MB),
		readFilesGrowthMb: uploadStart
			? Math.round((phasePeak(0, uploadStart) - before.rss) / MB)
			: undefined,
		uploadGrowthMb: uploadStart
			? Math.round((phasePeak(uploadStart, Infinity) - before.rss) / MB)
			: undefined,
		hwmReset,
		wallMs: Math.round(run.ms),
		storagePuts,
		calls: callsByEndpoint(c1, c0),
		ok: !problem,
		problem,
	};
	o.log(
		`B2 ${o.mode}: RSS ${result.rssBeforeMb} MB → peak ${result.peakMb} MB (growth ${result.growthMb} MB), ${storagePuts} files stored${problem ? `, PROBLEM: ${problem}` : ''}`,
	);
	return result;
}
