// Keys name what a write is, never the execution or item index, so a repeat by any path carries the same key.
import { createHash } from 'node:crypto';
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import {
	IDEMPOTENCY_KEY_PATTERN,
	MAX_IDEMPOTENCY_KEY_LENGTH,
	type JobDescriptionInput,
	type UploadInput,
} from '../validation';
import { optionString, optionsParam } from '../actions/common/params';
import { checkUserKey } from '../actions/common/checks';
import type { WriteRun } from './spending';

export const DERIVED_KEY_PREFIX = 'n8n-ra-';
// Changing what goes into a derived key changes this version (old receipts then no longer match).
export const DERIVATION_VERSION = 'recruiting-analysis/write/v2';

export interface WriteIdentity {
	write: string;
	identity: readonly unknown[];
	attemptLabel?: string;
	step?: string;
}

export function derivedIdempotencyKey(parts: WriteIdentity): string {
	const material = JSON.stringify([
		DERIVATION_VERSION,
		parts.write,
		parts.step ?? '',
		parts.identity,
		parts.attemptLabel ?? '',
	]);
	return DERIVED_KEY_PREFIX + createHash('sha256').update(material).digest('hex');
}

export function userIdempotencyKey(userKey: string, attemptLabel?: string, step?: string): string {
	return [userKey, attemptLabel, step].filter(Boolean).join(':');
}

export function userKeyProblem(
	userKey: string,
	attemptLabel: string | undefined,
	steps: readonly string[],
): string | undefined {
	if (!IDEMPOTENCY_KEY_PATTERN.test(userKey)) return 'may only contain letters, digits and . _ : -';
	const longest = [undefined, ...steps]
		.map((step) => userIdempotencyKey(userKey, attemptLabel, step))
		.sort((a, b) => b.length - a.length)[0];
	if (longest.length <= MAX_IDEMPOTENCY_KEY_LENGTH) return undefined;
	const room = MAX_IDEMPOTENCY_KEY_LENGTH - (longest.length - userKey.length);
	return `must be at most ${room} characters for this operation: the node appends "${longest.slice(userKey.length)}" to it for one of its writes (an Idempotency-Key is at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters and is never cut)`;
}

export function idempotencyKeyOf(parts: WriteIdentity & { userKey?: string }): string {
	if (parts.userKey) {
		const key = userIdempotencyKey(parts.userKey, parts.attemptLabel, parts.step);
		// Validation ran before anything was sent; this guards the rule, it never truncates.
		if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !IDEMPOTENCY_KEY_PATTERN.test(key))
			throw new Error(
				`Idempotency Key ${userKeyProblem(parts.userKey, parts.attemptLabel, [parts.step ?? ''])}`,
			);
		return key;
	}
	return derivedIdempotencyKey(parts);
}

export function textDigest(text: string): string {
	return createHash('sha256').update(text, 'utf8').digest('hex');
}

export type WriteChoice = { userKey?: string; attemptLabel?: string };

const LABEL_PATTERN = /^[A-Za-z0-9._-]{1,40}$/;

export function readWriteChoice(
	ctx: IExecuteFunctions,
	itemIndex: number,
	steps: readonly string[] = [],
): WriteChoice {
	const options = optionsParam(ctx, itemIndex);
	const userKey = checkUserKey(ctx, options, itemIndex);
	const attemptLabel = optionString(options, 'attemptLabel');
	const refusal = (message: string, fix: string) =>
		new NodeOperationError(ctx.getNode(), message, {
			itemIndex,
			description: `${fix}, then run the node again. Nothing was sent to the Recruiting Analysis API.`,
		});
	if (attemptLabel !== undefined && !LABEL_PATTERN.test(attemptLabel))
		throw refusal(
			'"New Attempt Label" must be 1 to 40 letters, digits, ".", "_" or "-"',
			`Change "New Attempt Label" (now "${attemptLabel.slice(0, 60)}") so that it meets the rule`,
		);
	const problem = userKey === undefined ? undefined : userKeyProblem(userKey, attemptLabel, steps);
	if (problem)
		throw refusal(
			`"Idempotency Key" ${problem.split(': the node')[0]}`,
			`"Idempotency Key" ${problem}. Shorten it`,
		);
	return { userKey, attemptLabel };
}

// Receipts are shared by a workspace's endpoints, so one user key on Upload Resume, Start and Resend must name three writes.
export const USER_KEY_STEPS: Record<string, string> = {
	upload: 'prepare',
	'analysis.start': 'start',
	'interview.resend': 'resend',
};

