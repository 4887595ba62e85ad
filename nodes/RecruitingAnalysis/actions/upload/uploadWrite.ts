/**
 * One upload as it is sent: what the file is (its identity, its content), the key and the body with the node's file
 * reference, and the POST that prepares it.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UploadTarget } from '../../transport';
import type { UploadInput } from '../../validation';
import { api } from '../../transport/api';
import { waitOutCapacity } from '../../engine/capacity';
import {
	contentIdentity,
	fileReference,
	keyFor,
	legacyFileReference,
	resumeDigest,
	uploadIdentity,
	type WriteChoice,
} from '../../writes/identity';

/** What the API answers to POST /api/v1/uploads (and to URL refresh). */
export interface PreparedUpload {
	reportId: string;
	upload: UploadTarget;
	[key: string]: unknown;
}

/** POST /api/v1/uploads with the upload's idempotency key. */
export async function prepareUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	idempotencyKey: string,
): Promise<PreparedUpload> {
	// PENDING_UPLOAD_LIMIT is waited out (capacity.ts): a refused preparation created nothing.
	const prepared = await waitOutCapacity(
		ctx,
		itemIndex,
		async () =>
			await api(ctx, {
				method: 'POST',
				path: '/api/v1/uploads',
				body: input as unknown as IDataObject,
				idempotencyKey,
				itemIndex,
			}),
	);
	return prepared as unknown as PreparedUpload;
}

/** The steps a user key may get in an upload: a new preparation after the replayed one expired. */
export const UPLOAD_RENEW_STEP = 'renew';

/** How an operation's New Attempt Label acts on its upload. */
export interface UploadOptions {
	/**
	 * Upload Resume and Upload Many: a label asks for a separate report of the same file (it goes into the upload).
	 * Analyze Resume and Analyze Many: a label asks for a new analysis attempt on the same report (it goes into the
	 * start only, spec "Report status": a failed report needs a deliberate new attempt).
	 */
	labelMakesNewReport: boolean;
}

/** One upload as it will be sent: what it is, its key and its body with the file reference. */
export interface UploadWrite {
	/** The identity keys were first derived from (the name included), kept so that earlier receipts still answer. */
	identity: unknown[];
	/** What the file is, whatever it is called (writes/identity.ts, contentIdentity). */
	content: unknown[];
	/** The key of the content: same for the same bytes, job, type, reference and label (merges, chunk duplicates). */
	contentKey: string;
	/** The key sent: the content's under the user's reference, the first identity's under the node's file reference. */
	key: string;
	body: UploadInput;
	/** Bodies earlier versions sent under `key` (asked for again when the key was used with another body). */
	asBefore: UploadInput[];
	/** The key earlier versions sent an upload under the user's reference with (probed on a reference conflict). */
	legacyKey: string;
	/** Whether `key` is derived from the content (so that a receipt under it proves these bytes were sent). */
	keyIsContent: boolean;
	choice: WriteChoice;
}

/** The upload's body: the user's external reference, or the file reference derived from what the file is. */
export function withFileReference(
	input: UploadInput,
	content: readonly unknown[],
	choice: WriteChoice,
): UploadInput {
	if (input.externalReference) return input;
	return { ...input, externalReference: fileReference(content, choice.attemptLabel) };
}

/** What the item's upload is, its key and its body (the file is read once per run: transport/binary.ts). */
export async function uploadWriteOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	write: WriteChoice,
	step: string | undefined,
	options: UploadOptions,
): Promise<UploadWrite> {
	const choice = options.labelMakesNewReport ? write : { ...write, attemptLabel: undefined };
	const digest = await resumeDigest(ctx, itemIndex);
	const identity = uploadIdentity(input, digest);
	const content = contentIdentity(input, digest);
	const legacyKey = keyFor(choice, 'upload', identity, step);
	const contentKey = keyFor({ attemptLabel: choice.attemptLabel }, 'upload', ['content', content]);
	const userReference = input.externalReference !== undefined;
	// Under the node's file reference the reference itself proves the bytes, and the first key keeps the receipts of
	// uploads made before content identity answering. Under the user's reference the key is what proves them.
	const key =
		userReference && !choice.userKey
			? keyFor(choice, 'upload', ['content', content], step)
			: legacyKey;
	const asBefore = userReference
		? []
		: [{ ...input, externalReference: legacyFileReference(identity, choice.attemptLabel) }, input];
	return {
		identity,
		content,
		contentKey,
		key,
		body: withFileReference(input, content, choice),
		asBefore,
		legacyKey,
		keyIsContent: key !== legacyKey,
		choice,
	};
}
