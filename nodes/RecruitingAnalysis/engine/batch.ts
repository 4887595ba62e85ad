import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod';

import { apiPath, api, outcomeOf, poll } from '../transport';
import { REASON_HINTS } from '../transport/errors';
import { validateBatch } from '../validation';
import { existsCondition, isNothingToRecover } from '../writes/recover';
import { reserveCredits, wasRefused, type Reservation } from '../writes/spending';
import { countBatch, settleBatchItem } from '../writes/spending';
import { waitOutCapacity } from './capacity';
import type { ChunkState, Run } from './run';
import { BATCH_POLL_INITIAL_MS } from './batchTiming';

export type BatchKind = 'uploads' | 'analyses' | 'interviews';

const BATCH_PATHS: Record<BatchKind, string> = {
	uploads: '/api/v1/upload-batches',
	analyses: '/api/v1/analysis-batches',
	interviews: '/api/v1/interview-batches',
};

export interface BatchItem extends IDataObject {
	itemKey: string;
	state: string;
	resourceId: string;
	attemptId: string | null;
	errorCode: string | null;
}

export interface Batch extends IDataObject {
	id: string;
	status: string;
	items: BatchItem[];
}

export const itemKeyFor = (itemIndex: number): string => `item-${itemIndex}`;

export async function getBatch(
	ctx: IExecuteFunctions,
	kind: BatchKind,
	batchId: string,
	itemIndex: number,
): Promise<Batch> {
	const path = apiPath(`${BATCH_PATHS[kind]}/{}`, batchId);
	return (await api(ctx, { method: 'GET', path, itemIndex })) as unknown as Batch;
}

export async function createBatch(
	ctx: IExecuteFunctions,
	kind: BatchKind,
	body: IDataObject,
	idempotencyKey: string,
	itemIndex: number,
): Promise<{ batchId: string; statusUrl?: string; apiDateMs?: number }> {
	// BATCH_ALREADY_ACTIVE (an earlier run's batch still running) is waited out like a capacity refusal; it created nothing.
	const apiTime: { dateMs?: number } = {};
	const path = BATCH_PATHS[kind];
	const send = async () =>
		await api(ctx, { method: 'POST', path, body, idempotencyKey, itemIndex, apiTime });
	const created = (await waitOutCapacity(ctx, itemIndex, send, undefined, [
		'BATCH_ALREADY_ACTIVE',
	])) as unknown as { batchId: string; statusUrl?: string };
	return { ...created, apiDateMs: apiTime.dateMs };
}

// "completed" means every item terminal, not every item succeeded; one active batch of a kind per workspace.
export async function waitForBatch(
	ctx: IExecuteFunctions,
	run: Run,
	kind: BatchKind,
	batchId: string,
	itemIndex: number,
	timeoutSeconds: number,
): Promise<Batch> {
	const timing = kind === 'analyses' ? run.batchTiming : undefined;
	const answeredAt = Date.now();
	const offsets: number[] = [];
	const { value, timedOut } = await poll(ctx, {
		fetch: async (): Promise<Batch> => {
			offsets.push(Date.now() - answeredAt);
			return await getBatch(ctx, kind, batchId, itemIndex);
		},
		done: (batch: Batch) => batch.status === 'completed',
		timeoutSeconds,
		initialDelayMs: timing ? timing.stepMs() : BATCH_POLL_INITIAL_MS,
		maxDelayMs: 2000,
		firstReadDelayMs: timing ? timing.firstReadMs() : 0,
	});
	if (timedOut)
		throw new NodeOperationError(
			ctx.getNode(),
			`Batch ${batchId} did not complete within ${timeoutSeconds} seconds`,
			{
				itemIndex,
				description:
					'The batch is still processing and keeps running on the service. Read it later with the Get Batch operation of this resource; only one batch of a kind can be active at a time.',
			},
		);
	timing?.observe(offsets);
	run.addNotice('batchCompleted');
	return value;
}

export function batchItemFor(batch: Batch, itemIndex: number): BatchItem | undefined {
	return (batch.items ?? []).find((item) => item.itemKey === itemKeyFor(itemIndex));
}