export function writeIdempotencyKey(
	choice: WriteChoice,
	write: string,
	identity: readonly unknown[],
	step?: string,
): string {
	const named = step ?? (choice.userKey ? USER_KEY_STEPS[write] : undefined);
	return idempotencyKeyOf({ ...choice, write, identity, step: named });
}

export function jobIdentity(job: JobDescriptionInput | IDataObject | undefined): unknown[] {
	const value = job as IDataObject | undefined;
	if (!value) return ['none'];
	if (value.kind === 'text') return ['text', textDigest(String(value.text ?? ''))];
	return [
		'existing',
		String(value.id ?? ''),
		value.expectedRevision === undefined ? null : String(value.expectedRevision),
	];
}

// The upload's key names the file as given; contentIdentity (its file reference) decides sameness.
export function uploadIdentity(input: UploadInput | IDataObject, fileDigest: string | null) {
	const [job, digest, mimeType, reference] = contentIdentity(
		input,
		fileDigest ?? ['declared', input.fileSize],
	);
	return [job, digest, input.fileName, mimeType, reference];
}

// The name is left out: every download path renames the same bytes.
export function contentIdentity(input: UploadInput | IDataObject, fileDigest: unknown): unknown[] {
	const reference = input.externalReference as { source?: string; id?: string } | undefined;
	return [
		jobIdentity(input.jobDescription as JobDescriptionInput | undefined),
		fileDigest,
		input.mimeType,
		reference ? [reference.source, reference.id] : null,
	];
}

export const FILE_REFERENCE_SOURCE = 'n8n-file';

// The service keeps an external reference unique, so the same bytes for the same job stay one report after a forgotten receipt.
export function fileReference(content: readonly unknown[], attemptLabel?: string) {
	return {
		source: FILE_REFERENCE_SOURCE,
		id: textDigest(JSON.stringify(['recruiting-analysis/file/v2', content, attemptLabel ?? ''])),
	};
}

export function isFileReference(reference: unknown): boolean {
	return (reference as IDataObject | null | undefined)?.source === FILE_REFERENCE_SOURCE;
}

// The API never shows an invitation's address: with its digest in the key, a corrected address is a new write, never a recovery.
export function invitationStep(
	input: { candidateEmail: unknown; sendEmail: unknown },
	previousInterviewId?: string,
): string {
	return `to-${textDigest(JSON.stringify([String(input.candidateEmail).toLowerCase(), input.sendEmail === true, previousInterviewId ?? null])).slice(0, 8)}`;
}

export const INVITATION_STEP_EXAMPLE = 'to-00000000';

export function invitationIdentity(
	input: { reportId: unknown; candidateEmail: unknown; sendEmail: unknown },
	previousInterviewId?: string,
): unknown[] {
	return [
		previousInterviewId ?? null,
		String(input.reportId),
		String(input.candidateEmail).toLowerCase(),
		input.sendEmail === true,
	];
}

export function batchIdempotencyKey(
	write: string,
	members: ReadonlyArray<{ identity: readonly unknown[]; choice: WriteChoice }>,
	afterBatchId?: string,
): string {
	// A member's own key stands beside its identity: the same user key on another file is another batch.
	const identity = members.map(({ identity: own, choice }) => [
		choice.userKey ? ['userKey', choice.userKey] : null,
		own,
		choice.attemptLabel ?? '',
	]);
	// Items a replayed batch refused (nothing charged) go again in a new batch, named after the batch that refused them.
	return idempotencyKeyOf({
		write: afterBatchId ? `${write}.after:${afterBatchId}` : write,
		identity,
	});
}

// Two items with the same user key would be one write, so the second is refused before anything is sent.
export function itemUserKey(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	return optionString(optionsParam(ctx, itemIndex), 'idempotencyKey');
}

export function duplicateKeyError(
	ctx: IExecuteFunctions,
	key: string,
	earlier: number,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		'"Idempotency Key" must be different for each item',
		{
			itemIndex,
			description:
				`Items ${earlier} and ${itemIndex} both have the Idempotency Key "${key.slice(0, 128)}": one key names one write, so the second ` +
				"would be refused or get the first item's resource. Use an expression that differs per item (for example the application ID), " +
				'or leave the option empty to let the node derive a key from each write. Nothing was sent to the Recruiting Analysis API.',
		},
	);
}

// Records the write; checks run in item order (engine/run.ts), so the earlier item it names (as the editor counts) is the first.
export function recordWrite(run: WriteRun, key: string, itemIndex: number): number | undefined {
	const first = run.firstItemOfWrite.get(key) ?? itemIndex;
	run.firstItemOfWrite.set(key, first);
	return first === itemIndex ? undefined : first + 1;
}
