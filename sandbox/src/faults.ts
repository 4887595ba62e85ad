/**
 * Fault injection for /api/v1 and /_storage (reliability tests and benchmarks).
 * Modes: `before` answers the fault status without processing; `commit-then-drop` processes and commits
 * the request, then destroys the socket without a response; `latency` delays the response.
 * Random choices use a seeded generator so a run is reproducible.
 */
import { badRequest } from './errors';
import { Validator } from './validation';

export interface FaultRule {
	method?: string;
	/** Route template (`/api/v1/reports/{id}`) or a URL path prefix. */
	path?: string;
	status?: number;
	rate: number;
	retryAfterSeconds?: number;
	mode: 'before' | 'commit-then-drop' | 'latency';
	/** How many times the rule may fire (unlimited when absent). */
	count?: number;
	/** Latency of a `latency` rule (defaults to the global latencyMs). */
	latencyMs?: number;
	fired: number;
	/** Requests a `latency` rule holds in its delay right now, and the most it has held at once: how many requests
	 * a client had in flight on that route, measured by the server (no wall clock involved). */
	heldNow: number;
	heldMax: number;
	/** A `latency` rule with `gather` releases the requests it holds together as soon as this many are held (plus
	 * GATHER_GRACE_MS, so that requests beyond it already in flight are counted too), or each when its latency runs
	 * out: a concurrency measurement that waits for the client instead of guessing how fast the machine is. */
	gather?: number;
}

/** How long a gathering rule keeps holding once `gather` requests are held, to count any others in flight. */
export const GATHER_GRACE_MS = 50;

export interface FaultDecision {
	before?: { status: number; retryAfterSeconds?: number };
	drop: boolean;
	delayMs: number;
	/** The `latency` rules that fired for this request (their held counts go up for the delay). */
	held: FaultRule[];
}

/** Deterministic pseudo-random source (mulberry32): a seeded run is reproducible. */
export function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export class Faults {
	latencyMs = 0;
	rules: FaultRule[] = [];
	private random: () => number = Math.random;
	/** The release functions of the requests each gathering rule holds now. */
	private readonly waiting = new WeakMap<FaultRule, Set<() => void>>();

	configure(body: unknown): { latencyMs: number; rules: FaultRule[] } {
		const v = new Validator();
		const o = v.object('', body ?? {}, ['latencyMs', 'rules', 'seed']) ?? {};
		const latencyMs =
			v.integer('latencyMs', o.latencyMs, { required: false, min: 0, max: 600_000 }) ?? 0;
		const seed = v.integer('seed', o.seed, { required: false });
		const rules: FaultRule[] = [];
		if (o.rules !== undefined && !Array.isArray(o.rules)) v.add('rules', 'type_array');
		for (const [i, r] of ((Array.isArray(o.rules) ? o.rules : []) as unknown[]).entries()) {
			const f = `rules[${i}]`;
			const ro = v.object(f, r, [
				'method',
				'path',
				'status',
				'rate',
				'retryAfterSeconds',
				'mode',
				'count',
				'latencyMs',
				'gather',
			]);
			if (!ro) continue;
			const mode = (ro.mode ?? 'before') as FaultRule['mode'];
			if (!['before', 'commit-then-drop', 'latency'].includes(mode)) v.add(`${f}.mode`, 'enum');
			if (ro.gather !== undefined && mode !== 'latency')
				v.add(`${f}.gather`, 'only_with_mode_latency');
			const rate = ro.rate === undefined ? 1 : ro.rate;
			if (typeof rate !== 'number' || rate < 0 || rate > 1) v.add(`${f}.rate`, 'range_0_1');
			rules.push({
				method: v.string(`${f}.method`, ro.method, { required: false })?.toUpperCase(),
				path: v.string(`${f}.path`, ro.path, { required: false }),
				status: v.integer(`${f}.status`, ro.status, { required: false, min: 400, max: 599 }),
				rate: rate as number,
				retryAfterSeconds: v.integer(`${f}.retryAfterSeconds`, ro.retryAfterSeconds, {
					required: false,
					min: 1,
				}),
				mode,
				count: v.integer(`${f}.count`, ro.count, { required: false, min: 1 }),
				latencyMs: v.integer(`${f}.latencyMs`, ro.latencyMs, { required: false, min: 0 }),
				gather: v.integer(`${f}.gather`, ro.gather, { required: false, min: 1, max: 10_000 }),
				fired: 0,
				heldNow: 0,
				heldMax: 0,
			});
		}
		if (!v.ok) throw badRequest(v.issues);
		this.latencyMs = latencyMs;
		this.rules = rules;
		this.random = seed === undefined ? Math.random : mulberry32(seed);
		return { latencyMs, rules };
	}

	/**
	 * Holds a request for its decision's delay, counting it in each `latency` rule that fired (heldNow, heldMax); a
	 * gathering rule lets it go early, together with the others it holds, once `gather` of them are held.
	 */
	async hold(d: FaultDecision): Promise<void> {
		if (d.delayMs <= 0 && d.held.length === 0) return;
		for (const rule of d.held) {
			rule.heldNow += 1;
			rule.heldMax = Math.max(rule.heldMax, rule.heldNow);
		}
		const gathering = d.held.filter((rule) => rule.gather !== undefined);
		await new Promise<void>((resolve) => {
			const release = () => {
				clearTimeout(timer);
				for (const rule of gathering) this.waiting.get(rule)?.delete(release);
				resolve();
			};
			const timer = setTimeout(release, d.delayMs);
			for (const rule of gathering) {
				const waiting = this.waiting.get(rule) ?? new Set<() => void>();
				this.waiting.set(rule, waiting);
				waiting.add(release);
				if (rule.heldNow >= (rule.gather ?? 0))
					setTimeout(() => [...waiting].forEach((go) => go()), GATHER_GRACE_MS);
			}
		});
		for (const rule of d.held) rule.heldNow -= 1;
	}

	clear(): void {
		this.latencyMs = 0;
		this.rules = [];
		this.random = Math.random;
	}

	decide(method: string, route: string, urlPath: string): FaultDecision {
		const d: FaultDecision = { drop: false, delayMs: this.latencyMs, held: [] };
		for (const rule of this.rules) {
			if (rule.method && rule.method !== method) continue;
			if (rule.path && rule.path !== route && !urlPath.startsWith(rule.path)) continue;
			if (rule.count !== undefined && rule.fired >= rule.count) continue;
			if (this.random() >= rule.rate) continue;
			rule.fired += 1;
			if (rule.mode === 'latency') {
				d.delayMs += rule.latencyMs ?? (this.latencyMs || 1000);
				d.held.push(rule);
			} else if (rule.mode === 'commit-then-drop') d.drop = true;
			else if (!d.before)
				d.before = { status: rule.status ?? 503, retryAfterSeconds: rule.retryAfterSeconds };
		}
		return d;
	}
}
