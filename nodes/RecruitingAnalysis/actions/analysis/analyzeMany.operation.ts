import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { batchTimeoutOption } from '../../engine/batch';
import {
	quoteAnalyses,
	submitAnalyses,
	type AnalysisChunk,
	type AnalysisEntry,
} from './batchStages';
import { includeReportOption, readReportSummaries } from './batchSummaries';
import { createUploadBatch, putUploadBatch, type UploadChunk } from '../upload/batchStages';
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
import { readWriteChoice } from '../../writes/identity';
import { stage } from '../../engine/types';
import { readUploadInput } from '../upload/resumeUpload';

const properties: INodeProperties[] = [
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

export const description = updateDisplayOptions(
	{ show: { resource: ['analysis'], operation: ['analyzeMany'] } },
	properties,
);

export const mode = 'batch';

/** Each item's input and key choice, checked before the first chunk starts (engine/run.ts). */
export async function check(this: IExecuteFunctions, itemIndex: number) {
	return {
		choice: readWriteChoice(this, itemIndex),
		input: await readUploadInput(this, itemIndex),
	};
}

/** The analysis batch (stage 3) charges; at most one chunk is uploaded and quoted ahead of it. */
export const submitStage = 3;

type AnalyzeChunk = UploadChunk & AnalysisChunk;

/**
 * After the PUTs: every uploaded item becomes an analysis entry, its outcome the upload's facts (the upload
 * batch's ID as uploadBatchId, so that batchId can name the analysis batch as in Start Many). An item whose
 * upload was refused keeps the upload batch item (state, errorCode) and is not analyzed.
 */
function toAnalysisEntries(chunk: AnalyzeChunk): AnalyzeChunk {
	const pending: AnalysisEntry[] = [];
	for (const { position, itemIndex, choice, duplicateOf } of chunk.valid ?? []) {
		const outcome = chunk.outcomes[position];
		// The same upload as an earlier item of this chunk: analysed once, with that item (shareDuplicates).
		if (outcome instanceof Error || duplicateOf !== undefined) continue;
		const { batchId: uploadBatchId, ...upload } = outcome;
		if (outcome.uploaded !== true) {
			chunk.outcomes[position] = { uploadBatchId, ...upload };
			continue;
		}
		chunk.outcomes[position] = {
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
		} as IDataObject;
		// An upload that was already admitted (a repeat of this run) has an attempt: checked before it is quoted.
		const checkExisting = upload.alreadyAdmitted === true;
		pending.push({ position, itemIndex, reportId: String(upload.reportId), choice, checkExisting });
	}
	return { ...chunk, pending };
}

/** An item whose upload was the same as an earlier item's of the chunk gets that item's analysis (one charge). */
function shareDuplicates(chunk: AnalyzeChunk): AnalyzeChunk {
	for (const { position, itemIndex, duplicateOf, input } of chunk.valid ?? []) {
		if (duplicateOf === undefined) continue;
		const own = chunk.outcomes[position];
		const shared = chunk.outcomes[duplicateOf];
		if (own instanceof Error || shared instanceof Error) {
			if (shared instanceof Error) chunk.outcomes[position] = shared;
			continue;
		}
		chunk.outcomes[position] = {
			...shared,
			itemKey: own.itemKey ?? `item-${itemIndex}`,
			fileName: input.fileName,
			sameWriteAs: own.sameWriteAs,
		};
	}
	return chunk;
}

/**
 * Analyze Many: the batch form of Analyze Resume. Per chunk of up to 20 input items, five stages that the engine
 * runs as a pipeline (each stage one chunk at a time, so one upload batch and one analysis batch at most are
 * active): create the upload batch and read its signed URLs; PUT the files; quote the uploaded reports; submit
 * them as one analysis batch and wait until every analysis has finished; read the report summaries (option).
 * So the next files are uploaded and quoted while this chunk's analyses run. Without Continue On Fail, an item
 * that failed (invalid input, a PUT that kept failing) stops the node: the engine starts no stage of any chunk
 * after it, so that chunk is neither quoted nor submitted and no analysis is charged for a failed run.
 */
export const stages = [
	stage(async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		// A label asks Analyze Many for a new analysis attempt on the same report, not for another report.
		return await createUploadBatch(this, chunk, { labelMakesNewReport: false });
	}),
	stage(async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return toAnalysisEntries(await putUploadBatch(this, chunk));
	}),
	stage(async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return await quoteAnalyses(this, chunk);
	}),
	stage(async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return shareDuplicates(await submitAnalyses(this, chunk));
	}),
	stage(async function (this: IExecuteFunctions, chunk: AnalyzeChunk) {
		return await readReportSummaries(this, chunk);
	}),
];
