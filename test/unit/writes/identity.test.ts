/**
 * What makes two writes the same (writes/identity.ts), on their own: the key is computed from
 * what the write is, so the same write has the same key whatever run, item position or chunk carries it, and any
 * change of what it is (file, job revision, address, label, the user's own key) makes another key.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	batchIdempotencyKey,
	contentIdentity,
	DERIVED_KEY_PREFIX,
	fileReference,
	INVITATION_STEP_EXAMPLE,
	invitationIdentity,
	invitationStep,
	isFileReference,
	jobIdentity,
	readWriteChoice,
	textDigest,
	uploadIdentity,
	writeIdempotencyKey,
} from '../../../nodes/RecruitingAnalysis/writes/identity';
import { fakeContext } from '../../helpers/fakes';

const upload = (overrides: IDataObject = {}): IDataObject => ({
	fileName: 'ada.pdf',
	fileSize: 1234,
	mimeType: 'application/pdf',
	jobDescription: { kind: 'existing', id: 'jd_1', expectedRevision: 'a'.repeat(64) },
	externalReference: { source: 'ats', id: 'app-1' },
	...overrides,
});
const uploadKey = (input: IDataObject, digest: string | null = 'd'.repeat(64), label?: string) =>
	writeIdempotencyKey({ attemptLabel: label }, 'upload', uploadIdentity(input, digest));

describe('write identity', () => {
	it('gives the same upload the same derived key, and a different key for a different file, job revision or label', () => {
		const key = uploadKey(upload());
		expect(key).toMatch(new RegExp(`^${DERIVED_KEY_PREFIX}[a-f0-9]{64}$`));
		expect(uploadKey(upload())).toBe(key);
		expect(uploadKey(upload(), 'e'.repeat(64))).not.toBe(key);
		expect(
			uploadKey(
				upload({
					jobDescription: { kind: 'existing', id: 'jd_1', expectedRevision: 'b'.repeat(64) },
				}),
			),
		).not.toBe(key);
		expect(uploadKey(upload(), undefined, 'second-try')).not.toBe(key);
		expect(uploadKey(upload({ externalReference: { source: 'ats', id: 'app-2' } }))).not.toBe(key);
	});

	it('names an invitation by report, address (any case) and delivery', () => {
		const same = invitationIdentity({
			reportId: 'rpt_1',
			candidateEmail: 'Ada@Example.com',
			sendEmail: true,
		});
		expect(
			invitationIdentity({ reportId: 'rpt_1', candidateEmail: 'ada@example.com', sendEmail: true }),
		).toEqual(same);
		expect(
			invitationIdentity({
				reportId: 'rpt_1',
				candidateEmail: 'ada@example.com',
				sendEmail: false,
			}),
		).not.toEqual(same);
		expect(
			invitationIdentity(
				{ reportId: 'rpt_1', candidateEmail: 'ada@example.com', sendEmail: true },
				'int_0',
			),
		).not.toEqual(same);
	});

	it("keys a chunk by its members' writes, a member's own Idempotency Key beside its identity, and a resubmission by the batch it follows", () => {
		const members = [
			{ identity: ['a'], choice: {} },
			{ identity: ['b'], choice: {} },
		];
		const key = batchIdempotencyKey('analyses.batch', members);
		expect(
			batchIdempotencyKey(
				'analyses.batch',
				members.map((member) => ({ ...member })),
			),
		).toBe(key);
		expect(batchIdempotencyKey('uploads.batch', members)).not.toBe(key);
		const withUserKey = [{ identity: ['a'], choice: { userKey: 'app-1' } }, members[1]];
		const sameUserKeyOtherIdentity = [
			{ identity: ['z'], choice: { userKey: 'app-1' } },
			members[1],
		];
		// The same user key on another file is another batch: a replayed batch is always the same writes.
		expect(batchIdempotencyKey('analyses.batch', withUserKey)).not.toBe(
			batchIdempotencyKey('analyses.batch', sameUserKeyOtherIdentity),
		);
		expect(batchIdempotencyKey('analyses.batch', withUserKey)).not.toBe(key);
		expect(batchIdempotencyKey('analyses.batch', members, 'bat_1')).not.toBe(key);
		expect(batchIdempotencyKey('analyses.batch', members, 'bat_1')).toBe(
			batchIdempotencyKey('analyses.batch', members, 'bat_1'),
		);
	});

	it('uses the user key as given, with the label and the step appended; a write without a step of its own is named', () => {
		expect(
			writeIdempotencyKey(
				{ userKey: 'app-1', attemptLabel: 'retry2' },
				'analysis.start',
				['rpt_1'],
				'start',
			),
		).toBe('app-1:retry2:start');
		// One application ID as the key of Upload Resume, Start and Resend names three writes (receipts are the workspace's).
		expect(writeIdempotencyKey({ userKey: 'app-1' }, 'upload', ['x'])).toBe('app-1:prepare');
		expect(writeIdempotencyKey({ userKey: 'app-1' }, 'analysis.start', ['rpt_1'])).toBe(
			'app-1:start',
		);
		expect(writeIdempotencyKey({ userKey: 'app-1' }, 'interview.resend', ['int_1'])).toBe(
			'app-1:resend',
		);
		expect(writeIdempotencyKey({}, 'upload', ['x'])).toMatch(/^n8n-ra-[a-f0-9]{64}$/);
	});
});

describe('reading the write choice of an item', () => {
	it('refuses a New Attempt Label outside its rule, naming the field, before anything is sent', () => {
		const { ctx, requests } = fakeContext(
			() => {
				throw new Error('nothing may be sent');
			},
			{ options: { attemptLabel: 'has spaces' } },
		);
		expect(() => readWriteChoice(ctx, 0)).toThrow(
			'"New Attempt Label" must be 1 to 40 letters, digits, ".", "_" or "-"',
		);
		expect(requests).toHaveLength(0);
	});

	it('refuses a user key that leaves no room for the suffixes of the operation, never cutting it', () => {
		const { ctx } = fakeContext(() => ({ statusCode: 500 }), {
			options: { idempotencyKey: 'k'.repeat(125) },
		});
		expect(() => readWriteChoice(ctx, 0, ['start.requote'])).toThrow(
			/"Idempotency Key" must be at most 114 characters/,
		);
		const { ctx: fits } = fakeContext(() => ({ statusCode: 500 }), {
			options: { idempotencyKey: 'k'.repeat(114) },
		});
		expect(readWriteChoice(fits, 0, ['start.requote'])).toEqual({
			userKey: 'k'.repeat(114),
			attemptLabel: undefined,
		});
	});
});

describe('identities the service already holds stay the same (a changed one misses its receipt or reference)', () => {
	const job = { kind: 'existing', id: 'job_1' };
	const digest = 'ab'.repeat(32);

	it("a file's external reference is its content's, without the name, and a label makes another", () => {
		const content = contentIdentity({ jobDescription: job, mimeType: 'application/pdf' }, digest);
		expect(content).toEqual([['existing', 'job_1', null], digest, 'application/pdf', null]);
		expect(fileReference(content)).toEqual({
			source: 'n8n-file',
			id: 'e64c5e894e8cef66ccfa64d0b27353a6f0db8ca3dfe3a882bf8af96922035bcf',
		});
		expect(fileReference(content, 'second').id).toBe(
			'b280b28f7961376556976c3d8847cc9f7721be7f29389ac2a5dcab6de19fad83',
		);
		expect(fileReference(content, '').id).toBe(fileReference(content).id);
		expect(
			contentIdentity(
				{
					jobDescription: job,
					mimeType: 'application/pdf',
					externalReference: { source: 'ats', id: 'a' },
				},
				digest,
			)[3],
		).toEqual(['ats', 'a']);
	});

	it('names an upload by its job, bytes, name, type and reference, or by its declared size before the bytes are read', () => {
		const identity = uploadIdentity(
			{ jobDescription: job, mimeType: 'application/pdf', fileName: 'cv.pdf' },
			digest,
		);
		expect(identity).toEqual([
			['existing', 'job_1', null],
			digest,
			'cv.pdf',
			'application/pdf',
			null,
		]);
		expect(uploadIdentity({ jobDescription: job, fileSize: 12 }, null)[1]).toEqual([
			'declared',
			12,
		]);
	});

	it('only a reference the node made is a file reference', () => {
		expect(isFileReference({ source: 'n8n-file', id: 'x' })).toBe(true);
		expect(isFileReference({ source: 'ats', id: 'x' })).toBe(false);
		expect(isFileReference(null)).toBe(false);
		expect(isFileReference('n8n-file')).toBe(false);
	});

	it('a job is named by its id and pinned revision, inline text by its digest, none as none', () => {
		expect(jobIdentity(undefined)).toEqual(['none']);
		expect(jobIdentity({ kind: 'text', text: 'Engineer' })).toEqual([
			'text',
			textDigest('Engineer'),
		]);
		expect(jobIdentity({ kind: 'text' })).toEqual(['text', textDigest('')]);
		expect(jobIdentity({ kind: 'existing', id: 'job_1', expectedRevision: 'r1' })).toEqual([
			'existing',
			'job_1',
			'r1',
		]);
		expect(jobIdentity({ kind: 'existing' })).toEqual(['existing', '', null]);
	});

	it("an invitation's step is its address (any case), delivery and previous interview", () => {
		const step = invitationStep({ candidateEmail: 'Ada@Example.com', sendEmail: true });
		expect(step).toBe('to-b050b3a3');
		expect(step).toHaveLength(INVITATION_STEP_EXAMPLE.length);
		expect(invitationStep({ candidateEmail: 'ada@example.com', sendEmail: true })).toBe(step);
		expect(invitationStep({ candidateEmail: 'Ada@Example.com', sendEmail: true }, 'int_1')).toBe(
			'to-1d5c2687',
		);
		expect(invitationStep({ candidateEmail: 'Ada@Example.com', sendEmail: 'true' })).not.toBe(step);
		expect(
			invitationIdentity({ reportId: 'rpt_1', candidateEmail: 'A@B.C', sendEmail: true }, 'int_1'),
		).toEqual(['int_1', 'rpt_1', 'a@b.c', true]);
		expect(
			invitationIdentity({ reportId: 'rpt_1', candidateEmail: 'A@B.C', sendEmail: 'yes' }),
		).toEqual([null, 'rpt_1', 'a@b.c', false]);
	});

	it("a chunk's key is its members' writes, and a resubmission's names the batch it follows", () => {
		expect(
			batchIdempotencyKey('analyses.batch', [
				{ identity: ['a'], choice: {} },
				{ identity: ['b'], choice: { userKey: 'app-1', attemptLabel: 'two' } },
			]),
		).toBe('n8n-ra-8634a1ac447a551cf8519c478677ccb2f02e2a903b1ff9cdee61a038f2eaea13');
		expect(batchIdempotencyKey('analyses.batch', [{ identity: ['a'], choice: {} }], 'bat_1')).toBe(
			'n8n-ra-b78e921d3a20ee3d2fcc1348f78dbf8685a8332b8298f21d1864bfeea507b3b6',
		);
	});
});

describe('the New Attempt Label rule', () => {
	const choiceWith = (options: IDataObject) =>
		readWriteChoice(fakeContext(() => ({ statusCode: 500 }), { options }).ctx, 0);

	it('1 to 40 letters, digits, ".", "_" or "-" are taken as they are', () => {
		expect(choiceWith({ attemptLabel: 'a' }).attemptLabel).toBe('a');
		expect(
			choiceWith({ attemptLabel: `Second_try.2-${'x'.repeat(27)}` }).attemptLabel,
		).toHaveLength(40);
	});

	it('41 characters, or one outside the rule, are refused quoting what was given', () => {
		const error = (() => {
			try {
				choiceWith({ attemptLabel: 'x'.repeat(41) });
			} catch (e) {
				return e as { description: string };
			}
			throw new Error('expected a refusal');
		})();
		expect(error.description).toBe(
			`Change "New Attempt Label" (now "${'x'.repeat(41)}") so that it meets the rule, then run the node again. Nothing was sent to the Recruiting Analysis API.`,
		);
		expect(() => choiceWith({ attemptLabel: `${'y'.repeat(60)}${'z'.repeat(10)}` })).toThrow(
			expect.objectContaining({
				description: expect.stringContaining(`(now "${'y'.repeat(60)}")`),
			}),
		);
		expect(() => choiceWith({ attemptLabel: 'two words' })).toThrow('"New Attempt Label"');
		expect(() => choiceWith({ attemptLabel: '**' })).toThrow('"New Attempt Label"');
	});

	it('a user key of 128 characters is taken when the operation appends nothing', () => {
		expect(choiceWith({ idempotencyKey: 'k'.repeat(128) }).userKey).toHaveLength(128);
	});

	it('a user key too long for the steps: the title names the rule, the description what the node appends', () => {
		const { ctx } = fakeContext(() => ({ statusCode: 500 }), {
			options: { idempotencyKey: 'k'.repeat(125) },
		});
		const error = (() => {
			try {
				readWriteChoice(ctx, 0, ['start']);
			} catch (e) {
				return e as { message: string; description: string };
			}
			throw new Error('expected a refusal');
		})();
		expect(error.message).toBe(
			'"Idempotency Key" must be at most 122 characters for this operation',
		);
		expect(error.description).toBe(
			'"Idempotency Key" must be at most 122 characters for this operation: the node appends ":start" to it for one of its writes (an Idempotency-Key is at most 128 characters and is never cut). Shorten it, then run the node again. Nothing was sent to the Recruiting Analysis API.',
		);
	});
});
