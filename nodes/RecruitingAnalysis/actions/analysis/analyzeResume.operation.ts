import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { readWaitSettings, startAnalysis, waitForReport } from '../shared/analysis';
import { api } from '../shared/api';
import {
	binaryPropertyField,
	concurrencyOption,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
	waitForCompletionOptions,
} from '../shared/descriptions';
import { optionsParam } from '../shared/params';
import { readUploadInput, uploadResume } from '../shared/upload';
import { checkUserKey } from '../shared/validate';
import { later } from '../shared/waiter';

const properties: INodeProperties[] = [
	binaryPropertyField,
	...jobDescriptionFields,
	optionsCollection([concurrencyOption, ...resumeFileOptions, ...waitForCompletionOptions]),
];

export const description = updateDisplayOptions({ show: { resource: ['analysis'], operation: ['analyzeResume'] } }, properties);

/** The whole flow in one step: prepare the upload, PUT the file, quote, start the analysis (and optionally wait). */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const options = optionsParam(this, itemIndex);
	const userKey = checkUserKey(this, options, itemIndex);
	const wait = readWaitSettings(options);
	const input = await readUploadInput(this, itemIndex);

	const uploaded = await uploadResume(this, itemIndex, input, 'analysis.analyzeResume.prepare', userKey, userKey && 'prepare');
	const reportId = String(uploaded.reportId);
	if (uploaded.alreadyAdmitted === true) {
		// A replay of an Analyze Resume whose analysis was already admitted (same idempotency key): no new quote
		// or start (the service refuses both); report the attempt that exists.
		const status = await api(this, { method: 'GET', path: apiPath('/api/v1/reports/{}/status', reportId), itemIndex });
		if (!wait.waitForCompletion) return { ...uploaded, attemptId: status.attemptId ?? null, status: status.status };
		return later(waitForReport(this, itemIndex, reportId, wait, false));
	}
	const started = await startAnalysis(
		this,
		itemIndex,
		reportId,
		{ quoteAutomatically: true },
		'analysis.analyzeResume.start',
		userKey,
		userKey && 'start',
	);
	const output = { ...uploaded, ...started };
	if (!wait.waitForCompletion) return output;
	// After waiting, the output is what the user chose to see (summary, result or simplified result). The wait is
	// shared with the other items and does not hold this lane.
	return later(waitForReport(this, itemIndex, reportId, wait));
}
