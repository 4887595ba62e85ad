/**
 * Recovery on its own (writes/recover.ts), with a fake transport: an answer that means "this write exists" is read
 * back and output marked recovered; any other answer, or nothing matching to read back, stays an error.
 */
import { NodeApiError } from 'n8n-workflow';

import { api } from '../../../nodes/RecruitingAnalysis/transport';
import {
	existsCondition,
	invitationOf,
	withRecovery,
} from '../../../nodes/RecruitingAnalysis/writes/recover';
import { apiError, fakeContext, ok, postInvitation } from '../../helpers/fakes';
import { runOf } from '../engine/runOf';

describe('recovery of a write that exists', () => {
	it('refuses to call an analysis recovered when the asked-for report has none', async () => {
		const { ctx } = fakeContext((request) =>
			request.method === 'POST'
				? apiError(409, 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED')
				: ok({ id: 'rpt_2', status: 'queued', attemptId: null, code: null }),
		);
		const start = async () =>
			await api(ctx, {
				method: 'POST',
				path: '/api/v1/analyses',
				body: {},
				idempotencyKey: 'app-1',
				itemIndex: 0,
			});
		await expect(
			withRecovery(ctx, runOf(ctx), 0, { kind: 'analysis', reportId: 'rpt_2' }, start),
		).rejects.toThrow('Report rpt_2 has no analysis to recover');
	});

	it('reads an analysis that was already started back and marks it recovered', async () => {
		const { ctx, requests } = fakeContext((request) =>
			request.method === 'POST'
				? apiError(409, 'CONFLICT', 'ANALYSIS_ALREADY_STARTED')
				: ok({ id: 'rpt_1', status: 'processing', attemptId: 'att_1', code: null }),
		);
		const start = async () =>
			await api(ctx, {
				method: 'POST',
				path: '/api/v1/analyses',
				body: {},
				idempotencyKey: 'k',
				itemIndex: 0,
			});
		const result = await withRecovery(
			ctx,
			runOf(ctx),
			0,
			{ kind: 'analysis', reportId: 'rpt_1' },
			start,
		);
		expect(result).toEqual({
			reportId: 'rpt_1',
			attemptId: 'att_1',
			status: 'processing',
			code: null,
			recovered: true,
			recoveredFrom: 'ANALYSIS_ALREADY_STARTED',
		});
		expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'POST /api/v1/analyses',
			'GET /api/v1/reports/rpt_1/status',
		]);
	});

	it('leaves any other refusal an error, with nothing read back', async () => {
		const { ctx, requests } = fakeContext(() =>
			apiError(422, 'UNPROCESSABLE_CONTENT', 'INSUFFICIENT_ALLOWANCE'),
		);
		const start = async () =>
			await api(ctx, {
				method: 'POST',
				path: '/api/v1/analyses',
				body: {},
				idempotencyKey: 'k',
				itemIndex: 0,
			});
		await expect(
			withRecovery(ctx, runOf(ctx), 0, { kind: 'analysis', reportId: 'rpt_1' }, start),
		).rejects.toBeInstanceOf(NodeApiError);
		expect(requests).toHaveLength(1);
	});

	it('keeps the original error when no invitation exists to recover', async () => {
		const { ctx } = fakeContext((request) =>
			request.method === 'POST'
				? apiError(409, 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED')
				: ok({ items: [], nextCursor: null }),
		);
		const invite = async () => await postInvitation(ctx);
		const outcome = await withRecovery(
			ctx,
			runOf(ctx),
			0,
			{ kind: 'invitation', reportId: 'rpt_1', sendEmail: true },
			invite,
		).catch((error: unknown) => error);
		expect(existsCondition(outcome)).toBe('IDEMPOTENCY_KEY_REUSED');
	});

	it('recognises the exists conditions in an error or in a batch item errorCode', () => {
		expect(existsCondition('ALREADY_ADMITTED')).toBe('ALREADY_ADMITTED');
		// An upload batch item's reference conflict: its report is read back by the reference (actions/upload/uploadBatch.ts).
		expect(existsCondition('EXTERNAL_REFERENCE_CONFLICT')).toBe('EXTERNAL_REFERENCE_CONFLICT');
		expect(existsCondition('QUOTE_STALE')).toBeUndefined();
		expect(existsCondition(null)).toBeUndefined();
	});
});

