/**
 * Recovery on its own (writes/recover.ts), with a fake transport: an answer that means "this write exists" is read
 * back and output marked recovered; any other answer, or nothing matching to read back, stays an error.
 */
import { NodeApiError } from 'n8n-workflow';

import { api } from '../../../nodes/RecruitingAnalysis/transport/api';
import { existsCondition, withRecovery } from '../../../nodes/RecruitingAnalysis/writes/recover';
import { apiError, fakeContext, ok } from '../../helpers/fakes';

describe('recovery of a write that exists', () => {
	it('reads an analysis that was already started back and marks it recovered', async () => {
		const { ctx, requests } = fakeContext((request) =>
			request.method === 'POST'
				? apiError(409, 'CONFLICT', 'ANALYSIS_ALREADY_STARTED')
				: ok({ id: 'rpt_1', status: 'processing', attemptId: 'att_1', code: null }),
		);
		const start = async () => await api(ctx, { method: 'POST', path: '/api/v1/analyses', body: {}, idempotencyKey: 'k', itemIndex: 0 });
		const result = await withRecovery(ctx, 0, { kind: 'analysis', reportId: 'rpt_1' }, start);
		expect(result).toEqual({ reportId: 'rpt_1', attemptId: 'att_1', status: 'processing', code: null, recovered: true, recoveredFrom: 'ANALYSIS_ALREADY_STARTED' });
		expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /api/v1/analyses', 'GET /api/v1/reports/rpt_1/status']);
	});

	it('leaves any other refusal an error, with nothing read back', async () => {
		const { ctx, requests } = fakeContext(() => apiError(422, 'UNPROCESSABLE_CONTENT', 'INSUFFICIENT_ALLOWANCE'));
		const start = async () => await api(ctx, { method: 'POST', path: '/api/v1/analyses', body: {}, idempotencyKey: 'k', itemIndex: 0 });
		await expect(withRecovery(ctx, 0, { kind: 'analysis', reportId: 'rpt_1' }, start)).rejects.toBeInstanceOf(NodeApiError);
		expect(requests).toHaveLength(1);
	});

	it('keeps the original error when no invitation exists to recover', async () => {
		const { ctx } = fakeContext((request) =>
			request.method === 'POST' ? apiError(409, 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED') : ok({ items: [], nextCursor: null }),
		);
		const invite = async () => await api(ctx, { method: 'POST', path: '/api/v1/interviews', body: {}, idempotencyKey: 'k', itemIndex: 0 });
		const outcome = await withRecovery(ctx, 0, { kind: 'invitation', reportId: 'rpt_1', sendEmail: true }, invite).catch((error: unknown) => error);
		expect(existsCondition(outcome)).toBe('IDEMPOTENCY_KEY_REUSED');
	});

	it('recognises the exists conditions in an error or in a batch item errorCode', () => {
		expect(existsCondition('ALREADY_ADMITTED')).toBe('ALREADY_ADMITTED');
		expect(existsCondition('QUOTE_STALE')).toBeUndefined();
		expect(existsCondition(null)).toBeUndefined();
	});
});