export const batchTimeoutOption = {
	displayName: 'Batch Timeout (Seconds)',
	name: 'batchTimeout',
	type: 'number' as const,
	typeOptions: { minValue: 1, maxValue: 3600 },
	default: 600,
	description:
		'How long to wait at most for each batch of up to 20 items to complete. Only one batch of a kind can be active per workspace, so each chunk waits for the previous one.',
};

export function batchTimeout(options: IDataObject): number {
	const { batchTimeout: seconds } = options;
	return typeof seconds === 'number' && seconds > 0 ? seconds : 600;
}

export async function readChunk<T extends object>(
	chunk: ChunkState,
	read: (itemIndex: number) => T | Promise<T>,
): Promise<Array<T & { position: number; itemIndex: number }>> {
	const entries: Array<T & { position: number; itemIndex: number }> = [];
	for (const [position, itemIndex] of chunk.itemIndexes.entries()) {
		try {
			entries.push({ ...(await read(itemIndex)), position, itemIndex });
		} catch (error) {
			chunk.outcomes[position] = error as Error;
		}
	}
	return entries;
}

// The Date header has whole seconds: a batch created closer to it than this cannot be told from a new one.
export const REPLAY_MARGIN_MS = 1_000;

// Told by the API's clock alone; without both times (NaN compares false) it is not proven, so it counts.
export function isReplayedBatch(batch: Batch, apiDateMs: number | undefined): boolean {
	return Date.parse(String(batch.createdAt ?? '')) < (apiDateMs ?? NaN) - REPLAY_MARGIN_MS;
}

// Counted before the wait, so a timeout leaves them counted; only a proven earlier execution's batch charged nothing.
export async function awaitChargedBatch<T extends QuotedEntry>(
	ctx: IExecuteFunctions,
	run: Run,
	kind: BatchKind,
	created: { batchId: string; apiDateMs?: number },
	reserved: ReservedChunk<T>,
	itemIndex: number,
	timeoutSeconds: number,
): Promise<{ batch: Batch; earlierRun: boolean; replayed: boolean }> {
	const ownEarlier = reserved.sent(created.batchId);
	const batch = await waitForBatch(ctx, run, kind, created.batchId, itemIndex, timeoutSeconds);
	const earlierRun = !ownEarlier && isReplayedBatch(batch, created.apiDateMs);
	return { batch, earlierRun, replayed: ownEarlier || earlierRun };
}

// Codes a re-run cannot fix by submitting again: the file, report or invitation must change first.
export const FINAL_ITEM_CODES = [
	'INVALID_UPLOAD',
	'DOCUMENT_UNREADABLE',
	'HUMAN_REVIEW_REQUIRED',
	'ANALYSIS_NOT_USABLE',
	'INTERVIEW_NOT_ELIGIBLE',
	'JD_REVISION_CHANGED',
	'VALIDATION_FAILED',
	'PREPARATION_EXPIRED',
	'NOT_FOUND',
];

export const MAX_REPLAYED_BATCHES = 5;

export function refusalHint(errorCode: string | null): IDataObject {
	if (!errorCode) return {};
	const guidance = REASON_HINTS[errorCode] ? `${REASON_HINTS[errorCode]} ` : '';
	const next = FINAL_ITEM_CODES.includes(errorCode)
		? 'Running again does not change this item: it must change first.'
		: 'Once the cause is fixed, run again: the node submits this item again (a refused item is not charged).';
	return { hint: `${guidance}${next}` };
}

// A replayed batch's refused item charged nothing: it goes again unless the item itself must change.
export function refusedByEarlierRun(replayed: boolean, item: BatchItem | undefined): boolean {
	const errorCode = item?.errorCode;
	return (
		replayed && item?.state !== 'succeeded' && !!errorCode && !FINAL_ITEM_CODES.includes(errorCode)
	);
}

export interface QuotedEntry {
	position: number;
	itemIndex: number;
	fingerprint?: string;
	quote?: IDataObject;
}

