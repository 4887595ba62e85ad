/**
 * F5: the signed upload URL expires while the node is uploading (refreshed once, then completed), and
 * the preparation itself expires (one new preparation, docs/idempotency.md). n8n-core engine + sandbox; the sandbox
 * clock is moved while the storage PUT is held by a latency fault, so the expiry happens mid-flow.
 */

import { FigureBook } from './figures';
import { startTestSandbox, storageErrorOf, waitFor, type TestSandbox } from '../helpers/sandbox';
import {
	analyzeParams,
	counters,
	newWorkspace,
	pdfItem,
	runNode,
	waitForReportStatus,
	type Counters,
	type Workspace,
} from '../nodes/action/helpers';

const book = new FigureBook(
	'F5',
	'Upload URL and preparation expiry mid-flow (F5)',
	'n8n-core engine + sandbox (clock, latency fault)',
);
let sandbox: TestSandbox;
let ws: Workspace;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

beforeAll(async () => {
	sandbox = await startTestSandbox({ recordResponses: true });
	ws = await newWorkspace(sandbox.baseUrl);
});
afterEach(async () => {
	await sandbox.control.clearFaults();
});
afterAll(async () => {
	book.save();
	await sandbox?.close();
});

const delta = (a: Counters, b: Counters, k: keyof Counters) => Number(b[k]) - Number(a[k]);
const route = (c: Counters, r: string) => c.requests?.[r] ?? 0;
const storageAnswers = (from: number) =>
	sandbox.responses
		.slice(from)
		.filter((r) => r.url.startsWith('/_storage'))
		// Storage answers as S3 does: an XML <Error> whose <Code> (AccessDenied for an expired URL) is shown here.
		.map(
			(r) =>
				`${r.status}${r.status === 200 ? '' : ` ${storageErrorOf(String(r.body))?.Code ?? '?'}`}`,
		);

/**
 * Runs `run` while the first storage PUT is held for `holdMs`; as soon as the preparation exists, the sandbox clock
 * moves forward by `advanceMs`, so the held PUT reaches the handler after the URL (or the preparation) expired.
 */
async function withExpiryDuringPut<T>(advanceMs: number, run: () => Promise<T>): Promise<T> {
	const before = await counters(ws);
	await sandbox.control.setFaults({
		rules: [
			{ method: 'PUT', path: '/_storage/uploads', mode: 'latency', latencyMs: 1500, count: 1 },
		],
	});
	const running = run();
	await waitFor(
		async () => (await counters(ws)).preparationsCreated > before.preparationsCreated,
		10_000,
		10,
	);
	await sandbox.control.advanceClock(advanceMs);
	return await running;
}

