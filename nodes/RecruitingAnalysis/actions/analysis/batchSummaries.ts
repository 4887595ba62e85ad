import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiErrorInfo } from '../../transport';
import { mapWithConcurrency, TERMINAL_REPORT_STATES } from '../../engine/capacity';
import { noticesForReport } from '../../engine/notices';
import { optionsParam, withoutKeys } from '../common/params';
import { simplifyReport } from '../common/descriptions';
import type { ChargedChunk } from '../common/chargedBatch';
import { readReport, readSimplifiedReport, readSimplify } from './startAnalysis';

const REPORT_READ_CONCURRENCY = 10;

/** An analysis batch completes only once every admitted analysis is terminal, so what is read here is final. */
export async function readReportSummaries(
	this: IExecuteFunctions,
	chunk: ChargedChunk,
): Promise<ChargedChunk> {
	if (readSimplify(this, chunk.itemIndexes[0])) return await simplifyChunk(this, chunk);
	const started = chunk.started ?? [];
	if (started.length === 0 || optionsParam(this, started[0].itemIndex).includeReport !== true)
		return chunk;
	await mapWithConcurrency(started, REPORT_READ_CONCURRENCY, async (entry) => {
		const report = await readReport(this, entry.itemIndex, entry.reportId);
		noticesForReport(chunk.run, report);
		(chunk.outcomes[entry.position] as IDataObject).report = report;
	});
	return chunk;
}

const NOT_BATCH_FACTS = ['state', 'report', 'reportId', 'fileName', 'attemptId', 'status', 'code'];

function withBatchFacts(simplified: IDataObject, outcome: IDataObject): IDataObject {
	const { state, attemptId, status, code } = outcome;
	const batchFacts = withoutKeys(outcome, NOT_BATCH_FACTS);
	// The report as just read wins; what a recovery read earlier fills in only what could not be read.
	const reportStatus = simplified.status ?? status ?? null;
	return {
		...simplified,
		status: reportStatus,
		needsReview: reportStatus === 'requires_action',
		code: simplified.code ?? code ?? null,
		attemptId: simplified.attemptId ?? attemptId ?? null,
		analysisState: state ?? null,
		...batchFacts,
	};
}

const analyzedReportId = (outcome: IDataObject | Error): string | null =>
	!(outcome instanceof Error) &&
	(outcome.state === 'succeeded' || outcome.recovered === true) &&
	typeof outcome.reportId === 'string'
		? outcome.reportId
		: null;

async function simplifyChunk(ctx: IExecuteFunctions, chunk: ChargedChunk): Promise<ChargedChunk> {
	const analyzed = chunk.outcomes.map(analyzedReportId);
	const ids = analyzed.filter((id): id is string => id !== null);
	// One list page (the newest 100, where a chunk just analyzed is) gives the summaries; the rest is read alone.
	const listed =
		ids.length === 0
			? Promise.resolve(new Map<string, IDataObject>())
			: chunk.run.reportPages
					.summaries(chunk.itemIndexes[0], ids)
					.catch(() => new Map<string, IDataObject>());
	const positions = chunk.itemIndexes.map((itemIndex, position) => ({ itemIndex, position }));
	await mapWithConcurrency(positions, REPORT_READ_CONCURRENCY, async ({ itemIndex, position }) => {
		const outcome = chunk.outcomes[position];
		if (outcome instanceof Error) return;
		const fileName = outcome.fileName ?? ctx.getInputData()[itemIndex]?.json?.fileName;
		const reportId = analyzed[position];
		if (reportId === null) {
			const unread = typeof outcome.reportId === 'string' ? outcome.reportId : null;
			const simplified = simplifyReport({ reportId: unread, fileName });
			chunk.outcomes[position] = withBatchFacts(simplified, outcome);
			return;
		}
		// The list page is read while the results are: a report it shows final needs no summary read of its own.
		const known = listed.then((summaries) => {
			const summary = summaries.get(reportId);
			return summary && TERMINAL_REPORT_STATES.includes(String(summary.status))
				? summary
				: undefined;
		});
		const simplified = await readSimplifiedReport(ctx, chunk.run, itemIndex, reportId, fileName, {
			summary: known,
		}).catch((error: unknown) => {
			// The analyses are charged by now: a key without reports:read must not fail the run, or a re-run submits again.
			if (apiErrorInfo(error)?.status !== 403) throw error;
			chunk.run.addNotice('reportsNotReadable');
			return simplifyReport({ reportId, fileName });
		});
		chunk.outcomes[position] = withBatchFacts(simplified, outcome);
	});
	return chunk;
}

export const includeReportOption = {
	displayName: 'Include Report Summary',
	name: 'includeReport',
	type: 'boolean' as const,
	default: false,
	description:
		"Whether to add each report's summary (status, score, summary) once its batch has completed. Needs the reports:read scope.",
	displayOptions: { hide: { '/simplify': [true] } },
};