export async function quoteBatchItems<T extends QuotedEntry>(
	ctx: IExecuteFunctions,
	path: string,
	schema: ZodType<unknown, ZodTypeDef, unknown>,
	entries: T[],
	input: (entry: T) => IDataObject,
): Promise<Array<{ entry: T; errorCode: string }>> {
	const toQuote = entries.filter((entry) => entry.fingerprint === undefined);
	if (toQuote.length === 0) return [];
	const first = toQuote[0].itemIndex;
	const body = {
		items: toQuote.map((entry) => ({ itemKey: itemKeyFor(entry.itemIndex), input: input(entry) })),
	};
	validateBatch.call(ctx, schema, body, first);
	const quotes = await api(ctx, { method: 'POST', path, body, itemIndex: first });
	const answered = (quotes.items ?? []) as IDataObject[];
	const notQuoted: Array<{ entry: T; errorCode: string }> = [];
	for (const entry of toQuote) {
		const quoted = answered.find((q) => q.itemKey === itemKeyFor(entry.itemIndex));
		const quote = quoted?.quote as IDataObject | null | undefined;
		if (quote && typeof quote.fingerprint === 'string') {
			entry.fingerprint = quote.fingerprint;
			entry.quote = quote;
		} else {
			const errorCode = (quoted?.errorCode as string | null | undefined) ?? 'NOT_QUOTED';
			notQuoted.push({ entry, errorCode });
		}
	}
	return notQuoted;
}

type ReservedChunk<T extends QuotedEntry> = ReturnType<typeof reserveChunk<T>>;

export function reserveChunk<T extends QuotedEntry>(
	ctx: IExecuteFunctions,
	chunk: ChunkState,
	entries: T[],
	what: string,
) {
	const reservations = new Map<T, Reservation>();
	const within = entries.filter((entry) => {
		try {
			reservations.set(entry, reserveCredits(ctx, chunk.run, entry.itemIndex, entry.quote, what));
			return true;
		} catch (error) {
			chunk.outcomes[entry.position] = error as Error;
			return false;
		}
	});
	let sentAs: string | undefined;
	return {
		entries: within,
		sent: (batchId: string): boolean => {
			sentAs = batchId;
			const items = [...reservations].map(([entry, reservation]) => ({
				itemKey: itemKeyFor(entry.itemIndex),
				reservation,
			}));
			return countBatch(ctx, chunk.run, batchId, items);
		},
		settle: (entry: T, charged: boolean) => {
			const reservation = reservations.get(entry);
			if (!reservation) return;
			if (sentAs !== undefined)
				settleBatchItem(ctx, chunk.run, sentAs, itemKeyFor(entry.itemIndex), reservation, charged);
			else if (charged) reservation.charged();
			else reservation.release();
		},
		settleAll: (charged: boolean) =>
			reservations.forEach((reservation) =>
				charged ? reservation.charged() : reservation.release(),
			),
	};
}

// IDEMPOTENCY_KEY_REUSED: an earlier run submitted the same batch with other quotes, so nothing was charged now.
export async function readBackReusedBatch<T extends QuotedEntry>(
	chunk: ChunkState,
	reserved: ReservedChunk<T>,
	error: unknown,
	key: string,
	replays: number,
	recover: (entry: T) => Promise<void>,
): Promise<{ refused: Array<{ entry: T; error: unknown }>; again: T[]; afterBatchId: string }> {
	if (existsCondition(error) !== 'IDEMPOTENCY_KEY_REUSED') {
		reserved.settleAll(!wasRefused(error));
		throw error;
	}
	reserved.settleAll(false);
	const refused: Array<{ entry: T; error: unknown }> = [];
	for (const entry of reserved.entries) {
		const read = await outcomeOf(async () => await recover(entry));
		if (read.ok) continue;
		if (isNothingToRecover(read.error)) refused.push({ entry, error: read.error });
		else chunk.outcomes[entry.position] = read.error as Error;
	}
	// Each refused item charged nothing, and the service itself refuses a second analysis of a report.
	const resubmit = refused.length > 0 && replays < MAX_REPLAYED_BATCHES;
	return {
		refused,
		again: resubmit ? refused.map(({ entry }) => ({ ...entry, fingerprint: undefined })) : [],
		afterBatchId: `reused-${key.slice(-16)}`,
	};
}
