/**
 * What each charged write IS, as the identity its idempotency key is computed from (writes/keyBuilder.ts has
 * the one key builder). Never the execution, node, run or item index: the same write repeated by any path carries
 * the same key (one exception on purpose: a Resend is a reminder, named by the execution that first ran its node,
 * actions/interview/resend.operation.ts). The user's choices that make a deliberate new write (Options > New Attempt Label, or their own
 * Options > Idempotency Key per item) are read and checked here, before anything is sent.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { binaryDigest } from '../transport';
import type { JobDescriptionInput, UploadInput } from '../validation';
import { optionString, optionsParam, stringParam } from '../actions/common/params';
import { checkUserKey } from '../actions/common/checks';
import { textDigest, userKeyProblem, writeKey, type WriteIdentity } from './keyBuilder';

/** The user's per-item key and the attempt label, both checked (length with the operation's suffixes, pattern). */
export interface WriteChoice {
	userKey?: string;
	attemptLabel?: string;
}

const LABEL_PATTERN = /^[A-Za-z0-9._-]{1,40}$/;

/** Options > New Attempt Label: 1 to 40 letters, digits, '.', '_' or '-' (it becomes part of a key). */
export function readAttemptLabel(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
): string | undefined {
	const label = optionString(options, 'attemptLabel');
	if (label === undefined) return undefined;
	if (!LABEL_PATTERN.test(label)) {
		throw new NodeOperationError(
			ctx.getNode(),
			'"New Attempt Label" must be 1 to 40 letters, digits, ".", "_" or "-"',
			{
				itemIndex,
				description: `Change "New Attempt Label" (now "${label.slice(0, 60)}") so that it meets the rule, then run the node again. Nothing was sent to the Recruiting Analysis API.`,
			},
		);
	}
	return label;
}

/**
 * The item's Idempotency Key and New Attempt Label, checked. `steps` are the suffixes the operation may append to a
 * user key (e.g. 'prepare', 'start', 'start.requote'): a key that leaves no room for them is refused, naming the field.
 */
export function readWriteChoice(
	ctx: IExecuteFunctions,
	itemIndex: number,
	steps: readonly string[] = [],
): WriteChoice {
	const options = optionsParam(ctx, itemIndex);
	const userKey = checkUserKey(ctx, options, itemIndex);
	const attemptLabel = readAttemptLabel(ctx, options, itemIndex);
	if (userKey !== undefined) {
		const problem = userKeyProblem(userKey, attemptLabel, steps);
		if (problem) {
			throw new NodeOperationError(
				ctx.getNode(),
				`"Idempotency Key" ${problem.split(': the node')[0]}`,
				{
					itemIndex,
					description: `"Idempotency Key" ${problem}. Shorten it, then run the node again. Nothing was sent to the Recruiting Analysis API.`,
				},
			);
		}
	}
	return { userKey, attemptLabel };
}

/**
 * The step a user's own key gets on a write that has no step of its own: the receipts of a workspace are shared by
 * all its endpoints, so one application ID used as the key on Upload Resume, Start and Resend must name three writes.
 * The same as Analyze Resume's own steps, so Upload Resume + Start and Analyze Resume of one file are the same writes.
 */
export const USER_KEY_STEPS: Record<string, string> = {
	upload: 'prepare',
	'analysis.start': 'start',
	'interview.resend': 'resend',
};

/** The key of one write of an item. */
export function keyFor(
	choice: WriteChoice,
	write: string,
	identity: readonly unknown[],
	step?: string,
): string {
	const named = step ?? (choice.userKey ? USER_KEY_STEPS[write] : undefined);
	return writeKey({
		write,
		identity,
		step: named,
		attemptLabel: choice.attemptLabel,
		userKey: choice.userKey,
	});
}

/** A saved job by id and expected revision; inline text by its digest. */
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

/**
 * The upload identity keys were first derived from: the job, the file's bytes (sha-256, streamed), its name and type,
 * and the external reference. Upload > Prepare has no bytes: its identity is the declared size instead (`fileDigest`
 * null). The uploads of a file keep these keys so that receipts made by earlier versions still answer; what makes two
 * files the same is contentIdentity (no name).
 */
export function uploadIdentity(
	input: UploadInput | IDataObject,
	fileDigest: string | null,
): unknown[] {
	const reference = input.externalReference as { source?: string; id?: string } | undefined;
	return [
		jobIdentity(input.jobDescription as JobDescriptionInput | undefined),
		fileDigest ?? ['declared', input.fileSize],
		input.fileName,
		input.mimeType,
		reference ? [reference.source, reference.id] : null,
	];
}