describe('F5: upload URL expired mid-flow', () => {
	it('Analyze Resume: the PUT meets an expired URL (403 AccessDenied, XML), the node refreshes the URL once, uploads and starts the analysis', async () => {
		const before = await counters(ws);
		const from = sandbox.responses.length;
		const result = await withExpiryDuringPut(
			11 * MINUTE,
			async () => await runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'Expired URL' })]),
		);
		expect(result.error).toBeUndefined();
		const item = result.output[0][0].json;
		const after = await counters(ws);
		const answers = storageAnswers(from);
		const refreshes =
			route(after, 'POST /api/v1/uploads/{id}/url') -
			route(before, 'POST /api/v1/uploads/{id}/url');
		const status = await waitForReportStatus(ws, String(item.reportId));
		book.set('urlExpired.storageAnswers', answers);
		book.set('urlExpired.urlRefreshes', refreshes);
		book.set('urlExpired.uploadUrlRefreshedInOutput', item.uploadUrlRefreshed as boolean);
		book.set('urlExpired.reportsCreated', delta(before, after, 'reportsCreated'));
		book.set('urlExpired.attemptsCreated', delta(before, after, 'attemptsCreated'));
		book.set('urlExpired.finalStatus', status);
		book.check(
			'URL expired mid-flow: refreshed once, uploaded, analysis completed',
			[answers.join(' → '), refreshes, status],
			refreshes === 1 && status === 'completed',
		);

		expect(answers).toEqual(['403 AccessDenied', '200']);
		expect(refreshes).toBe(1);
		expect(item.uploadUrlRefreshed).toBe(true);
		expect(item.attemptId).toMatch(/^att_/);
		expect(delta(before, after, 'reportsCreated')).toBe(1);
		expect(delta(before, after, 'storagePuts')).toBe(1);
		expect(delta(before, after, 'attemptsCreated')).toBe(1);
		expect(after.storageAuthorizationHeaders).toBe(0);
		expect(status).toBe('completed');
	});

	// A preparation that expired unadmitted can never be analyzed, so the node makes one
	// new preparation (keyed by the expired report: every repeat reaches the same new one) instead of failing.
	it('Upload Resume: the preparation expired during the PUT (past 24 h): one new preparation, the file uploaded to it, nothing started', async () => {
		const before = await counters(ws);
		const from = sandbox.responses.length;
		const result = await withExpiryDuringPut(
			25 * HOUR,
			async () =>
				await runNode(
					ws,
					{
						resource: 'upload',
						operation: 'uploadResume',
						binaryPropertyName: 'data',
						jobDescriptionSource: 'existing',
						jobDescriptionId: ws.jobDescriptionId,
					},
					[pdfItem({ candidate: 'Expired Preparation' })],
				),
		);
		const after = await counters(ws);
		const answers = storageAnswers(from);
		const item = (result.output[0] ?? [])[0]?.json ?? {};
		book.set('preparationExpiredDuringPut.storageAnswers', answers);
		book.set('preparationExpiredDuringPut.output', {
			reportId: String(item.reportId ?? ''),
			replacesExpiredReportId: String(item.replacesExpiredReportId ?? ''),
			uploaded: item.uploaded === true,
		});
		book.check(
			'preparation expired mid-flow: one new preparation (replacesExpiredReportId), the file uploaded to it, no analysis started',
			[String(item.replacesExpiredReportId ?? ''), delta(before, after, 'preparationsCreated')],
			result.error === undefined &&
				typeof item.replacesExpiredReportId === 'string' &&
				delta(before, after, 'preparationsCreated') === 2,
		);

		expect(result.error).toBeUndefined();
		expect(item.uploaded).toBe(true);
		expect(item.replacesExpiredReportId).toMatch(/^rpt_/);
		expect(item.reportId).not.toBe(item.replacesExpiredReportId);
		expect(delta(before, after, 'preparationsCreated')).toBe(2);
		expect(delta(before, after, 'attemptsCreated')).toBe(0);
	});

	it('Start on an uploaded report whose preparation is older than 24 hours: a clear error, no attempt', async () => {
		const uploaded = await runNode(
			ws,
			{
				resource: 'upload',
				operation: 'uploadResume',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			},
			[pdfItem({ candidate: 'Late Start' })],
		);
		expect(uploaded.error).toBeUndefined();
		const reportId = String(uploaded.output[0][0].json.reportId);
		await sandbox.control.advanceClock(25 * HOUR);
		const before = await counters(ws);
		const result = await runNode(ws, { resource: 'analysis', operation: 'start', reportId });
		const after = await counters(ws);
		const text = `${result.error?.message ?? ''} ${result.error?.description ?? ''}`;
		book.set('startAfter24h.error', {
			name: result.error?.name ?? null,
			message: result.error?.message ?? null,
			description: (result.error?.description as string) ?? null,
		});
		book.check(
			'start after 24 h: clear error naming the expiry and the next step',
			result.error?.message ?? null,
			/PREPARATION_EXPIRED/.test(text) && /Prepare a new upload/.test(text),
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(text).toMatch(/PREPARATION_EXPIRED/);
		expect(text).toMatch(/Prepare a new upload/);
		expect(delta(before, after, 'attemptsCreated')).toBe(0);
	});

	it('Refresh URL of a preparation older than 24 hours: the same clear error', async () => {
		const prepared = await runNode(ws, {
			resource: 'upload',
			operation: 'prepare',
			fileName: 'late.pdf',
			fileSize: 1234,
			mimeType: 'application/pdf',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		});
		expect(prepared.error).toBeUndefined();
		const reportId = String(prepared.output[0][0].json.reportId);
		await sandbox.control.advanceClock(25 * HOUR);
		const result = await runNode(ws, { resource: 'upload', operation: 'refreshUrl', reportId });
		const text = `${result.error?.message ?? ''} ${result.error?.description ?? ''}`;
		book.set('refreshAfter24h.error', {
			name: result.error?.name ?? null,
			message: result.error?.message ?? null,
		});
		book.check(
			'refresh after 24 h: clear error',
			result.error?.message ?? null,
			/PREPARATION_EXPIRED/.test(text) && /Prepare a new upload/.test(text),
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(text).toMatch(/PREPARATION_EXPIRED/);
		expect(text).toMatch(/Prepare a new upload/);
	});
});
