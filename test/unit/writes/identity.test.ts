/**
 * What makes two writes the same (writes/identity.ts, writes/keyBuilder.ts), on their own: the key is computed from
 * what the write is, so the same write has the same key whatever run, item position or chunk carries it, and any
 * change of what it is (file, job revision, address, label, the user's own key) makes another key.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	chunkIdempotencyKey,
	invitationIdentity,
	keyFor,
	readWriteChoice,
	uploadIdentity,
} from '../../../nodes/RecruitingAnalysis/writes/identity';
import { DERIVED_KEY_PREFIX } from '../../../nodes/RecruitingAnalysis/writes/keyBuilder';
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
	keyFor({ attemptLabel: label }, 'upload', uploadIdentity(input, digest));

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
		const key = chunkIdempotencyKey('analyses.batch', members);
		expect(
			chunkIdempotencyKey(
				'analyses.batch',
				members.map((member) => ({ ...member })),
			),
		).toBe(key);
		expect(chunkIdempotencyKey('uploads.batch', members)).not.toBe(key);
		const withUserKey = [{ identity: ['a'], choice: { userKey: 'app-1' } }, members[1]];
		const sameUserKeyOtherIdentity = [
			{ identity: ['z'], choice: { userKey: 'app-1' } },
			members[1],
		];
		// The same user key on another file is another batch: a replayed batch is always the same writes.
		expect(chunkIdempotencyKey('analyses.batch', withUserKey)).not.toBe(
			chunkIdempotencyKey('analyses.batch', sameUserKeyOtherIdentity),
		);
		expect(chunkIdempotencyKey('analyses.batch', withUserKey)).not.toBe(key);
		expect(chunkIdempotencyKey('analyses.batch', members, 'bat_1')).not.toBe(key);
		expect(chunkIdempotencyKey('analyses.batch', members, 'bat_1')).toBe(
			chunkIdempotencyKey('analyses.batch', members, 'bat_1'),
		);
	});

	it('uses the user key as given, with the label and the step appended; a write without a step of its own is named', () => {
		expect(
			keyFor({ userKey: 'app-1', attemptLabel: 'retry2' }, 'analysis.start', ['rpt_1'], 'start'),
		).toBe('app-1:retry2:start');
		// One application ID as the key of Upload Resume, Start and Resend names three writes (receipts are the workspace's).
		expect(keyFor({ userKey: 'app-1' }, 'upload', ['x'])).toBe('app-1:prepare');
		expect(keyFor({ userKey: 'app-1' }, 'analysis.start', ['rpt_1'])).toBe('app-1:start');
		expect(keyFor({ userKey: 'app-1' }, 'interview.resend', ['int_1'])).toBe('app-1:resend');
		expect(keyFor({}, 'upload', ['x'])).toMatch(/^n8n-ra-[a-f0-9]{64}$/);
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
