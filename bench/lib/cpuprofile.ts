/**
 * Reading a V8 CPU profile (`node --cpu-prof`, the .cpuprofile JSON) of the n8n main process: the samples that fall
 * inside a time window, each sample's stack sorted into one category (first match, in the order of CATEGORIES),
 * and the functions with the most self time. Timestamps of the profile are CLOCK_MONOTONIC microseconds, the clock
 * of `process.hrtime` in the benchmark's own process on Linux, so windows taken there select the samples.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

export interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** Monotonic microseconds, comparable with the profile's timestamps. */
export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

type Frame = ProfileNode['callFrame'];

const EXPRESSION = /@n8n\/expression-runtime|isolated-vm/;
const EXPRESSION_GLUE =
	/@n8n\/expression-runtime|isolated-vm|n8n-workflow\/dist\/cjs\/(expression|workflow-expression)\.js/;

/** Categories of a sample, tested in this order against its whole stack (leaf first). */
const CATEGORIES: Array<{ name: string; test: (stack: Frame[]) => boolean }> = [
	{ name: 'idle', test: (s) => s[0]?.functionName === '(idle)' },
	{ name: 'garbage collection', test: (s) => s[0]?.functionName === '(garbage collector)' },
	{
		name: "n8n's expression isolates (isolated-vm: acquire, create, run, release)",
		test: (s) => s.some((f) => EXPRESSION.test(f.url)),
	},
	{
		name: 'credentials (read, decrypt)',
		test: (s) =>
			s.some((f) =>
				/getDecrypted|getCredentials|credentials-helper|decrypt/i.test(
					f.functionName + ' ' + f.url,
				),
			),
	},
	{ name: "our trigger's own code (verify, dedupe, parse)", test: (s) => isOurs(s[0]) },
	{
		name: 'n8n helpers our trigger calls (parameters, static data, answer)',
		test: (s) => s.some(isOurs),
	},
	{
		name: 'workflow static data (n8n saving it)',
		test: (s) => s.some((f) => /staticdata/i.test(f.functionName) || /static-data/i.test(f.url)),
	},
	{
		name: 'Code node / task runner broker',
		test: (s) =>
			s.some((f) =>
				/task-runners|task-broker|TaskRunner|TaskBroker|TaskRequester/i.test(
					f.url + ' ' + f.functionName,
				),
			),
	},
	{
		name: 'the execution after the answer (run, save, hooks)',
		test: (s) =>
			s.some((f) =>
				/WorkflowExecute|executeWorkflow|runWorkflow|ActiveExecutions|ExecutionRepository|execution-lifecycle|ExecutionPersistence|workflow-execute/i.test(
					f.functionName + ' ' + f.url,
				),
			),
	},
	{
		name: 'database (other: TypeORM, SQLite)',
		test: (s) => s.some((f) => /typeorm|sqlite/i.test(f.url)),
	},
	{
		name: "n8n's webhook path (lookup, workflow load, response)",
		test: (s) =>
			s.some((f) =>
				/\/webhooks\/|webhook-service|webhook-request|live-webhooks|WebhookService|webhookHelpers/i.test(
					f.url + ' ' + f.functionName,
				),
			),
	},
	{
		name: 'HTTP server (Express, body parsing, sockets)',
		test: (s) =>
			s.some((f) =>
				/express|body-parser|raw-body|node:_http|node:net|node:internal\/streams|node:internal\/http|undici/i.test(
					f.url,
				),
			),
	},
	{
		name: '(program) and native',
		test: (s) => s[0]?.functionName === '(program)' || s[0]?.url === '',
	},
	{ name: 'other', test: () => true },
];

// The package as n8n installed it (<user folder>/.n8n/nodes/node_modules/<name>/); n8n's own cache folder carries
// the repository's name too, so the folder under node_modules is what tells the two apart.
const isOurs = (f: Frame | undefined): boolean =>
	!!f && f.url.includes('/node_modules/n8n-nodes-recruiting-analysis/');
const short = (f: Frame): string => {
	const file = f.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\//, '');
	return `${f.functionName || '(anonymous)'}${file ? ` (${file}:${f.lineNumber + 1})` : ''}`;
};

export interface ProfileWindow {
	/** Sampled CPU time in the window (every sample but idle), ms. */
	busyMs: number;
	windowMs: number;
	byCategory: Array<{ name: string; ms: number }>;
	/** Functions with the most self time (not idle), `name (file:line)`. */
	topSelf: Array<{ fn: string; ms: number }>;
	/** Time in n8n's expression isolates by the first caller outside the expression code. */
	isolateCallers: Array<{ fn: string; ms: number }>;
}

export function readProfile(file: string): CpuProfile {
	return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

export function analyzeWindow(
	p: CpuProfile,
	fromUs: number,
	toUs: number,
	topN = 12,
): ProfileWindow {
	const byId = new Map(p.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const stackCache = new Map<number, Frame[]>();
	const stackOf = (id: number): Frame[] => {
		let s = stackCache.get(id);
		if (!s) {
			s = [];
			for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
				s.push(byId.get(cur)!.callFrame);
			stackCache.set(id, s);
		}
		return s;
	};
	const categoryMs = new Map<string, number>();
	const selfMs = new Map<string, number>();
	const callerMs = new Map<string, number>();
	let t = p.startTime;
	let busy = 0;
	for (let i = 0; i < p.samples.length; i++) {
		t += p.timeDeltas[i];
		// Each sample stands for the time until the next one.
		const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
		if (t < fromUs || t > toUs) continue;
		const stack = stackOf(p.samples[i]);
		const category = CATEGORIES.find((c) => c.test(stack))!.name;
		categoryMs.set(category, (categoryMs.get(category) ?? 0) + dt);
		if (category === 'idle') continue;
		busy += dt;
		const key = short(stack[0]);
		selfMs.set(key, (selfMs.get(key) ?? 0) + dt);
		if (stack.some((f) => EXPRESSION.test(f.url))) {
			const inside = stack.findIndex((f) => EXPRESSION.test(f.url));
			const caller = stack.slice(inside).find((f) => !EXPRESSION_GLUE.test(f.url));
			const ck = caller ? short(caller) : '(no caller on the stack)';
			callerMs.set(ck, (callerMs.get(ck) ?? 0) + dt);
		}
	}
	const round = (x: number) => Math.round(x * 10) / 10;
	return {
		busyMs: round(busy),
		windowMs: round((toUs - fromUs) / 1000),
		byCategory: CATEGORIES.map((c) => ({
			name: c.name,
			ms: round(categoryMs.get(c.name) ?? 0),
		})).filter((c) => c.ms > 0),
		topSelf: [...selfMs.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, topN)
			.map(([fn, ms]) => ({ fn, ms: round(ms) })),
		isolateCallers: [...callerMs.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, 8)
			.map(([fn, ms]) => ({ fn, ms: round(ms) })),
	};
}
