/**
 * A saved job revised since its report was made (writes/jobRevision.ts): a re-run that gets an existing report back
 * says so instead of a silent merge; a pinned revision, inline text or an unreadable job add nothing.
 */
import type { IDataObject } from 'n8n-workflow';

import { jobRevisionSince } from '../../../nodes/RecruitingAnalysis/writes/jobRevision';
import { apiError, fakeContext, ok } from '../../helpers/fakes';
import { runOf } from '../engine/runOf';

const CREATED = '2026-11-20T10:00:00.000Z';

function savedJob(updatedAt: string | undefined, parameters: IDataObject = {}) {
	return fakeContext(() => ok({ id: 'job_1', ...(updatedAt ? { updatedAt } : {}) }), {
		jobDescriptionSource: 'existing',
		jobDescriptionId: 'job_1',
		...parameters,
	});
}

describe('a saved job revised since the report', () => {
	it('revised after the report was made: the item says so, with when', async () => {
		const { ctx, requests } = savedJob('2026-11-21T08:00:00.000Z');
		expect(await jobRevisionSince(ctx, runOf(ctx), 0, CREATED)).toEqual({
			jobRevisedSinceReport: true,
			jobUpdatedAt: '2026-11-21T08:00:00.000Z',
		});
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /api/v1/job-descriptions/job_1',
		]);
	});

	it('revised at the same moment or before: nothing to say', async () => {
		expect(
			await jobRevisionSince(savedJob(CREATED).ctx, runOf(savedJob(CREATED).ctx), 0, CREATED),
		).toEqual({});
		expect(
			await jobRevisionSince(
				savedJob('2026-11-19T00:00:00.000Z').ctx,
				runOf(savedJob('2026-11-19T00:00:00.000Z').ctx),
				0,
				CREATED,
			),
		).toEqual({});
		expect(
			await jobRevisionSince(savedJob(undefined).ctx, runOf(savedJob(undefined).ctx), 0, CREATED),
		).toEqual({});
	});

	it('is read once per job per run, however many items name it', async () => {
		const { ctx, requests } = savedJob('2026-11-21T08:00:00.000Z');
		await jobRevisionSince(ctx, runOf(ctx), 0, CREATED);
		expect(await jobRevisionSince(ctx, runOf(ctx), 1, CREATED)).toMatchObject({
			jobRevisedSinceReport: true,
		});
		expect(requests).toHaveLength(1);
	});

	it('a job chosen from the list or by a padded id is the same job', async () => {
		const listed = savedJob('2026-11-21T08:00:00.000Z', {
			jobDescriptionId: { __rl: true, mode: 'list', value: ' job_1 ' },
		});
		expect(await jobRevisionSince(listed.ctx, runOf(listed.ctx), 0, CREATED)).toMatchObject({
			jobRevisedSinceReport: true,
		});
		expect(listed.requests[0].path).toBe('/api/v1/job-descriptions/job_1');
	});

	it('a job that cannot be read leaves the output as it was', async () => {
		const { ctx } = fakeContext(() => apiError(403, 'FORBIDDEN'), {
			jobDescriptionSource: 'existing',
			jobDescriptionId: 'job_1',
		});
		expect(await jobRevisionSince(ctx, runOf(ctx), 0, CREATED)).toEqual({});
	});

	it.each([
		[
			'a pinned Expected Revision',
			{ options: { expectedRevision: '2026-11-01T00:00:00Z' } },
			CREATED,
		],
		['inline job text', { jobDescriptionSource: 'inline' }, CREATED],
		['no job id', { jobDescriptionId: '  ' }, CREATED],
		['a job id that is not text', { jobDescriptionId: { value: 7 } }, CREATED],
		['an empty job id', { jobDescriptionId: null }, CREATED],
		['a report without a readable creation time', {}, 'yesterday'],
		['a report without a creation time', {}, undefined],
	])('with %s: nothing is read and nothing said', async (_name, parameters, createdAt) => {
		const { ctx, requests } = savedJob('2026-11-21T08:00:00.000Z', parameters);
		expect(await jobRevisionSince(ctx, runOf(ctx), 0, createdAt)).toEqual({});
		expect(requests).toHaveLength(0);
	});

	it('a blank Expected Revision is no pin: the job is read', async () => {
		const { ctx } = savedJob('2026-11-21T08:00:00.000Z', { options: { expectedRevision: '  ' } });
		expect(await jobRevisionSince(ctx, runOf(ctx), 0, CREATED)).toMatchObject({
			jobRevisedSinceReport: true,
		});
	});
});
