import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { batchTimeoutOption } from '../../engine/batch';
import {
	ANALYSIS_BATCH,
	quoteCharged,
	submitCharged,
	type ChargedChunk,
	type ChargedEntry,
} from '../common/chargedBatch';
import { includeReportOption, readReportSummaries } from './batchSummaries';
import {
	checkBatchUpload,
	createUploadBatch,
	putUploadBatch,
	type UploadChunk,
} from '../upload/uploadBatch';
import {
	binaryPropertyField,
	expectedRevisionOption,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
	simplifyReportsField,
	chargeNotice,
	spendingLimitField,
} from '../common/descriptions';
import type { Run } from '../../engine/run';

export const description: INodeProperties[] = [
	chargeNotice('analysis'),
	{
		displayName:
			'Analyzes all input items together, 20 at a time, and waits for each 20 to finish. For more than 20 resumes, Analyze Resume is faster; Analyze Many makes fewer calls.',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	binaryPropertyField,
	...jobDescriptionFields,
	simplifyReportsField('once its batch has finished'),
	spendingLimitField,
	optionsCollection([
		batchTimeoutOption,
		expectedRevisionOption,
		...resumeFileOptions,
		includeReportOption,
	]),
];

export const mode = 'batch';

export async function check(this: IExecuteFunctions, itemIndex: number, run: Run) {
	// A label asks Analyze Many for a new analysis attempt on the same report, not for another report.
	return await checkBatchUpload(this, run, itemIndex, { labelMakesNewReport: false });
}

/** Stage 3 charges: at most one chunk is uploaded and quoted ahead of it. */
export const submitStage = 3;

type AnalyzeChunk = UploadChunk & ChargedChunk;

/** The upload batch's id becomes uploadBatchId, so that batchId names the analysis batch as in Start Many. */
function toAnalysisEntries(chunk: AnalyzeChunk): AnalyzeChunk {
	const pending: ChargedEntry[] = [];
	for (const { position, itemIndex, choice, duplicateOf } of chunk.valid ?? []) {
		const outcome = chunk.outcomes[position];
		// The same upload as an earlier item of this chunk: analysed once, with that item (shareDuplicates).
		if (outcome instanceof Error || duplicateOf !== undefined) continue;
		const { batchId: uploadBatchId, ...upload } = outcome;
		if (outcome.uploaded !== true) {
			chunk.outcomes[position] = { uploadBatchId, ...upload };
			continue;
		}
		const kept: IDataObject = {
			reportId: upload.reportId,
			fileName: upload.fileName,
			uploadBatchId,
			uploaded: true,
			uploadUrlRefreshed: upload.uploadUrlRefreshed,
			...(upload.sameWriteAs === undefined ? {} : { sameWriteAs: upload.sameWriteAs }),
			...(upload.sameFileAsBefore === true ? { sameFileAsBefore: true } : {}),
			...(upload.replacesExpiredReportId === undefined
				? {}
				: { replacesExpiredReportId: upload.replacesExpiredReportId }),
		};
		chunk.outcomes[position] = kept;
		const reportId = String(upload.reportId);
		const checkExisting = upload.alreadyAdmitted === true;
		pending.push({
			position,
			itemIndex,
			reportId,
			input: { reportId },
			choice,
			checkExisting,
			kept,
		});
	}
	return { ...chunk, pending };
}

/** An item uploading the same as an earlier item of the chunk shares its analysis: one charge. */
function shareDuplicates(chunk: AnalyzeChunk): AnalyzeChunk {
	for (const { position, itemIndex, duplicateOf, input } of chunk.valid ?? []) {
		if (duplicateOf === undefined) continue;
		const own = chunk.outcomes[position];
		const shared = chunk.outcomes[duplicateOf];
		if (shared instanceof Error) chunk.outcomes[position] = shared;
		if (own instanceof Error || shared instanceof Error) continue;
		chunk.outcomes[position] = {
			...shared,
			itemKey: own.itemKey ?? `item-${itemIndex}`,
			fileName: input.fileName,
			sameWriteAs: own.sameWriteAs,
		};
	}
	return chunk;
}

/** One stage per chunk at a time, so at most one upload batch and one analysis batch are active. */
export const stages = [
	async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return await createUploadBatch(this, chunk);
	},
	async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return toAnalysisEntries(await putUploadBatch(this, chunk));
	},
	async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return {
			...chunk,
			pending: await quoteCharged(this, chunk, ANALYSIS_BATCH, chunk.pending ?? []),
		};
	},
	async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return shareDuplicates(await submitCharged(this, chunk, ANALYSIS_BATCH));
	},
	readReportSummaries,
];
