import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api, hasApiCondition } from '../../transport';
import { quoteAnalysis, waitOutCapacity } from '../../engine/capacity';
import { noticesForReport } from '../../engine/notices';
import type { Run } from '../../engine/run';
import { writeIdempotencyKey, type WriteChoice } from '../../writes/identity';
import { jobRevisionSince } from '../../writes/jobRevision';
import { recoverWrite } from '../../writes/recover';
import { creditsOf } from '../../writes/spending';
import { sendChargedWrite, type QuoteChoice } from '../common/chargedWrite';
import { simplifyReport, simplifyReportResult } from '../common/descriptions';
import { optionsParam } from '../common/params';

/** Under a user key the first start is step "start" (writes/identity.ts USER_KEY_STEPS); a requote is its own write. */
export const REQUOTE_STEP = 'requote';

// The report's status when it has an attempt this start must not repeat (a failed one may, with a New Attempt
// Label). Without reports:read the API's own ANALYSIS_ALREADY_STARTED still refuses a second start.
export async function existingAttempt(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	write: WriteChoice,
	known?: IDataObject,
): Promise<IDataObject | undefined> {
	const status =
		known ??
		(await api(ctx, {
			method: 'GET',
			path: apiPath('/api/v1/reports/{}/status', reportId),
			itemIndex,
		}).catch((error: unknown) => {
			if (hasApiCondition(error, 'FORBIDDEN')) return undefined;
			throw error;
		}));
	if (status?.attemptId === null || status?.attemptId === undefined) return undefined;
	if (status.status === 'failed' && write.attemptLabel) return undefined;
	return status;
}

/** A labelled attempt is the report and its label, not the quote, so running it again never makes a third. */
export function startIdentity(
	reportId: string,
	fingerprint: string | undefined,
	write: WriteChoice,
): unknown[] {
	return write.attemptLabel ? [reportId] : [reportId, fingerprint];
}

/** POST /api/v1/analyses under the key of report and quote: a new quote after QUOTE_STALE is a new start. */
export async function startAnalysis(
	ctx: IExecuteFunctions,
	run: Run,
	itemIndex: number,
	reportId: string,
	how: { choice: QuoteChoice; write: WriteChoice; requoteStep?: string; checkExisting?: boolean },
): Promise<IDataObject> {
	const { choice, write, requoteStep = REQUOTE_STEP, checkExisting = true } = how;
	const existing = { kind: 'analysis' as const, reportId };
	if (checkExisting && (await existingAttempt(ctx, itemIndex, reportId, write)))
		return await recoverWrite(ctx, run, itemIndex, existing, 'ANALYSIS_ALREADY_STARTED');
	const post = async (fingerprint: string, requoted: boolean) =>
		await api(ctx, {
			method: 'POST',
			path: '/api/v1/analyses',
			body: { reportId, quoteFingerprint: fingerprint },
			idempotencyKey: writeIdempotencyKey(
				write,
				'analysis.start',
				startIdentity(reportId, fingerprint, write),
				requoted ? requoteStep : undefined,
			),
			itemIndex,
		});
	const { result, quote } = await sendChargedWrite(ctx, run, itemIndex, {
		what: 'analysis',
		existing,
		choice,
		quote: async (again) =>
			again
				? await quoteAnalysis(ctx, itemIndex, reportId)
				: await run.quotes.quote(itemIndex, reportId),
		send: async (fingerprint, requoted) =>
			await waitOutCapacity(
				ctx,
				itemIndex,
				async () => await post(fingerprint, requoted),
				run.reportWaiter(),
			),
	});
	if (!quote || result.recovered === true) return result;
	const { creditUnits, creditScale, reportSystemVersion } = quote;
	return {
		...result,
		quote: { creditUnits, creditScale, reportSystemVersion },
		creditsQuoted: creditsOf(quote) ?? null,
	};
}

