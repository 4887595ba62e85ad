// A re-run that gets an existing report back analysed the job as it was then: the item says so, not a silent merge.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api } from '../transport';
import type { WriteRun } from './spending';

function unpinnedSavedJob(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	if (ctx.getNodeParameter('jobDescriptionSource', itemIndex, '') !== 'existing') return undefined;
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const pinned = options.expectedRevision ?? '';
	if (typeof pinned === 'string' && pinned.trim() !== '') return undefined;
	const raw = ctx.getNodeParameter('jobDescriptionId', itemIndex, '') as unknown;
	const id = typeof raw === 'object' && raw !== null ? (raw as IDataObject).value : raw;
	return typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined;
}

export async function jobRevisionSince(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	reportCreatedAt: unknown,
): Promise<IDataObject> {
	const jobId = unpinnedSavedJob(ctx, itemIndex);
	const created = Date.parse(String(reportCreatedAt ?? ''));
	if (jobId === undefined || !Number.isFinite(created)) return {};
	let reading = run.jobsRead.get(jobId);
	if (!reading) {
		// A job that cannot be read (a key without job-descriptions:read) leaves the output as it was.
		reading = api(ctx, {
			method: 'GET',
			path: apiPath('/api/v1/job-descriptions/{}', jobId),
			itemIndex,
		}).catch(() => undefined);
		run.jobsRead.set(jobId, reading);
	}
	const job = await reading;
	const updated = Date.parse(String(job?.updatedAt ?? ''));
	if (!Number.isFinite(updated) || updated <= created) return {};
	return { jobRevisedSinceReport: true, jobUpdatedAt: job?.updatedAt };
}
