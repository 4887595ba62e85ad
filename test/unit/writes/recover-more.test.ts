/**
 * Recovery of uploads, of analyses the API names no attempt for, and the explanation of an invitation the API
 * refuses because the report already has one (writes/recover.ts), with the fake transport of test/helpers/fakes.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { api } from '../../../nodes/RecruitingAnalysis/transport';
import {
	explainExistingInvitation,
	isNothingToRecover,
	recoverUpload,
	recoverWrite,
	tokenUnavailable,
} from '../../../nodes/RecruitingAnalysis/writes/recover';
import { wasRefused } from '../../../nodes/RecruitingAnalysis/writes/spending';
import { apiError, fakeContext, ok, postInvitation, type FakeAnswer } from '../../helpers/fakes';
import { runOf } from '../engine/runOf';

const reference = { source: 'n8n-file', id: 'ref-1' };
const report = (jobId: string | null, extra: IDataObject = {}) => ({
	id: 'rpt_1',
	status: 'completed',
	attemptId: 'att_1',
	code: null,
	jobDescription: { id: jobId },
	...extra,
});

function uploadConflict(reports: unknown[]) {
	return fakeContext((request): FakeAnswer =>
		request.method === 'POST'
			? apiError(409, 'CONFLICT', 'EXTERNAL_REFERENCE_CONFLICT')
			: ok({ items: reports, nextCursor: null }),
	);
}

const upload = (ctx: Parameters<typeof api>[0]) => async () =>
	await api(ctx, {
		method: 'POST',
		path: '/api/v1/uploads',
		body: {},
		idempotencyKey: 'k',
		itemIndex: 0,
	});

// As actions/upload/resumeUpload.ts does: a conflicting upload's report is read back by its file reference.
const uploadOrRecover = async (
	ctx: Parameters<typeof api>[0],
	write: Parameters<typeof recoverUpload>[2],
) =>
	await upload(ctx)().catch(
		async (error: unknown) =>
			await recoverUpload(ctx, 0, write, 'EXTERNAL_REFERENCE_CONFLICT', error),
	);

describe('an upload whose external reference exists already', () => {
	it('for the same saved job: the existing report is read back by its reference and output as recovered', async () => {
		const { ctx, requests } = uploadConflict([report('job_1')]);
		const write = {
			externalReference: reference,
			jobDescription: { kind: 'existing', id: 'job_1' },
		};
		expect(await uploadOrRecover(ctx, write)).toEqual({
			reportId: 'rpt_1',
			attemptId: 'att_1',
			status: 'completed',
			code: null,
			recovered: true,
			recoveredFrom: 'EXTERNAL_REFERENCE_CONFLICT',
		});
		expect(requests[1]).toMatchObject({
			method: 'GET',
			path: '/api/v1/reports',
			qs: {
				externalReferenceSource: 'n8n-file',
				externalReferenceId: 'ref-1',
				include: 'reference',
				limit: 1,
			},
		});
	});

	it('with inline job text: recovered only when the existing report has no saved job either', async () => {
		const write = {
			externalReference: reference,
			jobDescription: { kind: 'inline', text: 'Engineer' },
		};
		const inline = uploadConflict([report(null, { attemptId: undefined, code: 'X' })]);
		expect(await uploadOrRecover(inline.ctx, write)).toMatchObject({
			reportId: 'rpt_1',
			attemptId: null,
			code: 'X',
			recovered: true,
		});
		const noJob = uploadConflict([{ id: 'rpt_3', status: 'queued' }]);
		expect(await uploadOrRecover(noJob.ctx, write)).toMatchObject({
			reportId: 'rpt_3',
			recovered: true,
		});
		const saved = uploadConflict([report('job_1')]);
		await expect(uploadOrRecover(saved.ctx, write)).rejects.toMatchObject({
			httpCode: '409',
		});
	});

	it('for another job, or with no report to read: the conflict stays an error, never another job report', async () => {
		const write = {
			externalReference: reference,
			jobDescription: { kind: 'existing', id: 'job_2' },
		};
		const other = uploadConflict([report('job_1')]);
		const conflict = await uploadOrRecover(other.ctx, write).catch((e: unknown) => e);
		expect(conflict).toMatchObject({ httpCode: '409' });
		const none = uploadConflict([]);
		await expect(uploadOrRecover(none.ctx, write)).rejects.toMatchObject({
			httpCode: '409',
		});
		await expect(recoverUpload(none.ctx, 0, write, 'EXTERNAL_REFERENCE_CONFLICT')).rejects.toThrow(
			new Error('No report of this external reference to recover'),
		);
		const notAList = fakeContext(() => ok({ items: 'none' }));
		await expect(
			recoverUpload(notAList.ctx, 0, write, 'EXTERNAL_REFERENCE_CONFLICT'),
		).rejects.toThrow('No report of this external reference to recover');
	});
});

describe('an analysis the API says exists but names no attempt for', () => {
	it('after IDEMPOTENCY_KEY_REUSED: says the key was used for another request, that nothing was charged, and what to do', async () => {
		const { ctx } = fakeContext(() => ok({ id: 'rpt_2', status: 'queued', attemptId: null }));
		const error = (await recoverWrite(
			ctx,
			runOf(ctx),
			0,
			{ kind: 'analysis', reportId: 'rpt_2' },
			'IDEMPOTENCY_KEY_REUSED',
		).catch((e: unknown) => e)) as { message: string; description: string };
		expect(error.message).toBe('Report rpt_2 has no analysis to recover');
		expect(error.description).toBe(
			'The API refused the start because its Idempotency-Key was already used for a different request (another report or another quote). ' +
				'Report rpt_2 has no analysis attempt, so nothing was started or charged for it. ' +
				'If you set Options > Idempotency Key, give each report its own key (for example the application ID), or leave the option empty so the node names each write itself; then run again.',
		);
		expect(isNothingToRecover(error)).toBe(true);
	});

	it('after another exists answer: names that answer; an absent attempt counts as none', async () => {
		const { ctx } = fakeContext(() => ok({ id: 'rpt_2', status: 'queued' }));
		const error = (await recoverWrite(
			ctx,
			runOf(ctx),
			0,
			{ kind: 'analysis', reportId: 'rpt_2' },
			'ANALYSIS_ALREADY_STARTED',
		).catch((e: unknown) => e)) as { description: string };
		expect(error.description).toMatch(
			/^The API answered ANALYSIS_ALREADY_STARTED\. Report rpt_2 has no analysis attempt/,
		);
	});

	it('a found analysis without a code outputs code null', async () => {
		const { ctx } = fakeContext(() =>
			ok({ id: 'rpt_1', status: 'processing', attemptId: 'att_1' }),
		);
		expect(
			await recoverWrite(
				ctx,
				runOf(ctx),
				0,
				{ kind: 'analysis', reportId: 'rpt_1' },
				'ALREADY_ADMITTED',
			),
		).toMatchObject({ attemptId: 'att_1', code: null, recoveredFrom: 'ALREADY_ADMITTED' });
	});
});

describe('a recovered private link', () => {
	it('says in full why its token cannot be shown again and what a new link costs', () => {
		expect(tokenUnavailable('int_7')).toBe(
			'The invitation int_7 exists, but its private link token was returned only once, in the answer that was lost; ' +
				'the API cannot show it again. To give the candidate a new link, run Interview > Reinterview on this interview with Delivery "Private Link" ' +
				'(a new attempt with a new token; it uses interview allowance and the old link stops working).',
		);
	});
});

describe('an invitation read back without its delivery or report named', () => {
	it('is taken as the asked-for one: the API need not repeat what the key already names', async () => {
		const { ctx } = fakeContext(() =>
			ok({ items: [{ id: 'int_5', createdAt: '1', lifecycle: 'invited' }] }),
		);
		expect(
			await recoverWrite(
				ctx,
				runOf(ctx),
				0,
				{ kind: 'invitation', reportId: 'rpt_1', sendEmail: false },
				'IDEMPOTENCY_KEY_REUSED',
			),
		).toMatchObject({ interviewId: 'int_5', delivery: 'privateLink', recovered: true });
	});
});

describe('an analysis recovered as failed', () => {
	it('says a failed report needs a deliberate new attempt; a running one says nothing', async () => {
		const failed = fakeContext(() =>
			ok({ id: 'rpt_1', status: 'failed', attemptId: 'att_1', code: 'DOCUMENT_UNREADABLE' }),
		);
		await recoverWrite(
			failed.ctx,
			runOf(failed.ctx),
			0,
			{ kind: 'analysis', reportId: 'rpt_1' },
			'ALREADY_ADMITTED',
		);
		expect(failed.hints).toEqual([
			'A "failed" report needs a deliberate new attempt: inspect "code", then run Start with Options > New Attempt Label set (a new key and a current quote). Running again without a label gives the failed attempt back.',
		]);
		const running = fakeContext(() =>
			ok({ id: 'rpt_1', status: 'processing', attemptId: 'att_1' }),
		);
		await recoverWrite(
			running.ctx,
			runOf(running.ctx),
			0,
			{ kind: 'analysis', reportId: 'rpt_1' },
			'ALREADY_ADMITTED',
		);
		expect(running.hints).toEqual([]);
	});
});

describe('an invitation with nothing to read back', () => {
	it('is an error that says nothing exists (a batch may submit it again)', async () => {
		const { ctx } = fakeContext(() => ok({ items: 'none' }));
		const error = await recoverWrite(
			ctx,
			runOf(ctx),
			0,
			{ kind: 'invitation', reportId: 'rpt_1', sendEmail: true },
			'IDEMPOTENCY_KEY_REUSED',
		).catch((e: unknown) => e);
		expect(error).toEqual(new Error('No interview of report rpt_1 to recover'));
		expect(isNothingToRecover(error)).toBe(true);
		expect(isNothingToRecover(new Error('other'))).toBe(false);
		expect(isNothingToRecover(null)).toBe(false);
		expect(isNothingToRecover('nothingToRecover')).toBe(false);
	});

	it('a recovered reinterview names the interview it replaced', async () => {
		const { ctx } = fakeContext(() =>
			ok({
				items: [
					{
						id: 'int_1',
						reportId: 'rpt_1',
						createdAt: '1',
						lifecycle: 'superseded',
						emailDelivery: 'sent',
					},
					{
						id: 'int_2',
						reportId: 'rpt_1',
						createdAt: '2',
						lifecycle: 'invited',
						emailDelivery: 'queued',
					},
				],
			}),
		);
		expect(
			await recoverWrite(
				ctx,
				runOf(ctx),
				0,
				{ kind: 'invitation', reportId: 'rpt_1', sendEmail: true, previousInterviewId: 'int_1' },
				'IDEMPOTENCY_KEY_REUSED',
			),
		).toEqual({
			interviewId: 'int_2',
			reportId: 'rpt_1',
			statusUrl: '/api/v1/interviews/int_2/status',
			emailDelivery: 'queued',
			lifecycle: 'invited',
			delivery: 'email',
			previousInterviewId: 'int_1',
			recovered: true,
			recoveredFrom: 'IDEMPOTENCY_KEY_REUSED',
		});
	});
});

describe('an invitation refused because the report already has one', () => {
	const notEligible = async (
		handler: Parameters<typeof fakeContext>[0],
		previousInterviewId?: string,
	) => {
		const { ctx, requests } = fakeContext((request) =>
			request.method === 'POST'
				? apiError(409, 'CONFLICT', 'INTERVIEW_NOT_ELIGIBLE')
				: handler(request),
		);
		const refusal = await postInvitation(ctx).catch((e: unknown) => e);
		const explained = await explainExistingInvitation(
			ctx,
			0,
			{ reportId: 'rpt_1', previousInterviewId },
			refusal,
		);
		return { refusal, explained, requests };
	};
	const interviews =
		(...items: IDataObject[]) =>
		() =>
			ok({ items });

	it('names the interview that exists and its delivery, and says nothing was sent or charged', async () => {
		const { explained, refusal, requests } = await notEligible(
			interviews({ id: 'int_7', lifecycle: 'invited', emailDelivery: 'not_requested' }),
		);
		expect(explained).not.toBe(refusal);
		expect(explained).toMatchObject({
			message:
				'Report rpt_1 already has interview int_7 (by private link, invited); nothing was sent',
			description:
				"The API never shows an invitation's address, so the node cannot tell whether interview int_7 is this item's invitation " +
				'(a re-run after the service forgot its receipt) or one to another address. Nothing was sent or charged. ' +
				'If it is the same candidate and address, nothing more is needed. To reach another address, run Interview > Reinterview on int_7 with it.',
		});
		expect(wasRefused(explained)).toBe(true);
		expect(requests[1]).toMatchObject({
			method: 'GET',
			path: '/api/v1/interviews',
			qs: { reportId: 'rpt_1', limit: 100 },
		});
	});

	it('for a reinterview: names the reinterview that replaced the previous interview, by email', async () => {
		const { explained } = await notEligible(
			interviews(
				{ id: 'int_1', createdAt: '1', lifecycle: 'superseded', emailDelivery: 'sent' },
				{ id: 'int_2', createdAt: '2', lifecycle: 'completed', emailDelivery: 'sent' },
			),
			'int_1',
		);
		expect((explained as Error).message).toBe(
			'Interview int_1 was already replaced by reinterview int_2 (by email, completed); nothing was sent',
		);
	});

	it('keeps the API refusal when no interview can be read, or none exists', async () => {
		const failed = await notEligible(() => apiError(500, 'INTERNAL'));
		expect(failed.explained).toBe(failed.refusal);
		const none = await notEligible(interviews());
		expect(none.explained).toBe(none.refusal);
		const notAList = await notEligible(() => ok({ items: 'none' }));
		expect(notAList.explained).toBe(notAList.refusal);
	});

	it('leaves any other refusal as it is, without reading anything', async () => {
		const { ctx, requests } = fakeContext(() =>
			apiError(422, 'UNPROCESSABLE_CONTENT', 'INSUFFICIENT_ALLOWANCE'),
		);
		const refusal = await postInvitation(ctx).catch((e: unknown) => e);
		expect(await explainExistingInvitation(ctx, 0, { reportId: 'rpt_1' }, refusal)).toBe(refusal);
		expect(requests).toHaveLength(1);
	});
});