/** Wait for Completion is a field of Analyze Resume (on by default) and an option of Start. */
export function readWaitSettings(ctx: IExecuteFunctions, itemIndex: number, waitIsField = false) {
	const options = optionsParam(ctx, itemIndex);
	const waitOutput = (options.waitOutput ?? 'summary') as 'summary' | 'result' | 'simplifiedResult';
	return {
		waitForCompletion: waitIsField
			? ctx.getNodeParameter('waitForCompletion', itemIndex, true) === true
			: options.waitForCompletion === true,
		waitTimeout:
			typeof options.waitTimeout === 'number' && options.waitTimeout > 0
				? options.waitTimeout
				: 300,
		waitOutput: readSimplify(ctx, itemIndex) ? ('simplified' as const) : waitOutput,
	};
}

export function readSimplify(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return ctx.getNodeParameter('simplify', itemIndex, false) === true;
}

/** A report's summary, or its result (schema version 1, the only one). */
export async function readReport(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	part: 'summary' | 'result' = 'summary',
): Promise<IDataObject> {
	const result = part === 'result';
	return await api(ctx, {
		method: 'GET',
		path: apiPath(result ? '/api/v1/reports/{}/result' : '/api/v1/reports/{}', reportId),
		qs: result ? { schemaVersion: '1' } : undefined,
		itemIndex,
	});
}

/** The result exists only for a completed report; a summary a list page already showed is not read again. */
export async function readSimplifiedReport(
	ctx: IExecuteFunctions,
	run: Run,
	itemIndex: number,
	reportId: string,
	fileName: unknown,
	known: { status?: string; summary?: IDataObject | Promise<IDataObject | undefined> } = {},
): Promise<IDataObject> {
	const [summary, result] = await Promise.all([
		Promise.resolve(known.summary).then(
			async (listed) => listed ?? (await readReport(ctx, itemIndex, reportId)),
		),
		known.status === undefined || known.status === 'completed'
			? readReport(ctx, itemIndex, reportId, 'result')
			: Promise.resolve(null),
	]);
	const simplified = {
		...simplifyReport({ reportId, fileName, summary, result }),
		...(await jobRevisionSince(ctx, run, itemIndex, summary?.createdAt)),
	};
	noticesForReport(run, simplified, { limitations: true });
	return simplified;
}

// The wait is the run's shared one, so the callers hand it over as a Later and it does not hold their lane. On timeout
// the last status is output (timedOut): elapsed time proves nothing about the report.
export async function waitForStarted(
	ctx: IExecuteFunctions,
	run: Run,
	itemIndex: number,
	reportId: string,
	started: IDataObject,
	{ waitTimeout, waitOutput }: ReturnType<typeof readWaitSettings>,
	fileName: unknown,
	kept: IDataObject = {},
): Promise<IDataObject> {
	const recovered = started.recovered === true;
	const waiter = run.reportWaiter();
	const { status, summary, timedOut } = await waiter.wait(
		reportId,
		itemIndex,
		waitTimeout,
		!recovered,
	);
	// A recovered start says so after waiting too.
	const after = {
		timedOut,
		...(recovered ? { recovered, recoveredFrom: started.recoveredFrom } : {}),
		...kept,
	};
	const read = async (part?: 'result') =>
		await waiter.read(async () => await readReport(ctx, itemIndex, reportId, part));
	if (waitOutput === 'simplified') {
		if (timedOut) return { ...simplifyReport({ reportId, fileName, status }), ...after };
		const known = { status: String(status.status), summary };
		const simplified = await waiter.read(
			async () => await readSimplifiedReport(ctx, run, itemIndex, reportId, fileName, known),
		);
		return { ...simplified, ...after };
	}
	if (timedOut) return { reportId, ...status, ...after };
	noticesForReport(run, status);
	if (waitOutput === 'summary') {
		const report = summary ?? (await read());
		noticesForReport(run, report);
		// `reportId` as in every other output of the analysis operations (the summary names it `id`).
		return { reportId, ...report, ...after };
	}
	const result = await read('result');
	noticesForReport(run, result, { limitations: true });
	const output = waitOutput === 'simplifiedResult' ? simplifyReportResult(result) : result;
	return { ...output, ...after };
}
