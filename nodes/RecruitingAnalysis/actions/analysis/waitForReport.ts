import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import { waiterFor } from '../../engine/capacity';
import { noticesForReport } from '../../floor/notices';
import { jobRevisionSince } from '../../writes/jobRevision';
import { simplifyReport, simplifyReportResult } from '../common/simplify';

export interface WaitSettings {
	waitForCompletion: boolean;
	waitTimeout: number;
	waitOutput: 'simplified' | 'summary' | 'result' | 'simplifiedResult';
}

export function readSimplify(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return ctx.getNodeParameter('simplify', itemIndex, false) === true;
}

export function readWaitSettings(options: IDataObject, simplify = false): WaitSettings {
	return {
		waitForCompletion: options.waitForCompletion === true,
		waitTimeout:
			typeof options.waitTimeout === 'number' && options.waitTimeout > 0
				? options.waitTimeout
				: 300,
		waitOutput: simplify
			? 'simplified'
			: ((options.waitOutput as WaitSettings['waitOutput']) ?? 'summary'),
	};
}

/** The result exists only for a completed report; a summary a list page already showed is not read again. */
export async function readSimplifiedReport(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	fileName: unknown,
	knownStatus?: string,
	knownSummary?: IDataObject | Promise<IDataObject | undefined>,
): Promise<IDataObject> {
	const readSummary = async () =>
		await api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}', reportId), itemIndex });
	const [summary, result] = await Promise.all([
		Promise.resolve(knownSummary).then(async (known) => known ?? (await readSummary())),
		knownStatus === undefined || knownStatus === 'completed'
			? api(ctx, {
					method: 'GET',
					path: apiPath('/api/v1/reports/{}/result', reportId),
					qs: { schemaVersion: '1' },
					itemIndex,
				})
			: Promise.resolve(null),
	]);
	const simplified = {
		...simplifyReport({ reportId, fileName, summary, result }),
		...(await jobRevisionSince(ctx, itemIndex, summary?.createdAt)),
	};
	noticesForReport(ctx, simplified, { limitations: true });
	return simplified;
}

/** On timeout the last status is output (timedOut): elapsed time proves nothing about the report. */
export async function waitForReport(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	settings: WaitSettings,
	justStarted = true,
	fileName?: unknown,
): Promise<IDataObject> {
	const waiter = waiterFor(ctx);
	const {
		status,
		summary: listed,
		timedOut,
	} = await waiter.wait(reportId, itemIndex, settings.waitTimeout, justStarted);
	if (timedOut) {
		if (settings.waitOutput === 'simplified')
			return { ...simplifyReport({ reportId, fileName, status }), timedOut: true };
		return { reportId, ...status, timedOut: true };
	}
	if (settings.waitOutput === 'simplified') {
		const simplified = await waiter.read(
			async () =>
				await readSimplifiedReport(
					ctx,
					itemIndex,
					reportId,
					fileName,
					String(status.status),
					listed ?? undefined,
				),
		);
		return { ...simplified, timedOut: false };
	}
	noticesForReport(ctx, status);
	if (settings.waitOutput === 'summary') {
		const summary =
			listed ??
			(await waiter.read(
				async () =>
					await api(ctx, {
						method: 'GET',
						path: apiPath('/api/v1/reports/{}', reportId),
						itemIndex,
					}),
			));
		noticesForReport(ctx, summary);
		// `reportId` as in every other output of the analysis operations (the summary names it `id`).
		return { reportId, ...summary, timedOut: false };
	}
	const result = await waiter.read(
		async () =>
			await api(ctx, {
				method: 'GET',
				path: apiPath('/api/v1/reports/{}/result', reportId),
				qs: { schemaVersion: '1' },
				itemIndex,
			}),
	);
	noticesForReport(ctx, result, { limitations: true });
	const output = settings.waitOutput === 'simplifiedResult' ? simplifyReportResult(result) : result;
	return { ...output, timedOut: false };
}
