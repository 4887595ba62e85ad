/**
 * Capacity as a real service has it: per-workspace limits (spec "Limits": the thresholds for pending
 * preparations, active analyses and the batch admission deadline are not shown, so they are settings), the
 * profiles that set them (`default`, and `strict`, small as production could be). The age of quotes is kept in quotes.ts.
 */
export interface WorkspaceLimits {
	/** Analyses running at once; a start beyond it is 422 ACTIVE_ANALYSIS_LIMIT, a batch item waits. */
	activeAnalysisLimit: number;
	/** Live preparations awaiting admission; one more is 409 PENDING_UPLOAD_LIMIT, a batch item waits. */
	pendingUploadLimit: number;
	/** Items of one batch admitted per worker tick (analyses: running at once); the others wait for capacity. */
	batchCapacity: number;
	/** How long a capacity-limited batch item may wait (sandbox clock) before it fails with its errorCode. */
	admissionDeadlineMs: number;
	/** A quote older than this (sandbox clock) is QUOTE_STALE at admission; 0 = only content and price make it stale. */
	quoteMaxAgeMs: number;
	/**
	 * How long an idempotency receipt is kept (sandbox clock); 0 = for ever. Once it is gone, the same key is a new
	 * write: what a client meets when it repeats a request later than the service keeps receipts.
	 */
	receiptLifetimeMs: number;
}

export const PROFILES = {
	/**
	 * Generous limits: nothing in an ordinary test waits, and nothing is forgotten that the test did not ask to be
	 * (receipts are kept for ever; sandbox/README.md, "Profiles and limits", says why).
	 */
	default: {
		activeAnalysisLimit: 50,
		pendingUploadLimit: 100,
		batchCapacity: 20,
		admissionDeadlineMs: 15 * 60_000,
		quoteMaxAgeMs: 0,
		receiptLifetimeMs: 0,
	},
	/**
	 * Small limits, a short admission deadline, quotes that age and receipts kept 24 hours (the least a client may
	 * count on, docs/idempotency.md): what a client must cope with in production.
	 */
	strict: {
		activeAnalysisLimit: 10,
		pendingUploadLimit: 30,
		batchCapacity: 5,
		admissionDeadlineMs: 60_000,
		quoteMaxAgeMs: 10 * 60_000,
		receiptLifetimeMs: 24 * 3_600_000,
	},
} as const satisfies Record<string, WorkspaceLimits>;

export type ProfileName = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];
export const LIMIT_NAMES = Object.keys(PROFILES.default) as (keyof WorkspaceLimits)[];

/** The limits of a profile, with explicit settings on top. */
export function resolveLimits(
	profile: ProfileName = 'default',
	overrides: Partial<WorkspaceLimits> = {},
): WorkspaceLimits {
	const base = PROFILES[profile];
	if (!base)
		throw new Error(`unknown sandbox profile "${profile}" (known: ${PROFILE_NAMES.join(', ')})`);
	const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
	return { ...base, ...defined };
}