/**
 * What an upload's FILE is, whatever it is called: the job, the file's bytes (sha-256), its type and the external
 * reference. The name is left out on purpose: every download path renames (`resume (1).pdf`, `download.pdf`), and the
 * same bytes for the same job (and reference and label) are one report.
 */
export function contentIdentity(input: UploadInput | IDataObject, fileDigest: string): unknown[] {
	const reference = input.externalReference as { source?: string; id?: string } | undefined;
	return [
		jobIdentity(input.jobDescription as JobDescriptionInput | undefined),
		fileDigest,
		input.mimeType,
		reference ? [reference.source, reference.id] : null,
	];
}

/** The source of the external reference the node gives an upload when the user gave none (a slug, as the spec asks). */
export const FILE_REFERENCE_SOURCE = 'n8n-file';

/**
 * The external reference of an upload that has none of its own: a digest of what the file is (job, bytes, type, and
 * a New Attempt Label that asks for a separate report; contentIdentity, never the name). The service keeps an
 * external reference unique in the workspace, so the same bytes for the same job are one report whatever carries
 * them and whatever they are called, even after the service forgot a receipt: a second upload is refused with
 * EXTERNAL_REFERENCE_CONFLICT and the existing report, which holds these bytes by construction, is read back.
 */
export function fileReference(
	content: readonly unknown[],
	attemptLabel?: string,
): { source: string; id: string } {
	return {
		source: FILE_REFERENCE_SOURCE,
		id: textDigest(JSON.stringify(['recruiting-analysis/file/v2', content, attemptLabel ?? ''])),
	};
}

/**
 * The file reference versions before content identity gave (it hashed the upload identity, the file name included).
 * Only read back: a re-run after the upgrade asks for such an upload as it was first sent, so its receipt answers.
 */
export function legacyFileReference(
	identity: readonly unknown[],
	attemptLabel?: string,
): { source: string; id: string } {
	return {
		source: FILE_REFERENCE_SOURCE,
		id: textDigest(JSON.stringify(['recruiting-analysis/file/v1', identity, attemptLabel ?? ''])),
	};
}

/** A file reference the node derived (not one the user gave). */
export function isFileReference(reference: unknown): boolean {
	return (
		typeof reference === 'object' &&
		reference !== null &&
		(reference as IDataObject).source === FILE_REFERENCE_SOURCE
	);
}

/** sha-256 of the item's resume (the binary property the operation reads). */
export async function resumeDigest(ctx: IExecuteFunctions, itemIndex: number): Promise<string> {
	const binaryPropertyName = stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data';
	return await binaryDigest(ctx, ctx.helpers.assertBinaryData(itemIndex, binaryPropertyName));
}

/**
 * The step a user's own key gets on an invitation: a short digest of the address, the delivery and the previous
 * interview. The API never shows an invitation's address, so recovery could not tell a corrected address from a
 * repeat of the same invitation; with the digest in the key, a corrected address under the same user key is a new
 * write (the API then says the report already has an interview, and the error says to use Reinterview), and an
 * answer that this key's write exists always means the same invitation.
 */
export function invitationStep(
	input: { candidateEmail: unknown; sendEmail: unknown },
	previousInterviewId?: string,
): string {
	return `to-${textDigest(JSON.stringify([String(input.candidateEmail).toLowerCase(), input.sendEmail === true, previousInterviewId ?? null])).slice(0, 8)}`;
}

/** The longest step invitationStep gives, for the length check of a user key. */
export const INVITATION_STEP_EXAMPLE = 'to-00000000';

/** An invitation is: the report, the address (case-insensitive) and the delivery choice (and, for a reinterview, the previous interview). */
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

export type { WriteIdentity };

/** One item of a chunk as its key sees it: what its write is, and the user's key and label for it. */
export interface ChunkMember {
	identity: readonly unknown[];
	choice: WriteChoice;
}

/**
 * The idempotency key of one batch request: derived from its items' writes in order (each item's business identity,
 * or its own Idempotency Key when given, and its New Attempt Label). Never from the execution or the item
 * positions: a repeat of the same chunk, by any path, carries the same key.
 */
export function chunkIdempotencyKey(
	write: string,
	members: readonly ChunkMember[],
	afterBatchId?: string,
): string {
	// A member's own key stands beside its identity, never for it: the same user key on another file or address is
	// another batch, so a replayed batch is always the same writes.
	const identity = members.map(({ identity: own, choice }) => [
		choice.userKey ? ['userKey', choice.userKey] : null,
		own,
		choice.attemptLabel ?? '',
	]);
	// Items a replayed batch refused (nothing charged) go again in a new batch, named after the batch that refused them.
	return writeKey({ write: afterBatchId ? `${write}.after:${afterBatchId}` : write, identity });
}
