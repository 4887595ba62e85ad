/**
 * Where an item's file goes: the preparation and what its refusals mean for the file (sameFile.ts), the report found
 * to hold it, and the renewal of a preparation that expired. Used by the single and the batch uploads alike.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import type { UploadTarget } from '../../transport';
import type { UploadInput } from '../../validation';
import { outcomeOf } from '../../transport/conditions';
import { keyFor, legacyFileReference } from '../../writes/identity';
import { existsCondition } from '../../writes/recover';
import {
	ANALYSED_OTHER_FILE,
	byFileReference,
	declaredFor,
	otherFileUnderReference,
	refreshTarget,
	reportOfReference,
} from './sameFile';
import {
	prepareUpload,
	UPLOAD_RENEW_STEP,
	withFileReference,
	type PreparedUpload,
	type UploadWrite,
} from './uploadWrite';

/** What a preparation answered: a new (or replayed) preparation, or the report found to hold the item's file. */
export type Preparation =
	{ prepared: PreparedUpload } | { found: IDataObject; verified: boolean; from: string };

/**
 * POST /api/v1/uploads of `upload`, and what its refusals mean for the item's file:
 * - IDEMPOTENCY_KEY_REUSED under a key derived from the content: these bytes were sent under this reference before
 *   (with another name): the report of the reference holds them;
 * - IDEMPOTENCY_KEY_REUSED under the first key (a receipt made by an earlier version of this node with another body):
 *   the upload is asked for as it was first sent, so its receipt gives the report back instead of a second one;
 * - EXTERNAL_REFERENCE_CONFLICT: under the node's file reference, the report holds these bytes; under the user's,
 *   the key an earlier version used is asked for as it was first sent, else the report is found but not verified.
 */
export async function prepareWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	upload: UploadWrite,
): Promise<Preparation> {
	const first = await outcomeOf(
		async () => await prepareUpload(ctx, itemIndex, upload.body, upload.key),
	);
	if (first.ok) return { prepared: first.value };
	const condition = existsCondition(first.error);
	const reference = upload.body.externalReference;
	if (condition === 'IDEMPOTENCY_KEY_REUSED') {
		if (upload.keyIsContent && reference) {
			const found = await reportOfReference(ctx, itemIndex, input, reference, first.error);
			return { found, verified: true, from: 'IDEMPOTENCY_KEY_REUSED' };
		}
		for (const body of upload.asBefore) {
			const asBefore = await outcomeOf(
				async () => await prepareUpload(ctx, itemIndex, body, upload.key),
			);
			if (asBefore.ok) return { prepared: asBefore.value };
		}
		throw first.error;
	}
	if (condition !== 'EXTERNAL_REFERENCE_CONFLICT' || !reference) throw first.error;
	if (byFileReference(upload.body)) {
		const found = await reportOfReference(ctx, itemIndex, input, reference, first.error);
		return { found, verified: true, from: 'EXTERNAL_REFERENCE_CONFLICT' };
	}
	if (upload.keyIsContent) {
		const legacy = await outcomeOf(
			async () => await prepareUpload(ctx, itemIndex, input, upload.legacyKey),
		);
		if (legacy.ok) return { prepared: legacy.value };
	}
	const found = await reportOfReference(ctx, itemIndex, input, reference, first.error);
	return { found, verified: false, from: 'EXTERNAL_REFERENCE_CONFLICT' };
}

/** Where the item's file goes: a live preparation, or a report whose analysis was already admitted. */
export interface FileTarget {
	reportId: string;
	upload?: UploadTarget;
	admitted: boolean;
	/** The report whose preparation expired and that this one replaces. */
	replaces?: string;
}

/** How many expired preparations in a row are renewed before giving up (each renewal is a new day at most). */
export const MAX_RENEWALS = 4;

/**
 * A report found for the item's file, made a target: refreshed when not yet admitted (its declared size and type
 * checked when it is not known to hold the file), renewed when its preparation expired.
 */