describe('an invitation read back is the one asked for, or an error saying what exists', () => {
	const interview = (over: Record<string, unknown>) => ({
		id: 'int_7',
		reportId: 'rpt_1',
		createdAt: '2026-11-25T10:00:00.000Z',
		lifecycle: 'invited',
		emailDelivery: 'queued',
		...over,
	});
	const readBack = (found: Record<string, unknown>, sendEmail: boolean) => {
		const { ctx, requests } = fakeContext((request) =>
			request.method === 'POST'
				? apiError(409, 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED')
				: ok({ items: [found], nextCursor: null }),
		);
		const invite = async () => await postInvitation(ctx);
		return {
			requests,
			result: withRecovery(
				ctx,
				runOf(ctx),
				0,
				{ kind: 'invitation', reportId: 'rpt_1', sendEmail },
				invite,
			),
		};
	};

	it('an email invitation asked for and found: recovered, as an email invitation', async () => {
		const { result, requests } = readBack(interview({}), true);
		expect(await result).toEqual({
			interviewId: 'int_7',
			reportId: 'rpt_1',
			statusUrl: '/api/v1/interviews/int_7/status',
			emailDelivery: 'queued',
			lifecycle: 'invited',
			delivery: 'email',
			recovered: true,
			recoveredFrom: 'IDEMPOTENCY_KEY_REUSED',
		});
		expect(requests[1]).toMatchObject({
			method: 'GET',
			path: '/api/v1/interviews',
			qs: { reportId: 'rpt_1', limit: 100 },
		});
	});

	it('a private link asked for and found: recovered without its token, saying how to get a new link', async () => {
		const { result } = readBack(interview({ emailDelivery: 'not_requested' }), false);
		expect(await result).toMatchObject({
			delivery: 'privateLink',
			invitationToken: null,
			invitationTokenUnavailable: expect.stringMatching(
				/^The invitation int_7 exists, but its private link token was returned only once, in the answer that was lost; the API cannot show it again\. To give the candidate a new link, run Interview > Reinterview on this interview with Delivery "Private Link"/,
			),
			recovered: true,
		});
	});

	it("a private-link invitation found where an email was asked for: an error, never this item's email invitation", async () => {
		const { result } = readBack(interview({ emailDelivery: 'not_requested' }), true);
		const error = (await result.catch((e: unknown) => e)) as {
			message: string;
			description: string;
		};
		expect(error.message).toBe(
			"An invitation exists under this write's key, but it is not the one asked for",
		);
		expect(error.description).toBe(
			'Interview int_7 exists, delivered by private link; this item asks for report rpt_1 by email. ' +
				'Nothing was sent. To invite again with other details, run Interview > Reinterview on that interview (a new attempt: it uses interview allowance).',
		);
	});

	it('an email invitation found where a private link was asked for, or one of another report: an error naming it', async () => {
		const byEmail = readBack(interview({ emailDelivery: 'sent' }), false);
		await expect(byEmail.result).rejects.toMatchObject({
			description: expect.stringMatching(
				/^Interview int_7 exists, delivered by email; this item asks for report rpt_1 by private link\./,
			),
		});
		const otherReport = readBack(interview({ reportId: 'rpt_2' }), true);
		await expect(otherReport.result).rejects.toMatchObject({
			description: expect.stringMatching(
				/^Interview int_7 exists, of report rpt_2; this item asks for report rpt_1 by email\./,
			),
		});
	});
});

describe('which interview an invitation wrote', () => {
	const at = (minute: number) => `2026-11-25T10:${String(minute).padStart(2, '0')}:00.000Z`;
	const chain = [
		{ id: 'int_1', createdAt: at(1), lifecycle: 'superseded' },
		{ id: 'int_2', createdAt: at(2), lifecycle: 'invited' },
	];

	it('gives an Invite its own interview back, not the reinterview that superseded it', () => {
		expect(invitationOf(chain)?.id).toBe('int_1');
	});

	it('gives a Reinterview the interview made right after the previous one', () => {
		const longer = [
			...chain.slice(0, 1),
			{ ...chain[1], lifecycle: 'superseded' },
			{ id: 'int_3', createdAt: at(3), lifecycle: 'invited' },
		];
		expect(invitationOf(longer, 'int_1')?.id).toBe('int_2');
		expect(invitationOf(longer, 'int_2')?.id).toBe('int_3');
		// A previous interview that was never superseded has no reinterview to give back.
		expect(invitationOf(longer, 'int_3')).toBeUndefined();
	});

	it('orders the interviews by when they were made, whatever order the API lists them in', () => {
		const listed = [
			{ id: 'int_3', createdAt: at(3), lifecycle: 'invited' },
			{ id: 'int_1', createdAt: at(1), lifecycle: 'expired' },
			{ id: 'int_2', createdAt: at(2), lifecycle: 'superseded' },
		];
		expect(invitationOf(listed)?.id).toBe('int_2');
		expect(invitationOf(listed, 'int_2')?.id).toBe('int_3');
		expect(invitationOf(listed, 'int_9')).toBeUndefined();
		// An expired interview was not replaced: the one made after it is no reinterview of it.
		expect(invitationOf(listed, 'int_1')).toBeUndefined();
	});

	it('gives an Invite after an expired invitation the newer invitation', () => {
		const reinvited = [
			{ id: 'int_1', createdAt: at(1), lifecycle: 'expired' },
			{ id: 'int_2', createdAt: at(2), lifecycle: 'invited' },
		];
		expect(invitationOf(reinvited)?.id).toBe('int_2');
	});
});
