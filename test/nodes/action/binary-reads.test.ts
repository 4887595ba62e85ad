/**
 * How often the node opens a resume in n8n's binary store, and that reading it fewer times left its idempotency key
 * unchanged. In database mode (n8n 2.x's default in queue mode) every open loads the whole file from PostgreSQL
 * (n8n's DatabaseManager: `getAsStream()` is `Readable.from(await getAsBuffer())`), so opens are memory: the node
 * reads each file once for its type check and sha-256 (one streamed read) and once for the PUT.
 * Opens are counted at n8n-core's BinaryDataService (what `helpers.getBinaryStream` and `getBinaryDataBuffer` call)
 * through the real engine in filesystem mode; the keys are checked by replaying them against the sandbox.
 */
import { BinaryDataService } from 'n8n-core';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PDF_MIME, makePdf } from '../../fixtures/resumes';
import type { InputItem } from '../../helpers/n8n-engine';
import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import { apiCall, counters, jsonOf, newWorkspace, runNode, type Workspace } from './helpers';
import { contentIdentity, fileReference } from '../../../nodes/RecruitingAnalysis/writes/identity';

let sandbox: TestSandbox;

useTestSandbox((started) => (sandbox = started));

/** Opens of each stored binary (by its id) while `run` runs: streams and whole-buffer reads. */
async function countOpens<T>(
	run: () => Promise<T>,
): Promise<{ value: T; opens: Map<string, number> }> {
	const opens = new Map<string, number>();
	const note = (id: string) => opens.set(id, (opens.get(id) ?? 0) + 1);
	const { getAsStream, getAsBuffer } = BinaryDataService.prototype;
	const stream = jest
		.spyOn(BinaryDataService.prototype, 'getAsStream')
		.mockImplementation(async function (this: BinaryDataService, id, chunkSize) {
			note(id);
			return await getAsStream.call(this, id, chunkSize);
		});
	const buffer = jest
		.spyOn(BinaryDataService.prototype, 'getAsBuffer')
		.mockImplementation(async function (this: BinaryDataService, binary) {
			if (binary.id) note(binary.id);
			return await getAsBuffer.call(this, binary);
		});
	try {
		return { value: await run(), opens };
	} finally {
		stream.mockRestore();
		buffer.mockRestore();
	}
}

const resumes = (count: number, tag: string): InputItem[] =>
	Array.from({ length: count }, (_, i) => ({
		json: {},
		binary: {
			data: {
				data: makePdf({ candidate: `${tag} ${i}`, sizeBytes: 256 * 1024 + i }),
				mimeType: PDF_MIME,
				fileName: `${tag}-${i}.pdf`,
			},
		},
	}));

const jobText = (operation: string) =>
	`Opens per file (${operation}): data engineer, Python and SQL.`;

describe("each resume is opened twice in n8n's binary store: one streamed read (type check + sha-256), one PUT", () => {
	it.each([
		['upload', 'uploadResume'],
		['analysis', 'analyzeResume'],
		['upload', 'uploadMany'],
		['analysis', 'analyzeMany'],
	])('%s > %s, filesystem mode', async (resource, operation) => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = resumes(3, operation);
		const parameters = {
			resource,
			operation,
			binaryPropertyName: 'data',
			jobDescriptionSource: 'text',
			jobDescriptionText: jobText(operation),
			// The upload's output (`uploaded`), not the score a wait would bring.
			...(operation === 'analyzeResume' ? { waitForCompletion: false } : {}),
		} as INodeParameters;
		const { value: result, opens } = await countOpens(
			async () => await runNode(ws, parameters, items, { binaryMode: 'filesystem' }),
		);
		const out = jsonOf(result);
		expect(out).toHaveLength(3);
		expect(out.every((item) => item.uploaded === true)).toBe(true);
		expect((await counters(ws)).storagePuts).toBe(3);
		// Every file was stored by the engine (an id per file) and each was opened exactly twice.
		expect(opens.size).toBe(3);
		expect([...opens.values()]).toEqual([2, 2, 2]);
	});
});

/**
 * The key of an upload is computed from the same bytes as before: these are the keys the code before this change
 * (a separate streamed digest) gave for this file. The node's key is read back by replaying it:
 * POST /api/v1/uploads with the expected key and the same body (with its file reference) answers with the report the node created, and only
 * when the node used that key (another key would make a new report).
 */
describe('reading each file once more economically leaves its idempotency key unchanged', () => {
	const pdf = makePdf({ candidate: 'Key Golden', sizeBytes: 3 * 1024 * 1024 + 17 });
	const text = 'Golden key job: data engineer, Python and SQL.';
	const body = {
		fileName: 'golden.pdf',
		fileSize: pdf.length,
		mimeType: PDF_MIME,
		jobDescription: { kind: 'text', text },
	};
	// sha-256 of the bytes, and the derived key of the upload under DERIVATION_VERSION recruiting-analysis/write/v2.
	const DIGEST = 'ff4ca38903a04a83647c96e96c3da194cc677b4ae425ac52535986b8ce996351';
	const KEY = 'n8n-ra-1d01171de39c868c737047092b85e66e517c186c9523a53b67a41cf3974eb208';

	it('the fixture is the file those keys were computed for', async () => {
		const { createHash } = await import('node:crypto');
		expect(createHash('sha256').update(pdf).digest('hex')).toBe(DIGEST);
	});

	it.each(['default', 'filesystem'] as const)(
		'Upload Resume, %s binary mode: the same key as before',
		async (binaryMode) => {
			const ws: Workspace = await newWorkspace(sandbox.baseUrl);
			const result = await runNode(
				ws,
				{
					resource: 'upload',
					operation: 'uploadResume',
					binaryPropertyName: 'data',
					jobDescriptionSource: 'text',
					jobDescriptionText: text,
				},
				[{ json: {}, binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: 'golden.pdf' } } }],
				{ binaryMode },
			);
			const [item] = jsonOf(result);
			expect(item.uploaded).toBe(true);
			// The body also carries the file reference the node derives from what the file is (writes/identity.ts).
			const sent = { ...body, externalReference: fileReference(contentIdentity(body, DIGEST)) };
			const replay = await apiCall(ws, 'POST', '/api/v1/uploads', sent, { 'idempotency-key': KEY });
			expect(replay.status).toBeLessThan(300);
			expect((replay.body.data as IDataObject).reportId).toBe(item.reportId);
			expect((await counters(ws)).preparationsCreated).toBe(1);
		},
	);
});