export async function targetOfFound(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	upload: UploadWrite,
	found: IDataObject,
	verified: boolean,
): Promise<FileTarget> {
	const reportId = String(found.reportId);
	const admitted = () => {
		if (!verified) throw otherFileUnderReference(ctx, itemIndex, input, found, ANALYSED_OTHER_FILE);
		return { reportId, admitted: true };
	};
	if (found.attemptId !== null && found.attemptId !== undefined) return admitted();
	const refreshed = await refreshTarget(ctx, itemIndex, reportId);
	if (refreshed.live) {
		if (!verified && !declaredFor(refreshed.upload, input))
			throw otherFileUnderReference(
				ctx,
				itemIndex,
				input,
				found,
				'That report was prepared for a file of another size or type and never analysed.',
			);
		return { reportId, upload: refreshed.upload, admitted: false };
	}
	if (refreshed.admitted) return admitted();
	return await renewedTarget(ctx, itemIndex, input, upload, reportId, 1);
}

/** One new preparation for an expired one (renewExpiredUpload), made a target; a renewal found expired is renewed. */
export async function renewedTarget(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	upload: UploadWrite,
	expiredReportId: string,
	round: number,
): Promise<FileTarget> {
	const renewal = await renewExpiredUpload(ctx, itemIndex, input, upload, expiredReportId);
	if ('prepared' in renewal)
		return { ...renewal.prepared, admitted: false, replaces: expiredReportId };
	const reportId = String(renewal.found.reportId);
	if (renewal.found.attemptId !== null && renewal.found.attemptId !== undefined)
		return { reportId, admitted: true, replaces: expiredReportId };
	const refreshed = await refreshTarget(ctx, itemIndex, reportId);
	if (refreshed.live)
		return { reportId, upload: refreshed.upload, admitted: false, replaces: expiredReportId };
	if (refreshed.admitted) return { reportId, admitted: true, replaces: expiredReportId };
	if (round >= MAX_RENEWALS)
		throw new NodeOperationError(
			ctx.getNode(),
			`The upload preparation of report ${reportId} expired`,
			{ itemIndex },
		);
	return await renewedTarget(ctx, itemIndex, input, upload, reportId, round + 1);
}

/**
 * The preparation of `expiredReportId` expired unadmitted: its report can never be analyzed, and the node's file
 * reference must not stay bound to it. One new preparation, keyed and referenced by the expired report, so every
 * repeat of this run reaches the same new report (by receipt, or by that reference once the receipt is gone). Under
 * the user's reference there is none: the spec keeps the reference for the expired report, and the error says so.
 * Used by the single and the batch uploads alike.
 */
export async function renewExpiredUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	upload: UploadWrite,
	expiredReportId: string,
): Promise<{ prepared: PreparedUpload } | { found: IDataObject }> {
	if (input.externalReference) {
		const reference = input.externalReference;
		throw new NodeOperationError(
			ctx.getNode(),
			`The upload preparation of report ${expiredReportId} expired before it was analysed`,
			{
				itemIndex,
				description:
					`Report ${expiredReportId} holds external reference ${reference.source}/${reference.id}, and a preparation lives 24 hours. ` +
					'The service keeps an external reference for one report, so the file cannot be prepared again under it. Nothing was charged. ' +
					`Give this file another External Reference ID (for example "${reference.id}-2") and run again.`,
			},
		);
	}
	const renews = ['renews', expiredReportId];
	const body = withFileReference(input, [...upload.content, renews], upload.choice);
	const key = keyFor(upload.choice, 'upload', [...upload.identity, renews], UPLOAD_RENEW_STEP);
	const renewal = await outcomeOf(async () => await prepareUpload(ctx, itemIndex, body, key));
	if (renewal.ok) return { prepared: renewal.value };
	if (existsCondition(renewal.error) === 'IDEMPOTENCY_KEY_REUSED') {
		// A renewal an earlier version made under this key, with the file reference of its time: asked for as it was sent.
		const before = {
			...input,
			externalReference: legacyFileReference(
				[...upload.identity, renews],
				upload.choice.attemptLabel,
			),
		};
		const asBefore = await outcomeOf(async () => await prepareUpload(ctx, itemIndex, before, key));
		if (asBefore.ok) return { prepared: asBefore.value };
		throw renewal.error;
	}
	const reference = body.externalReference;
	if (existsCondition(renewal.error) !== 'EXTERNAL_REFERENCE_CONFLICT' || !reference)
		throw renewal.error;
	// An earlier run renewed it already (and its receipt is gone): the renewal's reference finds it.
	return { found: await reportOfReference(ctx, itemIndex, input, reference, renewal.error) };
}
