/**
 * Recovery checks the file: a report found under an upload's external reference is given back as the item's only
 * when it holds the item's file. What tells:
 * - the node's own file reference (source `n8n-file`) is a digest of the bytes, the job, the type and the label
 *   (writes/identity.ts, contentIdentity): the report that holds it holds these bytes, by construction;
 * - under the user's reference, the key of the upload carries the bytes' digest, so its receipt (or an
 *   IDEMPOTENCY_KEY_REUSED under it) says these bytes were sent under this reference;
 * - a report not yet analysed is given the item's file now (PUT through a refreshed URL), when its declared size and
 *   type (the spec's upload fields, in the refresh answer) are the item's.
 * Anything else under the user's reference is another file: the spec keeps an external reference for one report, so
 * the item fails before anything is charged, naming the report that holds the reference and what to do.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath, type UploadTarget } from '../../transport';
import { api } from '../../transport/api';
import { hasApiCondition, outcomeOf } from '../../transport/conditions';
import { isFileReference } from '../../writes/identity';
import { recoverWrite } from '../../writes/recover';
import type { UploadInput } from '../../validation';

/** The report an external reference names, read back (recovered), or the original error when there is none. */
export async function reportOfReference(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	reference: { source: string; id: string },
	error?: unknown,
): Promise<IDataObject> {
	return await recoverWrite(
		ctx,
		itemIndex,
		{
			kind: 'upload',
			externalReference: reference,
			jobDescription: input.jobDescription as unknown as IDataObject,
		},
		'EXTERNAL_REFERENCE_CONFLICT',
		error,
	);
}

/** The answer of a URL refresh of a report not yet analysed: a live target, or why there is none. */
export type Refreshed =
	{ live: true; upload: UploadTarget } | { live: false; expired: boolean; admitted: boolean };

/** POST /api/v1/uploads/{id}/url: a fresh signed URL, or PREPARATION_EXPIRED / ALREADY_ADMITTED told apart. */
export async function refreshTarget(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
): Promise<Refreshed> {
	const answer = await outcomeOf(
		async () =>
			await api(ctx, {
				method: 'POST',
				path: apiPath('/api/v1/uploads/{}/url', reportId),
				itemIndex,
			}),
	);
	if (answer.ok) return { live: true, upload: answer.value.upload as unknown as UploadTarget };
	if (hasApiCondition(answer.error, 'PREPARATION_EXPIRED'))
		return { live: false, expired: true, admitted: false };
	if (hasApiCondition(answer.error, 'ALREADY_ADMITTED'))
		return { live: false, expired: false, admitted: true };
	throw answer.error;
}

/** Whether a prepared upload's declared size and type (the spec's upload fields) are the item's file's. */
export function declaredFor(target: UploadTarget, input: UploadInput): boolean {
	const declared = target as unknown as IDataObject;
	return (
		(declared.sizeBytes === undefined || declared.sizeBytes === input.fileSize) &&
		(declared.mimeType === undefined || declared.mimeType === input.mimeType)
	);
}

/**
 * The item's file is not the one the report under the user's external reference holds (or the node cannot tell it
 * is): the error names the report, its state, and what to do. Nothing was charged.
 */
export function otherFileUnderReference(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	found: IDataObject,
	why: string,
): NodeOperationError {
	const reference = input.externalReference as { source: string; id: string };
	const state = [found.status, found.code].filter((part) => typeof part === 'string').join(', ');
	return new NodeOperationError(
		ctx.getNode(),
		`External reference ${reference.source}/${reference.id} is held by report ${String(found.reportId)} (${state}), not made from this file`,
		{
			itemIndex,
			description:
				`${why} The service keeps an external reference for one report, so the file of this item (${input.fileName}) ` +
				'cannot be uploaded under it. Nothing was uploaded or charged. If this is a corrected file (for example a re-scan after a failed report), ' +
				`give it another External Reference ID (for example "${reference.id}-2") and run again; if it is the same file, report ${String(found.reportId)} is its analysis.`,
		},
	);
}

/** Why a report under the user's reference, already analysed, cannot be told to hold the item's file. */
export const ANALYSED_OTHER_FILE =
	'That report was analysed from the file first uploaded under this reference; no receipt of this upload ties it to this file (the file changed, or the service has forgotten the receipt).';

/** Whether the report of an upload is found through the node's own file reference (it then holds these bytes). */
export function byFileReference(body: UploadInput): boolean {
	return isFileReference(body.externalReference);
}
