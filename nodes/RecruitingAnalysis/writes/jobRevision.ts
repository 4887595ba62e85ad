/**
 * A saved job revised since its report was made: a re-run that gets an existing report back (by receipt or by
 * reference) analysed the job as it was then. The item says so, instead of a silent merge. The job's `updatedAt`
 * (GET /api/v1/job-descriptions/{id}, once per job per run) later than the report's `createdAt` means the report
 * predates the job's current revision; a report made in this run never does.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { RunSlot } from '../floor/runState';
import { apiPath } from '../transport';
import { api } from '../transport/api';
import { outcomeOf } from '../transport/conditions';

const jobsRead = new RunSlot(
	'saved jobs read',
	() => new Map<string, Promise<IDataObject | undefined>>(),
);

/** The saved job an item analyses against, when the user chose one without an Expected Revision. */
function unpinnedSavedJob(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const source = ctx.getNodeParameter('jobDescriptionSource', itemIndex, '') as string;
	if (source !== 'existing') return undefined;
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const pinned = options?.expectedRevision ?? '';
	if (typeof pinned === 'string' && pinned.trim() !== '') return undefined;
	const raw = ctx.getNodeParameter('jobDescriptionId', itemIndex, '') as unknown;
	const id = typeof raw === 'object' && raw !== null ? (raw as IDataObject).value : raw;
	return typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined;
}

/** `{ jobRevisedSinceReport: true, jobUpdatedAt }` when the item's saved job changed after `reportCreatedAt`. */
export async function jobRevisionSince(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportCreatedAt: unknown,
): Promise<IDataObject> {
	const jobId = unpinnedSavedJob(ctx, itemIndex);
	const created = Date.parse(String(reportCreatedAt ?? ''));
	if (jobId === undefined || !Number.isFinite(created)) return {};
	const cache = jobsRead.of(ctx);
	let job = cache.get(jobId);
	if (!job) {
		// A job that cannot be read (a key without job-descriptions:read) leaves the output as it was.
		job = outcomeOf(
			async () =>
				await api(ctx, {
					method: 'GET',
					path: apiPath('/api/v1/job-descriptions/{}', jobId),
					itemIndex,
				}),
		).then((read) => (read.ok ? read.value : undefined));
		cache.set(jobId, job);
	}
	const updated = Date.parse(String((await job)?.updatedAt ?? ''));
	if (!Number.isFinite(updated) || updated <= created) return {};
	return { jobRevisedSinceReport: true, jobUpdatedAt: (await job)?.updatedAt };
}
